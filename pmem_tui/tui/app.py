"""The pmem-tui app: opens on the head of `_index.md`, then the full scan; routes keys and screens' messages
to offers. The watcher and the scans in workers that keep it current are `live_app.py`'s.

Data flows one way: files -> snapshot -> panes, and key -> plan -> preview modal -> confirm ->
executor (in a worker) -> files (`plan_app.py`); the watcher (or the app after its own action) then
brings the new state back as a new snapshot. The app imports its screens; they never import it: they
get what they show as arguments and ask for plans, edits and keeps with messages (`messages.py`).
"""

from __future__ import annotations

import datetime as dt
import gc
import importlib
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.screen import Screen

from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.errors import PmemError
from pmem_tui.core.head import index_head
from pmem_tui.core.model import PROJECT_MEMORY_DIR
from pmem_tui.tui.actions import bindings_of
from pmem_tui.tui.config import Config, apply_config
from pmem_tui.tui.editor import Editor, run_editor
from pmem_tui.tui.focus import KeyReadOrder, reroute_stray_key
from pmem_tui.tui.keys import use_keymap
from pmem_tui.tui.live_app import LiveApp
from pmem_tui.tui.messages import (
    EditRequested,
    IndexProgress,
    KeepRequested,
    PreviewShown,
    SearchHitAction,
    SearchOpen,
)
from pmem_tui.tui.panes import ExtraPane, offered_on
from pmem_tui.tui.rows import Row, head_rows
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.screens.too_small import follow_size
from pmem_tui.tui.screens.welcome import WelcomeScreen
from pmem_tui.tui.signals import at_hangup, exit_on_termination
from pmem_tui.tui.widgets.changes import PANE_ID as CHANGES_PANE
from pmem_tui.tui.widgets.changes import ChangesPane
from pmem_tui.tui.words import display_path

# Action-only and worker-only modules load on first use, not at start-up (the first frame does not need them).
if TYPE_CHECKING:
    from pmem_tui.core import doctor, lifecycle
    from pmem_tui.tui import edit_flow, planning
    from pmem_tui.tui.health_review import HealthSource
    from pmem_tui.tui.modals.new_file import NewFileRequest
    from pmem_tui.tui.search_flow import SearchFlow
else:

    class _LazyModule:
        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attr: str) -> object:
            return getattr(importlib.import_module(self._name), attr)

    doctor = _LazyModule("pmem_tui.core.doctor")
    lifecycle = _LazyModule("pmem_tui.core.lifecycle")
    edit_flow = _LazyModule("pmem_tui.tui.edit_flow")
    planning = _LazyModule("pmem_tui.tui.planning")


SELECTION_ACTIONS = frozenset({"archive", "delete", "recover", "edit"})
HEAD_GRACE_S = 0.3  # the longest the full scan waits for the first preview


