"""Rows of the panes, built from a Snapshot. Plain data: no widget, no Rich markup.

A Row's `key` is stable across rescans (a route, a path), so the list keeps its selection and
marks when the snapshot is replaced; `location` is the file to preview (None: no file).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import eq
from typing import overload

from pmem_tui.core import paths
from pmem_tui.core.columns import repeated
from pmem_tui.core.model import (
    INDEX_FILE,
    ActiveFile,
    ArchivedItem,
    FileInfo,
    IndexEntry,
    Problem,
    Snapshot,
    TrashItem,
)
from pmem_tui.core.report import human_size
from pmem_tui.core.words import plural
from pmem_tui.tui.keys import key_for

DUP_SEP = "\n"  # in the key of a route's later copies in the Index pane

# Row kinds
ENTRY = "entry"  # an index entry whose file exists
DEAD = "dead"  # an index entry whose file does not exist (dead route)
ORPHAN = "orphan"  # an active file without an index entry
CORE = "core"
ARCHIVED = "archived"
TRASHED = "trash"


@dataclass(frozen=True, slots=True, init=False)
class Row:
    key: str  # unique in its pane, stable across scans: the path (a route's later copies: route+DUP_SEP+n)
    kind: str
    path: str  # the memory path: the route, the original active path, or the _core/ path
    location: str | None  # the file on disk (relative to the root), None for a dead route
    # The cells shown (`cells`); None: an index entry's route, title and summary, read from the entry when
    # drawn (a tuple per row is ~6 MB at 10^5 rows).
    _cells: tuple[str, ...] | None
    flag: str  # a short badge: "orphan", "dead", "expired", "legacy"...
    size: int | None
    mtime_ns: int | None
    # The index line (`index_line`), or the entry it is read from: an entry rebuilds its line only when asked,
    # so 10^5 rows do not each hold a copy of it.
    line: str | IndexEntry | None
    note: str  # one line shown in the preview's facts (a reason, a deadline...)
    in_index: bool | None  # for active files: listed in _index.md (None: not known / not relevant)
    line_no: int | None  # an entry's 0-based line in _index.md: its note is built when shown

    def __init__(
        self,
        key: str,
        kind: str,
        path: str,
        location: str | None,
        cells: tuple[str, ...] | None,
        flag: str = "",
        size: int | None = None,
        mtime_ns: int | None = None,
        index_line: str | IndexEntry | None = None,
        note: str = "",
        in_index: bool | None = None,
        line_no: int | None = None,
    ) -> None:
        setter = object.__setattr__  # frozen
        setter(self, "key", key)
        setter(self, "kind", kind)
        setter(self, "path", path)
        setter(self, "location", location)
        if cells is None and not isinstance(index_line, IndexEntry):
            raise ValueError("a row without cells reads them from its index entry")
        setter(self, "_cells", cells)
        setter(self, "flag", flag)
        setter(self, "size", size)
        setter(self, "mtime_ns", mtime_ns)
        setter(self, "line", index_line)
        setter(self, "note", note)
        setter(self, "in_index", in_index)
        setter(self, "line_no", line_no)

    @property
    def cells(self) -> tuple[str, ...]:
        cells = self._cells
        if cells is not None:
            return cells
        entry = self.line
        assert isinstance(entry, IndexEntry)  # checked when the row was made
        return (entry.route, entry.title or "", entry.summary or "")

    @property
    def index_line(self) -> str | None:
        line = self.line
        return line.raw if isinstance(line, IndexEntry) else line

    @property
    def is_active_file(self) -> bool:
        return self.kind in (ENTRY, ORPHAN)

    @property
    def facts_note(self) -> str:
        """The note shown in the preview's facts: `note`, or for an index entry where it is listed (built
        here, not stored in each of 10^5 rows)."""
        if self.kind == ARCHIVED:
            return _archived_note(self)
        if self.note or self.line_no is None:
            return self.note
        line = self.line_no + 1
        if self.kind == DEAD:
            return dead_note(self.line_no)
        copy = f", copy {self.key.rsplit(DUP_SEP, 1)[1]}" if self.flag == "dup" else ""
        return f"Listed in {INDEX_FILE} (line {line}){copy}."


def _archived_note(row: Row) -> str:
    """An archived row's note, and what recovering it takes: checked when shown, not for each of the
    archive's rows at each scan (a path's checks are ~20 µs)."""
    problem = paths.active_path_problem(row.path)
    if problem is not None:  # an agent archived something pmem-tui never recovers (found in trial: `_core/`)
        if row.flag != "no record":
            return f"{row.note}. It cannot be recovered here: {problem}; move it by hand."
        return (
            f"{row.note}. It cannot be recovered under this name ({problem}); "
            f"{key_for('recover')} recovers it for the record whose file is missing and has its name, if "
            "there is one (its preview names both); else move it by hand."
        )
    if row.flag == "legacy":
        return f"{row.note}. The record has no saved index line: recovering it asks you to confirm one."
    return row.note


def dead_note(line_no: int, why: str = "no such file") -> str:
    """A dead route's note; `why`: what is there instead (`dead_routes.why_dead`), when the preview looked."""
    return f"In {INDEX_FILE} (line {line_no + 1}), a dead route: {why}."


