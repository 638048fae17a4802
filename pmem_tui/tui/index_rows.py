"""The Index pane's rows, made when one is asked for: no `Row` is held per index line.

At 10^5 lines a `Row` each is ~12 MB held, and ~0.3 s to build after every full scan; the pane draws a
screenful, and its filter needs only each row's search text. `IndexRows` keeps, per entry, where its file is
in the snapshot (or none: a dead route), and which copy of its route it is; a row is built from the entry
and its file's size and time when it is drawn, selected or compared. A row replaced by a patch
(`update_row`) is kept as given. The list widget and the screen read keys, flags, search texts and paths
through the functions at the end (`keys_of`, `flags_of`, `search_texts`, `paths_of`...), which take any
sequence of rows.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterator, Sequence, Set
from itertools import compress
from operator import ne

from pmem_tui.core import columns
from pmem_tui.core.model import ActiveFile, IndexEntry, Snapshot
from pmem_tui.tui.rows import (
    DUP_SEP,
    Row,
    RowSequence,
    copy_numbers,
    entry_row_copy,
    orphan_details,
    orphan_row,
    search_text,
)


class IndexRows(RowSequence):
    """The snapshot's index entries in file order, then its orphans (active files no line lists), as the
    Index pane shows them."""

    __slots__ = (
        "_active",
        "_again",
        "_copies",
        "_details",
        "_entries",
        "_files",
        "_keys",
        "_orphans",
        "_problems",
        "_replaced",
        "_stamp",
    )

    def __init__(self, snap: Snapshot) -> None:
        entries, active = snap.index_entries, snap.active
        self._entries: Sequence[IndexEntry] = entries
        self._active: Sequence[ActiveFile] = active
        routes = columns.routes_of(entries)  # read from columns: no entry or file is made here
        again = columns.repeated(routes, snap.routes_listed_again())  # the routes the scan found twice
        self._files = columns.files_of(entries, active, again)  # the entry's file in `active`; -1: none
        self._stamp = columns.stamper(active)  # a file's size and time, without making the file
        self._orphans = array("i", columns.orphans_of(active))
        self._problems = snap.problems  # what the scan says of an orphan (`rows.orphan_details`)
        self._details: dict[str, str] | None = None  # made with the first orphan row
        # A route listed again: its later lines are copies 2, 3..., keyed apart (`rows.DUP_SEP`).
        self._copies = copy_numbers(again)
        self._again = again  # each such route's lines (`carry_keys`)
        keys = routes
        if self._copies:
            keys = list(routes)
            for k, n in self._copies.items():
                keys[k] = f"{routes[k]}{DUP_SEP}{n}"
        paths = columns.paths_of(active)
        self._keys: list[str] = keys + [paths[i] for i in self._orphans]
        self._replaced: dict[int, Row] = {}  # rows a patch gave (same key, new facts)

    def __len__(self) -> int:
        return len(self._keys)

    def _many(self, index: slice) -> list[Row]:
        return [self._row(i) for i in range(*index.indices(len(self._keys)))]

    def _at(self, index: int) -> Row:
        if index < 0:
            index += len(self._keys)
        if not 0 <= index < len(self._keys):
            raise IndexError("row index out of range")
        return self._row(index)

    def _row(self, i: int) -> Row:
        row = self._replaced.get(i)
        if row is not None:
            return row
        n = len(self._entries)
        if i >= n:
            if self._details is None:
                self._details = orphan_details(self._problems)
            file = self._active[self._orphans[i - n]]
            return orphan_row(file, self._details.get(file.path))
        f = self._files[i]
        return entry_row_copy(self._entries[i], self._stamp(f) if f >= 0 else None, self._copies.get(i, 1))

    def __iter__(self) -> Iterator[Row]:
        return map(self._row, range(len(self._keys)))

    def __setitem__(self, index: int, row: Row) -> None:
        """Replace one row (a patch: the same key, new facts)."""
        if self._keys[index] != row.key:
            raise ValueError(f"row {index} is {self._keys[index]!r}, not {row.key!r}")
        self._replaced[index] = row

    def __repr__(self) -> str:
        return f"IndexRows({len(self)} rows)"

    @property
    def keys(self) -> list[str]:
        return self._keys

    def paths(self) -> list[str]:
        """Each row's path (an entry's route, an orphan's path), without building the rows."""
        return columns.routes_of(self._entries) + self._keys[len(self._entries) :]

    def flags(self) -> set[str]:
        """The flags the rows show (for the flag column's width), without building them."""
        found = {row.flag for row in self._replaced.values()}  # (the caller drops "")
        if -1 in self._files:
            found.add("dead")
        if self._copies:
            found.add("dup")
        if self._orphans:
            found.add("orphan")
        return found

    def search_texts(self) -> list[str]:
        """Each row's `rows.search_text`, read from the entries (rows are built only for orphans and
        replaced rows)."""
        # `search_text` of an entry's row (path and cells: route, title, summary), without the row.
        texts = [
            f"{route}\n{title or ''}\n{summary or ''}".lower()
            for route, title, summary in columns.fields_of(self._entries)
        ]
        texts += [search_text(self._row(i)) for i in range(len(self._entries), len(self._keys))]
        for i, row in self._replaced.items():
            texts[i] = search_text(row)
        return texts

    def changed_from(self, old: IndexRows) -> list[int] | None:
        """The positions whose rows differ from `old`'s, None when the keys differ (the pane is rebuilt).
        Compares the entries and the files' facts a row shows, not rows."""
        n = len(self._entries)
        if n != len(old._entries) or self._keys != old._keys:
            return None  # (an orphan listed at the end keeps every key where it was)
        changed = set(columns.differing(self._entries, old._entries))
        files_changed = columns.changed_stamps(self._active, old._active)
        if files_changed is not None and self._files == old._files:  # the same files: their sizes, times
            if files_changed:
                changed.update(compress(range(n), map(files_changed.__contains__, self._files)))
        else:
            changed.update(compress(range(n), map(ne, self._files, old._files)))
            new_facts, old_facts = self._file_facts(), old._file_facts()
            changed.update(compress(range(n), map(ne, map(new_facts, range(n)), map(old_facts, range(n)))))
        for i in range(n, len(self._keys)):
            if self._row(i) != old._row(i):
                changed.add(i)
        for i in self._replaced.keys() | old._replaced.keys():
            if i not in changed and self._row(i) != old._row(i):
                changed.add(i)
        return sorted(changed)

    def _file_facts(self) -> Callable[[int], tuple[int, int] | None]:
        """What gives entry `i`'s file's size and time (None: no file)."""
        files, stamp = self._files, self._stamp
        return lambda i: stamp(files[i]) if files[i] >= 0 else None