class PmemApp(KeyReadOrder, LiveApp):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "pmem-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings_of("help"),
    ]

    def __init__(
        self,
        root: Path,
        *,
        watch: bool = True,
        project: str | None = None,
        root_label: str | None = None,
        editor: Editor | None = None,
        extra_panes: Sequence[ExtraPane] = (),
        health_source: HealthSource | None = None,
    ) -> None:
        super().__init__(root, watch=watch)
        self.root_label = root_label or display_path(self.root)
        self.project = project
        self.editor: Editor = editor or run_editor
        self.extra_panes: list[ExtraPane] = list(extra_panes)
        self.health_source: HealthSource | None = health_source  # None: the health screen's default
        self.config = Config()  # the user's keys and theme (`tui/config.py`), read when the app starts
        self.kept: set[str] = set()  # health proposals dismissed with `K` this session
        self._full_scan_started = False
        self._search: SearchFlow | None = None  # the search index and screen (`search_flow.py`), on first use

    # -- lifecycle of the app -----------------------------------------------------------------

    def today(self) -> dt.date:
        return clock_today()

    def on_load(self) -> None:
        # No cycle collection until the first preview is on screen (`_start_full_scan` turns it back on):
        # its passes over the ~80,000 objects that the imports, the CSS and the widgets make cost ~35 ms of
        # the first frame at 160x48; the few thousand cyclic ones they would free are freed just after.
        gc.disable()

    async def on_mount(self) -> None:
        exit_on_termination(self)
        self.config = apply_config(self)
        panes = [*self.extra_panes, ChangesPane()]  # the Changes pane is always there
        await self.push_screen(MainScreen(self.root, self.root_label, panes))
        if not self.root.is_dir():
            self.push_screen(WelcomeScreen(self.root_label))
        if not self._show_head():
            self._start_full_scan()
        follow_size(self)

    def on_resize(self, event: events.Resize) -> None:
        follow_size(self, event.size)

    def _show_head(self) -> bool:
        """The first screenful of the Index from the head of `_index.md`, before the full scan: the first
        usable frame then costs the same at any memory size. The full scan starts once the preview of the
        first row is on screen (or after HEAD_GRACE_S), so the two do not compete for the first frame."""
        main = self.main_screen
        head = index_head(self.root) if main is not None and self.root.is_dir() else None
        if not head or main is None:
            return False
        main.show_head(head_rows(head))
        self.set_timer(HEAD_GRACE_S, self._start_full_scan)
        return True

    def on_preview_shown(self, message: PreviewShown) -> None:
        if not self._full_scan_started:
            self.call_after_refresh(self._start_full_scan)

    def _start_full_scan(self) -> None:
        if self._full_scan_started:
            return
        self._full_scan_started = True
        gc.enable()
        # The watches first, then the scan: a file an agent changes while the scan runs is read by the scan
        # or reported by the watcher, never missed in between (the inotify walk takes ~0.2 s at 100,000
        # files; run beside the scan it cost about as much, in contention).
        if not self._maybe_start_watcher(then_scan=True):
            self.request_rescan()

    def on_unmount(self) -> None:
        gc.enable()
        self.watcher.stop()
        use_keymap({})  # the user's keys belonged to this app

    def applied(self) -> None:
        main = self.main_screen
        if main is not None:
            main.clear_marks()
            main.can_undo, main.can_redo = self.can_undo, self.can_redo

    # -- actions ------------------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_health(self) -> None:
        if not self._health_screens():
            from pmem_tui.tui.health_review import run_health
            from pmem_tui.tui.screens.health import HealthScreen

            source = self.health_source or run_health
            self.push_screen(HealthScreen(source, self.root, self.today, self.kept))

    # -- search (`search_flow.py`) ----------------------------------------------------------------

    @property
    def search_flow(self) -> SearchFlow:
        if self._search is None:
            from pmem_tui.tui.search_flow import SearchFlow

            self._search = SearchFlow(self, lambda: self.main_screen)
        return self._search

    def follow_changes(self, changed: frozenset[str] | None) -> None:
        if self._search is not None:
            self._search.files_changed(changed)

    def action_search(self) -> None:
        self.search_flow.open_screen()

    def on_index_progress(self, message: IndexProgress) -> None:
        self.search_flow.index_progress(message)

    def on_search_open(self, message: SearchOpen) -> None:
        self.search_flow.open_hit(message)

    def on_search_hit_action(self, message: SearchHitAction) -> None:
        self.search_flow.hit_action(message)

    def on_keep_requested(self, message: KeepRequested) -> None:
        self.kept.update(message.paths)
        for screen in self._health_screens():
            screen.kept = frozenset(self.kept)

    async def before_app_key(self, event: events.Key) -> bool:
        return await reroute_stray_key(self, event)  # a rerouted key is not also looked up as a binding

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Selection keys on memory panes only (`v` on Changes too), `n` where the table offers it."""
        if (main := self.main_screen) is None or self.screen is not main:
            return True
        if action == "new_file":
            return main.current_pane() in offered_on("new")
        if (action in SELECTION_ACTIONS or action == "file_history") and main.current_view() is None:
            return action == "file_history" and main.current_pane() == CHANGES_PANE
        return True

    def _selection(self) -> tuple[str, list[Row], str | None]:
        """The main screen's pane, its selected rows, and the sentence naming marked rows its filter hides."""
        main = self.main_screen
        if main is None:
            return "", [], None
        pane, rows = main.selection()
        return pane, rows, main.hidden_marks_note()

    def action_archive(self) -> None:
        _pane, rows, hidden = self._selection()
        self.offer(lambda: planning.archive_offer(self.root, [r.path for r in rows], explanation=hidden))

    def action_delete(self) -> None:
        pane, rows, hidden = self._selection()
        self.offer(lambda: planning.delete_offer(self.root, pane, rows, hidden))

    def action_recover(self) -> None:
        _pane, rows, hidden = self._selection()
        self.offer(lambda: planning.recover_offer(self.root, rows, hidden))

    def action_purge(self) -> None:
        self.whole_memory(
            lambda: lifecycle.plan_purge(self.root),
            "No expired trash to purge.",
            danger=True,
            explanation="These expired trash items are removed for good; they cannot be recovered "
            "afterwards.",
        )

    def action_upgrade(self) -> None:
        nothing = "The lifecycle structure is complete; nothing to upgrade."
        self.whole_memory(lambda: lifecycle.plan_upgrade(self.root), nothing)

    def action_doctor(self) -> None:
        self.whole_memory(lambda: doctor.plan_doctor(self.root), "The memory's files need no repair.")
        self._say_history_damage()

    @work(thread=True, group="history-check", exit_on_error=False, description="history check")
    def _say_history_damage(self) -> None:
        """A damaged history store, which `D`'s plan does not touch (found in trial: `D` said "Nothing needed
        repair" while the Changes pane named `pmem-tui doctor --yes`, which rebuilds it). Its check reads
        every record: in a worker, not on the UI thread."""
        from pmem_tui.core.history import rewrite

        problem = rewrite.check(self.root)
        if problem is not None:
            fix = "`pmem-tui doctor --yes` rebuilds it (the damaged store is kept aside)."
            self.call_from_thread(self.notify, f"History: {problem}; {fix}", severity="warning")

    # -- editing ------------------------------------------------------------------------------

    def action_edit(self) -> None:
        _pane, rows, _hidden = self._selection()
        try:
            path = planning.edit_target(rows)
        except PmemError as err:
            self.refuse(str(err))
            return
        edit_flow.start_edit(self, self.editor, path)

    def on_edit_requested(self, message: EditRequested) -> None:
        edit_flow.start_edit(self, self.editor, message.path)

    def action_new_file(self) -> None:
        pane, _rows, _hidden = self._selection()
        initial = "_core/" if pane == "core" else "notes/"
        from pmem_tui.tui.modals.new_file import NewFileModal

        self.push_screen(
            NewFileModal(self.root, first_save=not self.root.is_dir(), initial_path=initial),
            self._new_file_chosen,
        )

    def _new_file_chosen(self, request: NewFileRequest | None) -> None:
        if request is None:
            self.notify("Cancelled: nothing was changed.")
            return
        title = (
            Path(request.path).stem.replace("-", " ").replace("_", " ").strip().capitalize() or "New memory"
        )
        template = f"# {title}\n\n".encode()
        edit_flow.start_new(self, self.editor, request.path, request.index_line, template)

    # -- command palette ----------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from pmem_tui.tui.commands import system_commands

        yield from super().get_system_commands(screen)
        panes = screen.present_panes if isinstance(screen, MainScreen) else None
        yield from system_commands(self, screen, panes)


