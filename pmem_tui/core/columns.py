"""The shallow scan's index entries and active files as columns: an `IndexEntry` or an `ActiveFile` is made
when one is asked for, not held per line and per file.

Why: at 10^5 files the app held ~37 MB of `IndexEntry`s (each with its route, title and summary strings)
and ~16 MB of `ActiveFile`s with their sizes and times, for a list that draws a screenful
(BENCHMARKS.md, measure 7). Here the index is kept as its file's bytes (13 MB at 10^5 lines), with per
entry its line number, where its line is in the bytes, and where its title and summary are in the line;
the routes stay strings (the scan looks files up by them, and a listed file's path is its route's string).
The active files are their paths, sizes, times and the position of their first entry.

Both are read-only sequences equal to the tuples a deep scan gives (`Snapshot.index_entries`,
`Snapshot.active`); a patch replaces a few items (`replaced_entries`, `replaced_files`), kept as given.
`routes_of`, `paths_of`, `orphans_of`, `files_of`, `stamper`, `fields_of` and `differing` read any such
sequence, tuples included, without making an item per line when it holds columns.
"""

from __future__ import annotations

import copy
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from itertools import accumulate, compress, repeat
from operator import eq, lt, ne
from pathlib import Path
from typing import TypeVar, overload

from pmem_tui.core import index as index_mod
from pmem_tui.core import safeio, textio
from pmem_tui.core.md_lines import Blocks
from pmem_tui.core.model import ActiveFile, FileInfo, IndexEntry

_T = TypeVar("_T")
_BOM = textio.BOM.encode("utf-8")
_NONE = -1  # a span of no title or no summary


