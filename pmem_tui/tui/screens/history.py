"""The History view of one file: its versions newest first, a diff, and restore.

Opened with `v` on any pane (the selected file; on the Changes pane, the changed file). Left: one row per
version (time, kind, origin, size, id, and where the file was when not in its own place: archived, in the
trash), from `core/history/log.versions` (the file's history follows it into `_archive/` and back). Right:
the diff of the version under the cursor against the file as it is now; with one version marked (`space`),
the diff between the two, older to newer. `r` restores the version under the cursor: the screen posts the
save plan (`plans.plan_restore`) as an `OfferPlan`, and the app opens the usual preview modal and applies it
through its one executor path. Every read runs in a worker. `escape` (or `v`) goes back.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from pmem_tui.core.errors import PmemError, refusal_of
from pmem_tui.core.history.log import Version
from pmem_tui.core.textio import printable
from pmem_tui.core.words import plural
from pmem_tui.tui import history_data as data
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import HISTORY_VIEW
from pmem_tui.tui.messages import OfferPlan
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.widgets.list_titles import ListTitles
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PreviewView

COLUMNS = ("when", "kind", "origin", "size", "version", "where")


class HistoryScreen(Screen[None]):
    DEFAULT_CSS = """
    HistoryScreen #history-title {
        height: 1;
        padding: 0 1;
        background: $panel;
    }
    HistoryScreen #history-body {
        height: 1fr;
    }
    HistoryScreen #history-left {
        width: 55%;
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [*bindings(HISTORY_VIEW)]

    class Loaded(Message):
        def __init__(self, generation: int, found: data.VersionsData) -> None:
            super().__init__()
            self.generation = generation
            self.found = found

    class Diff(Message):
        def __init__(self, key: tuple[str, str | None], text: Text) -> None:
            super().__init__()
            self.key = key
            self.text = text

    def __init__(self, root: Path, path: str) -> None:
        super().__init__()
        self.root = root
        self.path = path
        self.found: data.VersionsData | None = None
        self.marked: str | None = None  # the key of the version compared with (space)
        self.loads = 0  # reads shown (tests wait on it)
        self.diffs = 0  # diffs shown (tests wait on it)
        self._generation = 0
        self.list = MemoryList(
            "history",
            empty_text="Reading the history…",
            caps=(0.28, 0.2, 0.22, 0.1, 0.14),
            path_column=0,  # the time: narrower, the size and id go before it is cut
            droppable=(3, 4),
            id="history-list",
        )
        self.titles = ListTitles(COLUMNS, self.list)
        self.diff_view = PreviewView(self.root, id="history-diff")

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="history-title")
        with Horizontal(id="history-body"):
            with Vertical(id="history-left"):
                yield self.titles
                yield self.list
            yield self.diff_view
        yield KeyBar()

    def on_mount(self) -> None:
        self.watch(self.list, "marks", self._marks_changed, init=False)
        self.list.focus()
        self.reload()

    def _title(self) -> Text:
        text = Text("History of ", style="bold")
        text.append(printable(self.path), style="bold")
        if self.found is not None and self.found.versions:
            text.append(f"  {plural(len(self.found.versions), 'version')}, newest first", style="dim")
        if self.marked is not None:
            text.append("  · diff against the marked version (space unmarks)", style="dim")
        return text

    # -- reading ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the versions again (after a record: a restore, what the watcher saw)."""
        self._generation += 1
        self._read(self._generation)

    @work(thread=True, exclusive=True, group="history-versions", exit_on_error=False, description="versions")
    def _read(self, generation: int) -> None:
        self.post_message(self.Loaded(generation, data.read_versions(self.root, self.path)))

    @on(Loaded)
    def _loaded(self, message: HistoryScreen.Loaded) -> None:
        message.stop()
        if message.generation != self._generation:
            return
        self.found = message.found
        self.loads += 1
        self.list.empty_text = message.found.empty
        self.list.set_rows(list(message.found.rows))
        self.titles.sync()
        if self.marked is not None and self.marked not in {r.key for r in message.found.rows}:
            self.marked = None
        self.query_one("#history-title", Static).update(self._title())
        self.show_diff()

    # -- the diff -----------------------------------------------------------------------------

    def _version(self, key: str | None) -> Version | None:
        found = self.found
        if key is None or found is None:
            return None
        return next((v for v in found.versions if data.version_key(v) == key), None)

    @property
    def current(self) -> Version | None:
        row = self.list.current_row
        return self._version(row.key if row is not None else None)

    def show_diff(self) -> None:
        current = self.current
        if current is None:
            empty = self.found.empty if self.found is not None else "Reading the history…"
            self.diff_view.show_renderable(Text(empty, style="dim"))
            return
        marked = self._version(self.marked)
        key = (data.version_key(current), self.marked)
        if marked is None or marked is current:
            self._diff(key, current, None)
            return
        versions = self.found.versions if self.found is not None else ()
        older, newer = sorted((current, marked), key=versions.index, reverse=True)  # newest first there
        self._diff(key, older, newer)

    @work(thread=True, exclusive=True, group="history-diff", exit_on_error=False, description="diff")
    def _diff(self, key: tuple[str, str | None], older: Version, newer: Version | None) -> None:
        self.post_message(self.Diff(key, data.version_diff(self.root, self.path, older, newer)))

    @on(Diff)
    def _diff_read(self, message: HistoryScreen.Diff) -> None:
        message.stop()
        current = self.current
        if current is not None and message.key == (data.version_key(current), self.marked):
            self.diffs += 1
            self.diff_view.show_renderable(message.text)

    @on(MemoryList.Highlighted, "#history-list")
    def _highlighted(self, event: MemoryList.Highlighted) -> None:
        event.stop()
        self.show_diff()

    def _marks_changed(self) -> None:
        """One mark at most: marking another version moves the mark there."""
        keys = self.list.marked_keys
        new = sorted(keys - {self.marked}) if self.marked is not None else sorted(keys)
        self.marked = new[0] if new else (self.marked if self.marked in keys else None)
        self.list.only_mark(self.marked)
        self.query_one("#history-title", Static).update(self._title())
        self.show_diff()

    # -- keys ---------------------------------------------------------------------------------

    def action_restore(self) -> None:
        current = self.current
        if current is None:
            self.notify("No version selected.", severity="warning")
            return
        try:
            offer = data.restore_offer(self.root, self.path, current)
        except (PmemError, OSError) as err:
            self.notify(refusal_of(err), severity="error")
            return
        self.post_message(OfferPlan(offer, lambda _plan: self.reload()))

    def action_back(self) -> None:
        self.dismiss()
