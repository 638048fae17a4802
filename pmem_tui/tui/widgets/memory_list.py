"""A virtual list of Rows on Textual's Line API: only the visible lines are ever rendered.

Replacing the rows (after a rescan) keeps the selected key, the marks and the scroll position. The
filter tests each row's searchable text in C (`map` of `str.__contains__` or a compiled `match`); a
typed query computes only its first screenful before the frame, and the rest in short chunks after it
(`type_query`), so a keystroke costs about the same at 100k rows as at 10k.
"""

from __future__ import annotations

import asyncio
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import attrgetter, contains, eq, indexOf, itemgetter, not_
from time import perf_counter
from typing import ClassVar, TypeAlias, TypeVar, overload

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pmem_tui.core.textio import display
from pmem_tui.tui.compat import set_virtual_size
from pmem_tui.tui.focus import RemembersKeyFocus
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.columns import COLUMN_GAP, column_widths, cut_middle
from pmem_tui.tui.widgets.fuzzy import highlights, term_tests

MAX_ROWS_PATCHED = 256  # beyond this many changed rows, rebuilding the list is as cheap
FILTER_STEP = 2048  # rows a filter tests per step (0.2-1 ms)
FILTER_SLICE = 0.004  # seconds of filtering between two yields to the event loop, after the first frame
FIRST_SCREENFUL = 64  # rows computed before the first frame when the list's height is not known yet


_T = TypeVar("_T")
_KEY = attrgetter("key")
_FLAG = attrgetter("flag")


def _pick(items: Sequence[_T], indices: Sequence[int]) -> list[_T]:
    """`[items[i] for i in indices]`, in C."""
    if len(indices) > 1:
        return list(itemgetter(*indices)(items))
    return [items[i] for i in indices]


# Row numbers as C ints (4 bytes each): a list of 10^5 ints is ~3.6 MB with its int objects (and the
# memo keeps up to 64 answers), and the cycle collector walks every list on its passes; an array is
# neither.
Positions: TypeAlias = "array[int]"


def positions(values: Iterable[int] = ()) -> Positions:
    return array("i", values)


class FilterRun:
    """One query over a pane's search texts, resumable step by step.

    The display order is: the rows containing the query as typed (`needle`), then the looser matches
    (every term exact or by word-start chunks in one field: `fuzzy.term_test`), each in pane order. A
    row with the needle always matches (the needle has no newline, so it sits in one field, and each
    term is a substring of it). So the
    run first scans the candidates for the needle (cheap), and tests the terms only on the rest; the
    rows found so far (`known`) are always a prefix of the final order, which is what lets the first
    screenful be shown before the run ends.
    """

    __slots__ = (
        "_base",
        "_hays",
        "_loose_pos",
        "_pos",
        "_rest",
        "_tests",
        "_total",
        "exact",
        "loose",
        "needle",
        "terms",
    )

    def __init__(self, terms: list[str], hays: Sequence[str], base: Positions | None) -> None:
        self.terms = terms
        self.needle = " ".join(terms)
        self._hays = hays
        self._base = base  # candidates in pane order holding every hit (a narrower query's); None: all
        self._total = len(hays) if base is None else len(base)
        self._pos = 0  # candidates scanned for the needle
        self.exact = positions()
        self._rest = positions()  # scanned candidates without the needle, in pane order
        self._loose_pos = 0  # of `_rest`, how many were tested term by term
        self.loose = positions()
        self._tests = [test for t in terms for test in term_tests(t)]

    @property
    def done(self) -> bool:
        return self._pos >= self._total and self._loose_pos >= len(self._rest)

    def known(self) -> Positions:
        """The rows found so far, in display order: always a prefix of the final order."""
        if self._pos < self._total:
            return self.exact  # looser matches come after every row with the needle
        return self.exact + self.loose

    def known_count(self) -> int:
        return len(self.exact) + (len(self.loose) if self._pos >= self._total else 0)

    def step(self, limit: int = FILTER_STEP) -> None:
        """Test up to `limit` more rows."""
        hays = self._hays
        if self._pos < self._total:
            a = self._pos
            b = min(self._total, a + limit)
            idx: Sequence[int]
            if self._base is None:
                idx, texts = range(a, b), hays[a:b]
            else:
                idx = self._base[a:b]
                texts = _pick(hays, idx)
            flags = list(map(contains, texts, repeat(self.needle)))
            self.exact.extend(compress(idx, flags))
            self._rest.extend(compress(idx, map(not_, flags)))
            self._pos = b
            return
        a = self._loose_pos
        b = min(len(self._rest), a + limit)
        found: Sequence[int] = self._rest[a:b]
        for test in self._tests:
            if not found:
                break
            found = list(compress(found, test(_pick(hays, found))))
        self.loose.extend(found)
        self._loose_pos = b

    def advance(self, wanted: int) -> None:
        """Step until `wanted` rows of the final order are known, or the run is done."""
        limit = 512  # small first steps: a frequent query fills a screen from the first rows
        while not self.done and self.known_count() < wanted:
            self.step(limit)
            limit = min(limit * 2, 2 * FILTER_STEP)

    def finish(self) -> None:
        while not self.done:
            self.step(8 * FILTER_STEP)

    def order(self) -> Positions:
        return self.exact + self.loose

    def hits(self) -> Positions:
        """Every matching row in pane order (two sorted runs: `sorted` merges them in one pass)."""
        return positions(sorted(self.exact + self.loose)) if self.loose else self.exact


