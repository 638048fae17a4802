"""Doctor: finish or undo an interrupted action, and repair what a crash can leave behind.

It derives how far each journaled step got from the disk itself, then plans to roll the action
forward (preferred once the action changed something: the person confirmed it) or back (when it
changed nothing yet but folders, when forward is impossible, or when the executor undoes a failed
step at once). Its own steps are idempotent and re-derived from the disk on
every run, so a doctor interrupted in turn is simply run again.

Step states, read from the disk:

- done: the step's effect is there (a write's new bytes, a move's destination without its source...);
- todo: nothing of it is there;
- half: a move linked its destination but did not unlink its source (one file, two names);
- blocked: the step did not run, and something else now sits where it would put its file (a move's
  source is intact but another file holds the destination; a new file's name is taken). Undoing can
  skip it; finishing cannot run it.
- conflict: the disk matches neither side (someone changed the file since): resolved by hand.

Without an unfinished action, doctor repairs leftovers: journal files without an intent, temp files
(`.pmem-tmp-*`), a file left under two names by a move (the same inode twice; the copy the archive
records do not point to goes), and trash items without their record (a record is rebuilt with a
fresh 30-day deadline; never purged). The files under `_archive/` are the scan's (`tree.locate_archived`:
any file, never through a link) matched to their records as the scan matches them, so doctor and the app
never disagree on which file a record names.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

from pmem_tui.core import archive_match, journal, meta_dir, paths, safeio, sweep
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.draft import diffs_of_writes
from pmem_tui.core.errors import Busy, Refused
from pmem_tui.core.fingerprint import fingerprint, sha256_bytes
from pmem_tui.core.folder_walk import walk_files
from pmem_tui.core.merge3 import merge3
from pmem_tui.core.model import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    INDEX_FILE,
    TRASH_DIR,
    ArchiveRecord,
    Fingerprint,
)
from pmem_tui.core.plan import MakeDir, MoveFile, Op, Plan, Preview, RemoveDir, RemoveFile, WriteFile
from pmem_tui.core.tree import locate_archived
from pmem_tui.core.words import plural

DONE, TODO, HALF, BLOCKED, CONFLICT = "done", "todo", "half", "blocked", "conflict"
FORWARD, BACK = "forward", "back"
_KEPT = "Doctor never removes a memory file's only copy."  # the recovery line of every doctor preview


@dataclass(frozen=True)
class Resolution:
    """How an interrupted action is resolved: its direction and the steps left, in order."""

    intent: journal.Intent
    direction: str  # FORWARD or BACK
    ops: tuple[Op, ...]
    states: tuple[str, ...]
    merged: tuple[str, ...] = ()  # control files edited by someone since, whose edits are kept


def _sha(path: Path) -> str | None:
    try:
        fp = fingerprint(path)  # a regular file's, never through a link, never a FIFO; else a marker
    except OSError:
        return None
    return fp.sha256 if fp is not None and fp.size >= 0 else None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def step_state(root: Path, step: journal.JournalStep) -> str:
    op = step.op
    if isinstance(op, MakeDir):
        return DONE if (root / op.path).is_dir() else TODO
    if isinstance(op, RemoveDir):
        return TODO if (root / op.path).is_dir() else DONE
    if isinstance(op, RemoveFile):
        return TODO if os.path.lexists(root / op.path) else DONE
    if isinstance(op, WriteFile):
        there = os.path.lexists(root / op.path)
        cur = _sha(root / op.path)
        if there and cur == step.new_sha:
            return DONE
        if (not there and step.old_sha is None) or (there and cur is not None and cur == step.old_sha):
            return TODO
        if there and step.old_sha is None:
            return BLOCKED  # a new file's name was taken by something else
        return CONFLICT
    assert isinstance(op, MoveFile)
    src_path, dst_path = root / op.src, root / op.dst
    src, dst = os.path.lexists(src_path), os.path.lexists(dst_path)
    if dst and not src:
        return DONE
    if src and not dst:
        return TODO
    if src and dst:
        src_sha = _sha(src_path)
        if _same_file(src_path, dst_path) or (src_sha is not None and src_sha == _sha(dst_path)):
            return HALF
        if step.sha is not None and src_sha == step.sha:
            return BLOCKED  # the source is intact; another file took the destination
        return CONFLICT
    return CONFLICT


def _plan_steps(
    root: Path, intent: journal.Intent, states: list[str], merged: list[str], direction: str
) -> list[Op] | None:
    """The ops that take the journaled steps `direction` (forward: in order; back: last step first), or None
    when one cannot be. A control file edited since is merged in either direction (its path in `merged`)."""
    steps = list(enumerate(zip(intent.steps, states, strict=True)))
    one_step = _forward_step if direction == FORWARD else _backward_step
    ops: list[Op] = []
    for n, (step, state) in steps if direction == FORWARD else reversed(steps):
        op = step.op
        if state == CONFLICT and isinstance(op, WriteFile):
            data = _merge_step(root, n, step, direction)
            if data is None:
                return None
            ops.append(WriteFile(op.path, data))
            merged.append(op.path)
            continue
        taken = one_step(root, n, step, state)
        if taken is None:
            return None
        ops.extend(taken)
    return ops


def _forward_step(root: Path, n: int, step: journal.JournalStep, state: str) -> list[Op] | None:
    """What finishes one step: nothing when done, None when it cannot run."""
    op = step.op
    if state in (CONFLICT, BLOCKED):
        return None
    if state == DONE:
        return []
    if isinstance(op, WriteFile):
        try:
            data = journal.new_content(root, n)
        except OSError:
            return None
        if sha256_bytes(data) != step.new_sha:
            return None
        return [WriteFile(op.path, data, create=not os.path.lexists(root / op.path))]
    if isinstance(op, MoveFile) and state == HALF:
        return [RemoveFile(op.src)]
    return [op]


def _backward_step(root: Path, n: int, step: journal.JournalStep, state: str) -> list[Op] | None:
    """What undoes one step: nothing when none of it is there, None when it cannot be undone."""
    op = step.op
    if state == CONFLICT:
        return None
    if isinstance(op, MoveFile) and state == HALF:
        return [RemoveFile(op.dst)]
    if state != DONE:
        return []  # todo, or blocked: nothing of this step is there to undo
    if isinstance(op, RemoveFile):
        return None  # a purge that ran cannot be undone
    if isinstance(op, WriteFile):
        if step.old_blob is None:
            return [RemoveFile(op.path)]
        try:
            old = journal.read_blob(root, step.old_blob)
        except OSError:
            return None
        if sha256_bytes(old) != step.old_sha:
            return None
        return [WriteFile(op.path, old)]
    if isinstance(op, MoveFile):
        return [MoveFile(op.dst, op.src)]
    if isinstance(op, MakeDir):
        return [RemoveDir(op.path)]
    if isinstance(op, RemoveDir):
        return [MakeDir(op.path)]
    return []


MERGEABLE = (INDEX_FILE, ARCHIVE_INDEX)


def _merge_step(root: Path, n: int, step: journal.JournalStep, direction: str) -> bytes | None:
    """A control file someone edited since the interruption: the step's own line edit applied to (or taken
    back from) what is there now, keeping the other edits; None when the two edits touch the same lines."""
    op = step.op
    if not isinstance(op, WriteFile) or op.path not in MERGEABLE or step.old_blob is None:
        return None
    try:
        old = journal.read_blob(root, step.old_blob)
        new = journal.new_content(root, n)
        cur = safeio.read_under(root, op.path)
    except OSError:
        return None
    if sha256_bytes(old) != step.old_sha or sha256_bytes(new) != step.new_sha:
        return None
    return merge3(old, cur, new) if direction == FORWARD else merge3(new, cur, old)


def _describe(op: Op) -> str:
    if isinstance(op, WriteFile):
        return f"write {op.path}"
    if isinstance(op, MoveFile):
        return f"move {op.src} -> {op.dst}"
    if isinstance(op, RemoveFile):
        return f"remove {op.path}"
    if isinstance(op, RemoveDir):
        return f"remove the folder {op.path} if it is empty"
    return f"create folder {op.path}"


def read_intent_or_refuse(root: Path) -> journal.Intent | None:
    try:
        return journal.read_intent(root)
    except (OSError, ValueError) as err:
        raise Refused(
            f"The journal of an interrupted action ({journal.INTENT}) is unreadable ({err}); it was left "
            "as is: check the memory by hand, then move that file aside."
        ) from err


def resolve(root: Path, intent: journal.Intent, prefer: str = FORWARD, ran: int | None = None) -> Resolution:
    """The steps that bring an interrupted action to its after state (forward) or its before state (back).

    `prefer` is tried first; the other direction when it is impossible. Raises Refused when neither is safe.
    `ran` (the executor's immediate undo): the index of the step that failed; the steps after it never ran,
    and if that step's file holds neither its old nor its new bytes, they are someone else's, not ours.
    """
    states = [step_state(root, s) for s in intent.steps]
    if ran is not None:
        for n, step in enumerate(intent.steps):
            if n > ran or (n == ran and isinstance(step.op, WriteFile) and states[n] == CONFLICT):
                states[n] = TODO
    changed = [st for s, st in zip(intent.steps, states, strict=True) if not isinstance(s.op, MakeDir)]
    if prefer == FORWARD and not any(st in (DONE, HALF) for st in changed):
        # It died before changing anything but folders: forget it rather than run, perhaps much later,
        # an action whose preview the person saw then.
        prefer = BACK
    other = BACK if prefer == FORWARD else FORWARD
    for direction in (prefer, other):
        merged: list[str] = []
        steps = _plan_steps(root, intent, states, merged, direction)
        if steps is not None:
            return Resolution(intent, direction, tuple(steps), tuple(states), tuple(merged))
    conflicts = [_describe(s.op) for s, st in zip(intent.steps, states, strict=True) if st == CONFLICT]
    them, were = ("it", "it was") if len(conflicts) == 1 else ("the files", "they were")
    raise Refused(
        f"The interrupted action '{intent.title}' cannot be finished or undone safely: "
        f"{'; '.join(conflicts) or 'its journal is incomplete'} changed since; put {them} back as "
        f"{were}, or check the memory by hand and move {journal.INTENT} aside."
    )


def plan_doctor(
    root: Path, prefer: str = FORWARD, today: dt.date | None = None, *, locked: bool = False
) -> Plan:
    """Plan the repairs. Raises Refused when an interrupted action cannot be resolved safely, Busy while
    another process is applying an action (`locked`: the caller holds the root's lock itself)."""
    today = today or clock_today()
    ops: list[Op] = []
    notes: list[str] = []
    reads: dict[str, Fingerprint | None] = {journal.INTENT: fingerprint(root / journal.INTENT)}
    title = "Doctor: the memory's files need no repair"  # (the history's store: `rewrite.check`)
    outcome = "The memory's files need no repair."
    if not locked and journal.action_running(root):
        raise Busy("Another pmem-tui action is changing this memory right now; try again in a moment.")
    intent = read_intent_or_refuse(root)
    # Temp files first: they are garbage, and one may sit in a folder an undo is about to remove.
    temps = sweep.temp_files(root)
    ops.extend(RemoveFile(t) for t in temps)
    notes.extend(f"Remove the temporary file {t} left by an interrupted write." for t in temps)
    old_ops, old_notes = sweep.old_caches(root)
    ops.extend(old_ops)
    notes.extend(old_notes)
    if intent is not None:
        res = resolve(root, intent, prefer)
        verb = "Finish" if res.direction == FORWARD else "Undo"
        title = f"Doctor: {verb.lower()} the interrupted action '{intent.title}'"
        done = "finished" if res.direction == FORWARD else "undone"
        outcome = f"The interrupted action '{intent.title}' is {done}; the memory is consistent again."
        left = "left to run" if verb == "Finish" else "to undo"
        n = len(res.ops)
        steps = f"{n} step{'' if n == 1 else 's'} {left}" if n else f"nothing {left}"
        notes.append(f"{verb} '{intent.title}': {steps}.")
        notes.extend(f"  {_describe(op)}" for op in res.ops)
        notes.extend(
            f"  {path} was edited since the interruption: those edits are kept, only this action's "
            "lines change."
            for path in res.merged
        )
        ops.extend(res.ops)
        for op in res.ops:
            for rel in _paths_of(op):
                reads[rel] = fingerprint(root / rel)
        # Then the journal goes: its intent first (the commit point), then the saved bytes.
        ops.append(RemoveFile(journal.INTENT))
        ops.extend(RemoveFile(f"{journal.JOURNAL_DIR}/{e}") for e in journal.leftovers(root))
        notes.append("Clear the journal of that action.")
    else:
        leftovers = [f"{journal.JOURNAL_DIR}/{e}" for e in journal.leftovers(root)]
        ops.extend(RemoveFile(p) for p in leftovers)
        # Without an intent, the action either died before writing it or had passed its commit point and was
        # clearing its journal (found in trial: "never started" was said of an archive that had finished).
        notes.extend(
            f"Remove the leftover journal file {p} (no action is under way: its action never started, or it "
            "finished and was clearing its journal)."
            for p in leftovers
        )
    if intent is None:
        loaded = _read_records(root)
        # The files under `_archive/` as the scan lists them and matches them to their records: doctor and the
        # app never disagree on which file a record names.
        on_disk = archive_match.active_on_disk(root)
        matching = locate_archived(root, loaded[1] if loaded else [], on_disk, today=today)[0]
        dup_ops, dup_notes = _two_names(root, matching, loaded[1] if loaded else [], today)
        ops.extend(dup_ops)
        notes.extend(dup_notes)
        for op in dup_ops:
            for rel in _paths_of(op):
                reads[rel] = fingerprint(root / rel)
        gone = {op.path for op in dup_ops if isinstance(op, RemoveFile)}
        record_op, record_notes = _rebuild_trash_records(root, today, gone, loaded, matching)
        if record_op is not None:
            reads[ARCHIVE_INDEX] = fingerprint(root / ARCHIVE_INDEX)
            ops.append(record_op)
        notes.extend(record_notes)
        if ops:
            title = "Doctor: repair what an interruption left"
            outcome = f"Doctor made {plural(len(ops), 'repair')}."
    notes_t = tuple(notes)
    return Plan(
        action="doctor",
        title=title,
        ops=tuple(ops),
        reads=reads,
        preview=Preview(
            diffs=diffs_of_writes(root, ops),
            meta_creates=meta_dir.to_create(root, "doctor", ops),
            notes=notes_t,
            recovery=_KEPT,
        ),
        outcome=outcome,
    )


def _paths_of(op: Op) -> tuple[str, ...]:
    if isinstance(op, MoveFile):
        return (op.src, op.dst)
    if isinstance(op, (WriteFile, RemoveFile)):
        return (op.path,)
    return ()


def journaled_paths(intent: journal.Intent) -> list[str]:
    """Every path an intent's steps touch (for syncing their folders before the intent is cleared)."""
    out: list[str] = []
    for step in intent.steps:
        op = step.op
        out.extend((op.src, op.dst) if isinstance(op, MoveFile) else (op.path,))
    return out


def _read_records(root: Path) -> tuple[str, list[ArchiveRecord]] | None:
    from pmem_tui.core import records, textio

    try:
        text = textio.decode(safeio.read_under(root, ARCHIVE_INDEX))
    except OSError:  # missing, unreadable, or not a regular file (`safeio` never reads a link or a FIFO)
        return None
    return text, records.parse_records(text)


def _two_names(
    root: Path, matching: archive_match.Matching, recs: list[ArchiveRecord], today: dt.date
) -> tuple[list[Op], list[str]]:
    """A file left under two names by an interrupted move (the same inode twice): keep the name the
    records point to (the file `matching`, the scan's, finds for the newest record), remove the other.
    Separate copies (other inodes) are never touched."""
    places: dict[str, list[str]] = {}
    for folder in ACTIVE_DIRS:  # the active files the scan lists: `.md` ones, never through a link
        for f in walk_files(root, folder, ctime=False)[0]:
            if f.path.endswith(".md"):
                places.setdefault(f.path, []).append(f.path)
    # An archived file: at the tool's place for an active path, or found by a record.
    for p in matching.placed:
        if p.in_trash or p.record is not None or p.path.split("/", 1)[0] in ACTIVE_DIRS:
            places.setdefault(p.path, []).append(p.location)
    multiple = {p: locs for p, locs in places.items() if len(locs) > 1}
    if not multiple:
        return [], []
    ops: list[Op] = []
    notes: list[str] = []
    for path, locs in sorted(multiple.items()):
        linked = all(_same_file(root / locs[0], root / other) for other in locs[1:])
        if not linked:
            notes.append(f"{path} exists as separate copies at {', '.join(locs)}; doctor leaves them to you.")
            continue
        mine = archive_match.newest([r for r in recs if r.path == path], today=today)
        if mine is None:
            keep = path
        else:
            trash = mine.deleted is not None
            found = [p.location for p in matching.of(path) if p.record is not None and p.in_trash == trash]
            keep = found[0] if found else f"{TRASH_DIR if trash else ARCHIVE_DIR}/{path}"
        if keep not in locs:
            notes.append(f"{path} is one file under the names {', '.join(locs)}; the records name neither.")
            continue
        for loc in locs:
            if loc != keep:
                ops.append(RemoveFile(loc))
                notes.append(f"{path} is one file under two names: remove the name {loc}, keep {keep}.")
    return ops, notes


def _rebuild_trash_records(
    root: Path,
    today: dt.date,
    gone: set[str],
    loaded: tuple[str, list[ArchiveRecord]] | None,
    matching: archive_match.Matching,
) -> tuple[Op | None, list[str]]:
    """A trash item without its record gets one with a fresh 30-day deadline: never auto-purged. The trash
    items are the scan's (`matching`), each said as `status` says it."""
    from pmem_tui.core import records, textio

    if loaded is None:  # no archive index (or not a regular file): no record is written
        return None, []
    text, parsed = loaded
    new_text = text
    notes = []
    names = archive_match.Names(matching, parsed)
    contested = matching.contested()
    for placed in matching.placed:
        if not placed.in_trash or placed.record is not None or placed.location in gone:
            continue  # in the archive, found by a deletion record wherever it stands, or gone
        rel = placed.path
        owner = names.claimant(placed.location)
        if owner is not None:  # moved there by hand: the record of `owner` finds it (`recover` takes it)
            notes.append(
                f"{placed.location} has no deletion record, but it has the name of {owner}'s file, whose "
                f"record finds no file: `pmem-tui recover {owner}` takes it; doctor leaves it to you."
            )
            continue
        if placed.location in contested:
            notes.append(
                f"{placed.location} has no deletion record, and several records may be about it: doctor "
                "leaves it to you."
            )
            continue
        problem = paths.active_path_problem(rel)
        if problem is not None:  # dropped there by hand: a record would promise a recovery that is refused
            notes.append(f"{placed.location} has no deletion record, and {problem}: doctor leaves it to you.")
            continue
        # Its archive record there without the deletion is completed; else a record is written.
        mine = archive_match.newest([r for r in parsed if r.path == rel], today=today)
        old = mine if not os.path.lexists(root / ARCHIVE_DIR / rel) else None
        reason = "record rebuilt by doctor: the file was in the trash without one"
        new_text, deadline = records.record_deletion(new_text, rel, old, today, reason)
        parsed = records.parse_records(new_text)
        notes.append(
            f"Rebuild the missing deletion record of {TRASH_DIR}/{rel}: recoverable until {deadline}."
        )
    if new_text == text:
        return None, notes
    return WriteFile(ARCHIVE_INDEX, textio.encode(new_text)), notes