class _Items(Sequence[_T]):
    """A sequence of items made when asked (`_make`), some replaced by a patch (`_over`), compared with any
    sequence as a tuple would be."""

    __slots__ = ("_over",)

    def __init__(self) -> None:
        self._over: dict[int, _T] = {}

    def _make(self, i: int) -> _T:
        raise NotImplementedError

    def _item(self, i: int) -> _T:
        item = self._over.get(i)
        return self._make(i) if item is None else item

    @overload
    def __getitem__(self, index: int) -> _T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[_T, ...]: ...
    def __getitem__(self, index: int | slice) -> _T | tuple[_T, ...]:
        n = len(self)
        if isinstance(index, slice):
            return tuple(map(self._item, range(*index.indices(n))))
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("index out of range")
        return self._item(index)

    def __iter__(self) -> Iterator[_T]:
        return map(self._item, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(map(eq, self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} items)"


class IndexColumns(_Items[IndexEntry]):
    """`_index.md`'s entries in file order, from the file's bytes."""

    __slots__ = ("_data", "_ends", "_kept", "_line_nos", "_spans", "_starts", "routes")

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = data
        self._line_nos = array("i")
        self._starts = array("I")  # where each entry's line is in `_data` (without its ending; under 4 GB:
        self._ends = array("I")  # `safeio.MEMORY_CAP`)
        self._spans = array("i")  # per entry: title start, end, summary start, end in the line (-1: none)
        self.routes: list[str] = []
        self._kept: dict[int, IndexEntry] = {}  # entries whose parts are not the line's text (decoded)

    @property
    def data(self) -> bytes:
        """The file's bytes (none for a front-matter index, parsed whole)."""
        return self._data

    @classmethod
    def of(cls, entries: Iterable[IndexEntry]) -> IndexColumns:
        """Columns holding `entries` as they are (a front-matter index, parsed whole)."""
        columns = cls(b"")
        for entry in entries:
            columns._kept[len(columns.routes)] = entry
            columns._add(entry.line_no, entry.route, 0, 0, (_NONE, _NONE, _NONE, _NONE))
        return columns

    def _add(self, line_no: int, route: str, start: int, end: int, spans: tuple[int, int, int, int]) -> None:
        self._line_nos.append(line_no)
        self.routes.append(route)
        self._starts.append(start)
        self._ends.append(end)
        self._spans.extend(spans)

    def __len__(self) -> int:
        return len(self.routes)

    def _make(self, i: int) -> IndexEntry:
        kept = self._kept.get(i)
        if kept is not None:
            return kept
        raw = self._data[self._starts[i] : self._ends[i]].decode("utf-8", "surrogateescape")
        t0, t1, s0, s1 = self._spans[4 * i : 4 * i + 4]
        title = raw[t0:t1] if t0 != _NONE else None
        summary = raw[s0:s1] if s0 != _NONE else None
        return IndexEntry(self._line_nos[i], raw, self.routes[i], title, summary)

    def fields(self) -> Iterator[tuple[str, str | None, str | None]]:
        """Each entry's route, title and summary (no `IndexEntry` made, no line kept)."""
        data, starts, ends, spans, over = self._data, self._starts, self._ends, self._spans, self._over
        for i, route in enumerate(self.routes):
            entry = over.get(i) or self._kept.get(i)
            if entry is not None:
                yield entry.route, entry.title, entry.summary
                continue
            t0, t1, s0, s1 = spans[4 * i : 4 * i + 4]
            if t0 == _NONE and s0 == _NONE:
                yield route, None, None
                continue
            raw = data[starts[i] : ends[i]].decode("utf-8", "surrogateescape")
            yield route, raw[t0:t1] if t0 != _NONE else None, raw[s0:s1] if s0 != _NONE else None

    def replaced(self, changes: Mapping[int, IndexEntry]) -> IndexColumns:
        """These columns with the entries at `changes`' positions replaced (each keeps its route)."""
        new = copy.copy(self)  # the columns are shared, never changed
        new._over = {**self._over, **changes}
        return new

    def differing(self, other: IndexColumns) -> Iterator[int]:
        """The positions whose entries differ from `other`'s (as many entries; a position may come twice),
        comparing line numbers and lines, not entries."""
        same = (self._data == other._data and self._line_nos == other._line_nos) and (
            self._starts == other._starts and self._ends == other._ends  # a rescan of the same file: in C
        )
        if not same:
            lines = map(self._data.__getitem__, map(slice, self._starts, self._ends))
            other_lines = map(other._data.__getitem__, map(slice, other._starts, other._ends))
            yield from compress(
                range(len(self)), map(_ne3, self._line_nos, other._line_nos, lines, other_lines)
            )
        for i in sorted(self._over.keys() | other._over.keys() | self._kept.keys() | other._kept.keys()):
            if self[i] != other[i]:
                yield i


def _ne3(a: int, b: int, x: bytes, y: bytes) -> bool:
    return a != b or x != y


def read_index(path: Path, canonical: Callable[[str], str] | None = None) -> IndexColumns | None:
    """`index.read_index` as columns (None: no such file): the file is read whole, as bytes, and parsed
    block by block as `index.read_index` does. `canonical`: an equal string already held for a route (a
    file's path), kept instead of the route's own."""
    try:
        fd, st = safeio.open_path(path)  # never a link, a FIFO or a device; over the cap: refused
    except FileNotFoundError:
        return None
    try:
        data = safeio.read_fd(fd, st, path.name, safeio.MEMORY_CAP)  # one read, of the size it had
    finally:
        os.close(fd)
    bom = len(_BOM) if data.startswith(_BOM) else 0
    if data.startswith(b"---", bom):
        # Front matter: where it ends (if it does) decides what the first lines are; parsed whole.
        return IndexColumns.of(index_mod.parse_index(textio.decode(data)))
    columns = IndexColumns(data)
    blocks = Blocks(comments=True)
    line_no = 0
    pos = bom
    while pos < len(data):
        cut = data.find(b"\n", pos + index_mod.READ_BLOCK)
        end = len(data) if cut < 0 else cut + 1  # each block ends after a "\n" (or at the end)
        block = data[pos:end]
        text = textio.decode(block)  # no sequence spans two blocks
        bodies = textio.line_bodies(text)
        oks = None
        if blocks.fence is not None or blocks.in_comment or index_mod._may_hide_lines(text):
            oks = index_mod._visible(bodies, blocks)
        lengths = list(map(len, block.split(b"\n")))  # each line's bytes, its CR included
        starts = list(accumulate(lengths, initial=pos))  # +1 per "\n" before: below
        index_mod._parse_bodies(
            bodies, oks, line_no, _adder(columns, data, starts, lengths, line_no, canonical)
        )
        line_no += len(bodies)
        pos = end
    return columns


def _adder(
    columns: IndexColumns,
    data: bytes,
    starts: list[int],
    lengths: list[int],
    first: int,
    canonical: Callable[[str], str] | None,
) -> Callable[[index_mod.EntryRow], None]:
    """What `_parse_bodies` calls with each entry of a block from line `first`, whose lines start at
    `starts` (less the line endings before them) and are `lengths` bytes long (a CR included)."""
    line_nos, routes, starts_, ends, spans = (
        columns._line_nos,
        columns.routes,
        columns._starts,
        columns._ends,
        columns._spans,
    )

    last = len(lengths) - 1  # the block's last piece: a line without its "\n" (only at the file's end)

    def add(row: index_mod.EntryRow) -> None:
        n, raw, route, title, summary = row
        j = n - first
        start = starts[j] + j
        end = start + lengths[j]
        if j < last and data[end - 1 : end] == b"\r":  # a CRLF ending's CR (`textio.line_bodies` drops it)
            end -= 1
        t0 = raw.find(title) if title is not None else _NONE
        s0 = raw.rfind(summary) if summary is not None else _NONE
        if (title is not None and t0 < 0) or (summary is not None and s0 < 0):
            columns._kept[len(routes)] = IndexEntry(*row)  # a part decoded from the line's text
            t0 = s0 = _NONE
        line_nos.append(n)
        routes.append(route if canonical is None else canonical(route))
        starts_.append(start)
        ends.append(end)
        t1 = t0 + len(title) if title is not None and t0 != _NONE else _NONE
        s1 = s0 + len(summary) if summary is not None and s0 != _NONE else _NONE
        spans.extend((t0, t1, s0, s1))

    return add


class FileColumns:
    """Files as a walk lists them (`folder_walk.walk`): paths, sizes and times, no object per file."""

    __slots__ = ("ctimes", "mtimes", "paths", "sizes")

    def __init__(self, *, ctime: bool = True) -> None:
        self.paths: list[str] = []
        self.sizes = array("q")
        self.mtimes = array("q")
        self.ctimes = array("q") if ctime else None  # None: not kept (a shallow scan keeps no cache)

    def add_sorted(self, rows: Iterable[tuple[str, int, int, int]]) -> None:
        """Append (path, size, mtime_ns, ctime_ns) rows, sorted by path among themselves."""
        start = len(self.paths)
        ctimes = self.ctimes
        for path, size, mtime_ns, ctime_ns in rows:
            self.paths.append(path)
            self.sizes.append(size)
            self.mtimes.append(mtime_ns)
            if ctimes is not None:
                ctimes.append(ctime_ns)
        order = sorted(range(start, len(self.paths)), key=self.paths.__getitem__)
        self.paths[start:] = [self.paths[i] for i in order]
        for column in (self.sizes, self.mtimes, ctimes):
            if column is not None:
                column[start:] = array("q", map(column.__getitem__, order))


class ActiveColumns(_Items[ActiveFile]):
    """The active files of a shallow scan, in the scan's order: each made with its first entry (from
    `entries`) and that entry's title, and no summary read (`SummaryState.UNKNOWN`)."""

    __slots__ = ("_entries", "_entry_at", "_mtimes", "_sizes", "paths")

    def __init__(
        self,
        entries: Sequence[IndexEntry],
        paths: list[str],
        sizes: array[int],
        mtimes: array[int],
        entry_at: array[int],
    ) -> None:
        super().__init__()
        self._entries = entries
        self.paths = paths
        self._sizes = sizes
        self._mtimes = mtimes
        self._entry_at = entry_at  # the position of the file's first entry in `entries`; -1: an orphan

    def __len__(self) -> int:
        return len(self.paths)

    def _make(self, i: int) -> ActiveFile:
        k = self._entry_at[i]
        entry = self._entries[k] if k >= 0 else None
        title = entry.title if entry is not None else None
        return ActiveFile(self.paths[i], self._sizes[i], self._mtimes[i], entry=entry, title=title)

    def replaced(self, changes: Mapping[int, ActiveFile], entries: Sequence[IndexEntry]) -> ActiveColumns:
        """These files with those at `changes`' positions replaced, their entries read from `entries`."""
        new = copy.copy(self)  # the columns are shared, never changed
        new._entries = entries
        new._over = {**self._over, **changes}
        return new

    def orphans(self) -> list[int]:
        found = set(compress(range(len(self)), map(lt, self._entry_at, repeat(0))))
        for i, file in self._over.items():
            (found.add if file.entry is None else found.discard)(i)
        return sorted(found)

    def stamp(self, i: int) -> tuple[int, int]:
        """File `i`'s (size, mtime_ns), without making it."""
        file = self._over.get(i)
        return (self._sizes[i], self._mtimes[i]) if file is None else (file.size, file.mtime_ns)


# Any sequence of entries or active files, read without making an item each when it holds columns.


def routes_of(entries: Sequence[IndexEntry]) -> list[str]:
    return entries.routes if isinstance(entries, IndexColumns) else [e.route for e in entries]


def paths_of(files: Sequence[FileInfo]) -> list[str]:
    return files.paths if isinstance(files, ActiveColumns) else [f.path for f in files]


def orphans_of(active: Sequence[ActiveFile]) -> list[int]:
    """The positions of the files no index line lists."""
    if isinstance(active, ActiveColumns):
        return active.orphans()
    return [i for i, a in enumerate(active) if a.entry is None]


def files_of(
    entries: Sequence[IndexEntry], active: Sequence[ActiveFile], again: Mapping[str, list[int]]
) -> array[int]:
    """For each entry, the position in `active` of its route's file (-1: a dead route); `again`: the
    positions of the routes listed more than once (`repeated`)."""
    routes = routes_of(entries)
    if not (isinstance(active, ActiveColumns) and active._entries is entries):
        at = dict(zip(paths_of(active), range(len(active)), strict=True))
        return array("i", map(at.get, routes, repeat(-1)))
    # From each file's first entry (a patch never moves one), without a table of every path.
    files = array("i", [-1]) * len(routes)
    for i, k in enumerate(active._entry_at):
        if k >= 0:
            files[k] = i
    for positions in again.values():  # a route listed again: its later lines show the same file
        for k in positions[1:]:
            files[k] = files[positions[0]]
    return files


def repeated(routes: Sequence[str], among: Set[str] | None = None) -> dict[str, list[int]]:
    """The positions of each route listed more than once; `among`: those routes, when known (a scan's
    `Snapshot.routes_listed_again`: then no set of every route is made, and no loop when it is empty)."""
    again = among
    if again is None:
        seen: set[str] = set()
        again = set()
        for route in routes:
            if route in seen:
                again.add(route)
            else:
                seen.add(route)
        del seen
    found: dict[str, list[int]] = {}
    if again:
        for k, route in enumerate(routes):
            if route in again:
                found.setdefault(route, []).append(k)
    return found


def stamper(active: Sequence[ActiveFile]) -> Callable[[int], tuple[int, int]]:
    """What gives file `i`'s (size, mtime_ns)."""
    if isinstance(active, ActiveColumns):
        return active.stamp
    return lambda i: (active[i].size, active[i].mtime_ns)


def changed_stamps(active: Sequence[ActiveFile], old: Sequence[ActiveFile]) -> set[int] | None:
    """The positions of the files whose size or time differ, told from columns without a Python loop over
    the files (None: not known that way: tuples, or a patch's replaced files)."""
    if not (isinstance(active, ActiveColumns) and isinstance(old, ActiveColumns)):
        return None
    if active._over or old._over or len(active) != len(old):
        return None
    n = range(len(active))
    return set(compress(n, map(ne, active._sizes, old._sizes))) | set(
        compress(n, map(ne, active._mtimes, old._mtimes))
    )


def differing(entries: Sequence[IndexEntry], old: Sequence[IndexEntry]) -> Iterator[int]:
    """The positions where `entries` and `old` (as many) hold different entries (a position may come
    twice); columns are compared line by line, without making entries."""
    if isinstance(entries, IndexColumns) and isinstance(old, IndexColumns):
        return entries.differing(old)
    return compress(range(len(entries)), map(ne, entries, old))


def replaced_entries(
    entries: Sequence[IndexEntry], changes: Mapping[int, IndexEntry]
) -> Sequence[IndexEntry]:
    """`entries` with the items at `changes`' positions replaced (the same sequence when there are none)."""
    if not changes:
        return entries
    if isinstance(entries, IndexColumns):
        return entries.replaced(changes)
    return _replaced_tuple(entries, changes)


def replaced_files(
    active: Sequence[ActiveFile], changes: Mapping[int, ActiveFile], entries: Sequence[IndexEntry]
) -> Sequence[ActiveFile]:
    """`active` with the files at `changes`' positions replaced; columns read their entries from `entries`."""
    if isinstance(active, ActiveColumns):
        return active.replaced(changes, entries) if changes or entries is not active._entries else active
    return _replaced_tuple(active, changes) if changes else active


def fields_of(entries: Sequence[IndexEntry]) -> Iterator[tuple[str, str | None, str | None]]:
    """Each entry's route, title and summary, without making the entries of columns."""
    if isinstance(entries, IndexColumns):
        return entries.fields()
    return ((e.route, e.title, e.summary) for e in entries)


def _replaced_tuple(items: Sequence[_T], changes: Mapping[int, _T]) -> tuple[_T, ...]:
    as_list = list(items)
    for i, item in changes.items():
        as_list[i] = item
    return tuple(as_list)
