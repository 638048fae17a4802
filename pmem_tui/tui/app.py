"""The pmem-tui app: owns the watcher, scans in workers, routes keys and screens' messages to offers.

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
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.screen import Screen
from textual.timer import Timer

from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.errors import PmemError
from pmem_tui.core.head import index_head
from pmem_tui.core.model import PROJECT_MEMORY_DIR, Snapshot
from pmem_tui.tui.actions import bindings_of
from pmem_tui.tui.config import Config, apply_config
from pmem_tui.tui.editor import Editor, run_editor
from pmem_tui.tui.focus import KeyReadOrder, reroute_stray_key
from pmem_tui.tui.history_app import HistoryApp
from pmem_tui.tui.keys import use_keymap
from pmem_tui.tui.messages import (
    EditRequested,
    FilesChanged,
    IndexProgress,
    KeepRequested,
    PreviewShown,
    ScanDone,
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
from pmem_tui.tui.watcher import MemoryWatcher
from pmem_tui.tui.widgets.changes import PANE_ID as CHANGES_PANE
from pmem_tui.tui.widgets.changes import ChangesPane
from pmem_tui.tui.words import display_path

# Action-only and worker-only modules load on first use, not at start-up (the first frame does not need them).
if TYPE_CHECKING:
    from pmem_tui.core import doctor, lifecycle
    from pmem_tui.core.report import Baseline
    from pmem_tui.tui import edit_flow, planning, scanning
    from pmem_tui.tui.health_review import HealthSource
    from pmem_tui.tui.modals.new_file import NewFileRequest
    from pmem_tui.tui.modals.plan_modal import PlanModal
    from pmem_tui.tui.patch import IndexSignature
    from pmem_tui.tui.screens.health import HealthScreen
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
    scanning = _LazyModule("pmem_tui.tui.scanning")  # the scan worker's: not needed for the first frame


DEBOUNCE_S = 0.03  # quiet time before a rescan
MAX_WAIT_S = 0.15  # ...but never later than this after the first pending change (steady writes)
SELECTION_ACTIONS = frozenset({"archive", "delete", "recover", "edit"})
HEAD_GRACE_S = 0.3  # the longest the full scan waits for the first preview


class PmemApp(KeyReadOrder, HistoryApp):
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
        super().__init__(root)
        self.root_label = root_label or display_path(self.root)
        self.watch_enabled = watch
        self.project = project
        self.editor: Editor = editor or run_editor
        self.extra_panes: list[ExtraPane] = list(extra_panes)
        self.health_source: HealthSource | None = health_source  # None: the health screen's default
        self.config = Config()  # the user's keys and theme (`tui/config.py`), read when the app starts
        self.snapshot: Snapshot | None = None
        self.baseline: Baseline | None = None
        self.kept: set[str] = set()  # health proposals dismissed with `K` this session
        self.watcher = MemoryWatcher(self.root, self._watcher_notify)
        self._generation = 0
        self._shown_generation = 0
        self._pending: set[str] | None = set()
        self._first_pending: float | None = None
        self._debounce: Timer | None = None
        self._index_sig: IndexSignature | None = None
        self.scans_done = 0
        self._full_scan_started = False
        self._watch_starting = False  # a watcher's start is in flight (`_start_watcher`)
        self.rows_updated_in_place = 0
        self.monotonic: Callable[[], float] = time.monotonic  # the debouncer's clock (tests drive it)
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

    @property
    def main_screen(self) -> MainScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

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
        if self._search is not None:
            self._search.files_changed(changed)
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

    def applied(self) -> None:
        main = self.main_screen
        if main is not None:
            main.clear_marks()
            main.can_undo, main.can_redo = self.can_undo, self.can_redo

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
        self.whole_memory(lambda: doctor.plan_doctor(self.root), "Nothing needed repair.")

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
