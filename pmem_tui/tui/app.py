"""The pmem-tui app: owns the watcher, scans in workers, routes keys to core plans and their previews.

Data flows one way: files -> snapshot -> panes, and key -> plan -> preview modal -> confirm ->
executor (in a worker) -> files; the watcher (or the app after its own action) then brings the new
state back as a new snapshot. Nothing here writes a memory file except through `executor.apply`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import importlib
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.errors import PmemError
from pmem_tui.core.head import index_head
from pmem_tui.core.model import PROJECT_MEMORY_DIR, Snapshot
from pmem_tui.tui.actions import bindings_of
from pmem_tui.tui.config import Config, apply_config
from pmem_tui.tui.editor import Editor, run_editor
from pmem_tui.tui.focus import KeyReadOrder, reroute_stray_key
from pmem_tui.tui.messages import FilesChanged, PlanApplied, PreviewShown, ScanDone
from pmem_tui.tui.panes import ROW_PANES, ExtraPane, rows_for
from pmem_tui.tui.rows import DEAD, Row, head_rows
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.screens.too_small import follow_size
from pmem_tui.tui.screens.welcome import WelcomeScreen
from pmem_tui.tui.signals import at_hangup, exit_on_termination
from pmem_tui.tui.watcher import MemoryWatcher
from pmem_tui.tui.words import display_path, in_keys, split_outcome

# Action-only and worker-only modules load on first use, not at start-up (the first frame does not need them).
if TYPE_CHECKING:
    from pmem_tui.core import doctor, executor, lifecycle, settled
    from pmem_tui.core.plan import Plan
    from pmem_tui.core.report import Baseline
    from pmem_tui.tui import edit_flow, undo
    from pmem_tui.tui import patch as patch_mod
    from pmem_tui.tui.modals.new_file import NewFileRequest
    from pmem_tui.tui.modals.plan_modal import PlanBuilder, PlanModal
    from pmem_tui.tui.screens.health import HealthScreen, HealthSource
else:

    class _LazyModule:
        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attr: str) -> object:
            return getattr(importlib.import_module(self._name), attr)

    doctor = _LazyModule("pmem_tui.core.doctor")
    executor = _LazyModule("pmem_tui.core.executor")
    lifecycle = _LazyModule("pmem_tui.core.lifecycle")
    undo = _LazyModule("pmem_tui.tui.undo")
    edit_flow = _LazyModule("pmem_tui.tui.edit_flow")
    settled = _LazyModule("pmem_tui.core.settled")  # the scan worker's: not needed for the first frame
    patch_mod = _LazyModule("pmem_tui.tui.patch")


DEBOUNCE_S = 0.03  # quiet time before a rescan
MAX_WAIT_S = 0.15  # ...but never later than this after the first pending change (steady writes)
MAX_NOTIFIED_ITEMS = 6
SELECTION_ACTIONS = frozenset({"archive", "delete", "recover", "edit"})
HEAD_GRACE_S = 0.3  # the longest the full scan waits for the first preview


_gc_lock = threading.Lock()
_gc_pauses = 0


@contextlib.contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """No automatic cycle collection while a scan builds its snapshot (nested and concurrent safe)."""
    global _gc_pauses
    with _gc_lock:
        _gc_pauses += 1
        gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if not _gc_pauses:
                # What the scan kept is long-lived and acyclic: move it out of the young generation now, or
                # the first allocations after `enable` would trace all of it (10^6 objects at 100k files:
                # two young collections of 100-150 ms each, on the UI thread, before the first usable frame).
                gc.freeze()
                gc.enable()





class PmemApp(KeyReadOrder, App[int]):
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
        super().__init__()
        self.root = Path(root)
        self.root_label = root_label or display_path(self.root)
        self.watch_enabled = watch
        self.project = project
        self.editor: Editor = editor or run_editor
        self.extra_panes: list[ExtraPane] = list(extra_panes)
        self.health_source: HealthSource | None = health_source  # None: the health screen's default
        self.config = Config()  # the user's keys and theme (`tui/config.py`), read when the app starts
        self.snapshot: Snapshot | None = None
        self.baseline: Baseline | None = None
        self._history: undo.History | None = None  # made on first use: its module loads lifecycle
        self.kept: set[str] = set()  # health proposals dismissed with `K` this session
        self.watcher = MemoryWatcher(self.root, self._watcher_notify)
        self._generation = 0
        self._shown_generation = 0
        self._pending: set[str] | None = set()
        self._first_pending: float | None = None
        self._debounce: Timer | None = None
        self._continuations: dict[int, Callable[[], None]] = {}
        self._index_sig: patch_mod.IndexSignature | None = None
        self.scans_done = 0
        self._full_scan_started = False
        self.rows_updated_in_place = 0
        self.monotonic: Callable[[], float] = time.monotonic  # the debouncer's clock (tests drive it)

    # -- lifecycle of the app -----------------------------------------------------------------

    def today(self) -> dt.date:
        return clock_today()

    async def on_mount(self) -> None:
        exit_on_termination(self)
        self.config = apply_config(self)
        await self.push_screen(MainScreen())
        if not self.root.is_dir():
            self.push_screen(WelcomeScreen())
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
        self.request_rescan()
        self._maybe_start_watcher()

    def on_unmount(self) -> None:
        self.watcher.stop()

    def _maybe_start_watcher(self) -> None:
        if self.watch_enabled and not self.watcher.running and self.root.is_dir():
            self._start_watcher()

    @work(thread=True, exclusive=True, group="watcher", exit_on_error=False)
    def _start_watcher(self) -> None:
        self.watcher.start()
        self.call_from_thread(self._refresh_headers)

    def _refresh_headers(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.refresh_header()

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
    def _scan(
        self,
        generation: int,
        changed: frozenset[str] | None,
        base: tuple[Snapshot, Baseline | None, patch_mod.IndexSignature | None] | None = None,
    ) -> None:
        if base is not None and changed is not None:
            found = patch_mod.patch(self.root, base[0], base[1], base[2], changed)
            if found is not None:
                self.post_message(
                    ScanDone(
                        generation, found.snapshot, found.baseline, changed, found.signature, None, found.rows
                    )
                )
                return
        with _cycle_collector_paused():  # the scan allocates only acyclic objects, 10^5-10^6 at 100k files
            # The index's signature first: its whole-file read then comes before the snapshot exists.
            unchecked = patch_mod.read_signature(self.root)
            snap = settled.scan(self.root, deep=False)[0]  # one state, or the action in progress
            signature = patch_mod.checked(unchecked, snap.index_entries, self.root) if snap.exists else None
            base_line = patch_mod.baseline(snap, signature) if snap.exists else None
            rows = {name: rows_for(name, snap) for name in ROW_PANES}  # built here, off the UI thread
        self.post_message(ScanDone(generation, snap, base_line, changed, signature, rows))

    def on_scan_done(self, message: ScanDone) -> None:
        if message.generation < self._shown_generation:
            return  # an older scan finishing late
        self._shown_generation = message.generation
        self.snapshot = message.snapshot
        self.baseline = message.baseline
        self._index_sig = message.signature  # type: ignore[assignment]
        main = self.main_screen
        if message.patched is not None:  # a few rows changed in place: no rescan, no rebuild
            self._apply_patch(message.patched, message.changed)
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

    def _apply_patch(self, rows: list[Row], changed: frozenset[str] | None) -> None:
        """Known files or index lines changed in place: redraw their rows only."""
        main = self.main_screen
        if not rows:
            return
        if main is not None:
            if not main.update_index_rows(rows):
                self.request_rescan()
                return
            main.refresh_header()
        self.rows_updated_in_place += len(rows)
        for screen in self._health_screens():
            screen.snapshot_changed()

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

    # -- selection ----------------------------------------------------------------------------

    def _selection(self) -> tuple[str, list[Row]]:
        main = self.main_screen
        if main is None:
            return "", []
        return main.selection()

    def _hidden_marks(self) -> str | None:
        main = self.main_screen
        return main.hidden_marks_note() if main is not None else None

    # -- opening previews ---------------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification shows its text literally: refusals and outcomes carry user paths, and a file
        named `[red]x[/red].md` must show its brackets. Widgets' and screens' notify land here too. A CLI
        command in core's sentence becomes the key that does it here."""
        super().notify(in_keys(message), title=title, severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """ctrl+c: Textual's hint, in plain words (its own is markup, shown raw by `notify`)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app.", title="Do you want to quit?")
                return

    def refuse(self, message: str) -> None:
        self.notify(in_keys(message), severity="error")

    def open_plan(
        self,
        *,
        title: str,
        plan: Plan | None = None,
        builder: PlanBuilder | None = None,
        prompt: str = "",
        initial: str = "",
        explanation: str | None = None,
        danger: bool = False,
        then: Callable[[], None] | None = None,
        tag: tuple[str, undo.Step] | None = None,
        on_cancel: Callable[[], None] | None = None,
    ) -> PlanModal:
        """`tag`: the plan, once confirmed, is the undo or redo of that step of the history."""
        from pmem_tui.tui.modals.plan_modal import PlanModal

        modal = PlanModal(
            self.root,
            title=title,
            plan=plan,
            builder=builder,
            prompt=prompt,
            initial=initial,
            explanation=explanation,
            danger=danger,
            on_refusal=self.refuse,
        )

        def closed(confirmed: bool | None) -> None:
            if confirmed and modal.plan is not None:
                if tag is not None:
                    self.history.tag(modal.plan, *tag)
                self.apply_plan(modal.plan, then)
            else:
                self.notify("Cancelled: nothing was changed.")
                if on_cancel is not None:
                    on_cancel()

        self.push_screen(modal, closed)
        return modal

    def _plan_or_refuse(self, make: Callable[[], Plan]) -> Plan | None:
        try:
            return make()
        except PmemError as err:
            self.refuse(str(err))
            return None

    # -- applying -----------------------------------------------------------------------------

    def apply_plan(self, plan: Plan, then: Callable[[], None] | None = None) -> None:
        if then is not None:
            self._continuations[id(plan)] = then
        self._apply(plan)

    @work(thread=True, group="apply", exit_on_error=False)
    def _apply(self, plan: Plan) -> None:
        try:
            result = executor.apply(plan, self.root)
        except PmemError as err:
            self.post_message(PlanApplied(plan, None, str(err)))
        else:
            self.post_message(PlanApplied(plan, result.outcome, None, result.warning))

    def on_plan_applied(self, message: PlanApplied) -> None:
        then = self._continuations.pop(id(message.plan), None)
        if message.error is not None:
            self.refuse(message.error)
            self.request_rescan()
            return
        outcome = message.outcome or "Done."
        sentences = split_outcome(outcome)
        for sentence in sentences[:MAX_NOTIFIED_ITEMS]:
            self.notify(sentence, title=message.plan.title)
        if len(sentences) > MAX_NOTIFIED_ITEMS:
            self.notify(f"…and {len(sentences) - MAX_NOTIFIED_ITEMS} more.", title=message.plan.title)
        if message.warning is not None:
            self.notify(message.warning, severity="warning")
        skipped = [n for n in message.plan.preview.notes if n.startswith("Skipped ")]
        for note in skipped[:MAX_NOTIFIED_ITEMS]:
            self.notify(note, severity="warning")
        if not message.plan.is_empty:
            self.history.record(message.plan)
        main = self.main_screen
        if main is not None:
            for name in ("index", "core", "archive", "trash"):
                main.view(name).list.clear_marks()
        self.request_rescan()
        if then is not None:
            then()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one error handler for workers: an unexpected failure becomes a notification."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            err = event.worker.error
            self.refuse(f"{event.worker.name or 'A background task'} failed: {err}")

    # -- actions ------------------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_health(self) -> None:
        if not self._health_screens():
            from pmem_tui.tui.screens.health import HealthScreen, run_health

            self.push_screen(HealthScreen(self.health_source or run_health))

    async def _on_key(self, event: events.Key) -> None:
        # Runs before `App._on_key` (Textual calls each class's handler, subclass first): a rerouted key
        # must not also be looked up as a binding.
        if await reroute_stray_key(self, event):
            event.prevent_default()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The selection's actions exist on the memory panes only: on the Epics pane they are hidden from
        the key bar and their keys do nothing (rather than "Nothing selected")."""
        if action in SELECTION_ACTIONS:
            main = self.main_screen
            if main is not None and self.screen is main and main.current_view() is None:
                return False
        return True

    def action_archive(self) -> None:
        _pane, rows = self._selection()
        self.start_archive([r.path for r in rows], explanation=self._hidden_marks())

    def start_archive(
        self,
        paths: list[str],
        *,
        default_reason: str = "",
        explanation: str | None = None,
        then: Callable[[], None] | None = None,
        title: str | None = None,
        tag: tuple[str, undo.Step] | None = None,
    ) -> None:
        """Archive: check it can be planned, then ask for the reason in the preview modal."""
        if not paths:
            self.refuse("Nothing selected to archive.")
            return
        root = self.root

        def builder(reason: str) -> Plan:
            if len(paths) == 1:
                return lifecycle.plan_archive(root, paths[0], reason)
            return lifecycle.plan_archive_many(root, paths, reason)

        # Refuse before asking for a reason when the files cannot be archived at all.
        if self._plan_or_refuse(lambda: builder("(reason)")) is None:
            return
        what = paths[0] if len(paths) == 1 else f"{len(paths)} files"
        self.open_plan(
            title=title or f"Archive {what}",
            builder=builder,
            prompt="Why archive it? The reason is kept in the archive record. Type it, then press enter:",
            initial=default_reason,
            explanation=explanation,
            then=then,
            tag=tag,
        )

    def action_delete(self) -> None:
        pane, rows = self._selection()
        if not rows:
            self.refuse("Nothing selected to delete.")
            return
        hidden = self._hidden_marks()
        active = [r for r in rows if r.is_active_file]
        if pane == "index" and active:
            paths = [r.path for r in active]
            what = paths[0] if len(paths) == 1 else f"{len(paths)} files"
            self.start_archive(
                paths,
                explanation=(
                    f"{what} {'is' if len(paths) == 1 else 'are'} active. Only an archived file can be "
                    "deleted (delete = archive first, then the trash, recoverable for 30 days). Here is the "
                    "archive preview instead; delete it afterwards from the Archive pane."
                    + (f"\n{hidden}" if hidden else "")
                ),
            )
            return
        self.start_delete([r.path for r in rows], hidden)

    def start_delete(self, paths: list[str], explanation: str | None = None) -> None:
        root = self.root
        plan = self._plan_or_refuse(
            lambda: (
                lifecycle.plan_delete(root, paths[0])
                if len(paths) == 1
                else lifecycle.plan_delete_many(root, paths)
            )
        )
        if plan is not None:
            self.open_plan(title=plan.title, plan=plan, explanation=explanation)

    def action_recover(self) -> None:
        _pane, rows = self._selection()
        if not rows:
            self.refuse("Nothing selected to recover.")
            return
        self.start_recover([r.path for r in rows], self._hidden_marks())

    def start_recover(self, paths: list[str], explanation: str | None = None) -> None:
        root = self.root
        if len(paths) > 1:
            plan = self._plan_or_refuse(lambda: lifecycle.plan_recover_many(root, paths))
            if plan is not None:
                self.open_plan(title=plan.title, plan=plan, explanation=explanation)
            return
        path = paths[0]
        try:
            plan = lifecycle.plan_recover(root, path)
        except lifecycle.NeedsIndexLine as need:
            self.open_plan(
                title=f"Recover {path}",
                builder=lambda line: lifecycle.plan_recover(root, path, index_line=line),
                prompt="The archive record has no saved index line. pmem-tui proposes this one from the "
                "file; edit it if needed, then press enter:",
                initial=need.proposal,
                explanation=f"Recovering {path} restores its line in _index.md; confirm which line.",
            )
            return
        except PmemError as err:
            self.refuse(str(err))
            return
        self.open_plan(title=plan.title, plan=plan)

    def action_purge(self) -> None:
        plan = self._plan_or_refuse(lambda: lifecycle.plan_purge(self.root))
        if plan is None:
            return
        if plan.is_empty:
            self.notify(plan.outcome or "No expired trash to purge.")
            return
        self.open_plan(
            title=plan.title,
            plan=plan,
            danger=True,
            explanation="These expired trash items are removed for good; they cannot be recovered "
            "afterwards.",
        )

    def action_upgrade(self) -> None:
        plan = self._plan_or_refuse(lambda: lifecycle.plan_upgrade(self.root))
        if plan is None:
            return
        if plan.is_empty:
            self.notify(plan.outcome or "The lifecycle structure is complete; nothing to upgrade.")
            return
        self.open_plan(title=plan.title, plan=plan)

    def action_doctor(self) -> None:
        plan = self._plan_or_refuse(lambda: doctor.plan_doctor(self.root))
        if plan is None:
            return
        if plan.is_empty:
            self.notify(plan.outcome or "Nothing needed repair.")
            return
        self.open_plan(title=plan.title, plan=plan)

    @property
    def history(self) -> undo.History:
        if self._history is None:
            self._history = undo.History()
        return self._history

    @property
    def can_redo(self) -> bool:
        return self._history is not None and bool(self._history.undone)

    def action_undo(self) -> None:
        self._offer_history("undo")

    def action_redo(self) -> None:
        self._offer_history("redo")

    def _offer_history(self, kind: str) -> None:
        """The inverse of the last action (undo) or of the last undo (redo), through its own preview."""
        try:
            step, offer = (self.history.undo_offer if kind == "undo" else self.history.redo_offer)(self.root)
        except undo.NoUndo as err:
            self.notify(str(err), severity="warning")
            return
        except PmemError as err:
            self.refuse(f"Cannot {kind}: {err}")
            return
        tag = (kind, step)
        if offer.plan is not None:
            self.open_plan(title=offer.title, plan=offer.plan, explanation=offer.explanation, tag=tag)
        else:
            self.start_archive(
                list(offer.archive_paths),
                default_reason=offer.reason,
                explanation=offer.explanation,
                title=offer.title,
                tag=tag,
            )

    # -- editing ------------------------------------------------------------------------------

    def action_edit(self) -> None:
        _pane, rows = self._selection()
        row = rows[0] if len(rows) == 1 else None
        if len(rows) > 1:
            self.refuse("Edit works on one file at a time; unmark the others first.")
            return
        if row is None:
            self.refuse("Nothing selected to edit.")
            return
        if row.kind == DEAD:
            self.refuse(f"{row.path} does not exist; press n to write it.")
            return
        if not (row.is_active_file or row.kind == "core"):
            self.refuse(f"{row.path} is not active; recover it first to edit it.")
            return
        self.start_edit(row.path)

    def start_edit(self, rel: str) -> None:
        """Edit a copy in $EDITOR (never the file itself; its kept draft if any), then preview the save."""
        edit_flow.start_edit(self, rel)

    def action_new_file(self) -> None:
        pane, _rows = self._selection()
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
        edit_flow.start_new(self, request.path, request.index_line, template)

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
