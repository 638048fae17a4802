"""ctrl+z / ctrl+y: the session's actions as a stack, each undone (and redone) through its own preview.

The inverse of an action is planned like any other change, so the tree is as it was before the action:
archive -> recover; delete -> the file back where it stood in the archive, its record as before (redo:
delete again); recover from the archive -> archive again, with the reason of the record it removed (asked
for only when that record had none); recover from the trash -> back in the trash, record and index line as
before (redo: recover again), either refused when the recovered file was moved or changed since
(`reverse.check_recovered`); save -> save the previous content (a new file: archive it, never a silent
removal). Each undo also removes the folders its action created that are empty once it has run. Purge,
upgrade and doctor have no inverse, nor has a redaction (its preview masks the secret, `FileDiff.masked`,
and pmem-tui keeps no copy to write back): they are refused with a sentence.

`History` keeps the steps: an applied action goes on `done` (and clears `undone`); an applied undo moves
its step to `undone`, an applied redo moves it back. A step remembers the plan applied last for it (the
action, its undo or its redo), whose inverse is what the next ctrl+z or ctrl+y plans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pmem_tui.core import index, lifecycle, reverse, textio
from pmem_tui.core.errors import EditedSince, Refused
from pmem_tui.core.model import TRASH_DIR
from pmem_tui.core.plan import Plan
from pmem_tui.core.words import plural
from pmem_tui.tui.keys import key_for


@dataclass(frozen=True)
class UndoOffer:
    title: str
    explanation: str
    plan: Plan | None = None  # a ready plan to preview
    archive_paths: tuple[str, ...] = ()  # or: archive these (the reason is asked for, prefilled)
    reason: str = ""
    created: tuple[str, ...] = ()  # the folders the undone action made: removed when empty afterwards


class NoUndo(Exception):
    """Nothing to undo, or an action that cannot be undone (one sentence)."""


@dataclass
class Step:
    title: str  # the action's own title ("Archive notes/a.md"), whatever undid or redid it since
    plan: Plan  # the plan applied last for it


@dataclass
class History:
    done: list[Step] = field(default_factory=list)
    undone: list[Step] = field(default_factory=list)
    _tags: dict[int, tuple[str, Step]] = field(default_factory=dict)

    def tag(self, plan: Plan, kind: str, step: Step) -> None:
        """`plan`, once applied, is the undo (or the redo) of `step`."""
        self._tags[id(plan)] = (kind, step)

    def record(self, plan: Plan) -> None:
        """An applied plan: a new action, or the undo or redo it was tagged as."""
        kind, step = self._tags.pop(id(plan), ("", None))
        if step is None:
            self.done.append(Step(plan.title, plan))
            self.undone.clear()
        elif kind == "undo" and step in self.done:
            self.done.remove(step)
            self.undone.append(Step(step.title, plan))
        elif kind == "redo" and step in self.undone:
            self.undone.remove(step)
            self.done.append(Step(step.title, plan))

    def undo_offer(self, root: Path) -> tuple[Step, UndoOffer]:
        if not self.done and self.undone:
            raise NoUndo("Nothing left to undo: every action of this session is undone; ctrl+y redoes.")
        if not self.done:
            raise NoUndo("Nothing to undo: no action was applied in this session.")
        step = self.done[-1]
        return step, inverse(root, step.plan, f"Undo: {step.title}", "Undo")

    @property
    def undoable(self) -> bool:
        """The last action can be undone (found in trial: `^z Undo` was offered after a purge)."""
        return bool(self.done) and reversible(self.done[-1].plan)

    def redo_offer(self, root: Path) -> tuple[Step, UndoOffer]:
        if not self.undone:
            raise NoUndo("Nothing to redo: ctrl+y redoes what ctrl+z undid in this session.")
        step = self.undone[-1]
        return step, inverse(root, step.plan, f"Redo: {step.title}", "Redo")


def _recover(root: Path, items: list[str], last: Plan) -> Plan:
    """Plan the recovery of `items`, archived or deleted by `last`. An agent may have taken a record's
    saved index line (or the whole record) since: an archive's undo still knows the line it removed."""
    removed: dict[str, list[str]] = {}
    for line in last.preview.index_removed:
        route = _route(line)
        if route is not None:
            removed.setdefault(route, []).append(line)
    # Only a route the action took one line of: for a route listed twice, one line would stand for two.
    saved = {route: lines[0] for route, lines in removed.items() if len(lines) == 1}
    try:
        if len(items) == 1:
            return lifecycle.plan_recover(root, items[0], fallback=saved.get(items[0]))
        return lifecycle.plan_recover_many(root, items, saved)
    except lifecycle.NeedsIndexLine as need:
        raise Refused(
            f"The record of {need.path} has no saved index line any more: recover it from the Archive or "
            f"Trash pane with {key_for('recover')}, which asks for the line."
        ) from None


