"""The main screen: header, banner, the panes on the left, the preview on the right, the footer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import ContentSwitcher, Input, Static

from pmem_tui.core.model import Problem, Snapshot
from pmem_tui.core.report import Baseline
from pmem_tui.core.words import plural
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import MAIN, MARK
from pmem_tui.tui.focus import focus_now
from pmem_tui.tui.index_rows import at_location, paths_of
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.messages import ShowInPreview
from pmem_tui.tui.panes import (
    PANES,
    ROW_PANES,
    ExtraPane,
    PaneSpec,
    offered_on,
    pane_id,
    rows_for,
    tab_title,
)
from pmem_tui.tui.problems import ContentProblems, Found, check_contents, without_rows
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.header import StatusHeader
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.widgets.list_filter import shown_keys
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.pane import PaneView
from pmem_tui.tui.widgets.pane_tabs import PaneTabs
from pmem_tui.tui.widgets.preview import PreviewView

# Keys that move the focus are priority bindings (see `actions.MAIN`); those that type a character are left
# to an input that has the focus (the filter).
TYPED_FOCUS_MOVES = frozenset({"show_pane", "focus_preview", "filter"})
_ACTIONS = {a.id: a for a in (*MAIN, MARK)}
_ROW_ACTIONS = frozenset({"preview.focus", "mark", "archive", "delete", "recover", "edit", "history"})
_ONE_ROW = frozenset({"preview.focus", "mark", "history"})  # the highlighted row only, never the marked ones
FIRST_PANE = pane_id(PANES[0].id)  # the pane in the first frame (the Index)


class MainScreen(Screen[None]):
    """Shows what the app hands it (`update_snapshot`, `update_index_rows`, the reactives below); it never
    reads the app."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings(MAIN)]

    watcher_mode: reactive[str] = reactive("off")  # the header's "live", "polling" or "off"
    can_undo: reactive[bool] = reactive(False, bindings=True)  # ctrl+z is offered in the key bar
    can_redo: reactive[bool] = reactive(False, bindings=True)  # ctrl+y is offered in the key bar

    def __init__(self, root: Path, root_label: str, extra_panes: Sequence[ExtraPane] = ()) -> None:
        super().__init__()
        self.root = root
        self.root_label = root_label
        self.extra_panes = list(extra_panes)
        self.snapshot: Snapshot | None = None  # the app's, as last handed over
        self.baseline: Baseline | None = None
        self.content = ContentProblems()  # what a read of the active files finds (`tui/problems.py`)
        self._views: dict[str, PaneView] = {}  # every pane of rows, mounted or not (`view`)
        # The panes hidden in the first frame, composed and mounted after it (`mount_panes`): the first frame
        # comes ~60 ms sooner. Their rows can be set before: a view keeps them and draws them once mounted.
        self._unmounted: dict[str, Widget] = {}
        self._mounting: list[AwaitMount] = []
        self._deferred: set[str] = set()  # the tabs of those panes
        self.tabs = PaneTabs(FIRST_PANE, id="tabs")  # a tab per pane (`compose`)
        self.switcher = ContentSwitcher(id="switcher", initial=FIRST_PANE)  # a holder per pane, one shown

    def compose(self) -> ComposeResult:
        app = self.app
        yield StatusHeader(id="header")
        yield Static("", id="banner")
        panes = self.present_panes
        extras = {extra.pane_id: extra for extra in self.extra_panes}
        with Horizontal(id="body"):
            with Vertical(id="panes"):
                yield self.tabs
                with self.switcher:
                    for spec in panes:
                        content: Widget
                        if spec.rows is not None:
                            content = self._views[spec.id] = PaneView(spec, id=f"view-{spec.id}")
                            self.tabs.add(pane_id(spec.id), tab_title(spec.id), content.tab_label())
                        else:
                            content = extras[spec.id].make_widget(app)
                            self.tabs.add(pane_id(spec.id), tab_title(spec.id))
                        with Vertical(id=pane_id(spec.id), classes="pane-holder"):
                            if pane_id(spec.id) == FIRST_PANE:
                                yield content
                            else:
                                self._unmounted[pane_id(spec.id)] = content
                                self._deferred.add(pane_id(spec.id))
            yield PreviewView(self.root, id="preview")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#banner", Static).display = False
        self.refresh_header()
        view = self.current_view()
        if view is not None:
            view.list.focus()

    # -- panes --------------------------------------------------------------------------------

    @property
    def present_panes(self) -> list[PaneSpec]:
        """The table's panes shown: every pane of rows, and those that draw themselves if the app has them."""
        extras = {extra.pane_id for extra in self.extra_panes}
        return [spec for spec in PANES if spec.rows is not None or spec.id in extras]

    @property
    def pane_ids(self) -> list[str]:
        return [pane_id(spec.id) for spec in self.present_panes]

    @property
    def preview(self) -> PreviewView:
        return self.query_one("#preview", PreviewView)

    def view(self, name: str) -> PaneView:
        """The pane of rows `name`, mounted or not yet (`mount_panes`)."""
        return self._views[name]

    def mount_panes(self) -> None:
        """Mount the panes the first frame did not show: with the first full scan's rows (the first frame
        is on screen by then), or when a key or click shows one (`panes_mounted`)."""
        if self._unmounted:
            holder = self.switcher.get_child_by_id
            self._mounting = [holder(pane).mount(w) for pane, w in self._unmounted.items()]
            self._unmounted.clear()

    async def panes_mounted(self) -> None:
        self.mount_panes()
        for mounting in self._mounting:
            await mounting

    def current_pane_id(self) -> str:
        """The id of the pane in view ("pane-index"...)."""
        return self.switcher.current or FIRST_PANE

    def current_pane(self) -> str:
        return self.current_pane_id().removeprefix("pane-")

    def current_view(self) -> PaneView | None:
        name = self.current_pane()
        return self.view(name) if name in ROW_PANES else None

    def current_list(self) -> MemoryList | None:
        """The rows of the pane in view: a pane of rows', or the Changes pane's; None on Epics."""
        view = self.current_view()
        if view is not None:
            return view.list
        holder = self.switcher.visible_content
        found = holder.query(MemoryList) if holder is not None else None
        return found.first() if found else None

    def nothing_to_preview(self) -> str | None:
        """Why `p` cannot act on the pane in view, in one sentence (no row to preview), or None."""
        rows = self.current_list()
        if rows is None or rows.current_row is not None:
            return None
        # Found in trial: the focus went to an empty preview quietly, and the key bar lost the pane's keys.
        filtered = " that the filter shows" if rows.filter_query else ""
        return f"Nothing to preview: no row{filtered} on this pane."

    def selection(self) -> tuple[str, list[Row]]:
        view = self.current_view()
        if view is None:
            return self.current_pane(), []
        return view.pane, view.list.selection()

    def row_at(self, location: str) -> tuple[str, Row] | None:
        """The pane and row of the file at `location` (its path under the root), in key order."""
        for name in self.pane_ids:
            pane = name.removeprefix("pane-")
            if pane in ROW_PANES:
                row = at_location(self.view(pane).list.all_rows, location)
                if row is not None:
                    return pane, row
        return None

    def reveal(self, location: str, needle: str) -> bool:
        """Show the file at `location` in its pane, selected, the preview scrolled to `needle` (search)."""
        found = self.row_at(location)
        if found is None:
            return False
        pane, row = found
        view = self.view(pane)
        if view.list.filter_query:
            view.clear_filter()  # the filter may hide the row
        self.preview.reveal = (location, needle)
        self._show(pane_id(pane))
        view.list.select_key(row.key)
        self.preview.show_row(row)
        return True

    def hidden_marks_note(self) -> str | None:
        """The marked rows of the pane that its filter hides: a batch includes them, so its preview says
        so and names every one (None: none hidden)."""
        view = self.current_view()
        marked = view.list.marked_rows() if view is not None else []
        if view is None or not marked or not view.list.filter_query:
            return None
        shown = set(shown_keys(view.list.rows))  # not a row built per shown row
        hidden = [r.path for r in marked if r.key not in shown]
        if not hidden:
            return None
        verb = "is" if len(hidden) == 1 else "are"
        return (
            f"Marked but hidden by the filter '{view.list.filter_query}', {plural(len(hidden), 'row')} "
            f"{verb} included too: {', '.join(hidden)}."
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TYPED_FOCUS_MOVES and isinstance(self.focused, Input):
            return False  # typed into the filter: the key goes on to the input
        if action == "show_pane" and parameters:
            index = int(str(parameters[0]))
            return 0 <= index < len(PANES) and pane_id(PANES[index].id) in self.pane_ids
        if action == "filter":
            return self.current_view() is not None  # the Epics pane has no filter
        if action == "problems":
            return self.current_pane() == "index"
        if action == "focus_preview":  # where the key table offers it (found in trial: `p` on Epics)
            return self.current_pane() in offered_on("preview.focus")
        return True

    def offers(self, binding: Binding) -> bool:
        """Whether the key bar shows `binding`: the key table's actions where they apply (and the state
        calls for them: upgrade, doctor, redo); any other binding as it says."""
        action = _ACTIONS.get(binding.id or "")
        if action is None:
            return binding.show
        if self.current_pane() not in offered_on(action.id):
            return False
        snap = self.snapshot
        if action.id == "upgrade":
            return snap is not None and snap.exists and bool(snap.lifecycle_missing)
        if action.id == "doctor":
            return snap is not None and bool(snap.unfinished_action)
        if action.id == "undo":
            return self.can_undo  # not with nothing to undo (found in trial)
        if action.id == "redo":
            return self.can_redo
        if action.id in _ROW_ACTIONS:  # found in trial: `r Recover`, `space Mark` offered on an empty Trash
            rows = self.current_list()  # pressed anyway, each says why
            marked = rows is not None and bool(rows.marked_keys) and action.id not in _ONE_ROW
            return self.nothing_to_preview() is None or marked  # marks the filter hides count
        if action.id == "purge":
            return snap is not None and bool(snap.expired_trash)
        return action.show

    async def action_show_pane(self, index: int) -> None:
        """The pane with key `index + 1` (its place in the table), if it is shown."""
        if 0 <= index < len(PANES):
            if pane_id(PANES[index].id) in self._deferred:
                await self.panes_mounted()
            self._show(pane_id(PANES[index].id))

    def _show(self, pane: str) -> None:
        """Show the pane with id `pane` (mounted: see `panes_mounted`), its tab active, the focus in it."""
        if pane in self.pane_ids:
            self.switcher.current = self.tabs.active = pane
            self._focus_active()
            self.refresh_bindings()

    async def action_cycle_pane(self, step: int) -> None:
        await self.panes_mounted()
        if self.preview.has_focus:  # from the preview, tab goes back to the pane
            self._focus_active()
            return
        ids = self.pane_ids
        current = self.switcher.current
        index = ids.index(current) if current in ids else 0
        self._show(ids[(index + step) % len(ids)])

    def action_problems(self) -> None:
        """`!`: the Index shows only the rows with a problem (orphan, dead route, invalid summary...);
        again: every row."""
        view = self.view("index")
        if view.problem_paths is not None:
            view.problem_paths = None
        else:
            problems = self._problems()
            rowless = without_rows(problems, set(paths_of(view.list.all_rows)))  # every row still here
            view.problem_paths = frozenset(p.path for p in problems)
            if not problems:
                self.notify("No problems: every row is shown.")
                view.problem_paths = None
            elif rowless:
                self.notify(rowless, timeout=20)
        self.preview.show_row(view.list.current_row)

    def _problems(self) -> Sequence[Problem]:
        snap = self.snapshot
        return (self.content.problems(snap) or snap.problems) if snap is not None else ()

    def _follow_problems(self) -> None:
        """`!` stays on while the problems change (an agent's new orphan, a fixed summary): rows follow."""
        view = self.view("index")
        if view.problem_paths is not None:
            paths = frozenset(p.path for p in self._problems())
            if paths != view.problem_paths:
                view.problem_paths = paths

    def action_focus_preview(self) -> None:
        why = self.nothing_to_preview()
        if why is not None:  # the focus stays
            self.notify(why)
            return
        focus_now(self.preview)

    def action_filter(self) -> None:
        view = self.current_view()
        if view is not None:
            view.open_filter()

    def _focus_active(self) -> None:
        view = self.current_view()
        if view is not None:
            focus_now(view.list)
            self.preview.show_row(view.list.current_row)
            return
        pane = self.switcher.get_child_by_id(self.current_pane_id())
        focusable = [w for w in pane.query("*") if isinstance(w, Widget) and w.focusable]
        if focusable:
            focus_now(focusable[0])

    @on(PaneTabs.Clicked)
    async def _tab_clicked(self, event: PaneTabs.Clicked) -> None:
        event.stop()
        if event.pane in self._deferred:  # a click on a tab before the app mounted them
            await self.panes_mounted()
        self._show(event.pane)

    @on(MemoryList.Highlighted)
    def _highlighted(self, event: MemoryList.Highlighted) -> None:
        event.stop()
        view = self.current_view()
        if view is not None and event.memory_list is view.list:
            self.preview.show_row(event.row)

    @on(ShowInPreview)
    def _show_in_preview(self, event: ShowInPreview) -> None:
        event.stop()
        self.preview.show_renderable(event.renderable)

    # -- state --------------------------------------------------------------------------------

    def watch_watcher_mode(self) -> None:
        self.refresh_header()

    def refresh_header(self) -> None:
        snap = self.snapshot
        problems = self.content.problems(snap) if snap is not None else None
        self.query_one("#header", StatusHeader).show(
            self.root_label,
            snap,
            self.baseline,
            self.watcher_mode,
            problems=None if problems is None else len(problems),
            note=self.content.note(),
        )

    def check_contents(self, snap: Snapshot, paths: frozenset[str] | None = None) -> None:
        """Read the active files (`paths` only: after a patch) for the problems only a read finds; none after
        a patch when there are too many files to read (their findings would not count)."""
        if snap.exists and not (paths is not None and self.content.too_many):
            self._check_contents(snap, paths, self.content.start(full=paths is None))

    @work(thread=True, group="problems", exit_on_error=False, description="problems")
    def _check_contents(self, snap: Snapshot, paths: frozenset[str] | None, generation: int) -> None:
        found = check_contents(self.root, snap, paths)
        self.app.call_from_thread(self._contents_checked, generation, found, paths is None)

    def _contents_checked(self, generation: int, found: Found | None, full: bool) -> None:
        if self.content.merge(generation, found, full):
            self.refresh_header()
            self._follow_problems()

    def update_snapshot(
        self, snap: Snapshot, base: Baseline | None, rows: dict[str, Sequence[Row]] | None = None
    ) -> None:
        """New scan: update every pane's rows in place (only those that changed when the pane has the same
        rows in the same order), the header, the banner and the tab labels. `rows`: built by the scan."""
        self.snapshot, self.baseline = snap, base
        if not self.is_attached:  # torn down (the app quitting while the scan ran): nothing left to show
            return
        self.mount_panes()
        for name in ROW_PANES:
            view = self.view(name)
            view.linked = tuple(p for p in view.spec.behind if p in snap.lifecycle_linked)
            view.apply_rows(rows[name] if rows is not None and name in rows else rows_for(name, snap))
        self.check_contents(snap)
        self.refresh_header()
        self._follow_problems()
        self._update_banner(snap)
        for extra in self.extra_panes:
            extra.update(self, snap)
        self.refresh_bindings()

    def show_head(self, rows: list[Row]) -> None:
        """The first Index rows, before the full scan: the tab says "…" until the scan's rows arrive."""
        view = self.view("index")
        view.set_rows(rows)
        if view.list.current_row is not None and self.current_view() is view:
            self.preview.show_row_now(view.list.current_row)

    def update_index_rows(self, rows: list[Row], snap: Snapshot, base: Baseline | None) -> bool:
        """A few files changed content (`snap` has them): redraw their rows only, and the header (False: the
        pane needs a rebuild)."""
        self.snapshot, self.baseline = snap, base
        if not rows or not self.is_attached:  # nothing to redraw, or no screen left to draw it on
            return True
        view = self.view("index")
        if view.problem_paths is not None:
            return False  # a patched row may join or leave the problems: rebuild
        self.check_contents(snap, frozenset(r.path for r in rows))  # their summaries may have changed
        if not all(view.list.update_row(row) for row in rows):
            return False
        self.refresh_header()
        return True

    def clear_marks(self) -> None:
        for name in ROW_PANES:
            self.view(name).list.clear_marks()

    def _update_banner(self, snap: Snapshot) -> None:
        banner = self.query_one("#banner", Static)
        text = Text()
        if snap.action_running:
            text.append(f"'{snap.unfinished_action}' is being applied; the panes follow when it is done.\n")
        elif snap.unfinished_action:
            text.append("An earlier action was interrupted: ", style="bold")
            text.append(f"'{snap.unfinished_action}'")
            text.append(f". Press {key_for('doctor')} to preview the doctor's repair.\n")
        if snap.exists and snap.lifecycle_missing:
            text.append("This memory has no lifecycle structure yet ", style="bold")
            text.append(f"(missing {', '.join(snap.lifecycle_missing)})")
            text.append(
                f". Archive, delete, recover and health need it: press {key_for('upgrade')} to preview the "
                "upgrade."
            )
        text.rstrip()
        banner.update(text)
        banner.display = bool(text.plain)
