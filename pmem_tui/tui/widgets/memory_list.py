"""A virtual list of Rows on Textual's Line API: only the visible lines are ever rendered.

Replacing the rows (after a rescan) keeps the selected key, the marks and the scroll position; the
filter runs as one regular-expression pass over a joined text of all rows, so it stays fast at
100k rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import compress, repeat
from operator import attrgetter, contains, itemgetter, not_
from typing import ClassVar, TypeVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from pmem_tui.core.textio import display
from pmem_tui.tui.rows import Row

_COLUMN_GAP = 2
MAX_ROWS_PATCHED = 256  # beyond this many changed rows, rebuilding the list is as cheap


_T = TypeVar("_T")
_KEY = attrgetter("key")
_FLAG = attrgetter("flag")


def _pick(items: Sequence[_T], indices: list[int]) -> list[_T]:
    """`[items[i] for i in indices]`, in C."""
    if len(indices) > 1:
        return list(itemgetter(*indices)(items))
    return [items[i] for i in indices]


def set_virtual_size(widget: ScrollView, size: Size) -> None:
    """Change a scroll view's virtual size without a layout of the whole screen (the widget's own size
    does not change; the scrollbars are updated, and relaid out by Textual only if one appears or goes)."""
    if widget.virtual_size == size:
        return
    if widget.size.height <= 0:
        widget.virtual_size = size  # not laid out yet: the first layout takes it
        return
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)
    widget.refresh()


def subsequence_source(term: str) -> str | None:
    """Regex source for "the term's characters in order" inside one line, linear time (possessive)."""
    chars = [c for c in term.lower() if not c.isspace()]
    if not chars:
        return None
    parts = []
    for ch in chars:
        esc = re.escape(ch)
        parts.append(f"[^{esc}\\n]*+{esc}")
    return "".join(parts)


class MemoryList(ScrollView, can_focus=True):
    """One pane's rows: cursor, marks (space), and a fuzzy filter."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "memory-list--cursor",
        "memory-list--marked",
        "memory-list--flag",
        "memory-list--dim",
        "memory-list--empty",
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

    class Highlighted(Message):
        """The row under the cursor changed (another row, or the same row with new facts)."""

        def __init__(self, memory_list: MemoryList, row: Row | None) -> None:
            super().__init__()
            self.memory_list = memory_list
            self.row = row

        @property
        def control(self) -> MemoryList:
            return self.memory_list

    class MarksChanged(Message):
        def __init__(self, memory_list: MemoryList) -> None:
            super().__init__()
            self.memory_list = memory_list

        @property
        def control(self) -> MemoryList:
            return self.memory_list

    def __init__(
        self,
        pane: str,
        *,
        empty_text: str = "Nothing here.",
        caps: tuple[float, ...] = (0.48, 0.2),
        markable: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.pane = pane
        self.empty_text = empty_text
        self.caps = caps  # the share of the width each column but the last may take at most
        self.markable = markable
        self._all: list[Row] = []
        self._rows: list[Row] = []
        self._query = ""
        self._cursor = 0
        self._marked: set[str] = set()
        self._col_max: list[int] = []
        self._flag_width = 0
        self._hay: list[str] | None = None
        self._last_filter: tuple[list[str], list[int]] | None = None
        # Queries already answered since the rows last changed (backspace goes back to one): the hits in
        # pane order and the rows in display order.
        self._filter_memo: dict[tuple[str, ...], tuple[list[int], list[int]]] = {}
        self._last_highlight: Row | None = None
        self._all_pos: dict[str, int] | None = None
        self._rows_pos: dict[str, int] | None = None
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(512)

    # -- data ---------------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[Row]:
        """The rows shown (after the filter)."""
        return self._rows

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
        self._all = rows
        self._hay = None
        self._last_filter = None
        self._filter_memo.clear()
        self._all_pos = self._rows_pos = None
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
        old = self._all[i]
        self._all[i] = row
        if old.cells != row.cells or old.path != row.path:
            self._hay = None
            self._last_filter = None
            self._filter_memo.clear()
        if row.flag != old.flag and len(row.flag) >= self._flag_width:
            self._measure()
            self.refresh()
        if self._rows is not self._all:
            if self._rows_pos is None:
                self._rows_pos = dict(zip(map(_KEY, self._rows), range(len(self._rows)), strict=True))
            j = self._rows_pos.get(row.key)
            if j is not None:
                self._rows[j] = row
        else:
            j = i
        if j is not None:
            self.refresh_line(j)
            if j == self._cursor:
                self._announce()
        return True

    def select_key(self, key: str) -> bool:
        index = self._index_of(key, -1)
        if index < 0:
            return False
        self._move_to(index)
        return True

    def _index_of(self, key: str, fallback: int) -> int:
        rows = self._rows
        if 0 <= fallback < len(rows) and rows[fallback].key == key:
            return fallback
        for i, row in enumerate(rows):
            if row.key == key:
                return i
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
            return len(self._rows)
        current = self.current_row
        self._query = query
        self._rows = self._filtered(query)
        self._rows_pos = None
        if query:
            self._cursor = 0
        else:
            self._cursor = self._index_of(current.key, 0) if current else 0
        self._update_virtual_size()
        self.scroll_to(y=0, animate=False)
        self._cache.clear()
        self.refresh()
        self._scroll_cursor_into_view()
        self._announce()
        return len(self._rows)

    def prepare_filter(self) -> None:
        """Build the search text now (when `/` opens the filter), not on the first keystroke."""
        self._haystacks()

    def _haystacks(self) -> list[str]:
        """Per row, its searchable fields (path, then the other columns), lowercase, one per line."""
        if self._hay is None:
            self._hay = [f"{r.path}\n{chr(10).join(r.cells[1:])}".lower() for r in self._all]
        return self._hay

    def _filtered(self, query: str) -> list[Row]:
        """Rows where every term of the query (split on spaces) is a subsequence of one field.

        One compiled `match` per row, iterated in C (`compress`/`map`); while the person types on,
        only the rows that matched the previous query are tried again.
        """
        terms = query.lower().split()
        if not terms:
            self._last_filter = None
            return list(self._all)
        rows = self._all
        memo = self._filter_memo.get(tuple(terms))
        if memo is not None:
            self._last_filter = (terms, memo[0])
            return _pick(rows, memo[1])
        hays = self._haystacks()
        candidates: list[int] | None = None
        last = self._last_filter
        if (
            last is not None
            and len(terms) >= len(last[0])
            and terms[: len(last[0]) - 1] == last[0][:-1]
            and terms[len(last[0]) - 1].startswith(last[0][-1])
        ):
            candidates = last[1]
        for term in terms:
            source = subsequence_source(term)
            if source is None:
                continue
            match = re.compile(r"(?:[^\n]*+\n)*?" + source).match
            if candidates is None:
                candidates = list(compress(range(len(hays)), map(match, hays)))
            elif len(candidates) > 1:
                subset = itemgetter(*candidates)(hays)
                candidates = list(compress(candidates, map(match, subset)))
            else:
                candidates = [i for i in candidates if match(hays[i])]
            if not candidates:
                break
        hits = candidates or []
        self._last_filter = (terms, hits)
        # Rows containing the query as typed come first, then the looser matches, each in pane order.
        # (Iterated in C: `contains`/`compress` over the hits' texts.)
        needle = " ".join(terms)
        texts = _pick(hays, hits)
        exact = list(map(contains, texts, repeat(needle)))
        first = list(compress(hits, exact))
        order = first if len(first) == len(hits) else first + list(compress(hits, map(not_, exact)))
        if len(self._filter_memo) >= 64:
            self._filter_memo.clear()
        self._filter_memo[tuple(terms)] = (hits, order)
        return _pick(rows, order)

    # -- movement -----------------------------------------------------------------------------

    def _move_to(self, index: int) -> None:
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
        """Column widths for the available width: the last column takes what is left."""
        avail = max(0, width - 2 - self._flag_width)
        n = len(self._col_max)
        if n == 0:
            return []
        caps = self.caps if n >= 3 else (0.6,)
        widths: list[int] = []
        used = 0
        for i in range(n - 1):
            cap = int(avail * (caps[i] if i < len(caps) else 0.2))
            w = min(self._col_max[i], max(cap, 3))
            widths.append(w)
            used += w + _COLUMN_GAP
        widths.append(max(0, avail - used))
        return widths

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
        key = (row, width, is_cursor, is_marked, self.has_focus, self._flag_width, tuple(self._col_max))
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
        text.append(
            "● " if is_marked else "  ", self.get_component_rich_style("memory-list--marked", partial=True)
        )
        if self._flag_width:
            flag = row.flag.ljust(self._flag_width)
            text.append(flag, self.get_component_rich_style("memory-list--flag", partial=True))
        widths = self._widths(width)
        for i, w in enumerate(widths):
            cell = display(row.cells[i]) if i < len(row.cells) else ""
            piece = Text(cell, style=dim if i > 0 else "", no_wrap=True, end="")
            piece.truncate(w, overflow="ellipsis", pad=True)
            text.append_text(piece)
            if i < len(widths) - 1:
                text.append(" " * _COLUMN_GAP)
        text.truncate(width, overflow="ellipsis", pad=True)
        style = base
        if is_cursor:
            style = base + self.get_component_rich_style("memory-list--cursor")
        segments = [
            Segment(s.text, style + s.style if s.style else style) for s in text.render(self.app.console)
        ]
        return Strip(segments, width).crop(0, width)
