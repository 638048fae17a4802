"""Doctor: finish or undo an interrupted action, and repair what a crash can leave behind.

It derives how far each journaled step got from the disk itself, then plans to roll the action
forward (preferred: the person confirmed it) or back (when forward is impossible, or when the
executor undoes a failed step at once). Its own steps are idempotent, so a doctor interrupted in
turn is simply run again.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from pmem_tui.core import journal
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.errors import Refused
from pmem_tui.core.fingerprint import fingerprint, sha256_bytes
from pmem_tui.core.fsops import TEMP_PREFIX
from pmem_tui.core.model import (
    ARCHIVE_INDEX,
    META_DIR,
    RECOVERY_DAYS,
    TRASH_DIR,
    ArchiveRecord,
    Fingerprint,
)
from pmem_tui.core.plan import MakeDir, MoveFile, Op, Plan, Preview, RemoveDir, RemoveFile, WriteFile

DONE, TODO, HALF, CONFLICT = "done", "todo", "half", "conflict"


def _sha(path: Path) -> str | None:
    try:
        return sha256_bytes(path.read_bytes()) if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


def step_state(root: Path, step: journal.JournalStep) -> str:
    op = step.op
    if isinstance(op, MakeDir):
        return DONE if (root / op.path).is_dir() else TODO
    if isinstance(op, RemoveDir):
        return TODO if (root / op.path).is_dir() else DONE
    if isinstance(op, RemoveFile):
        return TODO if os.path.lexists(root / op.path) else DONE
    if isinstance(op, WriteFile):
        cur = _sha(root / op.path)
        if cur == step.new_sha:
            return DONE
        return TODO if cur == step.old_sha else CONFLICT
    assert isinstance(op, MoveFile)
    src, dst = os.path.lexists(root / op.src), os.path.lexists(root / op.dst)
    if dst and not src:
        return DONE
    if src and not dst:
        return TODO
    if src and dst:
        same = os.path.samefile(root / op.src, root / op.dst) or _sha(root / op.src) == _sha(root / op.dst)
        return HALF if same else CONFLICT
    return CONFLICT


def _forward(root: Path, intent: journal.Intent, states: list[str]) -> list[Op] | None:
    ops: list[Op] = []
    for n, (step, state) in enumerate(zip(intent.steps, states, strict=True)):
        op = step.op
        if state == CONFLICT:
            return None
        if state == DONE:
            continue
        if isinstance(op, WriteFile):
            try:
                data = journal.new_content(root, n)
            except OSError:
                return None
            if sha256_bytes(data) != step.new_sha:
                return None
            ops.append(WriteFile(op.path, data, create=not (root / op.path).exists()))
        elif isinstance(op, MoveFile) and state == HALF:
            ops.append(RemoveFile(op.src))
        else:
            ops.append(op)
    return ops


def _backward(root: Path, intent: journal.Intent, states: list[str]) -> list[Op] | None:
    ops: list[Op] = []
    for step, state in reversed(list(zip(intent.steps, states, strict=True))):
        op = step.op
        if state == CONFLICT:
            return None
        if isinstance(op, MoveFile) and state == HALF:
            ops.append(RemoveFile(op.dst))
            continue
        if state != DONE:
            continue
        if isinstance(op, RemoveFile):
            return None  # a purge that ran cannot be undone
        if isinstance(op, WriteFile):
            if step.old_blob is None:
                ops.append(RemoveFile(op.path))
                continue
            try:
                old = journal.read_blob(root, step.old_blob)
            except OSError:
                return None
            if sha256_bytes(old) != step.old_sha:
                return None
            ops.append(WriteFile(op.path, old))
        elif isinstance(op, MoveFile):
            ops.append(MoveFile(op.dst, op.src))
        elif isinstance(op, MakeDir):
            ops.append(RemoveDir(op.path))
        elif isinstance(op, RemoveDir):
            ops.append(MakeDir(op.path))
    return ops


def _describe(op: Op) -> str:
    if isinstance(op, WriteFile):
        return f"write {op.path}"
    if isinstance(op, MoveFile):
        return f"move {op.src} -> {op.dst}"
    if isinstance(op, RemoveFile):
        return f"remove {op.path}"
    if isinstance(op, RemoveDir):
        return f"remove empty folder {op.path}"
    return f"create folder {op.path}"


def plan_doctor(root: Path, prefer: str = "forward", today: dt.date | None = None) -> Plan:
    """Plan the repairs. Raises Refused when an interrupted action cannot be resolved safely."""
    today = today or clock_today()
    ops: list[Op] = []
    notes: list[str] = []
    reads: dict[str, Fingerprint | None] = {}
    title = "Doctor: nothing to repair"
    outcome = "Nothing needed repair."
    try:
        intent = journal.read_intent(root)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise Refused(f"The journal of an interrupted action is unreadable ({err}); it was left as is.") from err
    if intent is not None:
        states = [step_state(root, s) for s in intent.steps]
        first, second = (_forward, _backward) if prefer == "forward" else (_backward, _forward)
        steps = first(root, intent, states)
        direction = prefer
        if steps is None:
            steps = second(root, intent, states)
            direction = "back" if prefer == "forward" else "forward"
        if steps is None:
            conflicts = [_describe(s.op) for s, st in zip(intent.steps, states, strict=True) if st == CONFLICT]
            raise Refused(
                f"The interrupted action '{intent.title}' cannot be finished or undone safely: "
                f"{'; '.join(conflicts) or 'its journal is incomplete'} changed since; resolve it by hand."
            )
        # Rolling back a folder only when nothing else went in since.
        steps = [s for s in steps if not (isinstance(s, RemoveDir) and any((root / s.path).iterdir()))]
        verb = "Finish" if direction == "forward" else "Undo"
        title = f"Doctor: {verb.lower()} the interrupted action '{intent.title}'"
        outcome = f"{verb}ed the interrupted action '{intent.title}'; the memory is consistent again."
        notes.append(f"{verb} '{intent.title}' ({len(steps)} step(s) left to {'run' if verb == 'Finish' else 'undo'}).")
        notes.extend(f"  {_describe(op)}" for op in steps)
        ops.extend(steps)
        for op in steps:
            for rel in _paths_of(op):
                reads[rel] = fingerprint(root / rel)
        # Then the journal goes: its intent first (the commit point), then the saved bytes.
        ops.append(RemoveFile(journal.INTENT))
        ops.extend(
            RemoveFile(f"{journal.JOURNAL_DIR}/{e}") for e in _listdir(root / journal.JOURNAL_DIR) if e != "intent.json"
        )
    else:
        leftovers = [f"{journal.JOURNAL_DIR}/{e}" for e in _listdir(root / journal.JOURNAL_DIR)]
        ops.extend(RemoveFile(p) for p in leftovers)
        notes.extend(f"Remove the leftover journal file {p}." for p in leftovers)
    temps = _temp_files(root)
    ops.extend(RemoveFile(t) for t in temps)
    notes.extend(f"Remove the temporary file {t} left by an interrupted write." for t in temps)
    if intent is None:
        record_op, record_notes = _rebuild_trash_records(root, today)
        if record_op is not None:
            reads[ARCHIVE_INDEX] = fingerprint(root / ARCHIVE_INDEX)
            ops.append(record_op)
            notes.extend(record_notes)
    if ops and intent is None:
        title = "Doctor: repair what an interruption left"
        outcome = f"Doctor made {len(ops)} repair(s)."
    return Plan(
        action="doctor",
        title=title,
        ops=tuple(ops),
        reads=reads,
        preview=Preview(notes=tuple(notes), recovery="Doctor never removes a memory file's only copy."),
        outcome=outcome,
    )


def _paths_of(op: Op) -> tuple[str, ...]:
    if isinstance(op, MoveFile):
        return (op.src, op.dst)
    if isinstance(op, (WriteFile, RemoveFile)):
        return (op.path,)
    return ()


def _listdir(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _temp_files(root: Path) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not (rel_dir == "." and d == META_DIR)]
        for name in filenames:
            if name.startswith(TEMP_PREFIX):
                found.append(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    return sorted(found)


def _rebuild_trash_records(root: Path, today: dt.date) -> tuple[Op | None, list[str]]:
    """A trash item without its record gets one with a fresh 30-day deadline: never auto-purged."""
    from pmem_tui.core import records, textio

    trash = root / TRASH_DIR
    index_path = root / ARCHIVE_INDEX
    if not trash.is_dir() or not index_path.is_file():
        return None, []
    text = textio.decode(index_path.read_bytes())
    known = {r.path for r in records.parse_records(text) if r.deleted is not None}
    new_text = text
    notes = []
    for dirpath, _dirnames, filenames in os.walk(trash):
        for name in sorted(filenames):
            if name.startswith(".") or not name.endswith(".md"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), trash).replace(os.sep, "/")
            if rel in known:
                continue
            rec = ArchiveRecord(
                path=rel,
                index_line=None,
                archived=None,
                reason="record rebuilt by doctor after an interruption",
                deleted=today,
                deadline=today + dt.timedelta(days=RECOVERY_DAYS),
            )
            new_text = records.add_record(new_text, rec)
            notes.append(f"Rebuild the missing record of {TRASH_DIR}/{rel}: recoverable until {rec.deadline}.")
    if new_text == text:
        return None, []
    return WriteFile(ARCHIVE_INDEX, textio.encode(new_text)), notes