def index_rows(snap: Snapshot) -> IndexRows:
    return IndexRows(snap)


# Any pane's rows, read without building 10^5 rows when they are `IndexRows`.


def keys_of(rows: Sequence[Row]) -> Sequence[str]:
    return rows.keys if isinstance(rows, IndexRows) else [row.key for row in rows]


def flags_of(rows: Sequence[Row]) -> set[str]:
    """The non-empty flags the rows show."""
    found = rows.flags() if isinstance(rows, IndexRows) else {row.flag for row in rows}
    found.discard("")
    return found


def changed_rows(old: Sequence[Row], new: Sequence[Row]) -> list[int] | None:
    """The positions where `new` holds another row than `old`, None when they do not hold the same keys in
    the same order."""
    if isinstance(new, IndexRows) and isinstance(old, IndexRows):
        return new.changed_from(old)
    if len(old) != len(new):
        return None
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return None if any(old[i].key != new[i].key for i in changed) else changed


def paths_of(rows: Sequence[Row]) -> list[str]:
    return rows.paths() if isinstance(rows, IndexRows) else [row.path for row in rows]


def with_paths(rows: Sequence[Row], paths: Set[str]) -> list[Row]:
    """The rows whose path is one of `paths`, in order (only those rows are built)."""
    return [rows[i] for i, path in enumerate(paths_of(rows)) if path in paths]