class RowSequence(Sequence[Row]):
    """Rows made or picked when asked for (`index_rows.IndexRows`, `list_filter.FilteredRows`), compared
    with any sequence of rows as a list would be."""

    __slots__ = ()

    def _at(self, index: int) -> Row:
        raise NotImplementedError

    def _many(self, index: slice) -> list[Row]:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        return self._many(index) if isinstance(index, slice) else self._at(index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(map(eq, self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list


def search_text(row: Row) -> str:
    """What the filter searches in a row: its path, then its other columns, lowercase, one per line."""
    rest = "\n".join(row.cells[1:])
    return f"{row.path}\n{rest}".lower()


def fmt_mtime(mtime_ns: int | None) -> str:
    if mtime_ns is None:
        return ""
    return dt.datetime.fromtimestamp(mtime_ns / 1e9).strftime("%Y-%m-%d %H:%M")


def fmt_date(day: dt.date | None) -> str:
    return day.isoformat() if day else "?"


def countdown(item: TrashItem, today: dt.date) -> str:
    """'recoverable 12 more days', 'expired: P purges it', or why there is no deadline. Nothing is purged
    on its own: only `P` removes expired items, after its preview."""
    left = item.days_left(today)
    if left is None:
        return "no deadline (no record)"
    if item.expired or left < 0:
        return f"expired: {key_for('purge')} purges it"
    if left == 0:
        return f"recoverable today; {key_for('purge')} purges it after"
    return f"recoverable {plural(left, 'more day')}"


def orphan_row(file: ActiveFile, detail: str | None = None) -> Row:
    """The Index row of an active file that no index line lists; `detail`: the scan's sentence for it, when
    it says more (`orphan_details`)."""
    return _orphan_row(file) if detail is None else _unbulleted_row(file, detail)


def orphan_details(problems: Sequence[Problem]) -> dict[str, str]:
    """The orphans a line without a list bullet names (`Problem.unbulleted`): path -> the scan's sentence."""
    return {p.path: p.detail for p in problems if p.kind == "orphan" and p.unbulleted is not None}


def _file_row(
    kind: str,
    f: ActiveFile | FileInfo | ArchivedItem | TrashItem,
    location: str,
    cells: tuple[str, ...],
    *,
    flag: str = "",
    index_line: str | None = None,
    note: str = "",
    in_index: bool | None = None,
) -> Row:
    """The row of a file keyed by its own path (every row but the Index's entries)."""
    return Row(f.path, kind, f.path, location, cells, flag, f.size, f.mtime_ns, index_line, note, in_index)


def _orphan_row(file: ActiveFile) -> Row:
    cells = (file.path, file.title or "", f"not in {INDEX_FILE}")
    return _file_row(ORPHAN, file, file.path, cells, flag="orphan", note=_ORPHAN_NOTE, in_index=False)


_ORPHAN_NOTE = f"On disk but not in {INDEX_FILE}: agents cannot find it by its route."


def _unbulleted_row(file: ActiveFile, detail: str) -> Row:
    """Named by a line that is not a list item: "not in _index.md" would be false (so the preview says
    nothing of it, `in_index` None); the note is the scan's sentence."""
    cells = (file.path, file.title or "", "not a list item")
    note = detail[:1].upper() + detail[1:] + "."
    return _file_row(ORPHAN, file, file.path, cells, flag="orphan", note=note, in_index=None)


def head_rows(head: list[tuple[IndexEntry, FileInfo | None]]) -> list[Row]:
    """The first Index rows, from `core.head.index_head`: the same rows the full scan will build for these
    entries (same keys), so the scan's rows replace them without moving the cursor."""
    copies = copy_numbers(repeated([entry.route for entry, _ in head]))
    return [
        entry_row_copy(entry, (info.size, info.mtime_ns) if info else None, copies.get(k, 1))
        for k, (entry, info) in enumerate(head)
    ]


def copy_numbers(again: Mapping[str, list[int]]) -> dict[int, int]:
    """The copy number (2, 3...) of each later line of a route listed more than once (`again`: each such
    route's positions, `columns.repeated`)."""
    return {k: n for positions in again.values() for n, k in enumerate(positions[1:], 2)}


def entry_row(entry: IndexEntry, file: ActiveFile | None) -> Row:
    """The Index row of one entry whose route is listed once (`file`: None for a dead route)."""
    return entry_row_copy(entry, None if file is None else (file.size, file.mtime_ns), 1)


def entry_row_copy(entry: IndexEntry, stamp: tuple[int, int] | None, copy: int) -> Row:
    """The Index row of `entry`, the `copy`-th line (from 1) that lists its route; `stamp`: its file's size
    and mtime_ns (None: a dead route)."""
    # The route itself (no new string per row); a later copy of a listed route gets "\n<copy>": a route
    # never holds a line break, and an orphan's path (also its own key) is never a listed route.
    key = entry.route if copy == 1 else f"{entry.route}{DUP_SEP}{copy}"
    cells = None  # the entry's route, title and summary: read from it (`Row.cells`)
    if stamp is None:
        return Row(
            key=key,
            kind=DEAD,
            path=entry.route,
            location=None,
            cells=cells,
            flag="dead",
            index_line=entry,
            in_index=True,
            line_no=entry.line_no,
        )
    return Row(
        key=key,
        kind=ENTRY,
        path=entry.route,
        location=entry.route,
        cells=cells,
        flag="dup" if copy > 1 else "",
        size=stamp[0],
        mtime_ns=stamp[1],
        index_line=entry,
        in_index=True,
        line_no=entry.line_no,
    )


def core_rows(snap: Snapshot) -> list[Row]:
    return [_core_row(f) for f in snap.core]


def _core_row(f: FileInfo) -> Row:
    cells = (f.path, human_size(f.size), fmt_mtime(f.mtime_ns))
    return _file_row(CORE, f, f.path, cells, note="Baseline context: read when an agent loads memory.")


def _records_of(snap: Snapshot) -> Counter[str]:
    """How many records name each path (one count for the pane, not a search per row)."""
    return Counter(r.path for r in snap.records)


def _others(count: int) -> str:
    """An item's note when other records name its path too (`status`: duplicate-record)."""
    if count < 2:
        return ""
    other = "the other stays" if count == 2 else f"the {count - 1} others stay"
    return (
        f"{count} records name it: recovering it uses this one (the latest date; on a tie, the one keeping "
        f"its index line, then the later in the file) and says {other}"
    )


def archive_rows(snap: Snapshot) -> list[Row]:
    counts = _records_of(snap)
    return [_archive_row(a, counts[a.path]) for a in snap.archived]


def _archive_row(a: ArchivedItem, records: int = 1) -> Row:
    rec = a.record
    when = fmt_date(rec.archived) if rec else "?"
    reason = (rec.reason or "") if rec else "no record"
    flag = "no record" if rec is None else ("legacy" if rec.legacy else "")
    note = f"Archived {when}" + (f" - reason: {rec.reason}" if rec and rec.reason else "")
    if rec is not None and records > 1:
        note += f"; {_others(records)}"  # no final period: `_archived_note` may add a sentence
    line = rec.index_line if rec else None
    return _file_row(ARCHIVED, a, a.location, (a.path, when, reason), flag=flag, index_line=line, note=note)


def trash_rows(snap: Snapshot) -> list[Row]:
    counts = _records_of(snap)
    return [_trash_row(t, snap.today, counts[t.path]) for t in snap.trash]  # sorted by deadline (the scan)


def _trash_row(t: TrashItem, today: dt.date, records: int = 1) -> Row:
    when = countdown(t, today)
    deadline = f"recoverable until {t.deadline.isoformat()}" if t.deadline else "no deadline recorded"
    purge = f": expired, `{key_for('purge')}` purges it for good." if t.expired else "."
    return _file_row(
        TRASHED,
        t,
        t.location,
        (t.path, fmt_date(t.deleted), when),
        flag="expired" if t.expired else "",
        index_line=t.record.index_line if t.record else None,
        note=f"Deleted {fmt_date(t.deleted)}, {deadline}{purge}"
        + (f" {_others(records)}." if t.record and records > 1 else ""),
    )
