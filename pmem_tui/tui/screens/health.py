"""`H`: the health review. The health engine's numbered proposals (most certain first), the evidence and
the preview of the selected file beside them, and the expired trash in its own section.

The engine (`core.health.check_health`) runs in a worker, never on the UI thread (it can take half a second
on a large memory), and again after every change the app sees, one run at a time. It only reads; every
change goes through the app's preview modal and runs only when the person confirms it there:

* `K` keep (`k` moves up, as everywhere): dismiss the proposal for this session (nothing on disk
  changes);
* `a` archive: the archive preview, its reason prefilled from the proposal (`archive_reason`), editable;
* `d` archive, then delete: the archive preview, then the delete preview, each confirmed on its own;
* `f` the index fix of a drift proposal (`plan_fix`), through its preview;
* `e` edit the file in $EDITOR, then the save preview (an invalid summary is never rewritten for you);
* `space` marks rows: `K`, `a` and `d` then take them together (one preview per step), `f` fixes them one
  preview after the other.

Expired trash is listed apart and is removed only by `P`, after its own preview and confirmation. While the
lifecycle structure is incomplete the engine refuses (naming upgrade) and the screen says so.

Extension point: `PmemApp(health_source=...)`, a function `(root, today) -> HealthReport` (default
`run_health`); it may raise `LifecycleIncomplete`.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Static

from pmem_tui.core.errors import LifecycleIncomplete, PmemError
from pmem_tui.core.model import INDEX_FILE, RECOVERY_DAYS, TrashItem
from pmem_tui.core.textio import display
from pmem_tui.tui.actions import HEALTH, bindings
from pmem_tui.tui.rows import DEAD, ENTRY, ORPHAN, Row, countdown
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PreviewView

if TYPE_CHECKING:
    from pmem_tui.core.health import HealthReport, Proposal
    from pmem_tui.core.plan import Plan
    from pmem_tui.tui.app import PmemApp
    from pmem_tui.tui.modals.plan_modal import PlanModal

HealthSource = Callable[[Path, dt.date], "HealthReport"]

CATEGORY_STYLE = {"delete": "bold red", "archive": "bold yellow", "keep": "bold green"}
MAX_EXPIRED_SHOWN = 5


def run_health(root: Path, today: dt.date) -> HealthReport:
    """The default source: the health engine (imported here, so the app starts without its libraries)."""
    from pmem_tui.core.health import check_health

    return check_health(root, today=today)


# -- rows and texts (pure) -------------------------------------------------------------------------------


def proposal_key(p: Proposal) -> str:
    return f"proposal:{p.path}"  # one proposal per path; stable across re-checks (keeps the cursor)


def proposal_row(p: Proposal, root: Path | None = None) -> Row:
    """The table row of a proposal. With `root`, the file is stat'ed for the preview's facts."""
    kinds = p.kinds
    missing = "dead-route" in kinds
    size = mtime_ns = None
    if root is not None and not missing:
        try:
            st = os.lstat(root / p.path)
        except OSError:
            missing = True
        else:
            if stat.S_ISREG(st.st_mode):
                size, mtime_ns = st.st_size, st.st_mtime_ns
            else:
                missing = True
    orphan = "orphan" in kinds
    return Row(
        key=proposal_key(p),
        kind=DEAD if missing else (ORPHAN if orphan else ENTRY),
        path=p.path,
        location=None if missing else p.path,
        cells=(f"{p.n}.", p.category, p.path, ", ".join(kinds), p.reason),
        size=size,
        mtime_ns=mtime_ns,
        index_line=p.fix if p.fix_action == "drop" else None,
        in_index=not orphan,
    )


def proposal_text(p: Proposal, row: Row | None) -> Text:
    """The evidence of one proposal and what each key would do with it."""
    text = Text()
    text.append(f"{p.n}. ", style="bold")
    text.append(p.category, style=CATEGORY_STYLE.get(p.category, "bold"))
    text.append(f"  certainty {round(p.certainty * 100)}%", style="dim")
    for s in p.signals:
        text.append("\n  ")
        text.append(s.kind, style="bold")
        text.append("  ")
        text.append(display(s.detail))
    exists = row is not None and row.location is not None
    if p.fix is not None and p.fix_action == "redact":
        text.append(f"\nf: save it with {p.fix} redacted, through the save preview.", style="cyan")
    elif p.fix is not None:
        verb = "add to" if p.fix_action == "add" else "drop from"
        text.append(f"\nf: {verb} {INDEX_FILE}, through its preview:\n  ", style="cyan")
        text.append(display(p.fix))
    if not exists:
        text.append("\nThe file does not exist: nothing to archive.", style="dim")
    elif p.category == "delete":
        text.append("\nd: archive it, then move it to the trash (two previews).", style="cyan")
    elif p.category == "archive":
        text.append("\na: archive it; the reason is prefilled and editable.", style="cyan")
    elif "invalid-summary" in p.kinds:
        text.append("\ne: edit it, then the save preview (never rewritten for you).", style="cyan")
    return text


def expired_text(items: Sequence[TrashItem], today: dt.date) -> Text:
    text = Text()
    text.append(f"Expired trash ({len(items)})", style="bold")
    if not items:
        text.append("  nothing has passed its 30-day deadline.", style="dim")
        return text
    text.append("  removed for good only with P, after its own preview and confirmation.", style="dim")
    for item in items[:MAX_EXPIRED_SHOWN]:
        text.append("\n  ")
        text.append(display(item.path))
        deadline = item.deadline.isoformat() if item.deadline else "?"
        text.append(f"  deadline {deadline} · {countdown(item, today)}", style="red")
    if len(items) > MAX_EXPIRED_SHOWN:
        text.append(f"\n  …and {len(items) - MAX_EXPIRED_SHOWN} more (P lists every one).", style="dim")
    return text


def status_text(report: HealthReport, shown: int) -> Text:
    props = report.proposals
    text = Text()
    if not props:
        text.append("Nothing to propose: every active file looks current and the index is in sync.")
        return text
    counts = Counter(p.category for p in props)
    summary = ", ".join(f"{counts[c]} {c}" for c in ("delete", "archive", "keep") if counts[c])
    text.append(f"{len(props)} proposal{'s' if len(props) != 1 else ''} ({summary}), most certain first")
    if shown != len(props):
        text.append(f"; {len(props) - shown} kept this session", style="dim")
    text.append(". Nothing runs until you confirm its preview.", style="dim")
    return text


def archive_reason(proposal: Proposal) -> str:
    from pmem_tui.core.fix_planner import archive_reason as reason_of

    return reason_of(proposal)


def archive_reason_for(proposals: Sequence[Proposal]) -> str:
    """The reason prefilled: one proposal's own; none for several (each then keeps its own)."""
    return archive_reason(proposals[0]) if len(proposals) == 1 else ""