def at_location(rows: Sequence[Row], location: str) -> Row | None:
    """The first row showing the file at `location` (only the candidates are built: a row's location is
    its path or none, but in the archive and the trash)."""
    if not isinstance(rows, IndexRows):
        return next((row for row in rows if row.location == location), None)
    candidates = (rows[i] for i, path in enumerate(rows.paths()) if path == location)  # each built once
    return next((row for row in candidates if row.location), None)


def search_texts(rows: Sequence[Row]) -> list[str]:
    return rows.search_texts() if isinstance(rows, IndexRows) else list(map(search_text, rows))


# A route's copies renumbered by a rescan (an agent added or removed a line that lists it): the cursor and
# the marks follow their line, not their copy number.


def carry_keys(
    old: Sequence[Row], new: Sequence[Row], keys: Collection[str], nearest: bool
) -> dict[str, str | None]:
    """Where each of `keys` that names a line of a route listed more than once (before or after) went:
    the key of the same line in `new`, matched by its text in order. A line no longer listed maps to
    None, or, with `nearest` (a cursor), to the nearest earlier copy still listed, else to the route's
    first line, else to the route (its file's orphan row, if it has one). Keys that keep their line are
    left out."""
    repeated = _repeated(old) | _repeated(new)
    wanted = {key for key in keys if key.partition(DUP_SEP)[0] in repeated}
    if not wanted:
        return {}
    routes = {key.partition(DUP_SEP)[0] for key in wanted}
    lines_before, lines_after = _lines_of(old, routes), _lines_of(new, routes)
    carried: dict[str, str | None] = {}
    for route in routes:
        before, after = lines_before[route], lines_after[route]
        went = _pair([raw for _, raw in before], [raw for _, raw in after])
        for i, (key, _) in enumerate(before):
            if key not in wanted:
                continue
            j = went.get(i)
            if j is None and nearest:
                j = next((went[k] for k in range(i - 1, -1, -1) if k in went), 0 if after else None)
            to = after[j][0] if j is not None else (route if nearest else None)
            if to != key:
                carried[key] = to
    return carried


def follow_lines(
    old: Sequence[Row], new: Sequence[Row], cursor: str | None, marks: Set[str]
) -> tuple[str | None, set[str]]:
    """The cursor's key and the marks once `old` became `new` (`carry_keys`): marks on lines no longer
    listed are dropped."""
    if cursor is not None:
        cursor = carry_keys(old, new, [cursor], nearest=True).get(cursor, cursor)
    moved = carry_keys(old, new, marks, nearest=False) if marks else {}
    return cursor, {to for key in marks if (to := moved.get(key, key)) is not None}


def _repeated(rows: Sequence[Row]) -> set[str]:
    """The routes listed more than once."""
    if isinstance(rows, IndexRows):
        return set(rows._again)
    return {key.partition(DUP_SEP)[0] for key in keys_of(rows) if DUP_SEP in key}


def _lines_of(rows: Sequence[Row], routes: Set[str]) -> dict[str, list[tuple[str, str]]]:
    """Each line listing one of `routes`, in order: its key and its text (an orphan keyed by its route is
    no line)."""
    keys = keys_of(rows)
    found: dict[str, list[int]] = {route: [] for route in routes}
    if isinstance(rows, IndexRows):  # its lines of a route listed again are known
        once = {route for route in routes if not rows._again.get(route)}
        found.update((route, rows._again[route]) for route in routes - once)
        if once:  # each listed once (or not at all): one pass for all of them
            for i, key in enumerate(keys):
                if key in once:
                    found[key] = [i]
    else:
        for i, key in enumerate(keys):
            positions = found.get(key.partition(DUP_SEP)[0])
            if positions is not None:
                positions.append(i)
    lines: dict[str, list[tuple[str, str]]] = {}
    for route, positions in found.items():
        texts = [(keys[i], rows[i].index_line) for i in positions]
        lines[route] = [(key, text) for key, text in texts if text is not None]
    return lines


def _pair(before: list[str], after: list[str]) -> dict[int, int]:
    """Which line of `after` each line of `before` is: equal lines in order; a run of lines replaced by as
    many (edited in place) pairs up by position."""
    from difflib import SequenceMatcher  # only when a listed route's copies changed

    went: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            went.update(zip(range(i1, i2), range(j1, j2), strict=True))
    return went
