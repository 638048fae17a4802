"""`ctrl+f`: find text in every memory file (`core/search`). Results as you type, best first, each its path,
line and the line of its first match with the matches highlighted.

Each keystroke runs the query in a worker on the index as it stands (`SearchIndex.reader`: never the one
that builds it). A newer keystroke cancels the work in flight: its worker is exclusive and its SQLite query is
interrupted (so stale queries never hold the CPU the newest one needs); a result that still comes back late
is dropped. While the app's worker builds
the index (its first build, or a rebuild) the screen says so with a progress bar, and the results grow as it
goes. The screen never calls the app: `enter` posts `SearchOpen` (the app shows the file in its pane, the
preview at the match), `a` / `d` / `r` post `SearchHitAction` (the app plans it, with its usual preview).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from pmem_tui.core.errors import PmemError
from pmem_tui.core.search import Hit, Results, SearchIndex
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import SEARCH
from pmem_tui.tui.messages import SearchHitAction, SearchOpen
from pmem_tui.tui.widgets.hit_lines import HitLines
from pmem_tui.tui.widgets.key_bar import KeyBar

# Results listed: about a tall screen's worth (two lines each); a person refines the query rather than scroll.
# Each listed result is drawn on every keystroke: 50 cost ~3x the keystroke's time of 20 at 10k notes.
LIMIT = 20
# How long a keystroke's frame waits for its results (seconds): within it, the typed text and its results show
# in one frame. Otherwise the typed text shows first, and the results a frame later: Textual draws a screen at
# most once a 1/60 s tick, counted from the end of the last one, so that second frame came 17-33 ms after
# the first (a keystroke's median 40 ms at 10,000 files, the query 10 of it).
HOLD = 0.045
PLACEHOLDER = 'words, "a phrase", path:notes/*, in:archive'


def run_query(
    root: Path, query: str, opened: Callable[[sqlite3.Connection], None] | None = None
) -> Results | str:
    """The results of `query` on the index as it stands, or the sentence saying why there are none
    (`opened`: told the connection, which another thread may `interrupt`)."""
    idx = SearchIndex.reader(root)
    if idx is None:
        return "The search index is being built; results appear as it grows."
    if opened is not None:
        opened(idx.conn)
    try:
        with idx:
            return idx.search(query, archive=True, limit=LIMIT)
    except PmemError as err:
        return str(err)
    except sqlite3.Error:
        return "The search index is being rebuilt; try again in a moment."


class SearchScreen(Screen[None]):
    DEFAULT_CSS = """
    SearchScreen #search-input { margin: 0 1; }
    SearchScreen #search-status { height: auto; max-height: 3; padding: 0 2; color: $text-muted; }
    SearchScreen #search-progress { height: 1; padding: 0 2; }
    SearchScreen #search-results { height: 1fr; border: none; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [*bindings(SEARCH)]

    class Found(Message):
        def __init__(self, generation: int, results: Results | str) -> None:
            super().__init__()
            self.generation = generation
            self.results = results

    def __init__(self, root: Path, progress: tuple[int, int] | None = None, query: str = "") -> None:
        super().__init__()
        self.root = root
        self.progress = progress  # (done, total) while the app's worker builds the index
        self.initial = query
        self.hits: list[Hit] = []
        self.generation = 0
        self.shown_generation = 0
        self.in_flight: sqlite3.Connection | None = None  # the last query's connection, to interrupt
        self.error = ""  # why there are no results (a refused query, the index not there yet)
        self.note = ""  # what the index could not look into
        self.input = Input(query, placeholder=PLACEHOLDER, id="search-input")
        self.results = OptionList(id="search-results")

    def compose(self) -> ComposeResult:
        yield Static(Text("Search", style="bold"), id="search-title")
        yield self.input
        yield Static(id="search-status")
        yield ProgressBar(id="search-progress", show_eta=False)
        yield self.results
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_progress()
        self._status()
        self.input.focus()
        if self.initial:
            self._start(self.initial)

    # -- the index's progress (the app hands it over) ---------------------------------------------

    def index_progress(self, done: int, total: int, ready: bool) -> None:
        self.progress = None if ready else (done, total)
        self._show_progress()
        self._status()
        if self.input.value.strip():
            self._start(self.input.value)  # the index grew or changed: the results too

    def _show_progress(self) -> None:
        bar = self.query_one("#search-progress", ProgressBar)
        bar.display = self.progress is not None
        if self.progress is not None:
            bar.update(total=max(self.progress[1], 1), progress=self.progress[0])

    def _status(self) -> None:
        parts = []
        if self.progress is not None:
            done, total = self.progress
            if total:
                parts.append(f"Indexing: {done:,} of {total:,} files read; results may be incomplete.")
            else:  # the first refresh of this run: comparing the files with the index
                parts.append("Indexing: checking which files changed; results may be incomplete.")
        if self.error:
            parts.append(self.error)
        elif self.input.value.strip():
            n = len(self.hits)
            parts.append(f"{n}{'+' if n >= LIMIT else ''} result{'s' if n != 1 else ''}")
            if self.note:
                parts.append(self.note)
        else:
            parts.append("Type to search every memory file, the archive and the trash included.")
        self.query_one("#search-status", Static).update(Text("  ".join(parts)))

    # -- the query --------------------------------------------------------------------------------

    @on(Input.Changed, "#search-input")
    async def _changed(self, event: Input.Changed) -> None:
        """Query, and hold this screen's next frame until the results come (at most `HOLD`): while this
        handler waits, the screen does not draw (the input still takes keys; they show with the results)."""
        event.stop()
        arrived = self._start(event.value)
        if arrived is None:
            return
        # No frame meanwhile: the update timer runs on its own task, so a blocked handler alone did not stop
        # it (found under load: a frame showed the new query with the last one's results).
        with self.app.batch_update(), contextlib.suppress(TimeoutError):
            generation, results = await asyncio.wait_for(asyncio.shield(arrived), HOLD)
            self._found(generation, results)

    def _start(self, query: str) -> asyncio.Future[tuple[int, Results | str]] | None:
        """A query for `query` started (None: an empty query, shown at once); its results' future."""
        self.generation += 1
        conn, self.in_flight = self.in_flight, None
        if conn is not None:  # typed over: stop it (a closed one raises; its result is dropped anyway)
            with contextlib.suppress(sqlite3.Error):
                conn.interrupt()
        if not query.strip():
            self._show(self.generation, [], "")
            return None
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[tuple[int, Results | str]] = loop.create_future()

        def arrive(answer: tuple[int, Results | str]) -> None:
            if not arrived.done():
                arrived.set_result(answer)

        def done(generation: int, results: Results | str) -> None:  # from the worker's thread
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                loop.call_soon_threadsafe(arrive, (generation, results))

        self._query(self.generation, query, done)
        return arrived

    @work(thread=True, group="search-query", exclusive=True, exit_on_error=False, description="search")
    def _query(self, generation: int, query: str, done: Callable[[int, Results | str], None]) -> None:
        if generation != self.generation:
            return  # typed over before it started

        def opened(conn: sqlite3.Connection) -> None:
            self.in_flight = conn

        results = run_query(self.root, query, opened)
        if not get_current_worker().is_cancelled:
            done(generation, results)  # the keystroke's handler, if it still waits
            self.post_message(self.Found(generation, results))  # else (later than `HOLD`): this shows them

    def on_search_screen_found(self, message: SearchScreen.Found) -> None:
        message.stop()
        self._found(message.generation, message.results)

    def _found(self, generation: int, results: Results | str) -> None:
        if generation <= self.shown_generation or generation != self.generation:
            return  # typed over (a newer query is on its way), or shown already (within `HOLD`)
        if isinstance(results, str):
            self._show(generation, [], results)
        else:
            self.note = results.note or ""
            self._show(generation, list(results.hits), "")

    def _show(self, generation: int, hits: list[Hit], error: str) -> None:
        self.shown_generation = generation
        self.hits = hits
        self.error = error
        results = self.results
        highlighted = results.highlighted
        results.clear_options()
        theme = self.app.ansi_theme
        results.add_options([Option(HitLines(h, theme)) for h in hits])
        if hits:
            results.highlighted = min(highlighted or 0, len(hits) - 1) if highlighted is not None else 0
        self._status()

    # -- keys -------------------------------------------------------------------------------------

    def _hit(self) -> Hit | None:
        index = self.results.highlighted
        return self.hits[index] if index is not None and 0 <= index < len(self.hits) else None

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_open()

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        hit = self._hit()
        if hit is None:
            self.app.bell()
            return
        needle = hit.snippet[hit.spans[0][0] : hit.spans[0][1]] if hit.spans else ""
        self.post_message(SearchOpen(hit.path, needle))

    def action_to_results(self) -> None:
        if self.hits:
            self.results.focus()

    def action_to_query(self) -> None:
        self.input.focus()

    def action_cursor_down(self) -> None:
        self.results.action_cursor_down()

    def action_cursor_up(self) -> None:
        self.results.action_cursor_up()

    def _lifecycle(self, action: str) -> None:
        hit = self._hit()
        if hit is None:
            self.app.bell()
            return
        self.post_message(SearchHitAction(action, hit.path))

    def action_archive(self) -> None:
        self._lifecycle("archive")

    def action_delete(self) -> None:
        self._lifecycle("delete")

    def action_recover(self) -> None:
        self._lifecycle("recover")

    def action_close(self) -> None:
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The results' keys act on the results only: in the query they are letters typed."""
        if action in ("archive", "delete", "recover", "cursor_down", "cursor_up", "to_query"):
            return self.results.has_focus
        return True
