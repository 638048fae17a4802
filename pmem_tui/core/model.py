"""The immutable snapshot of a memory root, as the scan sees it.

Paths are always POSIX-style strings relative to the root (e.g. ``projects/old.md``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

# Folder and file names the spec gives meaning to.
CORE_DIR = "_core"
INDEX_FILE = "_index.md"
ARCHIVE_DIR = "_archive"
ARCHIVE_INDEX = "_archive/_index.md"
TRASH_DIR = "_archive/_trash"
ACTIVE_DIRS = ("projects", "notes")
# The tool's own metadata (lock, journal, caches): hidden, ignored by the scan.
META_DIR = ".pmem"
# Lifecycle paths that `upgrade` may create, in creation order.
LIFECYCLE_PATHS = (ARCHIVE_DIR, TRASH_DIR, ARCHIVE_INDEX)
RECOVERY_DAYS = 30
# A project's permanent memory (the loader's spec), relative to the project folder.
PROJECT_MEMORY_DIR = Path(".claude") / "memory"
# Health: a file unchanged for this many days is inactive (`health --inactive-days`).
DEFAULT_INACTIVE_DAYS = 90


class SummaryState(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    MISSING = "missing"
    UNKNOWN = "unknown"  # not read yet (shallow scan)


@dataclass(frozen=True)
class Fingerprint:
    """What a plan saw of a file: compared again before anything is applied."""

    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class SummaryInfo:
    state: SummaryState
    heading: str | None = None  # "## Summary" or "## 摘要" as written
    bullets: tuple[str, ...] = ()
    detail: str = ""  # why it is invalid


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One line of `_index.md` that names a route. `raw` is the line verbatim, without its line ending."""

    line_no: int  # 0-based
    raw: str
    route: str
    title: str | None
    summary: str | None


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str  # relative to the root, POSIX
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class ActiveFile(FileInfo):
    index_line: str | None = None
    index_summary: str | None = None
    title: str | None = None
    summary: SummaryInfo = field(default_factory=lambda: SummaryInfo(SummaryState.UNKNOWN))


@dataclass(frozen=True)
class ArchiveRecord:
    """One record of `_archive/_index.md` (read tolerantly, written in one format)."""

    path: str  # the original active path
    index_line: str | None  # None: a legacy record without the line
    archived: dt.date | None
    reason: str | None
    deleted: dt.date | None = None
    deadline: dt.date | None = None
    # The index lines that stood just before and after it, to put it back at its old place.
    after: str | None = None
    before: str | None = None
    start: int = 0  # first line of the record in the archive index (0-based)
    end: int = 0  # one past its last line
    # "section" (the format we write; replaced in place), or "list"/"table" (hand-written: replaced by
    # removing them and appending the new record in our format).
    layout: str = "section"

    @property
    def legacy(self) -> bool:
        return self.index_line is None


@dataclass(frozen=True)
class ArchivedItem:
    path: str  # original active path
    location: str  # where it is now, e.g. _archive/projects/old.md
    size: int
    mtime_ns: int
    record: ArchiveRecord | None


@dataclass(frozen=True)
class TrashItem:
    path: str
    location: str  # e.g. _archive/_trash/projects/old.md
    size: int
    mtime_ns: int
    record: ArchiveRecord | None
    deleted: dt.date | None
    deadline: dt.date | None
    expired: bool

    def days_left(self, today: dt.date) -> int | None:
        return None if self.deadline is None else (self.deadline - today).days


@dataclass(frozen=True)
class Problem:
    kind: str  # orphan, dead-route, duplicate-route, invalid-summary, unreadable, ...
    path: str
    detail: str


@dataclass(frozen=True)
class Snapshot:
    root: Path
    exists: bool
    today: dt.date
    lifecycle_missing: tuple[str, ...]
    core: tuple[FileInfo, ...]
    index_entries: tuple[IndexEntry, ...]
    active: tuple[ActiveFile, ...]
    archived: tuple[ArchivedItem, ...]
    trash: tuple[TrashItem, ...]
    records: tuple[ArchiveRecord, ...]
    problems: tuple[Problem, ...]
    unfinished_action: str | None = None  # description of a journaled action left unfinished

    @property
    def lifecycle_ready(self) -> bool:
        return self.exists and not self.lifecycle_missing

    @property
    def expired_trash(self) -> tuple[TrashItem, ...]:
        return tuple(t for t in self.trash if t.expired)

    def active_file(self, path: str) -> ActiveFile | None:
        return next((a for a in self.active if a.path == path), None)

