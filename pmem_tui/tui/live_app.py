"""The app's half that keeps what it shows current: the watcher's changes, debounced, become a patch of
the shown snapshot (a few known files or `_index.md` lines) or a full scan, each in a worker; an older scan
finishing late is dropped. `PmemApp` builds on it.

The watcher is started at most once at a time (`_maybe_start_watcher`), before the first full scan (a file
changed while the scan runs is read by it or reported by the watcher, never missed in between). A burst of
changes waits `DEBOUNCE_S` of quiet, but never more than `MAX_WAIT_S` after its first change (an agent
writing steadily still sees its files).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer

from pmem_tui.core.model import Snapshot
from pmem_tui.tui.history_app import HistoryApp
from pmem_tui.tui.messages import FilesChanged, ScanDone
from pmem_tui.tui.rows import Row
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.screens.welcome import WelcomeScreen
from pmem_tui.tui.watcher import MemoryWatcher

if TYPE_CHECKING:
    from pathlib import Path

    from pmem_tui.core.report import Baseline
    from pmem_tui.tui import scanning
    from pmem_tui.tui.modals.plan_modal import PlanModal
    from pmem_tui.tui.patch import IndexSignature
    from pmem_tui.tui.screens.health import HealthScreen

DEBOUNCE_S = 0.03  # quiet time before a rescan
MAX_WAIT_S = 0.15  # ...but never later than this after the first pending change (steady writes)


class LiveApp(HistoryApp):
    def __init__(self, root: Path, *, watch: bool = True) -> None:
        super().__init__(root)
        self.watch_enabled = watch
        self.snapshot: Snapshot | None = None
        self.baseline: Baseline | None = None
        self.watcher = MemoryWatcher(self.root, self._watcher_notify)
        self._generation = 0
        self._shown_generation = 0
        self._pending: set[str] | None = set()
        self._first_pending: float | None = None
        self._debounce: Timer | None = None
        self._index_sig: IndexSignature | None = None
        self.scans_done = 0
        self._watch_starting = False  # a watcher's start is in flight (`_start_watcher`)
        self.rows_updated_in_place = 0
        self.monotonic: Callable[[], float] = time.monotonic  # the debouncer's clock (tests drive it)

    def follow_changes(self, changed: frozenset[str] | None) -> None:
        """What else follows the watcher's changes once debounced (`PmemApp`: the search index)."""

    @property
    def main_screen(self) -> MainScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

    def _health_screens(self) -> list[HealthScreen]:
        """The health screens open (none while its module was never loaded)."""
        if "pmem_tui.tui.screens.health" not in sys.modules:
            return []
        from pmem_tui.tui.screens.health import HealthScreen

        return [s for s in self.screen_stack if isinstance(s, HealthScreen)]

    def _plan_modals(self) -> list[PlanModal]:
        if "pmem_tui.tui.modals.plan_modal" not in sys.modules:
            return []
        from pmem_tui.tui.modals.plan_modal import PlanModal

        return [s for s in self.screen_stack if isinstance(s, PlanModal)]

    # -- the watcher's start -------------------------------------------------------------------

    def _maybe_start_watcher(self, then_scan: bool = False) -> bool:
        """Start watching unless it is off, running or starting (two starts at once would leave two
        observers); `then_scan`: the full scan follows the watches. False: not started."""
        if not self.watch_enabled or self._watch_starting or self.watcher.running or not self.root.is_dir():
            return False
        self._watch_starting = True
        self._start_watcher(then_scan)
        return True

    @work(thread=True, exclusive=True, group="watcher", exit_on_error=False)
    def _start_watcher(self, then_scan: bool = False) -> None:
        try:
            mode = self.watcher.start()
        finally:
            self._watch_starting = False
            if then_scan:  # whether or not the watches could be set, the scan runs
                self.call_from_thread(self.request_rescan)
        self.call_from_thread(self._show_watch_mode, mode)

    def _show_watch_mode(self, mode: str) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.watcher_mode = mode

    # -- scanning -----------------------------------------------------------------------------

    def request_rescan(self, changed: frozenset[str] | None = None) -> None:
        """Bring the view up to date in a worker: a patch of the shown snapshot when `changed` lists a few
        known files or `_index.md` lines and nothing else is in flight, else a full scan."""
        base = None
        if changed is not None and self._generation == self._shown_generation and self.snapshot is not None:
            base = (self.snapshot, self.baseline, self._index_sig)
        self._generation += 1
        self._scan(self._generation, changed, base)

    # `description`: the decorator would otherwise build the worker's name from the arguments' reprs
    # (a whole snapshot).
    @work(thread=True, exclusive=True, group="scan", exit_on_error=False, description="scan")
    def _scan(self, generation: int, changed: frozenset[str] | None, base: scanning.Base | None) -> None:
        from pmem_tui.tui import scanning  # the scan worker's: not needed for the first frame

        self.post_message(scanning.scan(self.root, generation, changed, base))

    def on_scan_done(self, message: ScanDone) -> None:
        if message.generation < self._shown_generation:
            return  # an older scan finishing late
        self._shown_generation = message.generation
        self.snapshot = message.snapshot
        self.baseline = message.baseline
        self._index_sig = message.signature  # type: ignore[assignment]
        if message.history is not None:  # the scan recorded what changed on disk first
            self.history_recorded(message.history)  # type: ignore[arg-type]
        main = self.main_screen
        if message.patched is not None:  # a few rows changed in place: no rescan, no rebuild
            self._apply_patch(message.patched, message.snapshot)
            return
        self.scans_done += 1
        if main is not None:
            main.update_snapshot(message.snapshot, message.baseline, message.rows)
        # The snapshot and its rows are long-lived and acyclic (freed by reference counting): keep them out
        # of the cycle collector, whose full passes over 10^5-10^6 objects would stall keystrokes.
        gc.freeze()
        if message.snapshot.exists:
            if isinstance(self.screen, WelcomeScreen):
                self.pop_screen()
            self._maybe_start_watcher()
        for screen in self._health_screens():
            if message.changed != frozenset():
                screen.snapshot_changed()

    # -- the watcher --------------------------------------------------------------------------

    def _watcher_notify(self) -> None:
        """Called from the observer thread: post only."""
        self.post_message(FilesChanged())

    def on_files_changed(self, message: FilesChanged) -> None:
        if self.watcher.take_history():  # `.pmem/` is no memory: no rescan, only the Changes pane's check
            self.history_maybe_moved()
        paths = self.watcher.drain()
        if paths is not None and not paths:
            return
        if paths is None or self._pending is None:
            self._pending = None
        else:
            self._pending |= paths
        now = self.monotonic()
        if self._first_pending is None:
            self._first_pending = now
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if now - self._first_pending >= MAX_WAIT_S:
            self._flush_changes()
        else:
            self._debounce = self.set_timer(DEBOUNCE_S, self._flush_changes)

    def _flush_changes(self) -> None:
        changed = None if self._pending is None else frozenset(self._pending)
        self._pending = set()
        self._first_pending = None
        self._debounce = None
        for modal in self._plan_modals():
            modal.notice_change(changed)
        self.request_rescan(changed)
        self.follow_changes(changed)
        self.record_soon()

    def _apply_patch(self, rows: list[Row], snap: Snapshot) -> None:
        """Known files or index lines changed in place: redraw their rows only."""
        main = self.main_screen
        if main is not None and not main.update_index_rows(rows, snap, self.baseline):
            self.request_rescan()
            return
        if rows:
            self.rows_updated_in_place += len(rows)
            for screen in self._health_screens():
                screen.snapshot_changed()
