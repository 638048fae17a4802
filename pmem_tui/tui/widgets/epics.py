"""The Epics pane: what an agent loads from a project's permanent memory, against its budget.

The fifth pane (key `5`), plugged into the app's extra-pane slot when a project is known: `--project DIR`,
or the current folder when it has ``.claude/memory/``. It shows, from
:func:`pmem_tui.core.loader.load_permanent_memory`:

* the budget gauge: the block's tokens against the always-loaded target (120) and hard cap (200);
* the degradation ladder: the step in force and what every rung tried dropped, trimmed or reduced;
* one row per epic: shape (v1/v2), confidence, age, stale flag (over 90 days), tokens, and how it loads;
* the block itself, line by line, exactly as the agent receives it;
* below it, read-only, the archived epics (``.claude/memory/archive/``) and the newest ``history.jsonl``
  events (:mod:`pmem_tui.core.epic_archive`), which the agent never gets.

The highlighted epic goes to the preview (``ShowInPreview``): what it loads, and with `enter` its full body
(read from the file for display only; the agent never loads it), with its typed entries and their
confidence. `enter` again goes back.

Reading
    The loader runs in a worker thread, never on the UI thread; so do the read of the file's lines for
    the full bodies (a second, display-only read, checked against the loader's size) and the reads of the
    archive and the history. Nothing here writes.

Refreshing
    The app's watcher watches the memory root, not the project. This pane owns a second
    :class:`~pmem_tui.tui.watcher.MemoryWatcher` on ``<project>/.claude/memory/`` (started when the app
    watches and the folder exists; stopped when it goes away), and reloads, coalesced, after a change there.
    It also reloads when the pane is shown and on `ctrl+r`. Scans of the memory root do not reload it.

User text (headings, summaries, bodies) is always a Rich ``Text``, never markup.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from pmem_tui.core import safeio
from pmem_tui.core.epic_archive import Archive, History, read_archive, read_history
from pmem_tui.core.errors import PmemError
from pmem_tui.core.loader import (
    MEMORY_DIR,
    EpicRow,
    LoaderResult,
    Status,
    Step,
    iter_lines,
    load_permanent_memory,
)
from pmem_tui.core.model import Snapshot
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import EPIC_TABLE, EPICS_VIEW
from pmem_tui.tui.messages import ShowInPreview
from pmem_tui.tui.panes import BY_ID, ExtraPane, pane_id, tab_title
from pmem_tui.tui.watcher import MemoryWatcher
from pmem_tui.tui.widgets.epics_extras import archive_renderable, history_renderable
from pmem_tui.tui.widgets.epics_render import (
    COLUMN_LABELS,
    GAUGE_MIN,
    GAUGE_WIDTH,
    MAX_WARNINGS_SHOWN,
    MAX_WARNINGS_SHOWN_SHORT,
    block_renderable,
    block_title,
    epic_body_renderable,
    epic_loaded_renderable,
    ladder_lines,
    row_cells,
    status_message,
    summary_renderable,
)
from pmem_tui.tui.widgets.pane_tabs import counted, in_view, show_tab_label
from pmem_tui.tui.widgets.preview import render_lines
from pmem_tui.tui.words import display_path

PANE_ID = "epics"  # its spec (title, key `5`) is in `tui/panes.py`
PANE_TITLE = BY_ID[PANE_ID].title
RELOAD_DELAY_S = 0.05  # coalesces a burst of watcher events into one reload (never reset: a maximum wait)

# ------------------------------------------------------------------------------------ the slot


class EpicsPane:
    """The :class:`ExtraPane` for one project: builds the :class:`EpicsView`."""

    pane_id: str = PANE_ID

    def __init__(self, project: Path, *, label: str | None = None) -> None:
        self.project = Path(project)
        self.label = label  # how the project is named on screen (tests fix it); default: its path

    def make_widget(self, app: App[Any]) -> Widget:
        return EpicsView(self.project, label=self.label, watch=bool(getattr(app, "watch_enabled", True)))

    def update(self, screen: Screen[Any], snap: Snapshot) -> None:
        """A scan of the memory root says nothing about the project: the view refreshes on its own."""


def epics_panes(project: str | Path | None, *, cwd: Path | None = None) -> list[ExtraPane]:
    """The Epics pane when `project` is given, or when `cwd` (default: the current folder) has
    ``.claude/memory/``; else none."""
    if project is not None:
        return [EpicsPane(Path(project))]
    here = cwd if cwd is not None else Path.cwd()
    if (here / MEMORY_DIR).is_dir():
        return [EpicsPane(here)]
    return []


# ------------------------------------------------------------------------------------ loading


@dataclass(frozen=True)
class EpicsData:
    """One load: the loader's result, the file's lines (display only, for the full bodies), and the
    producer's archive and history (display only)."""

    result: LoaderResult
    lines: tuple[str, ...]
    archive: Archive | None = None
    history: History | None = None


