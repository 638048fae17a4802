"""A virtual list of Rows on Textual's Line API: only the visible lines are ever rendered.

Replacing the rows (after a rescan) keeps the selected key, the marks and the scroll position. A typed
query computes only its first screenful before the frame, and the rest in short chunks after it
(`type_query`), so a keystroke costs about the same at 100k rows as at 10k. Which rows a query shows is
`list_filter.py`'s job; how the rows are drawn, `row_lines.py`'s (its base class: the rows held, the cursor,
the marks, each visible line drawn and cached).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from time import perf_counter
from typing import ClassVar

from textual import events, work
from textual.binding import BindingType
from textual.message import Message
from textual.reactive import var

from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import LIST, MARK
from pmem_tui.tui.focus import RemembersKeyFocus
from pmem_tui.tui.index_rows import changed_rows, follow_lines, keys_of
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.list_filter import FilteredRows, FilterRun, ListFilter, positions
from pmem_tui.tui.widgets.list_render import outgrows
from pmem_tui.tui.widgets.row_lines import RowLines

MAX_ROWS_PATCHED = 256  # beyond this many changed rows, rebuilding the list is as cheap
FILTER_SLICE = 0.004  # seconds of filtering between two yields to the event loop, after the first frame
FIRST_SCREENFUL = 64  # rows computed before the first frame when the list's height is not known yet


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


class MemoryList(RemembersKeyFocus, RowLines, can_focus=True):
    """One pane's rows: cursor, marks (space), and a fuzzy filter."""

    BINDINGS: ClassVar[list[BindingType]] = bindings((*LIST, MARK))

    marks: var[int] = var(0)  # how many rows are marked (the pane's tab shows it)

    class Highlighted(_ListMessage):
        """The row under the cursor changed (another row, or the same row with new facts)."""

        def __init__(self, memory_list: MemoryList, row: Row | None) -> None:
            super().__init__(memory_list)
            self.row = row

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
        super().__init__(
            empty_text=empty_text,
            caps=caps,
            path_column=path_column,
            droppable=droppable,
            id=id,
            classes=classes,
        )
        self.pane = pane
        self.markable = markable
        self._filter = ListFilter(self._all)
        # The run of a typed query still finishing after its first screenful (None: `_rows` is complete).
        self._run: FilterRun | None = None
        self._last_highlight: Row | None = None
        self._all_pos: dict[str, int] | None = None

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

    def clear_marks(self) -> None:
        if self._marked:
            self._marked.clear()
            self._cache.clear()
            self.refresh()
            self.marks = 0

    def only_mark(self, key: str | None) -> None:
        """Keep at most this one mark (a list where a mark means "compare with this one")."""
        keep = {key} & self._marked if key is not None else set()
        if keep != self._marked:
            self._marked = keep
            self._cache.clear()
            self.refresh()

    def set_rows(self, rows: Sequence[Row], followed: tuple[str | None, set[str]] | None = None) -> None:
        """Replace the rows, keeping the selected key, the marks and the scroll position. A route's lines
        renumbered (an agent added or removed one): the cursor and marks follow their line (`followed`, if
        known)."""
        self._run = None  # its row numbers are for the old rows; the filter runs again below
        key, marked = followed or follow_lines(self._all, rows, self._current_key(), self._marked)
        self._all = rows
        self._filter.reset(rows)
        self._all_pos = None
        self._measure()
        marked &= set(keys_of(rows)) if marked else set()
        if marked != self._marked:
            self._marked = marked
            self.marks = len(marked)
        self._show_answer(key)

    def _show_answer(self, key: str | None, answer: Sequence[Row] | None = None) -> None:
        """The rows the query answers now (`answer`, if known); the cursor on `key`'s row while shown."""
        self._rows = self._filter.answer(self._query) if answer is None else answer
        self._cursor = self._index_of(key, self._cursor) if key is not None else 0
        self._cursor = max(0, min(self._cursor, len(self._rows) - 1))
        self._update_virtual_size()
        self._cache.clear()
        self.refresh()
        self._announce()

    def apply_rows(self, rows: Sequence[Row]) -> None:
        """Replace the rows; when the pane keeps the same keys in the same order (a rescan after a few
        files changed), only the rows that differ are replaced and redrawn, the list is not rebuilt."""
        changed = changed_rows(self._all, rows) if self._all else None
        key = self._current_key()
        followed = follow_lines(self._all, rows, key, self._marked)
        if changed is None or len(changed) > MAX_ROWS_PATCHED or followed != (key, self._marked):
            self.set_rows(rows, followed)  # (the last: a route's lines moved among its copies)
        else:
            self._adopt(rows, changed)

    def update_row(self, row: Row) -> bool:
        """Replace one row (same key) in place: only its line is redrawn. False if the key is unknown."""
        if self._all_pos is None:
            self._all_pos = dict(zip(keys_of(self._all), range(len(self._all)), strict=True))
        i = self._all_pos.get(row.key)
        if i is None:
            return False
        self._finish_filter()  # the run tests the old text; the row is then patched where it is shown
        old = self._all[i]
        self._all[i] = row  # type: ignore[index]  # a list or `IndexRows`: both take a row
        self._changed([(i, old)])
        return True

    def _adopt(self, rows: Sequence[Row], changed: list[int]) -> None:
        """Show `rows` (the same keys in the same order as the rows shown) and redraw the `changed` ones:
        the old rows, and the snapshot they may be read from, are let go."""
        self._finish_filter()
        old, self._all = self._all, rows
        self._filter.rebase(rows)
        shown = self._rows
        self._rows = FilteredRows(rows, shown.order) if isinstance(shown, FilteredRows) else rows
        self._changed([(i, old[i]) for i in changed])

    def _changed(self, changes: list[tuple[int, Row]]) -> None:
        """Rows of `_all` replaced (each with the row it was): the column widths if one outgrew them, their
        lines; under a query, its answer again when a row's text changed (it may match now, or no longer)."""
        new = {i: self._all[i] for i, _ in changes}
        if any(outgrows(old, new[i], self._col_max, self._flag_width) for i, old in changes):
            self._measure()
            self.refresh()
        retext = [i for i, old in changes if (old.cells, old.path) != (new[i].cells, new[i].path)]
        rows = self._rows
        order = rows.order if isinstance(rows, FilteredRows) else positions()
        answer = self._filter.retext(retext, self._query, order) if retext else None
        if answer is not None:
            self._show_answer(self._current_key(), answer)
            self._scroll_cursor_into_view()  # rows may have joined above it
            return
        for i in new:
            j = rows.position(i) if isinstance(rows, FilteredRows) else i  # it reads `_all`: already new
            if j is not None:
                self.refresh_line(j)
                if j == self._cursor:
                    self._announce()

    def select_key(self, key: str) -> bool:
        self._finish_filter()
        index = self._index_of(key, -1)
        if index < 0:
            return False
        self._move_to(index)
        return True

    # -- filter -------------------------------------------------------------------------------

    def set_query(self, query: str) -> int:
        """Filter the rows (fuzzy on path, title and summary); returns the number of matches."""
        if query == self._query:
            return len(self.rows)
        current = self.current_row
        self._query = query
        self._run = None
        self._show_filtered(self._filter.answer(query), current)
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
        started = self._filter.begin(query)
        if not isinstance(started, FilterRun):
            self._show_filtered(started, current)
            return
        run = started
        height = self.scrollable_content_region.height
        run.advance(height if height > 0 else FIRST_SCREENFUL)
        if run.done or not self.is_running:
            self._show_filtered(self._filter.conclude(run), current)
            return
        self._run = run
        self._show_filtered(FilteredRows(self._all, positions(run.known())), current)
        self._finish_later()

    def _show_filtered(self, rows: Sequence[Row], current: Row | None) -> None:
        self._rows = rows
        self._cursor = self._index_of(current.key, 0) if current and not self._query else 0
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
        self._rows = self._filter.conclude(run)
        self._update_virtual_size()
        self.refresh()

    def prepare_filter(self) -> None:
        """Build the search text now (when `/` opens the filter), not on the first keystroke."""
        self._filter.haystacks()

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
        if (row is None) != (self._last_highlight is None) and self.is_attached:
            self.screen.refresh_bindings()  # `p` is offered only with a row: a filter cleared, a first row
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
        self.marks = len(self._marked)
        self._move_to(self._cursor + 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        self._move_to(round(self.scroll_y) + offset.y)

    def on_resize(self) -> None:
        self._cache.clear()
        self._scroll_cursor_into_view()
