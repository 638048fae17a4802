"""The drawing half of `MemoryList`: the rows it holds (all of them, the ones shown, the cursor, the marks,
the query whose matches are lit) drawn on Textual's Line API. Only the visible lines are ever rendered, each
kept in a cache until something it shows changes; how one row is drawn is `list_render.py`'s. Which rows are
shown, and how they change (rows replaced, a query, keys, marks), is `memory_list.py`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pmem_tui.tui.compat import set_virtual_size
from pmem_tui.tui.index_rows import keys_of
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.columns import column_widths, dropped
from pmem_tui.tui.widgets.list_filter import find_key
from pmem_tui.tui.widgets.list_render import RowStyles, measure, row_strip, text_strip


class RowLines(ScrollView):
    """A pane's rows as lines: what is shown, where the cursor is, what is marked."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "memory-list--cursor",
        "memory-list--marked",
        "memory-list--flag",
        "memory-list--dim",
        "memory-list--empty",
        "memory-list--match",
    }

    def __init__(
        self,
        *,
        empty_text: str,
        caps: tuple[float, ...],
        path_column: int | None,
        droppable: tuple[int, ...],
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.empty_text = empty_text
        self.caps = caps  # the share of the width each column but the last may take at most
        self.path_column = path_column  # cut in the middle, never at its end (None: no path column)
        self.droppable = droppable  # columns dropped when the path would be cut
        self._all: Sequence[Row] = []  # a list, or the Index's `IndexRows` (rows made when asked)
        self._rows: Sequence[Row] = []  # `_all` itself, or a `FilteredRows` of it
        self._query = ""
        self._cursor = 0
        self._marked: set[str] = set()
        self._col_max: list[int] = []
        self._flag_width = 0
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(512)

    # -- what is shown --------------------------------------------------------------------------

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

    def _current_key(self) -> str | None:
        return row.key if (row := self.current_row) else None

    @property
    def marked_keys(self) -> frozenset[str]:
        return frozenset(self._marked)

    def marked_rows(self) -> list[Row]:
        marked = self._marked
        return [self._all[i] for i, key in enumerate(keys_of(self._all)) if key in marked] if marked else []

    def selection(self) -> list[Row]:
        """The marked rows, or else the row under the cursor."""
        marked = self.marked_rows()
        if marked:
            return marked
        row = self.current_row
        return [row] if row else []

    def _index_of(self, key: str, fallback: int) -> int:
        rows = self._rows
        if 0 <= fallback < len(rows) and rows[fallback].key == key:
            return fallback
        found = find_key(rows, key)
        return fallback if found is None else found

    def _measure(self) -> None:
        self._col_max, self._flag_width = measure(self._all)
        self._cache.clear()

    def _update_virtual_size(self) -> None:
        set_virtual_size(self, Size(0, len(self._rows)))

    def on_focus(self) -> None:
        self._cache.clear()  # the cursor's line looks different with the focus
        self.refresh()

    on_blur = on_focus

    # -- rendering ----------------------------------------------------------------------------

    def _widths(self, width: int) -> list[int]:
        """Column widths for the available width (0: dropped); the last column takes what is left."""
        avail = max(0, width - 2 - self._flag_width)
        return column_widths(
            avail, self._col_max, self.caps, path_column=self.path_column, droppable=self.droppable
        )

    def dropped_columns(self) -> frozenset[int]:
        """The columns left out at the list's present width (the pane's titles leave them out too)."""
        return dropped(self._widths(self.scrollable_content_region.width), self._col_max)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = round(self.scroll_y) + y
        base = self.rich_style
        if index >= len(self._rows):
            if index == 0:
                style = self.get_component_rich_style("memory-list--empty")
                return text_strip(Text(self._empty_message(), style=style), width, base, self.app.console)
            return Strip.blank(width, base)
        row = self._rows[index]
        is_cursor = index == self._cursor
        is_marked = row.key in self._marked
        key: tuple[object, ...] = (row, width, is_cursor, is_marked, self.has_focus, self._flag_width)
        key += (tuple(self._col_max), self._query)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        strip = self._render_row(row, width, is_cursor, is_marked, base)
        self._cache[key] = strip
        return strip

    def _empty_message(self) -> str:
        if not (self._query and self._all):
            return self.empty_text
        return f"No row matches '{self._query}'. Press {key_for('pane.clear_filter')} to clear the filter."

    def _render_row(self, row: Row, width: int, is_cursor: bool, is_marked: bool, base: Style) -> Strip:
        styles = RowStyles.of(self.get_component_rich_style)
        style = base + styles.cursor if is_cursor else base
        widths, flags = self._widths(width), self._flag_width
        return row_strip(
            row, widths, width, flag_width=flags, path_column=self.path_column, query=self._query,
            marked=is_marked, style=style, styles=styles, console=self.app.console,
        )  # fmt: skip