def read_epics(project: Path, today: dt.date | None = None) -> EpicsData:
    """Run the loader, then read the file's lines for display (retried if the file changed in between),
    the archive and the history."""
    result, lines = _read_loader(project, today)
    if result.status is Status.NO_MEMORY_DIR:
        return EpicsData(result, lines)
    return EpicsData(result, lines, read_archive(project), read_history(project))


def _read_loader(project: Path, today: dt.date | None) -> tuple[LoaderResult, tuple[str, ...]]:
    result = load_permanent_memory(project, today=today)
    for _ in range(3):
        if result.file is None or not result.rows:
            return result, ()
        try:
            data = safeio.read_path(result.path)  # its folders were just checked by the loader
        except OSError:
            return result, ()
        if len(data) == result.file.size:
            return result, tuple(iter_lines(data.decode("utf-8-sig", errors="replace")))
        result = load_permanent_memory(project, today=today)
    return result, ()


# ------------------------------------------------------------------------------------ widgets


class EpicTable(DataTable[Text]):
    """One row per epic; `enter` toggles the preview between what loads and the full body."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(EPIC_TABLE),  # with the other panes' movement keys
    ]


SHORT_HEIGHT = 28  # the pane's own rows; 80x24 leaves it about 20
FEW_WARNINGS_HEIGHT = 22  # under it, one file warning (wrapped) and how many more; 100x30 leaves 23-25


class EpicsView(Vertical):
    """The Epics pane's content (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(EPICS_VIEW),
    ]

    @dataclass
    class Loaded(Message):
        generation: int
        data: EpicsData | None
        error: str | None
        folder: bool = True  # `.claude/memory/` is a folder (its watcher keeps following it)

    class Changed(Message):
        """The project watcher saw a change (posted from its thread; a burst collapses into one)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EpicsView.Changed)

    def __init__(self, project: Path, *, label: str | None = None, watch: bool = True) -> None:
        super().__init__(id="epics-view")
        self.project = project
        self.label = label or display_path(project)
        self.watch_enabled = watch
        self.watcher = MemoryWatcher(project / MEMORY_DIR, self._watcher_notify)
        self._watcher_started = False
        self.data: EpicsData | None = None
        self.error: str | None = None
        self.expanded: set[str] = set()
        self.loads = 0  # loads shown (tests wait on it)
        self._generation = 0
        self._current = 0
        self._reload_timer: Timer | None = None
        self.summary = Static(id="epics-summary")
        self.table = EpicTable(id="epics-table", cursor_type="row", zebra_stripes=False)
        self.block_title = Static(block_title(None), id="epics-block-title")
        self.block = Static(id="epics-block")
        self.archive = Static(id="epics-archive")
        self.history = Static(id="epics-history")

    def compose(self) -> ComposeResult:
        yield self.summary
        yield self.table
        yield self.block_title
        with VerticalScroll(id="epics-block-scroll"):
            yield self.block
            yield self.archive
            yield self.history

    def on_mount(self) -> None:
        for label in COLUMN_LABELS:
            self.table.add_column(label, key=label)
        self._render_all()
        self.reload()

    def on_unmount(self) -> None:
        if self._reload_timer is not None:
            self._reload_timer.stop()
        self.watcher.stop()

    def on_show(self) -> None:
        self.reload()
        self.show_current()

    # -- loading ------------------------------------------------------------------------------

    @property
    def result(self) -> LoaderResult | None:
        return self.data.result if self.data is not None else None

    def reload(self) -> None:
        self._generation += 1
        self._load_epics(self._generation)

    def action_reload(self) -> None:
        self.reload()

    @work(thread=True, exclusive=True, group="epics", exit_on_error=False)
    def _load_epics(self, generation: int) -> None:
        worker = get_current_worker()
        try:
            data = read_epics(self.project)
        except PmemError as err:
            # An error in the file (a FIFO, unreadable, too large) leaves the folder there: its watcher
            # keeps following it, to see the file come back (found in trial: it stopped for good).
            folder = safeio.entry_kind(self.project, MEMORY_DIR.as_posix()) == "dir"
            self.post_message(self.Loaded(generation, None, str(err), folder))
            return
        if not worker.is_cancelled:
            self.post_message(self.Loaded(generation, data, None))

    @on(Loaded)
    def _loaded(self, message: EpicsView.Loaded) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # an older load finishing late
        previous = self.current_row
        self.data, self.error = message.data, message.error
        self.loads += 1
        self._render_all(previous.id if previous is not None else None)
        result = message.data.result if message.data is not None else None
        self._sync_watcher(message.folder and (result is None or result.status is not Status.NO_MEMORY_DIR))
        if self._visible():
            self.show_current()

    # -- the project watcher ------------------------------------------------------------------

    def _watcher_notify(self) -> None:
        """Called from the observer thread: post only."""
        self.post_message(self.Changed())

    @on(Changed)
    def _changed(self, message: EpicsView.Changed) -> None:
        message.stop()
        paths = self.watcher.drain()
        if paths is not None and not paths:
            return
        if self._reload_timer is None:
            self._reload_timer = self.set_timer(RELOAD_DELAY_S, self._timed_reload)

    def _timed_reload(self) -> None:
        self._reload_timer = None
        self.reload()

    def _sync_watcher(self, folder_there: bool) -> None:
        """Watch `.claude/memory/` while it is a folder, whatever the load said of the file in it."""
        if folder_there and self.watch_enabled and not self._watcher_started:
            self._watcher_started = True
            self._start_epics_watcher()
        elif not folder_there and self._watcher_started:
            self._watcher_started = False
            self.watcher.stop()  # restarted when the folder comes back

    @work(thread=True, group="epics-watcher", exit_on_error=False)
    def _start_epics_watcher(self) -> None:
        self.watcher.start()
        self.app.call_from_thread(self._render_summary)

    @property
    def watching(self) -> str:
        if self.watcher.mode == "live":
            return "● live"
        if self.watcher.mode == "polling":
            return "● polling"
        return "○ not watching: ctrl+r reloads"

    # -- rendering ----------------------------------------------------------------------------

    @property
    def gauge_width(self) -> int:
        """The bar's cells: 30, or what is left beside its words when the pane is narrow."""
        width = self.content_region.width - 2  # the summary's padding
        if width <= 0:
            return GAUGE_WIDTH  # not laid out yet
        room = width - len("Budget  999 / 120 target, cap 200")
        return max(GAUGE_MIN, min(GAUGE_WIDTH, room))

    def _summary(self) -> Group:
        shown = MAX_WARNINGS_SHOWN_SHORT if self.size.height < FEW_WARNINGS_HEIGHT else MAX_WARNINGS_SHOWN
        return summary_renderable(self.result, self.label, self.error, self.watching, self.gauge_width, shown)

    def _render_summary(self) -> None:
        self.summary.update(self._summary())

    def on_resize(self) -> None:
        # A short terminal (24 rows and less) drops the margins and shortens the table, so the block the
        # agent receives keeps a few lines of its own.
        self.set_class(self.size.height < SHORT_HEIGHT, "-short")
        self._render_summary()

    def _render_all(self, keep: str | None = None) -> None:
        """Show `self.data`; the cursor stays on epic `keep` when it is still there."""
        result = self.result
        self._render_summary()
        self._fill_table(result.rows if result is not None else (), keep)
        self.table.display = bool(result is not None and result.rows)
        self.block_title.update(block_title(result))
        self.block.update(block_renderable(result))
        data = self.data
        self.archive.update(archive_renderable(data.archive if data is not None else None))
        self.history.update(history_renderable(data.history if data is not None else None))
        self.archive.display = self.history.display = bool(data is not None and data.archive is not None)
        self._update_tab_label()

    def _fill_table(self, rows: Sequence[EpicRow], keep: str | None) -> None:
        table = self.table
        table.clear()
        for i, row in enumerate(rows):
            table.add_row(*row_cells(row, row.id in self.expanded), key=str(i))
        index = next((i for i, r in enumerate(rows) if r.id == keep), min(self._current, len(rows) - 1))
        self._current = max(index, 0)
        if rows:
            table.move_cursor(row=self._current, animate=False)

    def _update_tab_label(self) -> None:
        result = self.result
        label = counted(tab_title(PANE_ID), len(result.rows) if result is not None else None)
        if result is not None and result.step is not Step.NONE:
            label.append(" ◐", style="bold yellow")
        show_tab_label(self, pane_id(PANE_ID), label)

    def _visible(self) -> bool:
        return in_view(self)

    # -- the highlighted epic -----------------------------------------------------------------

    @property
    def rows(self) -> tuple[EpicRow, ...]:
        result = self.result
        return result.rows if result is not None else ()

    @property
    def current_row(self) -> EpicRow | None:
        rows = self.rows
        return rows[self._current] if 0 <= self._current < len(rows) else None

    def block_index(self, row: EpicRow) -> int | None:
        """The line of the block `row` loads as (1 = the header)."""
        if not row.loaded:
            return None
        n = 1
        for other in self.rows:
            if other.loaded:
                n += 1
            if other is row:
                return n
        return None

    def show_current(self) -> None:
        """Ask the preview to show the highlighted epic (or the pane's status)."""
        row = self.current_row
        if row is None:
            self.post_message(ShowInPreview(PANE_TITLE, self.overview()))
            return
        if row.id in self.expanded:
            lines = self.data.lines if self.data is not None else ()
            renderable = epic_body_renderable(row, lines)
        else:
            renderable = epic_loaded_renderable(row, self.block_index(row))
        self.post_message(ShowInPreview(f"Epic {row.id}", renderable))

    def overview(self) -> Text:
        """What the preview shows when there is no epic to show."""
        result = self.result
        if self.error is not None:
            return Text(self.error, style="bold red")
        if result is None:
            return Text("Loading…", style="dim")
        message = status_message(result)
        if message is not None:
            return message
        return ladder_lines(result)[0]

    def toggle(self, index: int | None = None) -> None:
        """Switch an epic's preview between what loads and its full body."""
        if index is not None:
            self._current = index
        row = self.current_row
        if row is None:
            return
        self.expanded ^= {row.id}
        self.table.update_cell(
            str(self._current), COLUMN_LABELS[0], row_cells(row, row.id in self.expanded)[0]
        )
        self.show_current()

    @on(DataTable.RowHighlighted, "#epics-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.cursor_row == self._current and self.current_row is not None:
            return
        self._current = event.cursor_row
        self.show_current()

    @on(DataTable.RowSelected, "#epics-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.toggle(event.cursor_row)

    def on_descendant_focus(self) -> None:
        self.show_current()

    # -- plain text, for tests and screen readers -----------------------------------------------

    def plain_rows(self) -> list[tuple[str, ...]]:
        return [tuple(c.plain for c in row_cells(r, r.id in self.expanded)) for r in self.rows]

    def plain_summary(self) -> str:
        lines = render_lines(self._summary(), 1000)  # wide: one line per line of the summary, none wrapped
        return "\n".join("".join(s.text for s in line).rstrip() for line in lines)
