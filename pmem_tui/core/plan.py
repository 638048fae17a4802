"""A Plan: what a mutating action will do, with the preview a person confirms.

Plans are pure data. `executor.apply` is the only thing that turns one into file-system changes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from pmem_tui.core import textio
from pmem_tui.core.model import Fingerprint, FolderPrint


@dataclass(frozen=True)
class MakeDir:
    path: str  # relative to the root


@dataclass(frozen=True)
class WriteFile:
    """Write `content` atomically. `create` means the file must not exist yet."""

    path: str
    content: bytes
    create: bool = False


@dataclass(frozen=True)
class MoveFile:
    """Move a file; never replaces an existing destination. Missing parents are created."""

    src: str
    dst: str


@dataclass(frozen=True)
class RemoveFile:
    """Permanently remove a file (purge only)."""

    path: str


@dataclass(frozen=True)
class RemoveDir:
    """Remove a folder if it is empty (doctor, when it rolls an action back; an undo, the folders its action
    created): one that holds anything by then is left as it is."""

    path: str


Op = MakeDir | WriteFile | MoveFile | RemoveFile | RemoveDir


@dataclass(frozen=True)
class FileDiff:
    path: str
    old: str  # "" for a new file
    new: str
    is_new: bool = False
    # `old` is not the file's content: it was masked for display (a redaction hides the secret as `<secret>`).
    # Never written back (an undo refuses).
    masked: bool = False

    def unified(self, context: int = 3) -> list[str]:
        """Unified diff lines (no trailing newlines), headed by the file's path."""
        old_name = "/dev/null" if self.is_new else f"a/{self.path}"
        lines = difflib.unified_diff(
            textio.lines_of(self.old),
            textio.lines_of(self.new),
            fromfile=old_name,
            tofile=f"b/{self.path}",
            lineterm="",
            n=context,
        )
        return list(lines)


@dataclass(frozen=True)
class Preview:
    """Everything a person sees before confirming."""

    diffs: tuple[FileDiff, ...] = ()
    moves: tuple[tuple[str, str], ...] = ()  # (source, destination)
    creates: tuple[str, ...] = ()  # folders (and empty control files) created
    meta_creates: tuple[str, ...] = ()  # the tool's own paths created (`.pmem/`, its lock...: `meta_dir`)
    removes: tuple[str, ...] = ()  # files removed for good (purge)
    # Empty folders removed (an undo: the folders its action created, empty once the undo has run)
    removes_dirs: tuple[str, ...] = ()
    index_removed: tuple[str, ...] = ()  # exact `_index.md` lines that go
    index_added: tuple[str, ...] = ()  # exact `_index.md` lines that come (back)
    record_changes: tuple[str, ...] = ()  # one sentence per archive-record change
    recovery: str = ""  # what recovery will be possible afterwards
    notes: tuple[str, ...] = ()  # summary revisions, warnings


@dataclass(frozen=True)
class Plan:
    action: str  # save, archive, delete, recover, purge, upgrade, doctor, batch
    title: str  # one line: "Archive projects/old.md"
    ops: tuple[Op, ...]
    # Everything the plan read: path -> fingerprint, or None when it read that the path was absent.
    reads: dict[str, Fingerprint | None] = field(default_factory=dict)
    preview: Preview = field(default_factory=Preview)
    outcome: str = ""  # one sentence reported after a successful apply
    items: tuple[str, ...] = ()  # the memory paths the plan acts on
    # Per item, the reason of its archive record: the one an archive writes, or the one a recover removes
    # (an undo or a redo archives again with it, instead of asking the person again).
    reasons: dict[str, str] = field(default_factory=dict)
    # Per folder an undo removes (`RemoveDir`), what it saw of it (`fingerprint.folder_print`): the executor
    # leaves alone a folder that is not that one any more (made again, or changed inside, since the preview).
    folders: dict[str, FolderPrint] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return not self.ops