def _extra_panes(project: str | None) -> list[ExtraPane]:
    """The fifth-pane slot: the Epics pane (the project's .claude/memory/) plugs in here."""
    if project is None and not (Path.cwd() / PROJECT_MEMORY_DIR).is_dir():
        return []  # no Epics pane: its module (and the loader) need not load
    from pmem_tui.tui.widgets.epics import epics_panes

    return epics_panes(project)


def run_app(root: Path, demo: bool = False, project: str | None = None) -> int:
    """Open the app (the CLI's entry point). `demo`: a fresh sample memory in a temporary folder."""
    label = None
    demo_dir: Path | None = None
    if demo:
        from pmem_tui.demo.memory import build_demo

        demo_dir = Path(tempfile.mkdtemp(prefix="pmem-demo-"))
        root = demo_dir / ".persistent-memory"
        build_demo(root, clock_today())
        label = f"{root}  (demo)"
        from pmem_tui.demo.epics import build_epics_demo  # the Epics pane's sample project

        project = str(build_epics_demo(demo_dir, clock_today()))
        at_hangup(partial(shutil.rmtree, demo_dir, ignore_errors=True))
    app = PmemApp(root, project=project, root_label=label, extra_panes=_extra_panes(project))
    try:
        result = app.run()
    finally:
        if demo_dir is not None:
            shutil.rmtree(demo_dir, ignore_errors=True)
    # A crash: Textual restored the terminal and printed the traceback; its return code is 1, not 0.
    return app.return_code or int(result or 0)
