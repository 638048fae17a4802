"""The one executor: applies a Plan under the root's lock, after re-checking what the plan saw.

Order of work: lock -> no unfinished action -> fingerprints unchanged -> paths still safe (no link
anywhere below the root) -> destinations still free -> journal the intent (from then on doctor can
finish or undo it) -> run the steps through the file-system shim (each file is re-checked right
before it is replaced) -> the commit point (every step written and synced: never undone after it)
-> clear the journal (`after_commit`).

History (`history.record`, the layer right below this one) is recorded twice, through the same `FS`: what
changed on disk since the last record ("seen on disk"), under the lock before the journal; and the action's
result, after its last step and before its journal is cleared (a crash before that record leaves the
journal, and doctor's apply records the finished action). A history that cannot record never stops the
action: `ApplyResult.history` says so in one sentence.

A step that fails is undone at once from the journal (the same derivation `doctor` uses). If the
undo fails in turn (a disk that keeps failing) or the process dies, the journal stays and every
later action is refused until `pmem-tui doctor` finishes or undoes it.

Every error sentence says truthfully where the memory stands:
- "Nothing was changed: ..."                 the memory is exactly as before;
- "... stopped part-way ...; run `pmem-tui doctor` ..."   the journal is there for doctor;
- `ApplyResult.warning` ("... was done, but ...")   the memory is exactly as after, yet the disk
  reported an error on the way (`after_commit`): never a plain success, never an undo.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filelock

from pmem_tui.core import after_commit, journal, meta_dir
from pmem_tui.core.errors import Busy, DiskError, PmemError, StalePlan, UnfinishedAction, describe_os_error
from pmem_tui.core.fingerprint import fingerprint, folder_print
from pmem_tui.core.fsops import FS, StepHook
from pmem_tui.core.model import META_DIR
from pmem_tui.core.paths import check_existing_inside
from pmem_tui.core.plan import MakeDir, MoveFile, Op, Plan, RemoveDir, RemoveFile, WriteFile

LOCK_FILE = journal.LOCK_FILE
LOCK_TIMEOUT_S = 3.0

NOTHING_CHANGED = "Nothing was changed"
RUN_DOCTOR = "run `pmem-tui doctor` to finish or undo it"


@dataclass(frozen=True)
class ApplyResult:
    plan: Plan
    outcome: str
    # Set when the action was done but the disk reported an error on the way (one sentence).
    warning: str | None = None
    # Set when the history could not record the memory before or after the action (one sentence).
    history: str | None = None


def lock_for(root: Path) -> filelock.BaseFileLock:
    return filelock.FileLock(str(root / LOCK_FILE), timeout=LOCK_TIMEOUT_S)


def apply(plan: Plan, root: Path, *, hook: StepHook | None = None) -> ApplyResult:
    """Apply `plan` to `root`. Raises a PmemError (one sentence) and changes nothing on refusal."""
    if plan.is_empty:
        return ApplyResult(plan, plan.outcome or "Nothing to do.")
    fs = FS(root, hook)
    if plan.action != "doctor" and root.is_dir():
        # The same checks as under the lock, once before it: a plan refused now leaves the root as it was,
        # without the `.pmem/` the lock would have made. Under the lock they run again (a race is caught).
        try:
            _check_plan(plan, root)
        except OSError as err:
            raise DiskError(f"{NOTHING_CHANGED}: {describe_os_error(err)}.") from err
    try:
        _ensure_meta(fs, plan)
        lock = lock_for(root)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise Busy("Another pmem-tui action is running on this memory; try again in a moment.") from None
    except OSError as err:
        raise DiskError(f"{NOTHING_CHANGED}: {describe_os_error(err)}.") from err
    try:
        return _apply_locked(plan, root, fs)
    except OSError as err:  # a safety net: every expected failure is already a one-sentence PmemError
        if os.path.lexists(root / journal.INTENT):
            raise DiskError(f"The action stopped because {describe_os_error(err)}; {RUN_DOCTOR}.") from err
        raise DiskError(f"{NOTHING_CHANGED}: {describe_os_error(err)}.") from err
    finally:
        lock.release()


def _ensure_meta(fs: FS, plan: Plan) -> None:
    if not fs.root.exists() and plan.action != "save":
        raise StalePlan(f"The memory root {fs.root} no longer exists; nothing was changed.")
    # Every path the action makes is named in its preview (PM-AGENT-3), the tool's own ones included.
    named = plan.preview.meta_creates
    unnamed = [rel for rel in meta_dir.to_create(fs.root, plan.action, plan.ops) if rel not in named]
    if unnamed:
        raise StalePlan(f"{unnamed[0]} is gone since the preview; nothing was changed. Preview again.")
    if not fs.root.exists():
        # First save: the root itself is part of the previewed structure.
        fs.root.parent.mkdir(parents=True, exist_ok=True)
        fs.mkdir("")
    meta_dir.ensure(fs)


def _apply_locked(plan: Plan, root: Path, fs: FS) -> ApplyResult:
    if plan.action == "doctor":
        return _apply_doctor(plan, root, fs)
    if os.path.lexists(root / journal.INTENT):
        raise UnfinishedAction(
            "An earlier action was interrupted; run `pmem-tui doctor` to finish or undo it first."
        )
    try:
        _check_plan(plan, root)
    except OSError as err:
        raise DiskError(f"{NOTHING_CHANGED}: {describe_os_error(err)}.") from err
    ops, left = _as_seen(plan, root)
    outcome = " ".join(said for said in (plan.outcome, left) if said)
    from pmem_tui.core.history import record as history  # not on the app's start-up path

    history_before = history.before_action(root, fs)
    shas = {p: fp.sha256 for p, fp in plan.reads.items() if fp is not None}
    try:
        journal.write_intent(fs, plan.action, plan.title, ops, shas, _detail(plan))
    except OSError as err:
        reason = describe_os_error(err)
        if _forget_intent(fs):
            raise DiskError(f"{NOTHING_CHANGED}: {reason}.") from err
        raise DiskError(
            f"{NOTHING_CHANGED}: {reason}; run `pmem-tui doctor` to clear the journal it left."
        ) from err
    expected = {p: fp.sha256 for p, fp in plan.reads.items() if fp is not None and fp.size >= 0}
    progress = [0]
    try:
        _run_ops(fs, ops, expected, progress=progress)
    except OSError as err:
        message, finished = _undo_now(root, fs, plan, describe_os_error(err), progress[0])
        if finished:
            return ApplyResult(plan, outcome, message)
        raise DiskError(message) from err
    except StalePlan as err:
        raise StalePlan(_undo_now(root, fs, plan, str(err), progress[0], stale=True)[0]) from err
    # Every step was written and synced: from here on the action is done and never undone.
    history_after = history.after_action(root, fs, plan)
    late = after_commit.clear_journal(fs)
    noted = history_before or history_after
    return ApplyResult(plan, outcome, after_commit.warning(late) if late else None, noted)


def _detail(plan: Plan) -> dict[str, Any]:
    """What the journal tells a person reading it: the items, the exact index lines, the record changes."""
    pv = plan.preview
    return {
        "items": list(plan.items),
        "index_removed": list(pv.index_removed),
        "index_added": list(pv.index_added),
        "record_changes": list(pv.record_changes),
    }


def check_fresh(plan: Plan, root: Path) -> None:
    """Refuse when anything the plan read has changed since its preview."""
    for rel, seen in plan.reads.items():
        if fingerprint(root / rel if rel else root) != seen:
            shown = rel or str(root)
            raise StalePlan(f"{shown} changed since the preview; nothing was changed. Preview again.")


def check_paths(ops: tuple[Op, ...], root: Path) -> None:
    """The safety contract's file-system checks again, under the lock: no symbolic link at any
    component, folders where folders are needed, everything inside the root."""
    for op in ops:
        if isinstance(op, MoveFile):
            files: tuple[str, ...] = (op.src, op.dst)
        elif isinstance(op, (WriteFile, RemoveFile)):
            files = (op.path,)
        else:  # a folder: every component of it must be a real folder
            check_existing_inside(root, op.path, folder=True)
            continue
        for rel in files:
            check_existing_inside(root, rel)


def _check_plan(plan: Plan, root: Path) -> None:
    # The tool's own folders are reached without a link too: a linked `.pmem/journal` or `.pmem/lock` is
    # refused here, before `.pmem/.gitignore` is made, instead of an OS error after it.
    for rel, folder in ((META_DIR, True), (journal.JOURNAL_DIR, True), (journal.LOCK_FILE, False)):
        if os.path.lexists(root / rel):
            check_existing_inside(root, rel, folder=folder)
    check_fresh(plan, root)
    check_paths(plan.ops, root)
    _check_destinations(plan.ops, root)


def _as_seen(plan: Plan, root: Path) -> tuple[tuple[Op, ...], str]:
    """The plan's steps, without the removal of a folder that is not the one its preview saw (`Plan.folders`:
    an agent made it again since, or put something in it and took it out): an undo removes only the folders
    its action made, as they were when the person confirmed. And what the outcome says of each such folder
    still there (the preview said it would go; empty: none)."""
    if not plan.folders:
        return plan.ops, ""
    kept: list[Op] = []
    left: list[str] = []
    for op in plan.ops:
        if isinstance(op, RemoveDir) and op.path in plan.folders:
            try:
                same = folder_print(root, op.path) == plan.folders[op.path]
            except OSError:  # gone, or a link on the way now: nothing of the preview's folder to remove
                same = False
            if not same:
                if os.path.lexists(root / op.path):  # gone: as the preview said
                    left.append(f"Left folder {op.path}/ in place: it changed since the preview.")
                continue
        kept.append(op)
    return tuple(kept), " ".join(left)


def _check_destinations(ops: tuple[Op, ...], root: Path) -> None:
    for op in ops:
        if isinstance(op, MoveFile) and os.path.lexists(root / op.dst):
            raise StalePlan(f"{op.dst} appeared since the preview; nothing was moved or overwritten.")
        if isinstance(op, WriteFile) and op.create and os.path.lexists(root / op.path):
            raise StalePlan(f"{op.path} appeared since the preview; nothing was overwritten.")


def _run_ops(
    fs: FS,
    ops: tuple[Op, ...],
    expected: dict[str, str] | None = None,
    *,
    tolerant: bool = False,
    progress: list[int] | None = None,
) -> None:
    """Run the steps. `expected`: the sha256 each replaced file must still have right before it is
    replaced (else StalePlan). `tolerant` (doctor): removing what is already gone, or a folder that is
    no longer empty, is not an error. `progress[0]` tells which step is running."""
    for n, op in enumerate(ops):
        if progress is not None:
            progress[0] = n
        if isinstance(op, MakeDir):
            fs.makedirs(op.path)
        elif isinstance(op, WriteFile):
            expect = expected.get(op.path) if expected is not None and not op.create else None
            fs.write_atomic(op.path, op.content, create=op.create, expect=expect)
        elif isinstance(op, MoveFile):
            fs.makedirs(op.dst.rsplit("/", 1)[0] if "/" in op.dst else "")
            fs.move(op.src, op.dst)
        elif isinstance(op, RemoveFile):
            fs.remove(op.path, missing_ok=tolerant)
        elif isinstance(op, RemoveDir):
            fs.rmdir(op.path, only_if_empty=True)


def _forget_intent(fs: FS) -> bool:
    """The journal could not be written: nothing ran, so remove whatever part of it exists.
    True when no intent is left behind."""
    try:
        fs.remove(journal.INTENT, missing_ok=True)
        journal.clear_blobs(fs)
    except OSError:
        return not os.path.lexists(fs.root / journal.INTENT)
    return True


def _undo_now(
    root: Path, fs: FS, plan: Plan, reason: str, failed_step: int, *, stale: bool = False
) -> tuple[str, bool]:
    """A step failed: undo the steps that ran, from the journal (through the same shim and hook, so a
    disk that keeps failing fails here too). Returns the one sentence to show, and whether the action
    was finished instead (the memory is then in its after state)."""
    from pmem_tui.core import doctor  # only when a step fails: doctor plans the undo

    stuck = f"The action stopped part-way because {reason}; {RUN_DOCTOR}."
    try:
        intent = journal.read_intent(root)
        if intent is None:
            return stuck, False
        res = doctor.resolve(root, intent, prefer=doctor.BACK, ran=failed_step)
        _run_ops(fs, res.ops, tolerant=True)
    except (OSError, ValueError, PmemError):
        return stuck, False
    late = after_commit.clear_journal(fs)
    if late is not None and late.journal_left:
        return stuck, False
    also = f"; then {late.reason} while the journal was cleared" if late else ""
    if res.direction == doctor.FORWARD:
        # Only a permanent removal (purge) cannot be undone: it was finished instead.
        return (
            f"A step failed because {reason}, and what had run cannot be undone, so it was finished{also}.",
            True,
        )
    return f"{NOTHING_CHANGED}: {reason}{'; preview again' if stale else ''}{also}.", False


def _apply_doctor(plan: Plan, root: Path, fs: FS) -> ApplyResult:
    """Doctor's repairs, re-derived under the lock: they must be exactly the ones previewed."""
    from pmem_tui.core import doctor

    try:
        fresh = doctor.plan_doctor(root, locked=True)
        if fresh.ops != plan.ops:
            raise StalePlan(
                "The memory changed since the doctor's preview; nothing was changed. Preview again."
            )
        check_fresh(plan, root)
        check_paths(plan.ops, root)
        intent = doctor.read_intent_or_refuse(root)
        if intent is not None:
            # What the interrupted action already did must be durable before its journal goes.
            for folder in sorted({_parent(p) for p in doctor.journaled_paths(intent)}):
                if (root / folder).is_dir():
                    fs.fsync_dir(folder)
        _run_ops(fs, plan.ops, tolerant=True)
    except OSError as err:
        raise DiskError(
            f"Doctor stopped because {describe_os_error(err)}; what it did is safe, run it again."
        ) from err
    from pmem_tui.core.history import record as history

    # An action doctor finished is recorded as that action (rolled back: its before state, already recorded).
    origin = intent.action if intent is not None else "doctor"
    done = history.record(root, origin, title=f"{plan.title} (doctor)", fs=fs)
    noted = None if done.problem is None else f"History could not record doctor's repair: {done.problem}."
    return ApplyResult(plan, plan.outcome, history=noted)


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""