def _reverse(root: Path, last: Plan, action: str, title: str, instead: str) -> Plan:
    """`reverse.plan_reverse`; refused for an agent's edit since, with what the person can do instead."""
    try:
        return reverse.plan_reverse(root, last, action, title)
    except EditedSince as clash:
        raise Refused(f"{str(clash).rstrip('.')}: {instead}.") from None


def _route(line: str) -> str | None:
    parsed = index.parse_line(line)
    return parsed[0] if parsed else None


REVERSIBLE = ("archive", "delete", "undo-delete", "undo-recover", "recover", "save", "restore")


def reversible(plan: Plan) -> bool:
    """Whether `inverse` may undo `plan`: not a purge (the files are gone), an upgrade or doctor, nor a
    save whose preview masked a secret (it is not kept). The key bar offers ctrl+z only then."""
    return plan.action in REVERSIBLE and not any(d.masked for d in plan.preview.diffs)


def inverse(root: Path, last: Plan, title: str, verb: str) -> UndoOffer:
    """Plan the inverse of `last`; raises NoUndo or a PmemError (the inverse cannot be planned now)."""
    items = list(last.items)
    what = items[0] if len(items) == 1 else plural(len(items), "file")
    created = reverse.created_folders(last)
    lines = "its index line" if len(items) == 1 else "their index lines"

    def offer(plan: Plan, explanation: str) -> UndoOffer:
        plan = reverse.leave_folders(root, plan, created)
        return UndoOffer(title=title, explanation=f"{title}: {explanation}", plan=plan)

    masked = next((d.path for d in last.preview.diffs if d.masked), None)
    if masked is not None:  # its preview hid what the file held: writing that back would write the mask
        raise NoUndo(
            f"{last.title} cannot be undone: pmem-tui does not keep the secret it removed from {masked}, "
            "so it cannot put it back."
        )
    if last.action in ("archive", "delete", "undo-delete", "undo-recover", "recover") and not items:
        raise NoUndo(f"Nothing to {verb.lower()}.")
    if last.action == "archive":
        return offer(_recover(root, items, last), f"recover {what} from the archive, with {lines}.")
    if last.action == "delete":
        instead = f"recover {what} from the Trash pane with {key_for('recover')} instead"
        plan = _reverse(root, last, "undo-delete", f"Put back {what} in the archive", instead)
        return offer(
            plan, f"put {what} back where it was in the archive, with the record as before the delete."
        )
    if last.action == "undo-delete":
        plan = lifecycle.plan_delete_many(root, items)
        return offer(plan, f"move {what} to the trash again (a new recovery deadline).")
    if last.action == "undo-recover":
        return offer(_recover(root, items, last), f"recover {what} from the trash again, with {lines}.")
    if last.action == "recover" and any(src.startswith(f"{TRASH_DIR}/") for src, _ in last.preview.moves):
        instead = (
            f"archive {what} again with {key_for('archive')} instead (then {key_for('delete')} deletes it)"
        )
        plan = _reverse(root, last, "undo-recover", f"Put back {what} in the trash", instead)
        return offer(plan, f"put {what} back in the trash, records and index lines as before the recovery.")
    if last.action == "recover":
        reverse.check_recovered(root, last, verb.lower())  # never archives another file standing there
        if all(p in last.reasons for p in items):
            # A batch is recovered last archived first: archived again in the opposite order, its records and
            # their neighbour lines are the ones the first archive wrote.
            plan = lifecycle.plan_archive_many(root, items[::-1], "", reasons=last.reasons)
            return offer(
                plan, f"archive {what} again, with the reason given before (a new record, dated today)."
            )
        return UndoOffer(
            title=title,
            explanation=f"{title}: archive {what} again (a new archive record is written).",
            archive_paths=tuple(items[::-1]),
            reason="Undo of a recovery" if verb == "Undo" else "Archived again (redo after an undo)",
            created=created,
        )
    if last.action in ("save", "restore") and items:  # a restore is a save of an older version
        rel = items[0]
        diff = next((d for d in last.preview.diffs if d.path == rel), None)
        if diff is None:
            raise NoUndo(f"The save of {rel} cannot be undone: its previous content is unknown.")
        if diff.is_new:
            return UndoOffer(
                title=title,
                explanation=f"{rel} was new. pmem-tui never removes a memory file directly: "
                "undoing archives it instead (recoverable).",
                archive_paths=(rel,),
                reason="Undo of a new file",
                # A first save's structure stays: the undo takes back the file, not the memory.
                created=tuple(f for f in created if f not in lifecycle.FIRST_SAVE_DIRS),
            )
        old_line = last.preview.index_removed[0] if last.preview.index_removed else None
        plan = lifecycle.plan_save(root, rel, textio.encode(diff.old), old_line)
        return UndoOffer(
            title=title,
            explanation=f"{title}: write back the previous content of {rel}"
            + (" and its previous index line." if old_line else "."),
            plan=plan,
        )
    raise NoUndo(
        f"{last.title} cannot be undone"
        + (": the files are removed for good." if last.action == "purge" else ".")
    )
