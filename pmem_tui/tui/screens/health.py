"""`H`: the health review. The health engine's numbered proposals (most certain first), the evidence and
the preview of the selected file beside them, and the expired trash in its own section.

The engine (`core.health.check_health`) runs in a worker, never on the UI thread (it can take half a second
on a large memory), and again after every change the app sees, one run at a time. It only reads; every
change goes through the app's preview modal and runs only when the person confirms it there. The screen
never calls the app: it posts `OfferPlan` (what `tui/health_review.py` planned), `EditRequested` and
`KeepRequested`, and the app opens the modal, the editor, or keeps the paths for the session.

* `K` keep (`k` moves up, as everywhere): dismiss the proposal for this session (nothing on disk
  changes);
* `a` archive: the archive preview, its reason prefilled from the proposal (`archive_reason`), editable;
* `d` archive, then delete: the archive preview, then the delete preview, each confirmed on its own;
* `f` the fix of a proposal (`fix_planner.plan_fix`: an index line, a secret redacted or forgotten), via its
  preview, planned in a worker (a redaction's note and a forget read the history); one batch at a time,
  and no other key changes anything while it is under way;
* `e` edit the file in $EDITOR, then the save preview (an invalid summary is never rewritten for you);
* `space` marks rows: `K`, `a` and `d` then take them together (one preview per step), `f` fixes them one
  preview after the other.

Expired trash is listed apart and is removed only by `P`, after its own preview and confirmation. While the
lifecycle structure is incomplete the engine refuses (naming upgrade) and the screen says so.

Extension point: `PmemApp(health_source=...)`, a function `(root, today) -> HealthReport` (default
`health_review.run_health`); it may raise `LifecycleIncomplete`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.widgets import Static

from pmem_tui.core.errors import LifecycleIncomplete, PmemError, refusal_of
from pmem_tui.core.model import INDEX_FILE
from pmem_tui.tui import health_review as review
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import HEALTH
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.messages import EditRequested, KeepRequested, OfferPlan
from pmem_tui.tui.planning import Offer, what
from pmem_tui.tui.rows import Row
from pmem_tui.tui.screens.health_fixes import FixBatch
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.widgets.list_titles import ListTitles
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PreviewView

if TYPE_CHECKING:
    from pmem_tui.core.health import HealthReport, Proposal
    from pmem_tui.core.plan import Plan

COLUMNS = ("#", "category", "path", "signals", "reason")
# The keys that act on a proposal: offered only with one to act on (a row, or marked rows), as on the main
# screen (found in trial: `f Fix  K Keep  a Archive` offered while the review was loading, nothing listed).
_ROW_ACTIONS = frozenset(
    {"health.fix", "health.keep", "health.archive", "health.delete", "health.edit", "mark"}
)


class HealthScreen(FixBatch):
    DEFAULT_CSS = """
    HealthScreen #health-right {
        width: 1fr;
        height: 1fr;
    }
    HealthScreen #health-detail {
        height: auto;
        max-height: 9;
        padding: 0 1;
        border-left: vkey $panel-lighten-2;
        border-bottom: solid $panel-lighten-2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(HEALTH),  # keep is `K`: `k` moves up here as everywhere
    ]

    @dataclass
    class Loaded(Message):
        """The engine finished (in the worker): a report with its rows, or why there is none."""

        token: int
        report: HealthReport | None
        rows: list[Row]
        blocked: str | None = None
        error: str | None = None

    kept: reactive[frozenset[str]] = reactive(frozenset())  # paths kept with `K` this session (the app's)

    def __init__(
        self,
        source: review.HealthSource,
        root: Path,
        today: Callable[[], dt.date],
        kept: Iterable[str] = (),
    ) -> None:
        super().__init__()
        self.source = source
        self.root = root
        self.today = today
        self.set_reactive(HealthScreen.kept, frozenset(kept))
        self.report: HealthReport | None = None
        self.blocked: str | None = None
        self.loads = 0  # engine runs finished (tests wait on it)
        self._rows: dict[str, Row] = {}
        self._proposals: dict[str, Proposal] = {}
        self._token = 0
        self._checking = False
        self._again = False
        self._fixing = False  # a batch of fixes is under way: planned, previewed or applied (`_busy`)
        health_list = MemoryList(
            "health",
            empty_text="Checking the health of active memory…",
            caps=(0.05, 0.11, 0.34, 0.17),  # at 160 columns one signal whole (15 cells)
            path_column=2,
            droppable=(3,),  # narrower, the signals go before the path is cut (the detail pane names them)
            id="health-list",
        )
        self.titles = ListTitles(COLUMNS, health_list)

    @property
    def checking(self) -> bool:
        return self._checking

    def compose(self) -> ComposeResult:
        yield Static(Text("Health review", style="bold"), id="health-title")
        yield Static(Text("Checking the health of active memory…", style="dim"), id="health-status")
        with Horizontal(id="health-body"):
            with Vertical(id="health-left"):
                yield self.titles
                yield self.titles.list
            with Vertical(id="health-right"):
                yield Static("", id="health-detail")
                yield PreviewView(self.root, id="health-preview")
        yield Static("", id="health-expired")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#health-detail", Static).display = False
        self.query_one("#health-expired", Static).display = False
        health_list = self._list
        health_list.loading = True
        health_list.focus()
        self.reload()

    @property
    def _list(self) -> MemoryList:
        return self.query_one("#health-list", MemoryList)

    # -- running the engine -----------------------------------------------------------------------------

    def reload(self) -> None:
        """Check again; while a check runs, one more run follows it (never two at once)."""
        if self._checking:
            self._again = True
            return
        self._checking = True
        self._token += 1
        if self.report is not None:
            status = self.query_one("#health-status", Static)
            text = review.status_text(self.report, len(self._list.all_rows))
            text.append("  re-checking…", style="dim italic")
            status.update(text)
        self._load(self._token, self.root, self.today())

    @work(thread=True, group="health", exit_on_error=False)  # one run at a time: see `reload`
    def _load(self, token: int, root: Path, today: dt.date) -> None:
        try:
            report = self.source(root, today)
            rows = [review.proposal_row(p, root) for p in report.proposals]
        except LifecycleIncomplete as err:
            self.post_message(self.Loaded(token, None, [], blocked=str(err)))
        except Exception as err:  # any failure is shown on the screen, which stays usable
            self.post_message(self.Loaded(token, None, [], error=str(err) or type(err).__name__))
        else:
            self.post_message(self.Loaded(token, report, rows))

    def on_health_screen_loaded(self, message: HealthScreen.Loaded) -> None:
        message.stop()
        self._checking = False
        self.loads += 1
        if message.token == self._token:
            self._show(message)
        if self._again:
            self._again = False
            self.reload()

    def _show(self, message: HealthScreen.Loaded) -> None:
        health_list = self._list
        if health_list.loading:
            health_list.loading = False
            health_list.focus()  # the loading indicator had moved the focus on to the preview
            self.call_after_refresh(self.refresh_bindings)
        status = self.query_one("#health-status", Static)
        expired = self.query_one("#health-expired", Static)
        self.report = message.report
        self.blocked = message.blocked
        report = message.report
        health_list.markable = report is not None
        if report is None:
            self._rows, self._proposals = {}, {}
            if message.blocked is not None:
                key = key_for("health.upgrade")
                text = Text(message.blocked, style="bold yellow")
                text.append(f"\nPress {key} to preview the upgrade; ")
                text.append("nothing is reviewed or changed until then.")
                health_list.empty_text = f"No review until the lifecycle structure is complete ({key})."
            else:
                text = Text(f"The health check failed: {message.error}", style="bold red")
                health_list.empty_text = "No proposals: the health check failed."
            status.update(text)
            health_list.set_rows([])
            self.titles.sync()
            expired.display = False
            self._show_selected(None)
            self.refresh_bindings()
            return
        self._proposals = {review.proposal_key(p): p for p in report.proposals}
        self._rows = {row.key: row for row in message.rows}
        shown = [row for row in message.rows if row.path not in self.kept]
        health_list.empty_text = (
            "Every proposal was kept for this session."
            if report.proposals
            else "No proposals: active memory looks healthy."
        )
        health_list.set_rows(shown)
        self.titles.sync()
        status.update(review.status_text(report, len(shown)))
        expired.update(review.expired_text(report.expired_trash, report.today))
        expired.display = True
        self._show_selected(health_list.current_row)
        self.refresh_bindings()

    def snapshot_changed(self) -> None:
        """The app rescanned after a change (its own action, an editor, an agent): check again."""
        self.reload()

    # -- selection and preview --------------------------------------------------------------------------

    @on(MemoryList.Highlighted, "#health-list")
    def _highlighted(self, event: MemoryList.Highlighted) -> None:
        event.stop()
        self._show_selected(event.row)

    def _show_selected(self, row: Row | None) -> None:
        detail = self.query_one("#health-detail", Static)
        proposal = self._proposals.get(row.key) if row is not None else None
        if proposal is None:
            detail.display = False
        else:
            detail.update(review.proposal_text(proposal, row))
            detail.display = True
        self.query_one("#health-preview", PreviewView).show_row(row)

    def selected(self) -> list[tuple[Row, Proposal]]:
        """The marked rows, else the row under the cursor, with their proposals."""
        out: list[tuple[Row, Proposal]] = []
        for row in self._list.selection():
            proposal = self._proposals.get(row.key)
            if proposal is not None:
                out.append((row, proposal))
        return out

    def say(self, message: str, *, severity: SeverityLevel = "information") -> None:
        """A notification of one sentence; paths in it are user text, never parsed as markup."""
        self.app.notify(message, severity=severity, markup=False)

    def refuse(self, message: str) -> None:
        self.say(message, severity="error")

    def _busy(self) -> bool:
        """A batch of fixes is planned or applied: no other change meanwhile (found in review: `a` while a fix
        was planned opened the archive preview, and the fix's preview opened over it)."""
        if self._fixing:
            self.say("A fix is still under way; wait for it to finish.", severity="warning")
        return self._fixing

    def _selection_or_refuse(self) -> list[tuple[Row, Proposal]]:
        if self._busy():
            return []
        if self.report is None:
            if self.blocked is not None:
                self.refuse(self.blocked)
            elif self._checking:
                self.say("The health check is still running; try again in a moment.", severity="warning")
            return []
        chosen = self.selected()
        if not chosen:
            self.refuse("No proposal selected.")
        return chosen

    def _existing(self, chosen: list[tuple[Row, Proposal]], action: str) -> list[Proposal]:
        """The proposals whose file exists; a sentence for each one skipped."""
        keep: list[Proposal] = []
        for row, proposal in chosen:
            if row.location is None:
                hint = f"; f drops its line from {INDEX_FILE}" if proposal.fix is not None else ""
                self.refuse(f"{proposal.path} does not exist: nothing to {action}{hint}.")
            else:
                keep.append(proposal)
        return keep

    def _offer(self, make: Callable[[], Offer], then: Callable[[Plan], None] | None = None) -> None:
        """Ask the app to open the preview of what `make` plans (its refusal, said here)."""
        try:
            offer = make()
        except (PmemError, OSError) as err:
            self.refuse(refusal_of(err))
            return
        self.post_message(OfferPlan(offer, then or self._clear_marks))

    def _clear_marks(self, _plan: Plan | None = None) -> None:
        if self.is_mounted:
            self._list.clear_marks()

    # -- K: keep -----------------------------------------------------------------------------------------

    def action_keep(self) -> None:
        chosen = self._selection_or_refuse()
        if not chosen:
            return
        paths = [p.path for _row, p in chosen]
        one = len(paths) == 1
        self.say(
            f"Kept {what(paths)}: {'it stays' if one else 'they stay'} as "
            f"{'it is' if one else 'they are'} and {'is' if one else 'are'} "
            "not proposed again in this session."
        )
        self._clear_marks()
        self.post_message(KeepRequested(tuple(paths)))  # the app keeps them for the session

    def watch_kept(self) -> None:
        report = self.report
        if report is not None and self.is_mounted:
            rows = [self._rows[review.proposal_key(p)] for p in report.proposals if p.path not in self.kept]
            self._list.set_rows(rows)
            self.titles.sync()
            self.query_one("#health-status", Static).update(review.status_text(report, len(rows)))
            self._show_selected(self._list.current_row)

    # -- a / d: archive, then delete (f: `health_fixes.FixBatch`) ---------------------------------------

    def action_archive(self) -> None:
        proposals = self._existing(self._selection_or_refuse(), "archive")
        if proposals:
            self._offer(lambda: review.archive_offer(self.root, proposals, then_delete=False))

    def action_delete(self) -> None:
        proposals = self._existing(self._selection_or_refuse(), "delete")
        if proposals:
            fallback = [p.path for p in proposals]

            def archived(plan: Plan) -> None:  # step 2: the files step 1 archived
                done = list(plan.items) if plan.items else fallback
                self._offer(lambda: review.delete_offer(self.root, done))

            self._offer(lambda: review.archive_offer(self.root, proposals, then_delete=True), archived)

    # -- e: edit ----------------------------------------------------------------------------------------

    def action_edit(self) -> None:
        chosen = self._selection_or_refuse()
        if not chosen:
            return
        if len(chosen) > 1:
            self.refuse("Edit works on one file at a time; unmark the others first.")
            return
        proposals = self._existing(chosen, "edit")
        if proposals:
            self.post_message(EditRequested(proposals[0].path))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While health is blocked, the footer offers the upgrade instead of the per-item keys."""
        if action in ("keep", "archive", "delete", "fix", "edit", "purge"):
            return self.blocked is None
        if action == "upgrade":
            return self.blocked is not None
        return True

    def offers(self, binding: Binding) -> bool:
        """Whether the key bar shows `binding`: a proposal's keys only with a proposal, `P` only with expired
        trash (pressed anyway, each says why); any other binding as it says."""
        if binding.id in _ROW_ACTIONS:
            rows = self._list
            return rows.current_row is not None or bool(rows.marked_keys)
        if binding.id == "health.purge":
            return self.report is not None and bool(self.report.expired_trash)
        return binding.show

    async def action_upgrade(self) -> None:
        await self.app.run_action("upgrade")

    async def action_purge(self) -> None:  # the expired trash: its own preview, focus on Cancel, `y` confirms
        if not self._busy():
            await self.app.run_action("purge")

    def action_back(self) -> None:
        if self._fixing:  # the batch's later fixes (a redaction's step 2 too) are not planned once it is left
            self.app.notify("Left the review: the fixes not yet previewed were dropped; H shows them again.")
        self.dismiss(None)
