"""Typed refusals: one sentence for the person, nothing half-done."""

from __future__ import annotations


class PmemError(Exception):
    """An expected failure. `str(err)` is one clear sentence for the person."""


class UnsafePath(PmemError):
    """A path failed the lifecycle safety contract."""


class Refused(PmemError):
    """The action cannot be planned in the memory's current state."""


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
