"""`H`: the health review. A numbered table of proposals, the preview of the selected file beside it,
and the expired trash in its own section (purged only with `P`, after its own preview).

Extension point: the proposals come from `PmemApp.health_source`, a function
`(root, today) -> HealthReport` run in a worker. Until the health service lands, the default source
(`problems_report`) lists the problems of a deep scan. Per item: `k` keep (dismiss for this session),
`a` archive, `d` archive then delete, each through its preview (the app's flows).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from pmem_tui.core.model import ACTIVE_DIRS, Snapshot, TrashItem
from pmem_tui.tui.rows import ENTRY, Row, countdown
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PreviewView

if TYPE_CHECKING:
    from pmem_tui.tui.app import PmemApp

KEEP, ARCHIVE, DELETE, REVIEW = "keep", "archive", "delete", "review"


@dataclass(frozen=True)
class Proposal:
    number: int
    category: str  # keep / archive / delete, or "review" for a plain problem of the scan
    path: str  # the memory path it is about
    signals: tuple[str, ...]
    reason: str  # one line
    location: str | None = None  # the file to preview (None: no file)
    active: bool = False  # an active on-demand file: a / d apply to it


@dataclass(frozen=True)
class HealthReport:
    proposals: tuple[Proposal, ...]
    expired: tuple[TrashItem, ...]
    today: dt.date
    blocked: str | None = None  # why health cannot run (PM-UPG-4: no lifecycle structure)


HealthSource = Callable[[Path, dt.date], HealthReport]


def _is_active_path(path: str) -> bool:
    return path.split("/", 1)[0] in ACTIVE_DIRS


def report_from_snapshot(snap: Snapshot) -> HealthReport:
    """Until the health service lands: the problems of the scan that concern active memory."""
    if not snap.lifecycle_ready:
        missing = ", ".join(snap.lifecycle_missing)
        return HealthReport(
            (),
            (),
            snap.today,
            blocked=f"Health needs the lifecycle structure (missing {missing}). Press U to preview the "
            "upgrade; nothing is reviewed or changed until then.",
        )
    active = {a.path for a in snap.active}
    proposals: list[Proposal] = []
    for problem in snap.problems:
        if not _is_active_path(problem.path):
            continue  # never _core/ or control files (PM-HEALTH-1)
        is_active = problem.path in active
        proposals.append(
            Proposal(
                number=len(proposals) + 1,
                category=REVIEW,
                path=problem.path,
                signals=(problem.kind,),
                reason=problem.detail,
                location=problem.path if is_active else None,
                active=is_active,
            )
        )
    return HealthReport(tuple(proposals), snap.expired_trash, snap.today)


def problems_report(root: Path, today: dt.date) -> HealthReport:
    from pmem_tui.core import tree

    return report_from_snapshot(tree.scan(root, deep=True, today=today))


def proposal_row(p: Proposal) -> Row:
    return Row(
        key=f"proposal:{p.path}:{','.join(p.signals)}",
        kind=ENTRY if p.active else "problem",
        path=p.path,
        location=p.location,
        cells=(f"{p.number}.", p.category, p.path, ", ".join(p.signals), p.reason),
        note=f"Proposal {p.number}: {p.category}. {p.reason}",
    )


def expired_text(report: HealthReport) -> Text:
    text = Text()
    text.append(f"Expired trash ({len(report.expired)})", style="bold")
    if not report.expired:
        text.append("  nothing has passed its 30-day deadline.", style="dim")
        return text
    text.append("  removed for good only with P, after its own preview and confirmation.", style="dim")
    for item in report.expired:
        text.append("\n  ")
        text.append(item.path)
        text.append(
            f"  deadline {item.deadline.isoformat() if item.deadline else '?'} · "
            f"{countdown(item, report.today)}",
            style="red",
        )
    return text


class HealthScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # `k` is keep here (the key), not "up": arrows still move.
        Binding("k", "keep", "Keep", id="health.keep", priority=True),
        Binding("a", "archive", "Archive", id="health.archive"),
        Binding("d", "delete", "Archive+delete", id="health.delete"),
        Binding("P", "app.purge", "Purge expired", id="health.purge"),
        Binding("U", "app.upgrade", "Upgrade", show=False, id="health.upgrade"),
        Binding("escape,H", "back", "Back", id="health.back"),
        Binding("q", "app.quit", "Quit", show=False, id="health.quit"),
    ]

    class Loaded(Message):
        def __init__(self, report: HealthReport) -> None:
            super().__init__()
            self.report = report

    def __init__(self, source: HealthSource) -> None:
        super().__init__()
        self.source = source
        self.report: HealthReport | None = None

    @property
    def _app(self) -> PmemApp:
        return cast("PmemApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(Text("Health review", style="bold"), id="health-title")
        yield Static(Text("Scanning active memory…", style="dim"), id="health-status")
        with Horizontal(id="health-body"):
            with Vertical(id="health-left"):
                yield Static(Text("  #  ·  category  ·  path  ·  signals  ·  reason"), classes="pane-titles")
                yield MemoryList(
                    "health",
                    empty_text="No proposals: active memory looks healthy.",
                    caps=(0.05, 0.1, 0.4, 0.18),
                    markable=False,
                    id="health-list",
                )
            yield PreviewView(self._app.root, id="health-preview")
        yield Static("", id="health-expired")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#health-list", MemoryList).focus()
        self.reload()

    def reload(self) -> None:
        self._load(self._app.root, self._app.today())

    @work(thread=True, exclusive=True, group="health", exit_on_error=False)
    def _load(self, root: Path, today: dt.date) -> None:
        self.post_message(self.Loaded(self.source(root, today)))

    def on_health_screen_loaded(self, message: HealthScreen.Loaded) -> None:
        message.stop()
        self.report = message.report
        report = message.report
        kept = self._app.kept
        shown = [p for p in report.proposals if p.path not in kept]
        self.query_one("#health-list", MemoryList).set_rows([proposal_row(p) for p in shown])
        status = Text()
        if report.blocked:
            status.append(report.blocked, style="bold yellow")
        else:
            status.append(f"{len(shown)} proposal(s)")
            if len(shown) != len(report.proposals):
                status.append(f", {len(report.proposals) - len(shown)} kept this session", style="dim")
            status.append(
                ".  k keep · a archive · d archive, then delete: each through its preview.", style="dim"
            )
        self.query_one("#health-status", Static).update(status)
        self.query_one("#health-expired", Static).update(expired_text(report))

    @on(MemoryList.Highlighted, "#health-list")
    def _highlighted(self, event: MemoryList.Highlighted) -> None:
        event.stop()
        self.query_one("#health-preview", PreviewView).show_row(event.row)

    def _selected(self) -> Row | None:
        return self.query_one("#health-list", MemoryList).current_row

    def _proposal(self, row: Row) -> Proposal | None:
        if self.report is None:
            return None
        return next((p for p in self.report.proposals if proposal_row(p).key == row.key), None)

    def action_keep(self) -> None:
        row = self._selected()
        if row is None:
            return
        self._app.kept.add(row.path)
        self.notify(f"Kept {row.path}: it stays active and is not proposed again in this session.")
        if self.report is not None:
            self.on_health_screen_loaded(self.Loaded(self.report))

    def action_archive(self) -> None:
        row = self._selected()
        proposal = self._proposal(row) if row else None
        if row is None or proposal is None:
            return
        self._app.start_archive([row.path], default_reason=proposal.reason)

    def action_delete(self) -> None:
        row = self._selected()
        proposal = self._proposal(row) if row else None
        if row is None or proposal is None:
            return
        path = row.path
        self._app.start_archive(
            [path],
            default_reason=proposal.reason,
            explanation=f"Delete means archive first: {path} is archived now, then the delete preview "
            "moves it to the trash (recoverable for 30 days).",
            then=lambda: self._app.start_delete([path]),
        )

    def action_back(self) -> None:
        self.dismiss(None)

    def snapshot_changed(self) -> None:
        """The app rescanned after a change: review again."""
        self.reload()