def proposals_summary(proposals: Sequence[Proposal], limit: int = 6) -> list[str]:
    """What the preview modal says about the proposals it acts on, one line each."""
    if len(proposals) == 1:
        p = proposals[0]
        lines = [f"Proposal {p.n} ({p.category}): {p.reason}"]
    else:
        lines = [f"{p.n}. {p.category} · {p.path}: {p.reason}" for p in proposals[:limit]]
        if len(proposals) > limit:
            lines.append(f"…and {len(proposals) - limit} more.")
    kept = sum(1 for p in proposals if p.category == "keep")
    if kept:
        what = "this file" if len(proposals) == 1 else f"{kept} of these files"
        lines.append(f"The health check proposes to keep {what}: archiving is your call.")
    return lines


def _what(paths: Sequence[str]) -> str:
    return paths[0] if len(paths) == 1 else f"{len(paths)} files"


# -- the screen ------------------------------------------------------------------------------------------


class HealthScreen(Screen[None]):
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

    class Loaded(Message):
        """The engine finished (in the worker): a report with its rows, or why there is none."""

        def __init__(
            self,
            token: int,
            report: HealthReport | None,
            rows: list[Row],
            blocked: str | None = None,
            error: str | None = None,
        ) -> None:
            super().__init__()
            self.token = token
            self.report = report
            self.rows = rows
            self.blocked = blocked
            self.error = error

    def __init__(self, source: HealthSource) -> None:
        super().__init__()
        self.source = source
        self.report: HealthReport | None = None
        self.blocked: str | None = None
        self.loads = 0  # engine runs finished (tests wait on it)
        self._rows: dict[str, Row] = {}
        self._proposals: dict[str, Proposal] = {}
        self._token = 0
        self._checking = False
        self._again = False

    @property
    def _app(self) -> PmemApp:
        return cast("PmemApp", self.app)

    @property
    def checking(self) -> bool:
        return self._checking

    def compose(self) -> ComposeResult:
        yield Static(Text("Health review", style="bold"), id="health-title")
        yield Static(Text("Checking the health of active memory…", style="dim"), id="health-status")
        with Horizontal(id="health-body"):
            with Vertical(id="health-left"):
                yield Static(
                    Text(
                        "  #  ·  category  ·  path  ·  signals  ·  reason", no_wrap=True, overflow="ellipsis"
                    ),
                    classes="pane-titles",
                )
                yield MemoryList(
                    "health",
                    empty_text="Checking the health of active memory…",
                    caps=(0.05, 0.11, 0.34, 0.16),
                    path_column=2,
                    id="health-list",
                )
            with Vertical(id="health-right"):
                yield Static("", id="health-detail")
                yield PreviewView(self._app.root, id="health-preview")
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
            text = status_text(self.report, len(self._list.all_rows))
            text.append("  re-checking…", style="dim italic")
            status.update(text)
        self._load(self._token, self._app.root, self._app.today())

    @work(thread=True, group="health", exit_on_error=False)  # one run at a time: see `reload`
    def _load(self, token: int, root: Path, today: dt.date) -> None:
        try:
            report = self.source(root, today)
            rows = [proposal_row(p, root) for p in report.proposals]
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
                text = Text(message.blocked, style="bold yellow")
                text.append("\nPress U to preview the upgrade; nothing is reviewed or changed until then.")
                health_list.empty_text = "No review until the lifecycle structure is complete (U)."
            else:
                text = Text(f"The health check failed: {message.error}", style="bold red")
                health_list.empty_text = "No proposals: the health check failed."
            status.update(text)
            health_list.set_rows([])
            expired.display = False
            self._show_selected(None)
            self.refresh_bindings()
            return
        self._proposals = {proposal_key(p): p for p in report.proposals}
        self._rows = {row.key: row for row in message.rows}
        kept = self._app.kept
        shown = [row for row in message.rows if row.path not in kept]
        health_list.empty_text = (
            "Every proposal was kept for this session."
            if report.proposals
            else "No proposals: active memory looks healthy."
        )
        health_list.set_rows(shown)
        status.update(status_text(report, len(shown)))
        expired.update(expired_text(report.expired_trash, report.today))
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
            detail.update(proposal_text(proposal, row))
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

    def _selection_or_refuse(self) -> list[tuple[Row, Proposal]]:
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

    def _clear_marks(self) -> None:
        if self.is_mounted:
            self._list.clear_marks()

    # -- K: keep -----------------------------------------------------------------------------------------

    def action_keep(self) -> None:
        chosen = self._selection_or_refuse()
        if not chosen:
            return
        paths = [p.path for _row, p in chosen]
        self._app.kept.update(paths)
        self.say(
            f"Kept {_what(paths)}: {'it stays' if len(paths) == 1 else 'they stay'} as "
            f"{'it is' if len(paths) == 1 else 'they are'} and {'is' if len(paths) == 1 else 'are'} "
            "not proposed again in this session."
        )
        self._clear_marks()
        report = self.report
        if report is not None:
            rows = [self._rows[proposal_key(p)] for p in report.proposals if p.path not in self._app.kept]
            self._list.set_rows(rows)
            self.query_one("#health-status", Static).update(status_text(report, len(rows)))
            self._show_selected(self._list.current_row)

    # -- a / d: archive, then delete --------------------------------------------------------------------

    def action_archive(self) -> None:
        proposals = self._existing(self._selection_or_refuse(), "archive")
        if proposals:
            self._open_archive(proposals, then_delete=False)

    def action_delete(self) -> None:
        proposals = self._existing(self._selection_or_refuse(), "delete")
        if proposals:
            self._open_archive(proposals, then_delete=True)

    def _open_archive(self, proposals: list[Proposal], *, then_delete: bool) -> None:
        from pmem_tui.core import lifecycle

        app = self._app
        root = app.root
        paths = [p.path for p in proposals]

        own = {p.path: archive_reason(p) for p in proposals}

        def builder(reason: str) -> Plan:
            if len(paths) == 1:
                return lifecycle.plan_archive(root, paths[0], reason)
            # Left empty, each file keeps its own proposal's reason; typed, one reason for all.
            return lifecycle.plan_archive_many(root, paths, reason, reasons=None if reason.strip() else own)

        initial = archive_reason_for(proposals)
        try:
            builder(initial)  # refuse before asking for a reason when nothing can be archived
        except PmemError as err:
            self.refuse(str(err))
            return
        lines = proposals_summary(proposals)
        if then_delete:
            lines.append(
                f"Delete means archive first. Step 1 of 2 archives {_what(paths)}; step 2, the delete "
                f"preview, moves {'it' if len(paths) == 1 else 'them'} to the trash (recoverable for "
                f"{RECOVERY_DAYS} days). Each step runs only when you confirm it."
            )
        holder: list[PlanModal] = []

        def archived() -> None:
            plan = holder[0].plan if holder else None
            done = list(plan.items) if plan is not None and plan.items else paths
            self._open_delete(done)

        holder.append(
            app.open_plan(
                title=f"{'Archive, then delete' if then_delete else 'Archive'} {_what(paths)}"
                + (" (step 1 of 2: archive)" if then_delete else ""),
                builder=builder,
                prompt=(
                    "Why archive it? The reason is kept in the archive record; the health check's reason "
                    "is filled in. Edit it, then press enter:"
                    if len(paths) == 1
                    else "Each file keeps its own reason (the health check's, listed above) in its archive "
                    "record: press enter to keep them, or type one reason for all:"
                ),
                initial=initial,
                explanation="\n".join(lines),
                then=archived if then_delete else self._clear_marks,
            )
        )

    def _open_delete(self, paths: list[str]) -> None:
        from pmem_tui.core import lifecycle

        app = self._app
        try:
            plan = (
                lifecycle.plan_delete(app.root, paths[0])
                if len(paths) == 1
                else lifecycle.plan_delete_many(app.root, paths)
            )
        except PmemError as err:
            self.refuse(f"{_what(paths)} stays archived: {err}")
            return
        app.open_plan(
            title=f"{plan.title} (step 2 of 2: to the trash)",
            plan=plan,
            explanation=f"Step 1 is done: {_what(paths)} {'is' if len(paths) == 1 else 'are'} archived. "
            f"Confirm to move {'it' if len(paths) == 1 else 'them'} to the trash (recoverable for "
            f"{RECOVERY_DAYS} days); cancel to leave {'it' if len(paths) == 1 else 'them'} in the archive.",
            then=self._clear_marks,
        )

    # -- f: the index fix -------------------------------------------------------------------------------

    def action_fix(self) -> None:
        chosen = self._selection_or_refuse()
        if not chosen:
            return
        fixable = [p for _row, p in chosen if p.fix is not None]
        for _row, p in chosen:
            if p.fix is None:
                what = (
                    "an invalid summary is never rewritten for you: press e to edit it"
                    if "invalid-summary" in p.kinds
                    else "nothing in the index to change"
                )
                self.refuse(f"Proposal {p.n} ({p.path}) has no index fix: {what}.")
        if fixable:
            self._open_fix(fixable, 0)

    def _open_fix(self, proposals: list[Proposal], i: int) -> None:
        """Preview the fix of `proposals[i]`; once it is applied, the next one (a refusal skips to it)."""
        from pmem_tui.core.fix_planner import plan_fix

        if i >= len(proposals):
            return
        app = self._app
        proposal = proposals[i]
        try:
            plan = plan_fix(app.root, proposal)
        except PmemError as err:
            self.refuse(str(err))
            self._open_fix(proposals, i + 1)
            return
        n = len(proposals)
        verb = "adds" if proposal.fix_action == "add" else "drops"
        change = f"This {verb} one line of {INDEX_FILE}; the file itself does not change."
        if proposal.fix_action == "redact":
            change = "This saves the file with its secrets replaced by [redacted]; nothing else changes."

        def next_fix() -> None:
            self._open_fix(proposals, i + 1)

        app.open_plan(
            title=plan.title + (f" ({i + 1} of {n})" if n > 1 else ""),
            plan=plan,
            explanation=f"Proposal {proposal.n}: {proposal.reason}. {change}",
            then=next_fix if i + 1 < n else self._clear_marks,
        )

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
            self._app.start_edit(proposals[0].path)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While health is blocked, the footer offers the upgrade instead of the per-item keys."""
        if action in ("keep", "archive", "delete", "fix", "edit", "purge"):
            return self.blocked is None
        if action == "upgrade":
            return self.blocked is not None
        return True

    def action_upgrade(self) -> None:
        self._app.action_upgrade()

    def action_purge(self) -> None:
        self._app.action_purge()  # the expired trash: its own preview, focus on Cancel, `y` confirms

    def action_back(self) -> None:
        self.dismiss(None)
