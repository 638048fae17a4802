"""ctrl+z: the inverse of the last action the app applied, planned like any other change.

archive -> recover, delete -> recover (back to the active place), recover -> archive again,
save -> save the previous content (a new file: archive it, never a silent removal).
Purge, upgrade and doctor have no inverse: they are refused with a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pmem_tui.core import lifecycle, textio
from pmem_tui.core.plan import Plan


@dataclass(frozen=True)
class UndoOffer:
    title: str
    explanation: str
    plan: Plan | None = None  # a ready plan to preview
    archive_paths: tuple[str, ...] = ()  # or: archive these (the reason is asked for, prefilled)
    reason: str = ""


class NoUndo(Exception):
    """Nothing to undo, or an action that cannot be undone (one sentence)."""


def undo_offer(root: Path, last: Plan | None) -> UndoOffer:
    """Plan the inverse of `last`; raises NoUndo or a PmemError (the inverse cannot be planned now)."""
    if last is None:
        raise NoUndo("Nothing to undo: no action was applied in this session.")
    items = list(last.items)
    what = items[0] if len(items) == 1 else f"{len(items)} files"
    if last.action in ("archive", "delete"):
        if not items:
            raise NoUndo("Nothing to undo.")
        plan = (
            lifecycle.plan_recover(root, items[0])
            if len(items) == 1
            else lifecycle.plan_recover_many(root, items)
        )
        where = "from the archive" if last.action == "archive" else "from the trash to its active place"
        return UndoOffer(
            title=f"Undo: {last.title}",
            explanation=f"Undo the {last.action} of {what}: recover it {where}, with its index line.",
            plan=plan,
        )
    if last.action == "recover":
        return UndoOffer(
            title=f"Undo: {last.title}",
            explanation=f"Undo the recovery of {what}: archive it again (a new archive record is written).",
            archive_paths=tuple(items),
            reason="Undo of a recovery",
        )
    if last.action == "save" and items:
        rel = items[0]
        diff = next((d for d in last.preview.diffs if d.path == rel), None)
        if diff is None:
            raise NoUndo(f"The save of {rel} cannot be undone: its previous content is unknown.")
        if diff.is_new:
            return UndoOffer(
                title=f"Undo: {last.title}",
                explanation=f"{rel} was new. pmem-tui never removes a memory file directly: "
                "undoing archives it instead (recoverable).",
                archive_paths=(rel,),
                reason="Undo of a new file",
            )
        old_line = last.preview.index_removed[0] if last.preview.index_removed else None
        plan = lifecycle.plan_save(root, rel, textio.encode(diff.old), old_line)
        return UndoOffer(
            title=f"Undo: {last.title}",
            explanation=f"Undo the save of {rel}: write back its previous content"
            + (" and its previous index line." if old_line else "."),
            plan=plan,
        )
    raise NoUndo(
        f"{last.title} cannot be undone"
        + (": the files are removed for good." if last.action == "purge" else ".")
    )