class FilteredRows(Sequence[Row]):
    """The rows a filter shows: their numbers in the pane's rows (C ints), not a list of 10^5 references
    (such a list takes 2-8 ms to build per keystroke, and the cycle collector walks it on each pass).
    A row replaced in the pane's rows (`update_row`) is seen here at once."""

    __slots__ = ("_all", "order")

    def __init__(self, rows: list[Row], order: Positions) -> None:
        self._all = rows
        self.order = order

    def __len__(self) -> int:
        return len(self.order)

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return _pick(self._all, self.order[index])
        return self._all[self.order[index]]

    def __iter__(self) -> Iterator[Row]:
        return map(self._all.__getitem__, self.order)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(map(eq, self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"FilteredRows({list(self)!r})"

    def position(self, index: int) -> int | None:
        """Where the pane's row `index` is shown, if it is."""
        try:
            return self.order.index(index)
        except ValueError:
            return None


class _ListMessage(Message):
    """Sent by the list itself, whoever moved it: Textual stops a message after its sender's widget, and
    the pane (the list's parent, which runs the filter) would swallow it there."""

    def __init__(self, memory_list: MemoryList) -> None:
        super().__init__()
        self.set_sender(memory_list)
        self.memory_list = memory_list

    @property
    def control(self) -> MemoryList:
        return self.memory_list


class MemoryList(RemembersKeyFocus, ScrollView, can_focus=True):
    """One pane's rows: cursor, marks (space), and a fuzzy filter."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "memory-list--cursor",
        "memory-list--marked",
        "memory-list--flag",
        "memory-list--dim",
        "memory-list--empty",
        "memory-list--match",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="list.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="list.page_down"),
        Binding("home,g", "first", "First", show=False, id="list.first"),
        Binding("end,G", "last", "Last", show=False, id="list.last"),
        Binding("space", "toggle_mark", "Mark", id="mark"),
    ]

    class Highlighted(_ListMessage):
        """The row under the cursor changed (another row, or the same row with new facts)."""

        def __init__(self, memory_list: MemoryList, row: Row | None) -> None:
            super().__init__(memory_list)
            self.row = row

    class MarksChanged(_ListMessage):
        """The marked rows changed."""

    def __init__(
        self,
        pane: str,
        *,
        empty_text: str = "Nothing here.",
        caps: tuple[float, ...] = (0.48, 0.2),
        path_column: int | None = 0,
        droppable: tuple[int, ...] = (),
        markable: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.pane = pane
        self.empty_text = empty_text
        self.caps = caps  # the share of the width each column but the last may take at most
        self.path_column = path_column  # cut in the middle, never at its end (None: no path column)
        self.droppable = droppable  # columns dropped when the path would be cut
        self.markable = markable
        self._all: list[Row] = []
        self._rows: Sequence[Row] = []  # `_all` itself, or a `FilteredRows` of it
        self._query = ""
        self._cursor = 0
        self._marked: set[str] = set()
        self._col_max: list[int] = []
        self._flag_width = 0
        self._hay: tuple[str, ...] | None = None
        self._last_filter: tuple[list[str], Positions] | None = None
        # Queries already answered since the rows last changed (backspace goes back to one): the hits in
        # pane order and the rows in display order.
        self._filter_memo: dict[tuple[str, ...], tuple[Positions, Positions]] = {}
        # The run of a typed query still finishing after its first screenful (None: `_rows` is complete).
        self._run: FilterRun | None = None
        self._last_highlight: Row | None = None
        self._all_pos: dict[str, int] | None = None
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(512)

    # -- data ---------------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[Row]:
        """The rows shown (after the filter); a typed query still running is finished first."""
        self._finish_filter()
        return self._rows

    @property
    def filter_pending(self) -> bool:
        """A typed query shows its first rows but is still looking for the rest."""
        return self._run is not None

    @property
    def all_rows(self) -> Sequence[Row]:
        return self._all

    @property
    def cursor(self) -> int:
        return self._cursor

    @property
    def filter_query(self) -> str:
        return self._query

    @property
    def current_row(self) -> Row | None:
        return self._rows[self._cursor] if 0 <= self._cursor < len(self._rows) else None

    @property
    def marked_keys(self) -> frozenset[str]:
        return frozenset(self._marked)

    def marked_rows(self) -> list[Row]:
        if not self._marked:
            return []
        return [r for r in self._all if r.key in self._marked]

    def selection(self) -> list[Row]:
        """The marked rows, or else the row under the cursor."""
        marked = self.marked_rows()
        if marked:
            return marked
        row = self.current_row
        return [row] if row else []

    def clear_marks(self) -> None:
        if self._marked:
            self._marked.clear()
            self._cache.clear()
            self.refresh()
            self.post_message(self.MarksChanged(self))

    def set_rows(self, rows: list[Row]) -> None:
        """Replace the rows, keeping the selected key, the marks and the scroll position."""
        current = self.current_row
        self._run = None  # its row numbers are for the old rows; the filter runs again below
        self._all = rows
        self._hay = None
        self._last_filter = None
        self._filter_memo.clear()
        self._all_pos = None
        self._measure()
        keys = {r.key for r in rows} if self._marked else set()
        if self._marked - keys:
            self._marked &= keys
            self.post_message(self.MarksChanged(self))
        self._rows = self._filtered(self._query)
        self._cursor = self._index_of(current.key, self._cursor) if current else 0
        self._cursor = max(0, min(self._cursor, len(self._rows) - 1))
        self._update_virtual_size()
        self.refresh()
        self._announce()

    def apply_rows(self, rows: list[Row]) -> None:
        """Replace the rows; when the pane keeps the same keys in the same order (a rescan after a few
        files changed), only the rows that differ are replaced and redrawn, the list is not rebuilt."""
        old = self._all
        if not old or len(old) != len(rows):
            self.set_rows(rows)
            return
        changed = [i for i, (a, b) in enumerate(zip(old, rows, strict=True)) if a != b]
        if not changed:
            return
        if len(changed) > MAX_ROWS_PATCHED or any(old[i].key != rows[i].key for i in changed):
            self.set_rows(rows)
            return
        for i in changed:
            self.update_row(rows[i])

    def update_row(self, row: Row) -> bool:
        """Replace one row (same key) in place: only its line is redrawn. False if the key is unknown."""
        if self._all_pos is None:
            self._all_pos = dict(zip(map(_KEY, self._all), range(len(self._all)), strict=True))
        i = self._all_pos.get(row.key)
        if i is None:
            return False
        self._finish_filter()  # the run tests the old text; the row is then patched where it is shown
        old = self._all[i]
        self._all[i] = row
        if old.cells != row.cells or old.path != row.path:
            self._hay = None
            self._last_filter = None
            self._filter_memo.clear()
        if row.flag != old.flag and len(row.flag) >= self._flag_width:
            self._measure()
            self.refresh()
        shown = self._rows
        j = shown.position(i) if isinstance(shown, FilteredRows) else i  # it reads `_all`: already new
        if j is not None:
            self.refresh_line(j)
            if j == self._cursor:
                self._announce()
        return True

    def select_key(self, key: str) -> bool:
        self._finish_filter()
        index = self._index_of(key, -1)
        if index < 0:
            return False
        self._move_to(index)
        return True

    def _index_of(self, key: str, fallback: int) -> int:
        rows = self._rows
        if 0 <= fallback < len(rows) and rows[fallback].key == key:
            return fallback
        try:
            return indexOf(map(_KEY, rows), key)  # the first row with that key, in C
        except ValueError:
            return fallback

    def _measure(self) -> None:
        """The widest cell of each column, on a sample of at most ~2000 rows (columns are capped anyway)."""
        rows = self._all
        sample = rows if len(rows) <= 2000 else rows[:: len(rows) // 2000]
        columns = max((len(r.cells) for r in sample), default=0)
        maxima = [0] * columns
        for i in range(columns):
            maxima[i] = max((cell_len(r.cells[i]) for r in sample if i < len(r.cells)), default=0)
        flags = set(map(_FLAG, rows))
        flags.discard("")
        self._col_max = maxima
        self._flag_width = max((len(f) for f in flags), default=-1) + 1
        self._cache.clear()

    def _update_virtual_size(self) -> None:
        set_virtual_size(self, Size(0, len(self._rows)))

    # -- filter -------------------------------------------------------------------------------

    def set_query(self, query: str) -> int:
        """Filter the rows (fuzzy on path, title and summary); returns the number of matches."""
        if query == self._query:
            return len(self.rows)
        current = self.current_row
        self._query = query
        self._run = None
        self._show_filtered(self._filtered(query), current)
        return len(self._rows)

    def type_query(self, query: str) -> None:
        """`set_query` for a query being typed: only the first screenful is computed before the frame;
        the rest follows in short slices on the event loop (a worker), and a newer query replaces it.

        Until then `_rows` holds a prefix of the final order (the visible rows are already right) and
        the scrollbar grows when the run ends; anything that needs every row finishes it at once.
        """
        if query == self._query:
            return
        current = self.current_row
        self._query = query
        self._run = None
        started = self._begin(query)
        if not isinstance(started, FilterRun):
            self._show_filtered(started, current)
            return
        run = started
        height = self.scrollable_content_region.height
        run.advance(height if height > 0 else FIRST_SCREENFUL)
        if run.done or not self.is_running:
            self._show_filtered(self._conclude(run), current)
            return
        self._run = run
        self._show_filtered(FilteredRows(self._all, positions(run.known())), current)
        self._finish_later()

    def _show_filtered(self, rows: Sequence[Row], current: Row | None) -> None:
        self._rows = rows
        if self._query:
            self._cursor = 0
        else:
            self._cursor = self._index_of(current.key, 0) if current else 0
        self._update_virtual_size()
        self.scroll_to(y=0, animate=False)
        self._cache.clear()
        self.refresh()
        self._scroll_cursor_into_view()
        self._announce()

    @work(name="filter", group="filter", exclusive=True, exit_on_error=False)
    async def _finish_later(self) -> None:
        """Finish the pending run after the frame showing its first rows, in slices that let keys through
        (a newer query cancels this worker, or leaves it a run that is no longer current)."""
        run = self._run
        if run is None:
            return
        await self.wait_for_refresh()
        while self._run is run:
            deadline = perf_counter() + FILTER_SLICE
            while not run.done and perf_counter() < deadline:
                run.step()
            if run.done:
                self._finish_filter()
                return
            await asyncio.sleep(0)

    def _finish_filter(self) -> None:
        """Complete the pending run of a typed query: the rows shown so far are a prefix of the result,
        so the cursor and the scroll position stay; the virtual size (scrollbar) becomes the full one."""
        run = self._run
        if run is None:
            return
        self._run = None
        self._rows = self._conclude(run)
        self._update_virtual_size()
        self.refresh()

    def prepare_filter(self) -> None:
        """Build the search text now (when `/` opens the filter), not on the first keystroke."""
        self._haystacks()

    def _haystacks(self) -> tuple[str, ...]:
        """Per row, its searchable fields (path, then the other columns), lowercase, one per line.

        A tuple of strings: the cycle collector stops tracking it after its first pass (a list of 10^5
        would be walked on every full pass)."""
        if self._hay is None:
            self._hay = tuple([f"{r.path}\n{chr(10).join(r.cells[1:])}".lower() for r in self._all])
        return self._hay

    def _filtered(self, query: str) -> Sequence[Row]:
        """Rows where every term of the query (split on spaces) matches one field (`fuzzy.term_test`):
        first those containing the query as typed, then the others, each in pane order."""
        started = self._begin(query)
        return started if not isinstance(started, FilterRun) else self._conclude(started)

    def _begin(self, query: str) -> Sequence[Row] | FilterRun:
        """The rows for `query` if known (no filter, or a query already answered), else a run to do.

        While the person types on, a query that extends the previous one only tries that one's hits
        (or, if its run did not finish, the candidates that run started from).
        """
        terms = query.lower().split()
        if not terms:
            self._last_filter = None
            return self._all
        memo = self._filter_memo.get(tuple(terms))
        if memo is not None:
            self._last_filter = (terms, memo[0])
            return FilteredRows(self._all, memo[1])
        base: Positions | None = None
        last = self._last_filter
        if (
            last is not None
            and len(terms) >= len(last[0])
            and terms[: len(last[0]) - 1] == last[0][:-1]
            and terms[len(last[0]) - 1].startswith(last[0][-1])
        ):
            base = last[1]
        # Until this run ends, its candidates are what a longer query can narrow from.
        self._last_filter = (terms, base) if base is not None else None
        return FilterRun(terms, self._haystacks(), base)

    def _conclude(self, run: FilterRun) -> FilteredRows:
        """Finish `run`, remember its answer (for backspace and for narrowing) and return its rows."""
        run.finish()
        hits, order = run.hits(), run.order()
        self._last_filter = (run.terms, hits)
        if len(self._filter_memo) >= 64:
            self._filter_memo.clear()
        self._filter_memo[tuple(run.terms)] = (hits, order)
        return FilteredRows(self._all, order)

    # -- movement -----------------------------------------------------------------------------

    def _move_to(self, index: int) -> None:
        if self._run is not None and index >= len(self._rows) - 1:
            self._finish_filter()  # past the rows found so far
        if not self._rows:
            return
        index = max(0, min(index, len(self._rows) - 1))
        old = self._cursor
        self._cursor = index
        if old != index:
            self.refresh_line(old)
            self.refresh_line(index)
        self._scroll_cursor_into_view()
        self._announce()

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            self.call_after_refresh(self._scroll_cursor_into_view_later)
            return
        top = round(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False)
        elif self._cursor >= top + height:
            self.scroll_to(y=self._cursor - height + 1, animate=False)

    def _scroll_cursor_into_view_later(self) -> None:
        if self.scrollable_content_region.height > 0:
            self._scroll_cursor_into_view()

    def _announce(self) -> None:
        row = self.current_row
        if row != self._last_highlight or row is None:
            self._last_highlight = row
            self.post_message(self.Highlighted(self, row))

    def action_cursor_up(self) -> None:
        self._move_to(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move_to(self._cursor + 1)

    def action_page_up(self) -> None:
        self._move_to(self._cursor - self._page())

    def action_page_down(self) -> None:
        self._move_to(self._cursor + self._page())

    def action_first(self) -> None:
        self._move_to(0)

    def action_last(self) -> None:
        self._finish_filter()
        self._move_to(len(self._rows) - 1)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_mark":
            return self.markable
        return True

    def action_toggle_mark(self) -> None:
        row = self.current_row
        if row is None or not self.markable:
            return
        if row.key in self._marked:
            self._marked.discard(row.key)
        else:
            self._marked.add(row.key)
        self.refresh_line(self._cursor)
        self.post_message(self.MarksChanged(self))
        self._move_to(self._cursor + 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        self._move_to(round(self.scroll_y) + offset.y)

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_resize(self) -> None:
        self._cache.clear()
        self._scroll_cursor_into_view()

    # -- rendering ----------------------------------------------------------------------------

    def _widths(self, width: int) -> list[int]:
        """Column widths for the available width (0: dropped); the last column takes what is left."""
        avail = max(0, width - 2 - self._flag_width)
        return column_widths(
            avail, self._col_max, self.caps, path_column=self.path_column, droppable=self.droppable
        )

    def dropped_columns(self) -> frozenset[int]:
        """The columns left out at the list's present width (the pane's titles leave them out too)."""
        widths = self._widths(self.scrollable_content_region.width)
        return frozenset(i for i, w in enumerate(widths[:-1]) if not w)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = round(self.scroll_y) + y
        base = self.rich_style
        if index >= len(self._rows):
            if index == 0:
                empty = Text(self._empty_message(), style=self.get_component_rich_style("memory-list--empty"))
                empty.truncate(width, overflow="ellipsis", pad=True)
                return Strip(list(empty.render(self.app.console, end="")), width).apply_style(base)
            return Strip.blank(width, base)
        row = self._rows[index]
        is_cursor = index == self._cursor
        is_marked = row.key in self._marked
        key = (
            row,
            width,
            is_cursor,
            is_marked,
            self.has_focus,
            self._flag_width,
            tuple(self._col_max),
            self._query,
        )
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        strip = self._render_row(row, width, is_cursor, is_marked, base)
        self._cache[key] = strip
        return strip

    def _empty_message(self) -> str:
        if self._query and self._all:
            return f"No row matches '{self._query}'. Press escape to clear the filter."
        return self.empty_text

    def _render_row(self, row: Row, width: int, is_cursor: bool, is_marked: bool, base: Style) -> Strip:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        dim = self.get_component_rich_style("memory-list--dim", partial=True)
        match = self.get_component_rich_style("memory-list--match", partial=True)
        text.append(
            "● " if is_marked else "  ", self.get_component_rich_style("memory-list--marked", partial=True)
        )
        if self._flag_width:
            flag = row.flag.ljust(self._flag_width)
            text.append(flag, self.get_component_rich_style("memory-list--flag", partial=True))
        widths = self._widths(width)
        last = len(widths) - 1
        for i, w in enumerate(widths):
            if not w and i < last:
                continue  # dropped to leave the path its room
            cell = display(row.cells[i]) if i < len(row.cells) else ""
            if i == self.path_column:
                cell = cut_middle(cell, w)
            piece = Text(cell, style=dim if i > 0 else "", no_wrap=True, end="")
            for at in highlights(cell, self._query) if self._query else ():
                piece.stylize(match, at, at + 1)
            piece.truncate(w, overflow="ellipsis", pad=True)
            text.append_text(piece)
            if i < last:
                text.append(" " * COLUMN_GAP)
        text.truncate(width, overflow="ellipsis", pad=True)
        style = base
        if is_cursor:
            style = base + self.get_component_rich_style("memory-list--cursor")
        segments = [
            Segment(s.text, style + s.style if s.style else style) for s in text.render(self.app.console)
        ]
        return Strip(segments, width).crop(0, width)
