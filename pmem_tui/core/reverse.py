"""Plans that take an applied action back (the app's undo and redo), so the tree is as it was before it.

`leave_folders`: an undo's plan, plus the removal of each folder the undone action created that holds
nothing once the undo has run (`_archive/notes/` made by an archive, `_archive/_trash/notes/` by a delete,
`notes/` by a recover). A folder that holds anything else, or that is a link, is left alone; the executor
checks the path again (no link at any depth), leaves a folder that is not the one the preview saw
(`Plan.folders`: removed and made again since, or changed inside), and removes it only if it is empty then.

`plan_reverse`: the exact inverse of a delete, or of a recover from the trash: each move taken back, each
control file's edit taken back (merged with what an agent wrote since; refused when both touched the same
lines). A delete's undo puts the file back where it stood in the archive, its record as before; a recover's
undo puts it back in the trash, its record and index line as before (recovering again is its redo).

`check_recovered`: a recover's undo (back to the trash, or archived again) acts only on the file the recover
put back, where it put it, with the bytes it moved: if the person or an agent moved it since, the undo is
refused with one sentence rather than acting on whatever stands at that path now (or on nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pmem_tui.core import journal, records, safeio, textio
from pmem_tui.core.draft import Draft, exists
from pmem_tui.core.errors import EditedSince, Refused
from pmem_tui.core.fingerprint import fingerprint, folder_print
from pmem_tui.core.layout import require_lifecycle
from pmem_tui.core.merge3 import merge3
from pmem_tui.core.model import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CORE_DIR,
    INDEX_FILE,
    META_DIR,
    TRASH_DIR,
    FolderPrint,
)
from pmem_tui.core.plan import MakeDir, MoveFile, Plan, RemoveDir, WriteFile

# Never removed, even when an action made them and they are empty: the lifecycle's own folders.
KEPT = frozenset({ARCHIVE_DIR, TRASH_DIR, CORE_DIR, META_DIR})


def created_folders(plan: Plan) -> tuple[str, ...]:
    """The folders applying `plan` made (they were missing when it was planned)."""
    return tuple(op.path for op in plan.ops if isinstance(op, MakeDir))


def leave_folders(root: Path, plan: Plan, created: Sequence[str]) -> Plan:
    """`plan` (an undo), removing besides each folder of `created` (made by the action it undoes) that
    holds nothing once `plan` has run: no file but those it moves out, no folder but those it removes."""
    leaving: dict[str, set[str]] = {}
    arriving: set[str] = set()
    for op in plan.ops:
        if isinstance(op, MoveFile):
            leaving.setdefault(_parent(op.src), set()).add(_name(op.src))
            arriving.add(op.dst)
        elif isinstance(op, (MakeDir, WriteFile)):
            arriving.add(op.path)
    gone: list[str] = []
    seen: dict[str, FolderPrint] = {}
    for folder in sorted(set(created), key=lambda f: (-f.count("/"), f)):  # the deepest first
        if folder in KEPT or any(p == folder or p.startswith(folder + "/") for p in arriving):
            continue
        listed = _listed(root, folder)
        if listed is None:
            continue
        names, seen[folder] = listed
        names -= leaving.get(folder, set())
        names -= {_name(g) for g in gone if _parent(g) == folder}
        if not names:
            gone.append(folder)
    if not gone:
        return plan
    return replace(
        plan,
        ops=(*plan.ops, *(RemoveDir(folder) for folder in gone)),
        preview=replace(plan.preview, removes_dirs=tuple(gone)),
        folders={**plan.folders, **{folder: seen[folder] for folder in gone}},
    )


def _listed(root: Path, folder: str) -> tuple[set[str], FolderPrint] | None:
    """The entries of `folder`, a real folder reached without a link (and listed through it: found in
    review, a link swapped in after the check was followed), and what the executor checks again of it
    (`folder_print`, taken first: a change while it is listed shows); None when it is not one."""
    try:
        seen = folder_print(root, folder)
        return set(safeio.names_in(root, folder)), seen
    except (OSError, ValueError):  # a link on the way, a file: not a folder to remove
        return None


def check_recovered(root: Path, last: Plan, verb: str = "undo") -> None:
    """Refuse (one sentence) unless each file `last`, a recover, moved is still where it put it, with the
    bytes it moved (an edit saved since in the app is undone before, which writes those bytes back). `verb`:
    what takes it back ("undo", or "redo" when the recover was itself an archive's undo)."""
    for src, dst in last.preview.moves:
        seen = last.reads.get(src)
        try:
            now = fingerprint(root / dst)
        except OSError:  # a FIFO, a file that cannot be opened: not the file the recover moved
            now = None
        if now is None or now.size < 0:
            raise Refused(f"{dst} was moved since; {verb} would not put back what the recover did.")
        if seen is not None and now.sha256 != seen.sha256:
            raise Refused(
                f"{dst} was moved or changed since: it is not the file the recover put there; {verb} would "
                "not put back what the recover did."
            )


def plan_reverse(root: Path, last: Plan, action: str, title: str) -> Plan:
    """The exact inverse of `last` (a delete, or a recover from the trash), planned now."""
    require_lifecycle(root, "recover")
    journal.check_quiet(root)
    if last.action == "recover":
        check_recovered(root, last)
    draft = Draft(root)
    for src, dst in reversed(last.preview.moves):
        if not exists(root, dst):
            raise Refused(f"{dst} is no longer there; nothing can be put back.")
        if exists(root, src):
            raise Refused(f"{src} already exists; nothing is moved, overwritten or merged.")
        draft.move(dst, src)
    for diff in last.preview.diffs:
        if diff.path not in (INDEX_FILE, ARCHIVE_INDEX) or diff.is_new:
            raise Refused(f"{last.title} changed {diff.path}, which cannot be taken back.")
        now = draft.text(diff.path) or ""
        back = diff.old
        if now != diff.new:
            merged = merge3(textio.encode(diff.new), textio.encode(now), textio.encode(diff.old))
            if merged is None:
                raise EditedSince(
                    f"{diff.path} was edited since, on the lines {last.title.lower()} changed; "
                    "nothing can be taken back."
                )
            back = textio.decode(merged)
        draft.set_text(diff.path, back)
    draft.index_removed.extend(last.preview.index_added)
    draft.index_added.extend(last.preview.index_removed)
    for rel in last.items:
        draft.record_changes.append(f"Put back the record of {rel} as it was before: {_record(draft, rel)}")
        draft.items.append(rel)
        if rel in last.reasons:
            draft.reasons[rel] = last.reasons[rel]
    draft.outcomes.extend(f"Moved {dst} back to {src}." for src, dst in last.preview.moves)
    if action == "undo-recover":
        draft.recovery.append("Back in the trash as before the recovery, with the same recovery deadline.")
    else:
        draft.recovery.append(
            "Back in the archive as before the delete: it can be recovered or deleted again."
        )
    return draft.plan(action, title)


def _record(draft: Draft, rel: str) -> str:
    """The record of `rel` in the archive index the plan writes, in a few words."""
    rec = records.find_record(records.parse_records(draft.text(ARCHIVE_INDEX) or ""), rel)
    if rec is None:
        return "no record."
    parts = [f"archived {rec.archived.isoformat()}" if rec.archived else "no archive date"]
    if rec.deleted is not None:
        parts.append(f"deleted {rec.deleted.isoformat()}")
    if rec.deadline is not None:
        parts.append(f"recoverable until {rec.deadline.isoformat()}")
    parts.append(f"reason: {rec.reason}" if rec.reason else "no reason")
    return ", ".join(parts) + "."


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _name(rel: str) -> str:
    return rel.rsplit("/", 1)[-1]
