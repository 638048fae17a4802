"""Typed refusals: one sentence for the person, nothing half-done."""

from __future__ import annotations

import errno


class PmemError(Exception):
    """An expected failure. `str(err)` is one clear sentence for the person."""


class UnsafePath(PmemError):
    """A path failed the lifecycle safety contract. `problem`: what is wrong, without the path."""

    problem = ""


class Refused(PmemError):
    """The action cannot be planned in the memory's current state."""


class EditedSince(Refused):
    """An undo's inverse would take back lines someone (an agent) edited since: the app adds what to do."""


class LifecycleIncomplete(Refused):
    """Archive, delete, recover and health need the lifecycle structure: run upgrade."""


class StalePlan(PmemError):
    """Something the plan read changed after its preview was made."""


class Busy(PmemError):
    """Another pmem-tui process holds the lock on this root."""


class SecretFound(Refused):
    """The content to save looks like it holds a secret."""


class UnfinishedAction(Refused):
    """A previous action was interrupted; doctor must finish or undo it first."""


class DiskError(PmemError):
    """The file system failed (full disk, I/O error, read-only...)."""


class BadUsage(PmemError):
    """An option or environment value out of its range (`user_input`): the CLI exits 2."""


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
        errno.ENAMETOOLONG: "a file name is too long for this file system",
    }.get(err.errno or 0, err.strerror or "an unexpected file-system error occurred")
    name = str(err.filename) if err.filename else ""
    where = f" ({name[:200]}…)" if len(name) > 200 else f" ({name})" if name else ""  # a huge name is cut
    return f"{what}{where}"


def refusal_of(err: PmemError | OSError) -> str:
    """The one sentence a refused action says: a `PmemError`'s own, or a file-system failure met while
    planning or applying (a link or a folder where `_index.md` should be, a permission...)."""
    if isinstance(err, PmemError):
        return str(err)
    what = describe_os_error(err)
    return f"{what[0].upper()}{what[1:]}; nothing was changed."
