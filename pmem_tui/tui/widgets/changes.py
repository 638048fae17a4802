"""The Changes pane: what changed in the memory since the person last marked a review, newest first.

The sixth pane (key `6`; its spec is in `tui/panes.py`), always there: the app hands it to the main screen as
an `ExtraPane`. One row per file (path, kind, time, origin, diff size in lines), from
`core/history/log.changes_since_review`, read in a worker; the highlighted row's diff (the reviewed record's
bytes -> the newest record's) goes to the preview (`ShowInPreview`), drawn as the plan previews draw theirs.

`R` marks what is shown reviewed (`record.mark_reviewed`, in a worker: it moves one ref of `.pmem/history`
through `fsops`, nothing else); `v` (the main screen's) opens the selected file's History view.

It reloads after each full scan (the scan records what changed on disk first) and whenever the app has
recorded something (`reload`): what the watcher saw, an action's own record.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from pmem_tui.core.history.names import HISTORY_DIR
from pmem_tui.core.model import Snapshot
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import CHANGES
from pmem_tui.tui.messages import ShowInPreview
from pmem_tui.tui.panes import BY_ID, pane_id, tab_title
from pmem_tui.tui.widgets.list_titles import ListTitles
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.pane_tabs import counted, in_view, show_tab_label

if TYPE_CHECKING:  # the history's readers (and dulwich) load with the first read, not at start-up
    from pmem_tui.core.history.log import Changed
    from pmem_tui.tui.history_data import ChangesData, Refs

PANE_ID = "changes"
PANE_TITLE = BY_ID[PANE_ID].title
COLUMNS = ("path", "kind", "when", "origin", "diff")


class ChangesPane:
    """The `ExtraPane` of the Changes pane."""

    pane_id: str = PANE_ID

    def make_widget(self, app: App[Any]) -> Widget:
        return ChangesView(Path(getattr(app, "root", ".")))

    def update(self, screen: Screen[Any], snap: Snapshot) -> None:
        """A full scan recorded what changed on disk first: read the changes again."""
        for view in screen.query(ChangesView):
            view.reload()


class ChangesView(Vertical):
    """The Changes pane's content (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings(CHANGES)]

    class Loaded(Message):
        def __init__(self, generation: int, data: ChangesData | None) -> None:
            super().__init__()
            self.generation = generation
            self.data = data

    class Diff(Message):
        def __init__(self, path: str, text: Text) -> None:
            super().__init__()
            self.path = path
            self.text = text

    class Reviewed(Message):
        def __init__(self, head: str | None, error: str | None, started: bool = False) -> None:
            super().__init__()
            self.head = head
            self.error = error
            self.started = started  # the history was started by this mark (its first version)

    def __init__(self, root: Path) -> None:
        super().__init__(id="changes-view", classes="pane-view")
        self.root = root
        self.data: ChangesData | None = None
        self.loads = 0  # reads shown (tests wait on it)
        self._generation = 0
        self._reading = False  # a read is in flight
        self._forced = False  # a read asked for since the last one began was not `if_moved`
        self.list = MemoryList(
            PANE_ID,
            empty_text="Reading the history…",
            caps=(0.27, 0.2, 0.245, 0.185),  # every column whole at 120 columns (a short path)
            droppable=(2, 3),  # narrower, time and origin go before the path is cut (the preview says them)
            markable=False,
            id="list-changes",
        )
        self.titles = ListTitles(COLUMNS, self.list)

    def compose(self) -> ComposeResult:
        yield self.titles
        yield self.list

    def on_mount(self) -> None:
        self.reload()

    # -- reading ------------------------------------------------------------------------------

    def reload(self, *, if_moved: bool = False) -> None:
        """Read the changes again. One read at a time: each walks the history, and two at once (the mount's
        and the first scan's) doubled the app's peak memory at 100,000 files; a request made meanwhile is
        read once the read in flight ends. `if_moved`: only if the store's refs moved since the last read
        (the watcher saw one written: by this app, whose records are read already, or by a command)."""
        self._generation += 1
        self._forced |= not if_moved
        if not self._reading:
            self._start_read()

    def _start_read(self) -> None:
        self._reading = True
        known = self.data if self.data is not None and not self._forced else None
        self._forced = False
        self._read(self._generation, known.refs if known is not None else None, known is not None)

    @work(thread=True, group="changes", exit_on_error=False, description="changes")
    def _read(self, generation: int, known: Refs, check: bool) -> None:
        from pmem_tui.tui.history_data import read_changes, refs

        data = None
        try:
            if not check or refs(self.root) != known:  # unmoved: nothing new to read (data None)
                data = read_changes(self.root)
        finally:  # a failed read still ends (the app's worker handler says why): the next can start
            self.post_message(self.Loaded(generation, data))

    @on(Loaded)
    def _loaded(self, message: ChangesView.Loaded) -> None:
        message.stop()
        self._reading = False
        newer = message.generation != self._generation  # asked again while it read
        if newer and (self._forced or message.data is None):  # read the newest
            self._start_read()
            return
        if message.data is not None:
            self._show_data(message.data)
        if newer:  # only to check the refs: against what is shown now
            self._start_read()

    def _show_data(self, data: ChangesData) -> None:
        self.data = data
        self.loads += 1
        self.list.empty_text = data.empty
        self.list.set_rows(list(data.rows))
        self.titles.sync()
        self._update_tab_label()
        self.show_current()

    def _update_tab_label(self) -> None:
        count = len(self.data.rows) if self.data is not None else None
        show_tab_label(self, pane_id(PANE_ID), counted(tab_title(PANE_ID), count))

    def _visible(self) -> bool:
        """The pane is the one in view (only then does it speak to the shared preview)."""
        return in_view(self)

    # -- the highlighted change ---------------------------------------------------------------

    @property
    def current_path(self) -> str | None:
        row = self.list.current_row
        return row.path if row is not None else None

    def show_current(self) -> None:
        """Ask the preview to show the highlighted change's diff (read in a worker), or the pane's status."""
        if not self._visible():
            return
        data = self.data
        row = self.list.current_row
        if data is None or row is None:
            status = data.empty if data is not None else "Reading the history…"
            self.post_message(ShowInPreview(PANE_TITLE, Text(status, style="dim")))
            return
        change = next(c for c in data.changes if c.path == row.key)
        self._diff(change)

    @work(thread=True, exclusive=True, group="changes-diff", exit_on_error=False, description="diff")
    def _diff(self, change: Changed) -> None:
        from pmem_tui.tui.history_data import change_diff

        self.post_message(self.Diff(change.path, change_diff(self.root, change)))

    @on(Diff)
    def _diff_read(self, message: ChangesView.Diff) -> None:
        message.stop()
        if self._visible() and self.current_path == message.path:  # still what the person looks at
            self.post_message(ShowInPreview(f"Changes: {message.path}", message.text))

    @on(MemoryList.Highlighted, "#list-changes")
    def _highlighted(self, event: MemoryList.Highlighted) -> None:
        event.stop()
        self.show_current()

    def on_descendant_focus(self) -> None:
        self.show_current()

    # -- R: mark reviewed ---------------------------------------------------------------------

    def action_mark_reviewed(self) -> None:
        self._mark_reviewed()

    @work(thread=True, group="changes-review", exit_on_error=False, description="mark reviewed")
    def _mark_reviewed(self) -> None:
        from pmem_tui.core.history import stat_table
        from pmem_tui.core.history.record import mark_reviewed, sentence

        started = not stat_table.store_exists(self.root)
        try:
            head = mark_reviewed(self.root, start=True)  # no history yet: R starts it
        except ValueError as err:  # the store's own sentence
            self.post_message(self.Reviewed(None, str(err)))
        except Exception as err:  # a store that cannot be written: one sentence, never a crash
            self.post_message(self.Reviewed(None, sentence(err)))
        else:
            self.post_message(self.Reviewed(head, None, started))

    @on(Reviewed)
    def _reviewed(self, message: ChangesView.Reviewed) -> None:
        message.stop()
        if message.error is not None:
            self.notify(f"Could not mark the changes reviewed: {message.error}.", severity="error")
        elif message.head is None:
            self.notify(self.data.empty if self.data is not None else "No history yet.", severity="warning")
        elif message.started:
            self.notify(
                f"History started in {HISTORY_DIR}: the memory as it is now is its first version, marked"
                " reviewed; the Changes pane lists what changes after it."
            )
        else:
            self.notify("Marked reviewed: the Changes pane now lists what changes after this.")
        self.reload()
