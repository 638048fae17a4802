"""The app's half that keeps the memory's history (issue 16): it records what the watcher sees, and opens
the History view of the selected file. `PmemApp` builds on it.

Recording: a full scan records what changed on disk first (`scanning.scan`, as `status` and `health` do);
the watcher's changes are recorded `RECORD_DELAY_S` after the first of them (a maximum wait, not reset by
the next: an agent writing steadily still gets its records), in a worker, through
`record.record_if_changed` (nothing when the cheap stat pass finds nothing, or when the memory has no
history yet: a read-only view never makes one). A history that cannot record never blocks anything: the
app says so once, in one sentence. After a new record, the Changes pane and any History view read again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer

from pmem_tui.tui.plan_app import PlanApp
from pmem_tui.tui.widgets.changes import PANE_ID as CHANGES_PANE
from pmem_tui.tui.widgets.changes import ChangesView

if TYPE_CHECKING:
    from pathlib import Path

    from pmem_tui.core.history.record import Recorded
    from pmem_tui.tui.screens.history import HistoryScreen

RECORD_DELAY_S = 1.0


class HistoryApp(PlanApp):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.record_delay = RECORD_DELAY_S  # tests shorten it
        self.records_seen = 0  # records attempted and answered (tests wait on it)
        self._record_timer: Timer | None = None
        self._history_problem: str | None = None  # the last sentence said (said once, not at every record)

    # -- recording ----------------------------------------------------------------------------

    def record_soon(self) -> None:
        """The watcher saw changes: record them after `record_delay` (one record for a burst)."""
        if self._record_timer is None:
            self._record_timer = self.set_timer(self.record_delay, self._record_now)

    def _record_now(self) -> None:
        self._record_timer = None
        self._record()

    @work(thread=True, exclusive=True, group="history-record", exit_on_error=False, description="record")
    def _record(self) -> None:
        from pmem_tui.core.history.record import record_if_changed

        done = record_if_changed(self.root)
        self.call_from_thread(self.history_recorded, done, True)

    def history_recorded(self, done: Recorded, reload: bool = False) -> None:
        """What a record did (the watcher's, or the scan's first: its screens reload on their own)."""
        self.records_seen += 1
        if done.problem is not None and done.problem != self._history_problem:
            self.notify(f"History could not record what changed on disk: {done.problem}.", severity="warning")
        self._history_problem = done.problem
        if done.commit is not None and reload:
            self.history_changed()

    def history_changed(self) -> None:
        """A new record (the watcher's, an action's, a restore's): the views of the history read again."""
        for view in (v for s in self.screen_stack for v in s.query(ChangesView)):
            view.reload()
        for screen in self._history_screens():
            screen.reload()

    def history_maybe_moved(self) -> None:
        """The watcher saw the history store made or a ref written (by this app, or by `pmem-tui snapshot`
        elsewhere): the Changes pane reads again if its refs moved since its last read (the app's own
        records are read already: `history_changed`)."""
        for view in (v for s in self.screen_stack for v in s.query(ChangesView)):
            view.reload(if_moved=True)

    def _history_screens(self) -> list[HistoryScreen]:
        from pmem_tui.tui.screens.history import HistoryScreen

        return [s for s in self.screen_stack if isinstance(s, HistoryScreen)]

    # -- v: the History view ------------------------------------------------------------------

    def selected_path(self) -> str | None:
        """The file `v` shows: the row under the cursor of a pane of rows, or the Changes pane's."""
        from pmem_tui.tui.screens.main import MainScreen

        main = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
        if main is None:
            return None
        if main.current_pane() == CHANGES_PANE:
            return main.query_one(ChangesView).current_path
        view = main.current_view()
        row = view.list.current_row if view is not None else None
        return row.path if row is not None else None

    def action_file_history(self) -> None:
        path = self.selected_path()
        if path is None:
            self.notify("Nothing selected: select a file, then press v for its history.", severity="warning")
            return
        from pmem_tui.tui.screens.history import HistoryScreen

        self.push_screen(HistoryScreen(self.root, path))
