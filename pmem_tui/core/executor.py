"""The one executor: applies a Plan under the root's lock, after re-checking what the plan saw.

Order of work: lock -> no unfinished action -> fingerprints unchanged -> destinations still free ->
journal the intent -> run the steps through the file-system shim -> clear the journal.
A failure part-way is rolled back at once from the journal when possible; otherwise the journal
stays and the person is pointed to `pmem-tui doctor`.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

import filelock

from pmem_tui.core import journal
from pmem_tui.core.errors import Busy, DiskError, PmemError, StalePlan, UnfinishedAction
from pmem_tui.core.fingerprint import fingerprint
from pmem_tui.core.fsops import FS, StepHook
from pmem_tui.core.model import META_DIR
from pmem_tui.core.plan import MakeDir, MoveFile, Op, Plan, RemoveDir, RemoveFile, WriteFile

LOCK_FILE = f"{META_DIR}/lock"
LOCK_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class ApplyResult:
    plan: Plan
    outcome: str


def describe_os_error(err: OSError) -> str:
    """One sentence for a file-system failure."""
    what = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EIO: "the disk reported an I/O error",
        errno.EACCES: "permission was denied",
        errno.EPERM: "the operation is not permitted",
        errno.EROFS: "the file system is read-only",
        errno.EXDEV: "the move would cross file systems",
        errno.EEXIST: "a file already exists where one was to be created",
    }.get(err.errno or 0, err.strerror or "an unexpected file-system error occurred")
    where = f" ({err.filename})" if err.filename else ""
    return f"{what}{where}"


def lock_for(root: Path) -> filelock.BaseFileLock:
    return filelock.FileLock(str(root / LOCK_FILE), timeout=LOCK_TIMEOUT_S)


def apply(plan: Plan, root: Path, *, hook: StepHook | None = None) -> ApplyResult:
    """Apply `plan` to `root`. Raises a PmemError (one sentence) and changes nothing on refusal."""
    if plan.is_empty:
        return ApplyResult(plan, plan.outcome or "Nothing to do.")
    fs = FS(root, hook)
    try:
        _ensure_meta(fs, plan)
        lock = lock_for(root)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise Busy("Another pmem-tui action is running on this memory; try again in a moment.") from None
        try:
            return _apply_locked(plan, root, fs)
        finally:
            lock.release()
    except OSError as err:
        raise DiskError(f"Nothing was changed: {describe_os_error(err)}.") from err


def _ensure_meta(fs: FS, plan: Plan) -> None:
    if not fs.root.exists():
        if plan.action != "save":
            raise StalePlan(f"The memory root {fs.root} no longer exists; nothing was changed.")
        # First save: the root itself is part of the previewed structure.
        fs.root.parent.mkdir(parents=True, exist_ok=True)
        fs.mkdir("")
    fs.mkdir(META_DIR)


def _apply_locked(plan: Plan, root: Path, fs: FS) -> ApplyResult:
    if plan.action != "doctor" and (root / journal.INTENT).exists():
        raise UnfinishedAction(
            "An earlier action was interrupted; run `pmem-tui doctor` to finish or undo it first."
        )
    check_fresh(plan, root)
    _check_destinations(plan.ops, root)
    if plan.action == "doctor":
        # Doctor's steps are idempotent and re-derived from the disk on every run: no journal of its own.
        _run_ops(fs, plan.ops)
        return ApplyResult(plan, plan.outcome)
    shas = {p: fp.sha256 for p, fp in plan.reads.items() if fp is not None}
    try:
        journal.write_intent(fs, plan.action, plan.title, plan.ops, shas)
    except OSError:
        _forget_intent(fs)
        raise
    try:
        _run_ops(fs, plan.ops)
    except OSError as err:
        raise DiskError(_roll_back_now(root, fs.hook, err)) from err
    journal.clear_intent(fs)
    return ApplyResult(plan, plan.outcome)


def check_fresh(plan: Plan, root: Path) -> None:
    """Refuse when anything the plan read has changed since its preview."""
    for rel, seen in plan.reads.items():
        if fingerprint(root / rel if rel else root) != seen:
            shown = rel or str(root)
            raise StalePlan(f"{shown} changed since the preview; nothing was changed. Preview again.")


def _check_destinations(ops: tuple[Op, ...], root: Path) -> None:
    for op in ops:
        if isinstance(op, MoveFile) and os.path.lexists(root / op.dst):
            raise StalePlan(f"{op.dst} appeared since the preview; nothing was moved or overwritten.")
        if isinstance(op, WriteFile) and op.create and os.path.lexists(root / op.path):
            raise StalePlan(f"{op.path} appeared since the preview; nothing was overwritten.")


def _run_ops(fs: FS, ops: tuple[Op, ...]) -> None:
    for op in ops:
        if isinstance(op, MakeDir):
            fs.makedirs(op.path)
        elif isinstance(op, WriteFile):
            fs.write_atomic(op.path, op.content, create=op.create)
        elif isinstance(op, MoveFile):
            fs.makedirs(op.dst.rsplit("/", 1)[0] if "/" in op.dst else "")
            fs.move(op.src, op.dst)
        elif isinstance(op, RemoveFile):
            fs.remove(op.path)
        elif isinstance(op, RemoveDir):
            fs.rmdir(op.path)


def _forget_intent(fs: FS) -> None:
    """The journal could not be written: nothing ran, so remove whatever part of it exists."""
    try:
        if (fs.root / journal.INTENT).exists():
            FS(fs.root).remove(journal.INTENT)
        journal.clear_blobs(FS(fs.root))
    except OSError:
        pass  # harmless leftovers without an intent; doctor sweeps them


def _roll_back_now(root: Path, hook: StepHook | None, err: OSError) -> str:
    """A step failed: undo the steps that ran, from the journal. Returns the sentence to show."""
    from pmem_tui.core.doctor import plan_doctor  # doctor builds on the executor

    reason = describe_os_error(err)
    try:
        _run_ops(FS(root), plan_doctor(root, prefer="back").ops)
    except (OSError, PmemError):
        return (
            f"The action stopped part-way because {reason}; run `pmem-tui doctor` to finish or undo it."
        )
    return f"Nothing was changed: {reason}."
