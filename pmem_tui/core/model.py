"""The immutable snapshot of a memory root, as the scan sees it.

Paths are always POSIX-style strings relative to the root (e.g. ``projects/old.md``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import FrozenInstanceError, dataclass, field
from enum import StrEnum
from pathlib import Path

from pmem_tui.core import line_shapes

# Folder and file names the spec gives meaning to (`names.py`, cheap to import alone; used from here as ever).
from pmem_tui.core.names import ACTIVE_DIRS as ACTIVE_DIRS
from pmem_tui.core.names import ARCHIVE_DIR as ARCHIVE_DIR
from pmem_tui.core.names import ARCHIVE_INDEX as ARCHIVE_INDEX
from pmem_tui.core.names import CORE_DIR as CORE_DIR
from pmem_tui.core.names import INDEX_FILE as INDEX_FILE
from pmem_tui.core.names import META_DIR as META_DIR
from pmem_tui.core.names import TRASH_DIR as TRASH_DIR

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


FolderPrint = tuple[int, int, int]  # a folder's st_dev, st_ino, st_ctime_ns (`fingerprint.folder_print`)


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


class IndexEntry:
    """One line of `_index.md` that names a route. `raw` is the line verbatim, without its line ending.

    Immutable, compared and hashed by (line_no, raw, route, title, summary), like a frozen dataclass. The line
    is kept packed by `line_shapes` (memory: see there); `raw` gives it back exactly."""

    __slots__ = ("_form", "line_no", "route", "summary", "title")
    __match_args__ = ("line_no", "raw", "route", "title", "summary")

    line_no: int  # 0-based
    route: str
    title: str | None
    summary: str | None
    _form: line_shapes.Form  # the line, packed

    def __init__(self, line_no: int, raw: str, route: str, title: str | None, summary: str | None) -> None:
        setter = object.__setattr__
        setter(self, "line_no", line_no)
        setter(self, "route", route)
        setter(self, "title", title)
        setter(self, "summary", summary)
        setter(self, "_form", line_shapes.pack(raw, (title, route, summary)))

    @property
    def raw(self) -> str:
        return line_shapes.unpack(self._form, (self.title, self.route, self.summary))

    def _key(self) -> tuple[int, str, str, str | None, str | None]:
        return (self.line_no, self.raw, self.route, self.title, self.summary)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IndexEntry):
            return NotImplemented
        if (self.line_no, self.route, self.title, self.summary) != (
            other.line_no,
            other.route,
            other.title,
            other.summary,
        ):
            return False
        # The same shape (usually the very same shared tuple) and parts make the same line: no line is built
        # when a rescan compares 10^5 rows; other forms compare their lines.
        return self._form is other._form or self._form == other._form or self.raw == other.raw

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"IndexEntry(line_no={self.line_no!r}, raw={self.raw!r}, route={self.route!r}, "
            f"title={self.title!r}, summary={self.summary!r})"
        )

    def __reduce__(self) -> tuple[type[IndexEntry], tuple[int, str, str, str | None, str | None]]:
        return IndexEntry, self._key()

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str  # relative to the root, POSIX
    size: int
    mtime_ns: int
    ctime_ns: int = (
        0  # as listed (`folder_walk.walk_files`), for the caches' freshness rule (`cache.fresh`); 0: not kept
    )


@dataclass(frozen=True, slots=True)
class ActiveFile(FileInfo):
    entry: IndexEntry | None = None  # its (first) line in `_index.md`; None: an orphan
    title: str | None = None
    summary: SummaryInfo = field(default_factory=lambda: SummaryInfo(SummaryState.UNKNOWN))

    # Read from the entry, not stored: the entry rebuilds its line only when asked.
    @property
    def index_line(self) -> str | None:
        return None if self.entry is None else self.entry.raw

    @property
    def index_summary(self) -> str | None:
        return None if self.entry is None else self.entry.summary


@dataclass(frozen=True)
class IndexPlace:
    """One `_index.md` line of an archived file and the lines around it, to put it back at its place."""

    line: str
    after: str | None = None
    before: str | None = None


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
    # "section" (a heading and field lines), "list" (a list item, fields inline or indented below) or "table"
    # (a table row); a record is updated in its own shape.
    layout: str = "section"
    # Where the file stands when the record says so (an agent's `_archive/old.md`); None: not said.
    location: str | None = None
    # A route listed more than once: the other lines, each with its neighbours, in file order.
    more_lines: tuple[IndexPlace, ...] = ()

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
    unbulleted: int | None = None  # an orphan's: the `_index.md` line (1-based) naming it without a bullet


@dataclass(frozen=True)
class Snapshot:
    root: Path
    exists: bool
    today: dt.date
    lifecycle_missing: tuple[str, ...]
    core: tuple[FileInfo, ...]
    index_entries: Sequence[IndexEntry]  # a tuple, or a shallow scan's columns (`core/columns.py`)
    active: Sequence[ActiveFile]  # the same
    archived: tuple[ArchivedItem, ...]
    trash: tuple[TrashItem, ...]
    records: tuple[ArchiveRecord, ...]
    problems: tuple[Problem, ...]
    unfinished_action: str | None = None  # description of a journaled action left unfinished
    action_running: bool = False  # ...or being applied right now by another process (`settled.scan`)

    @property
    def lifecycle_ready(self) -> bool:
        return self.exists and not self.lifecycle_missing

    @property
    def lifecycle_linked(self) -> tuple[str, ...]:
        """The lifecycle paths that are symbolic links: never followed, so the actions that use them are
        refused (found in trial: a linked trash said "ready", then every delete was refused)."""
        return tuple(p.path for p in self.problems if p.kind == "symlink" and p.path in LIFECYCLE_PATHS)

    def routes_listed_again(self) -> set[str]:
        """The routes `_index.md` lists more than once (the scan's `duplicate-route` problems)."""
        return {p.path for p in self.problems if p.kind == "duplicate-route"}

    @property
    def expired_trash(self) -> tuple[TrashItem, ...]:
        return tuple(t for t in self.trash if t.expired)

    def active_file(self, path: str) -> ActiveFile | None:
        return next((a for a in self.active if a.path == path), None)
