"""The app's side of search: the index kept in a worker, the search screen opened, its requests answered.

The index (`core/search`) is built or brought up to date on the first search (the search screen opened by
`ctrl+f` or the palette), never at start: a person who never searches pays nothing for it (its file, its walk,
its CPU and memory). It runs in a thread worker, reporting its progress (`IndexProgress`) so the search
screen shows a bar meanwhile; the app stays usable. Once it was started, the watcher's changes update single
files (`SearchIndex.update_paths`); before, they are left to that first refresh, which finds them by their
stamps. One writer at a time (an exclusive worker group); the screen's queries read the index on their own
connections. `caught_up` is set while no index work is running or waiting (tests and probes await it).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable

from textual.worker import get_current_worker

from pmem_tui.core.search import SearchIndex
from pmem_tui.tui.messages import IndexProgress, SearchHitAction, SearchOpen
from pmem_tui.tui.plan_app import PlanApp
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.screens.search import SearchScreen


class SearchFlow:
    def __init__(self, app: PlanApp, main_screen: Callable[[], MainScreen | None]) -> None:
        self.app = app
        self.main_screen = main_screen  # the app's main screen, when it has one
        self.progress: tuple[int, int] | None = None  # (done, total) while a build runs
        self.started = False
        self._pending: set[str] | None = set()  # the watcher's paths while the index is busy (None: all)
        self._busy = False
        self.caught_up = asyncio.Event()  # set: the index was started and no work on it runs or waits

    # -- the index ------------------------------------------------------------------------------

    def start(self) -> None:
        """The first refresh (a build when there is no index yet), once: the search screen says it is
        catching up (`progress`) until the worker's first news."""
        if not self.started and self.app.root.is_dir():
            self.started = True
            self.progress = (0, 0)
            self._run(None)

    def files_changed(self, changed: frozenset[str] | None) -> None:
        """The watcher's paths (None: unknown): those files are indexed again, after the work in flight."""
        if not self.started:
            return
        if self._busy:
            self._pending = None if changed is None or self._pending is None else self._pending | changed
            return
        self._run(changed)

    def _run(self, changed: frozenset[str] | None) -> None:
        self._busy = True
        self.caught_up.clear()
        self.app.run_worker(
            lambda: self._work(changed),
            thread=True,
            group="search-index",
            exit_on_error=False,
            description="search index",
        )

    def _work(self, changed: frozenset[str] | None) -> None:
        """In the worker thread: open (or rebuild) the index, bring it up to date, say so."""
        app = self.app

        def progress(done: int, total: int) -> None:
            if not get_current_worker().is_cancelled:
                app.post_message(IndexProgress(done, total, ready=False))

        try:
            with SearchIndex.open(app.root, progress) as idx:
                if changed is None:
                    idx.refresh()
                else:
                    idx.update_paths(changed)
        except (OSError, sqlite3.Error):
            pass  # the screen's queries then say the index is not there; the next change tries again
        finally:
            app.post_message(IndexProgress(0, 0, ready=True))

    def index_progress(self, message: IndexProgress) -> None:
        """On the UI thread: the worker's news, handed to the search screens; the next update, if any."""
        self.progress = None if message.ready else (message.done, message.total)
        for screen in self.screens():
            screen.index_progress(message.done, message.total, message.ready)
        if message.ready:
            self._busy = False
            pending, self._pending = self._pending, set()
            if pending is None or pending:
                self._run(None if pending is None else frozenset(pending))
            else:
                self.caught_up.set()

    # -- the screen -----------------------------------------------------------------------------

    def screens(self) -> list[SearchScreen]:
        return [s for s in self.app.screen_stack if isinstance(s, SearchScreen)]

    def open_screen(self) -> None:
        """The search screen; the index is started (or brought up to date) on the first one."""
        self.start()
        if not self.screens():
            self.app.push_screen(SearchScreen(self.app.root, self.progress))

    def open_hit(self, message: SearchOpen) -> None:
        """`enter` on a result: back to the panes, the file's row selected, its preview at the match."""
        main = self.main_screen()
        for screen in self.screens():
            screen.dismiss()
        if main is None or not main.reveal(message.location, message.needle):
            self.app.refuse(f"{message.location} is not in any pane yet; the panes catch up after a scan.")

    def hit_action(self, message: SearchHitAction) -> None:
        """`a` / `d` / `r` on a result: the same offers as the panes' keys, for that file's row."""
        main = self.main_screen()
        found = main.row_at(message.location) if main is not None else None
        if found is None:
            self.app.refuse(f"{message.location} is not in any pane yet; the panes catch up after a scan.")
            return
        pane, row = found
        root = self.app.root
        from pmem_tui.tui import planning  # the plan machinery loads on the first action, as the app's

        if message.action == "archive":
            self.app.offer(lambda: planning.archive_offer(root, [row.path]))
        elif message.action == "delete":
            self.app.offer(lambda: planning.delete_offer(root, pane, [row], None))
        else:
            self.app.offer(lambda: planning.recover_offer(root, [row], None))
