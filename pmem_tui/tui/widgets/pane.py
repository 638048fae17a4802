"""A pane: its column titles, a filter input (shown by `/`) and the virtual list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import Input

from pmem_tui.core.words import plural
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import CLEAR, FILTER
from pmem_tui.tui.focus import RemembersKeyFocus, focus_now, read_before_focus_move
from pmem_tui.tui.index_rows import with_paths
from pmem_tui.tui.key_docs import with_keys
from pmem_tui.tui.keys import key_for, keymap
from pmem_tui.tui.panes import PaneSpec, pane_id, tab_title
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.list_titles import ListTitles
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.pane_tabs import counted, show_tab_label


class FilterInput(RemembersKeyFocus, Input):
    """`enter` puts focus on the first match; `escape` clears the filter.

    Both are priority bindings: they run when the key is read, so keys typed right behind them already go
    to the list (as ordinary bindings they would run only after those keys were typed into the filter).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(FILTER),
    ]

    async def on_event(self, event: events.Event) -> None:
        # Keys typed right before an escape that was read (and run) ahead of them: they went into the filter
        # that escape then cleared, so they have nothing left to do (typed in later they would refilter).
        if isinstance(event, events.Key) and not self.display and read_before_focus_move(self.app, event):
            event.stop()
            event.prevent_default()
            return
        await super().on_event(event)

    def action_clear_filter(self) -> None:
        self.query_ancestor(PaneView).clear_filter()

    def action_to_matches(self) -> None:
        pane = self.query_ancestor(PaneView)
        focus_now(pane.list)
        pane.list.action_first()


class PaneView(Vertical):
    """Titles, filter and list of a pane of rows (Index, Core, Archive, Trash), drawn from its spec. Its tab
    says the state below (and its list's `marks`): "2 Core 12", "1 Index 3 ! ●2 marked"."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings((CLEAR,)),
    ]

    count: var[int | None] = var(None, init=False)  # the rows in the pane (None: until the scan's arrive)
    problem_paths: var[frozenset[str] | None] = var(None, init=False)  # `!`: only the rows about these

    def __init__(self, spec: PaneSpec, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane-view")
        self.spec = spec
        self.pane = pane = spec.id
        self.list = MemoryList(
            pane, empty_text="Scanning…", droppable=spec.droppable, markable=spec.markable, id=f"list-{pane}"
        )
        self.filter_input = FilterInput(
            placeholder="filter: path, title, summary", id=f"filter-{pane}", classes="pane-filter"
        )
        self.filter_input.display = False
        self._every_row: Sequence[Row] = []
        self.linked: tuple[str, ...] = ()  # the paths of `spec.behind` that are links (set with the rows)
        self.titles = ListTitles(spec.columns, self.list)

    def compose(self) -> ComposeResult:
        yield self.filter_input
        yield self.titles
        yield self.list

    def on_mount(self) -> None:
        self.watch(self.list, "marks", self._show_tab_label)  # also says the count: it may have come before

    def watch_count(self) -> None:
        self._show_tab_label()

    def watch_problem_paths(self) -> None:
        self.titles.notice = self._notice()
        self.set_rows(self._every_row)  # (which shows the titles, the notice among them)
        self._show_tab_label()

    def _show_tab_label(self) -> None:
        show_tab_label(self, pane_id(self.pane), self.tab_label())

    def tab_label(self) -> Text:
        label = counted(tab_title(self.pane), self.count)
        if self.problem_paths is not None:
            label.append(" !", style="bold yellow")
        if self.list.marks:
            label.append(f" ●{self.list.marks} marked", style="bold magenta")
        return label

    def _notice(self) -> Text | None:
        """What the titles say instead of the columns' names: that `!` shows only the rows with a problem."""
        if self.problem_paths is None:
            return None
        return Text(
            f"  Only the rows with a problem: press {key_for('problems')} for every row", style="bold yellow"
        )

    def _shown(self, rows: Sequence[Row]) -> Sequence[Row]:
        self._every_row = rows
        if self.problem_paths is None:
            return rows
        return with_paths(rows, self.problem_paths)

    def _empty_text(self) -> str:
        if self.linked:  # found in trial: a linked trash was "The trash is empty." with files behind it
            links = ", ".join(self.linked)
            return f"{links} is a symbolic link, which pmem-tui never follows: nothing behind it is shown."
        if self.problem_paths is not None:
            return f"No row has a problem. Press {key_for('problems')} for every row."
        return with_keys(self.spec.empty, keymap())  # `{action_id}`: its key

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Rows before the scan's (the head of the index), or the same rows shown another way."""
        self.list.empty_text = self._empty_text()
        self.list.set_rows(self._shown(rows))
        self.titles.sync()
        if self.count is not None:
            self.count = len(self.list.all_rows)

    def apply_rows(self, rows: Sequence[Row]) -> None:
        """A scan's rows. Like `set_rows`; with the same keys in the same order, only the changed rows are
        redrawn."""
        self.list.empty_text = self._empty_text()
        self.list.apply_rows(self._shown(rows))
        self.titles.sync()
        self.count = len(self.list.all_rows)

    def open_filter(self) -> None:
        self.list.prepare_filter()
        self.filter_input.display = True
        focus_now(self.filter_input)

    def clear_filter(self) -> None:
        self.filter_input.value = ""
        self.list.set_query("")
        self.filter_input.display = False
        focus_now(self.list)

    def action_clear_filter(self) -> None:
        """escape: the filter first, then the marks."""
        if self.list.filter_query or self.filter_input.display:
            self.clear_filter()
        elif self.list.marked_keys:
            count = len(self.list.marked_keys)
            self.list.clear_marks()
            self.notify(f"{plural(count, 'mark')} cleared; nothing was changed.")

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.list.type_query(event.value)
