"""The Epics pane: what an agent loads from a project's permanent memory, against its budget.

The fifth pane (key `5`), plugged into the app's extra-pane slot when a project is known: `--project DIR`,
or the current folder when it has ``.claude/memory/``. It shows, from
:func:`pmem_tui.core.loader.load_permanent_memory`:

* the budget gauge: the block's tokens against the always-loaded target (120) and hard cap (200);
* the degradation ladder: the step in force and what every rung tried dropped, trimmed or reduced;
* one row per epic: shape (v1/v2), confidence, age, stale flag (over 90 days), tokens, and how it loads;
* the block itself, line by line, exactly as the agent receives it.

The highlighted epic goes to the preview (``ShowInPreview``): what it loads, and with `enter` its full body
(read from the file for display only; the agent never loads it). `enter` again goes back.

Reading
    The loader runs in a worker thread, never on the UI thread; so does the read of the file's lines for
    the full bodies (a second, display-only read, checked against the loader's size). Nothing here writes.

Refreshing
    The app's watcher watches the memory root, not the project. This pane owns a second
    :class:`~pmem_tui.tui.watcher.MemoryWatcher` on ``<project>/.claude/memory/`` (started when the app
    watches and the folder exists; stopped when it goes away), and reloads, coalesced, after a change there.
    It also reloads when the pane is shown and on `ctrl+r`. Scans of the memory root do not reload it.

User text (headings, summaries, bodies) is always a Rich ``Text``, never markup.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import DataTable, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from pmem_tui.core import safeio
from pmem_tui.core.errors import PmemError
from pmem_tui.core.loader import (
    MEMORY_DIR,
    MEMORY_FILE,
    STALE_PREFIX,
    DateSource,
    EpicRow,
    LoaderResult,
    SkipReason,
    Status,
    Step,
    StepTrace,
    iter_lines,
    load_permanent_memory,
)
from pmem_tui.core.model import Snapshot
from pmem_tui.core.report import human_size
from pmem_tui.core.textio import printable
from pmem_tui.tui.messages import ShowInPreview
from pmem_tui.tui.watcher import MemoryWatcher
from pmem_tui.tui.widgets.pane import ExtraPane

PANE_ID = "epics"
PANE_TITLE = "Epics"
RELOAD_DELAY_S = 0.05  # coalesces a burst of watcher events into one reload (never reset: a maximum wait)
GAUGE_WIDTH = 30  # cells for 0..cap (fewer when the pane is narrow)
GAUGE_MIN = 10
MAX_IDS_SHOWN = 3  # epic IDs listed per ladder rung before "+N more"
MAX_WARNINGS_SHOWN = 3

_LADDER = (Step.NONE, Step.DROP_TENTATIVE, Step.TRIM_SUMMARIES, Step.IDS_ONLY, Step.SKIP_FILE)
DATE_SOURCES = {
    DateSource.MARKER_UPDATED: "the marker's updated=",
    DateSource.MARKER_DATE: "the marker's date=",
    DateSource.HEADING: "the heading",
    DateSource.SUMMARY: "the summary line",
    DateSource.MTIME: "the file's modification time",
}
_VERB = {
    Step.DROP_TENTATIVE: "dropped",
    Step.TRIM_SUMMARIES: "trimmed",
    Step.IDS_ONLY: "reduced to IDs",
    Step.SKIP_FILE: "skipped",
}


def display_path(path: Path) -> str:
    home = Path.home()
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def step_name(step: Step) -> str:
    return step.value.replace("_", " ")


# ------------------------------------------------------------------------------------ the slot


class EpicsPane:
    """The :class:`ExtraPane` for one project: builds the :class:`EpicsView`."""

    pane_id: str = PANE_ID
    title: str = f"5 {PANE_TITLE}"

    def __init__(self, project: Path, *, label: str | None = None) -> None:
        self.project = Path(project)
        self.label = label  # how the project is named on screen (tests fix it); default: its path

    def make_widget(self, app: App[Any]) -> Widget:
        return EpicsView(self.project, label=self.label, watch=bool(getattr(app, "watch_enabled", True)))

    def update(self, screen: Screen[Any], snap: Snapshot) -> None:
        """A scan of the memory root says nothing about the project: the view refreshes on its own."""


def epics_panes(project: str | Path | None, *, cwd: Path | None = None) -> list[ExtraPane]:
    """The Epics pane when `project` is given, or when `cwd` (default: the current folder) has
    ``.claude/memory/``; else none."""
    if project is not None:
        return [EpicsPane(Path(project))]
    here = cwd if cwd is not None else Path.cwd()
    if (here / MEMORY_DIR).is_dir():
        return [EpicsPane(here)]
    return []


# ------------------------------------------------------------------------------------ loading


@dataclass(frozen=True)
class EpicsData:
    """One load: the loader's result and the file's lines (display only, for the full bodies)."""

    result: LoaderResult
    lines: tuple[str, ...]


def read_epics(project: Path, today: dt.date | None = None) -> EpicsData:
    """Run the loader, then read the file's lines for display (retried if the file changed in between)."""
    result = load_permanent_memory(project, today=today)
    for _ in range(3):
        if result.file is None or not result.rows:
            return EpicsData(result, ())
        try:
            data = safeio.read_path(result.path)  # its folders were just checked by the loader
        except OSError:
            return EpicsData(result, ())
        if len(data) == result.file.size:
            return EpicsData(result, tuple(iter_lines(data.decode("utf-8-sig", errors="replace"))))
        result = load_permanent_memory(project, today=today)
    return EpicsData(result, ())


# ------------------------------------------------------------------------------------ rendering (pure)


def gauge_text(result: LoaderResult, width: int = GAUGE_WIDTH) -> Text:
    """``Budget ████░░┃░░ 98 of 120 target · cap 200``: the bar spans 0..cap, ``┃`` marks the target."""
    budget = result.budget
    used = result.used
    filled = min(width, round(used * width / budget.cap)) if budget.cap else 0
    target_cell = min(width - 1, round(budget.target * width / budget.cap)) if budget.cap else 0
    colour = "green" if used <= budget.target else "yellow" if used <= budget.cap else "red"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("Budget ", style="bold")
    for i in range(width):
        if i == target_cell:
            text.append("┃", style=f"bold {colour}" if i < filled else "bold")
        elif i < filled:
            text.append("█", style=colour)
        else:
            text.append("░", style="grey42")
    text.append(f" {used}", style=f"bold {colour}")
    text.append(f" / {budget.target} target, cap {budget.cap}", style="dim")
    return text


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(printable(i) for i in ids[:MAX_IDS_SHOWN])
    if len(ids) > MAX_IDS_SHOWN:
        shown += f" +{len(ids) - MAX_IDS_SHOWN}"
    return shown


def ladder_lines(result: LoaderResult) -> list[Text]:
    """The step in force, then (when the ladder was walked) one line per rung: its tokens, what it saved
    and the epics it affected."""
    head = Text()
    step = result.step
    head.append("Ladder ", style="bold")
    head.append(f"step {step.number} · {step.label}", style="bold" if step is Step.NONE else "bold yellow")
    if result.skip_reason is SkipReason.FILE_OVER_LIMIT and result.file is not None:
        head.append(
            f": the file is {result.file.tokens:,} tokens, over {result.budget.skip_file_over:,}; "
            "it is not parsed and nothing loads",
            style="yellow",
        )
        return [head]
    if step is Step.NONE:
        head.append(f": the full block is within the {result.budget.target}-token target", style="dim")
        return [head]
    if result.skip_reason is SkipReason.OVER_CAP:
        head.append(f": even epic IDs only are over the {result.budget.cap}-token cap", style="yellow")
    lines = [head]
    tried: dict[Step, StepTrace] = {t.step: t for t in result.trace}
    for rung in _LADDER:
        trace = tried.get(rung)
        applied = rung is step
        text = Text(no_wrap=True, overflow="ellipsis")
        lines.append(text)
        text.append(" ▶ " if applied else "   ", style="bold yellow")
        text.append(f"{rung.number} {step_name(rung):<15}", style="bold" if applied else "")
        if trace is None:
            text.append(f"{'':>14}not needed", style="dim")
            continue
        if rung is Step.SKIP_FILE:
            text.append(f"{'':>14}", style="dim")
        else:
            text.append(f"{trace.tokens:>4} tok", style="bold" if applied else "")
            text.append(f" {'−' + str(trace.saved) if rung is not Step.NONE else '':>4}  ", style="dim")
        if rung is Step.NONE:
            text.append(f"the full block, over the {result.budget.target} target", style="dim")
        elif trace.affected:
            text.append(f"{_VERB[rung]} {len(trace.affected)}: ", style="dim")
            text.append(_ids(trace.affected))
        else:
            text.append("nothing to change", style="dim")
    return lines


def status_message(result: LoaderResult) -> Text | None:
    """One sentence for a silent or empty result; None when epics were read."""
    where = f"{MEMORY_DIR.as_posix()}/"
    if result.status is Status.NO_MEMORY_DIR:
        return Text(f"No {where} folder in this project: the loader is silent, the agent gets nothing.")
    if result.status is Status.NO_FILE:
        return Text(f"{where} has no {MEMORY_FILE}: the loader is silent, the agent gets nothing.")
    if result.status is Status.NO_EPICS:
        return Text(f"{MEMORY_FILE} has no '## Epic: <ID> — <intent>' section: nothing is loaded.")
    return None


def summary_renderable(
    result: LoaderResult | None, label: str, error: str | None, watching: str, gauge: int = GAUGE_WIDTH
) -> Group:
    """The top of the pane: where, counts, the gauge, the ladder, file warnings."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(f"{printable(label)}/{MEMORY_DIR.as_posix()}/", style="dim")
    head.append(MEMORY_FILE, style="bold")
    parts: list[RenderableType] = [head]
    if error is not None:
        parts.append(Text(error, style="bold red"))
        return Group(*parts)
    if result is None:
        parts.append(Text("loading…", style="dim"))
        return Group(*parts)
    counts = Text(no_wrap=True, overflow="ellipsis")
    if result.file is not None:
        head.append(f" · {human_size(result.file.size)}", style="dim")
    if result.rows:
        loaded = sum(1 for r in result.rows if r.loaded)
        counts.append(f"{len(result.rows)} epics", style="bold")
        counts.append(f", {loaded} loaded · ")
    counts.append(watching, style="dim")
    parts.append(counts)
    message = status_message(result)
    if message is not None:
        parts.append(message)
        return Group(*parts)
    parts.append(gauge_text(result, gauge))
    parts.extend(ladder_lines(result))
    warnings = () if result.skip_reason is SkipReason.FILE_OVER_LIMIT else result.warnings  # said above
    for warning in warnings[:MAX_WARNINGS_SHOWN]:
        parts.append(Text("⚠ " + printable(warning), style="yellow", no_wrap=True, overflow="ellipsis"))
    if len(warnings) > MAX_WARNINGS_SHOWN:
        parts.append(Text(f"⚠ …and {len(warnings) - MAX_WARNINGS_SHOWN} more warnings", style="yellow"))
    return Group(*parts)


def block_title(result: LoaderResult | None) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("What the agent receives", style="bold")
    if result is None:
        return text
    if not result.block:
        text.append(": nothing", style="dim")
        return text
    text.append(f" · {len(result.lines)} lines · {result.used} tokens · stamped trust: file", style="dim")
    return text


def block_renderable(result: LoaderResult | None) -> RenderableType:
    """The block, one numbered line per block line (wrapped for the screen, never changed)."""
    if result is None:
        return Text("")
    if not result.block:
        return Text("")  # the title says "nothing"; the summary above says why
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="dim", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for n, line in enumerate(result.lines, start=1):
        text = Text(line)
        if n == 1:
            text.stylize("bold dim")
        elif line.startswith(STALE_PREFIX):
            text.stylize("yellow", 0, len(STALE_PREFIX))
        grid.add_row(Text(str(n)), text)
    return grid


def loads_cell(row: EpicRow) -> Text:
    if not row.loaded:
        if row.step is Step.SKIP_FILE:
            return Text("✗ file skipped", style="red")
        return Text("✗ tentative", style="red")
    if row.step is Step.IDS_ONLY:
        return Text("◐ ID only", style="yellow")
    if row.step is Step.TRIM_SUMMARIES:
        return Text("◐ trimmed", style="yellow")
    if row.summary_trimmed or row.line_trimmed:
        return Text("✓ capped", style="green")
    return Text("✓ full", style="green")


def confidence_cell(row: EpicRow) -> Text:
    epic = row.epic
    if epic.confidence is None:
        return Text("—", style="dim")
    if epic.confidence.lower() == "tentative":
        return Text("tent.", style="yellow")
    return Text(printable(epic.confidence)[:5], style="yellow" if epic.tentative else "")


def row_cells(row: EpicRow, expanded: bool) -> tuple[Text, ...]:
    epic = row.epic
    ident = Text("▾ " if expanded else "▸ ", style="dim")
    ident.append(printable(epic.id), style="bold")
    if epic.warnings:
        ident.append(" ⚠", style="yellow")
    if row.loaded:
        tokens = Text(str(row.tokens) if row.tokens == row.full_tokens else f"{row.tokens}/{row.full_tokens}")
    else:
        tokens = Text(f"—/{row.full_tokens}", style="dim")
    return (
        ident,
        Text(epic.shape.value),
        confidence_cell(row),
        Text(f"{row.age_days}d", justify="right"),
        Text(">90d", style="bold yellow") if row.stale else Text(""),
        tokens,
        loads_cell(row),
    )


COLUMN_LABELS = ("Epic", "Shape", "Conf", "Age", "Stale", "Tokens", "Loads")


def _facts(row: EpicRow) -> Text:
    epic = row.epic
    text = Text()
    text.append(printable(epic.id), style="bold")
    if epic.intent:
        text.append("  " + printable(epic.intent), style="bold")
    facts = [epic.shape.value]
    if epic.confidence is not None:
        facts.append(f"confidence {printable(epic.confidence)}" + (" (tentative)" if epic.tentative else ""))
    if epic.items is not None:
        facts.append(f"{epic.items} items")
    facts.append(f"lines {epic.line_no}–{epic.end_line_no}")
    text.append("\n" + " · ".join(facts), style="dim")
    source = DATE_SOURCES.get(row.date_source, row.date_source.value)
    text.append(f"\ndated {row.date.isoformat()} (from {source}) · {row.age_days} days old", style="dim")
    if row.stale:
        text.append(f"\nOlder than 90 days: its line starts with '{STALE_PREFIX.strip()}'.", style="yellow")
    return text


def epic_loaded_renderable(row: EpicRow, block_index: int | None) -> RenderableType:
    """What the epic puts in the agent's context (or why nothing), and what it would without degradation."""
    parts: list[RenderableType] = [_facts(row), Text()]
    if row.loaded and row.line is not None:
        head = Text("What loads", style="bold")
        where = f", line {block_index} of the block" if block_index is not None else ""
        head.append(f" ({row.tokens} tokens{where})", style="dim")
        parts += [head, Text(row.line)]
        if row.line != row.full_line:
            reason = (
                f"reduced by step {row.step.number}, {row.step.label}" if row.step is not None else "capped"
            )
            note = Text(f"\nWithout degradation ({row.full_tokens} tokens; {reason}):", style="dim")
            parts += [note, Text(row.full_line, style="dim")]
    else:
        step = row.step or Step.DROP_TENTATIVE
        head = Text("Not loaded", style="bold red")
        if step is Step.SKIP_FILE:
            head.append(f": step {step.number}, the whole file is skipped.", style="red")
        else:
            head.append(f": dropped by step {step.number}, {step.label}.", style="red")
        parts += [
            head,
            Text(f"\nIt would load ({row.full_tokens} tokens):", style="dim"),
            Text(row.full_line),
        ]
    for warning in row.epic.warnings:
        parts.append(Text("⚠ " + printable(warning), style="yellow"))
    parts.append(Rule(style="grey37"))
    parts.append(Text("enter: its full body (shown here only; the agent never loads it)", style="dim italic"))
    return Group(*parts)


def epic_body_renderable(row: EpicRow, lines: Sequence[str]) -> RenderableType:
    """The epic's whole section, numbered, the lines the loader reads marked ``●``. Display only."""
    epic = row.epic
    parts: list[RenderableType] = [_facts(row), Text()]
    head = Text("Full body", style="bold")
    head.append(
        f" (lines {epic.line_no}–{epic.end_line_no}; shown here only, the agent never loads it)", style="dim"
    )
    parts.append(head)
    section = list(lines[epic.line_no - 1 : epic.end_line_no])
    while section and not section[-1].strip():
        section.pop()
    if not section:
        parts.append(Text("The file changed since it was read: press ctrl+r.", style="yellow"))
    else:
        read = set(epic.lines_read)
        grid = Table.grid(padding=(0, 1))
        grid.add_column(justify="right", no_wrap=True)
        grid.add_column(width=1, no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")
        for n, line in enumerate(section, start=epic.line_no):
            loaded = n in read
            grid.add_row(
                Text(str(n), style="bold green" if loaded else "dim"),
                Text("●" if loaded else " ", style="green"),
                Text(printable(line), style="" if loaded else "dim"),
            )
        parts.append(grid)
    parts.append(Rule(style="grey37"))
    parts.append(Text("● the lines the loader reads · enter: back to what loads", style="dim italic"))
    return Group(*parts)


# ------------------------------------------------------------------------------------ widgets


class EpicTable(DataTable[Text]):
    """One row per epic; `enter` toggles the preview between what loads and the full body."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Full body/line", id="epics.toggle"),
    ]


SHORT_HEIGHT = 28  # the pane's own rows; 80x24 leaves it about 20


class EpicsView(Vertical):
    """The Epics pane's content (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "reload", "Reload", id="epics.reload"),
    ]

    @dataclass
    class Loaded(Message):
        generation: int
        data: EpicsData | None
        error: str | None

    class Changed(Message):
        """The project watcher saw a change (posted from its thread; a burst collapses into one)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EpicsView.Changed)

    def __init__(self, project: Path, *, label: str | None = None, watch: bool = True) -> None:
        super().__init__(id="epics-view")
        self.project = project
        self.label = label or display_path(project)
        self.watch_enabled = watch
        self.watcher = MemoryWatcher(project / MEMORY_DIR, self._watcher_notify)
        self._watcher_started = False
        self.data: EpicsData | None = None
        self.error: str | None = None
        self.expanded: set[str] = set()
        self.loads = 0  # loads shown (tests wait on it)
        self._generation = 0
        self._current = 0
        self._reload_timer: Timer | None = None
        self.summary = Static(id="epics-summary")
        self.table = EpicTable(id="epics-table", cursor_type="row", zebra_stripes=False)
        self.block_title = Static(block_title(None), id="epics-block-title")
        self.block = Static(id="epics-block")

    def compose(self) -> ComposeResult:
        yield self.summary
        yield self.table
        yield self.block_title
        with VerticalScroll(id="epics-block-scroll"):
            yield self.block

    def on_mount(self) -> None:
        for label in COLUMN_LABELS:
            self.table.add_column(label, key=label)
        self._render_all()
        self.reload()

    def on_unmount(self) -> None:
        if self._reload_timer is not None:
            self._reload_timer.stop()
        self.watcher.stop()

    def on_show(self) -> None:
        self.reload()
        self.show_current()

    # -- loading ------------------------------------------------------------------------------

    @property
    def result(self) -> LoaderResult | None:
        return self.data.result if self.data is not None else None

    def reload(self) -> None:
        self._generation += 1
        self._load_epics(self._generation)

    def action_reload(self) -> None:
        self.reload()

    @work(thread=True, exclusive=True, group="epics", exit_on_error=False)
    def _load_epics(self, generation: int) -> None:
        worker = get_current_worker()
        try:
            data = read_epics(self.project)
        except PmemError as err:
            self.post_message(self.Loaded(generation, None, str(err)))
            return
        if not worker.is_cancelled:
            self.post_message(self.Loaded(generation, data, None))

    @on(Loaded)
    def _loaded(self, message: EpicsView.Loaded) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # an older load finishing late
        previous = self.current_row
        self.data, self.error = message.data, message.error
        self.loads += 1
        self._render_all(previous.id if previous is not None else None)
        self._sync_watcher()
        if self._visible():
            self.show_current()

    # -- the project watcher ------------------------------------------------------------------

    def _watcher_notify(self) -> None:
        """Called from the observer thread: post only."""
        self.post_message(self.Changed())

    @on(Changed)
    def _changed(self, message: EpicsView.Changed) -> None:
        message.stop()
        paths = self.watcher.drain()
        if paths is not None and not paths:
            return
        if self._reload_timer is None:
            self._reload_timer = self.set_timer(RELOAD_DELAY_S, self._timed_reload)

    def _timed_reload(self) -> None:
        self._reload_timer = None
        self.reload()

    def _sync_watcher(self) -> None:
        result = self.result
        folder_there = result is not None and result.status is not Status.NO_MEMORY_DIR
        if folder_there and self.watch_enabled and not self._watcher_started:
            self._watcher_started = True
            self._start_epics_watcher()
        elif not folder_there and self._watcher_started:
            self._watcher_started = False
            self.watcher.stop()  # restarted when the folder comes back

    @work(thread=True, group="epics-watcher", exit_on_error=False)
    def _start_epics_watcher(self) -> None:
        self.watcher.start()
        self.app.call_from_thread(self._render_summary)

    @property
    def watching(self) -> str:
        if self.watcher.mode == "live":
            return "● live"
        if self.watcher.mode == "polling":
            return "● polling"
        return "○ not watching: ctrl+r reloads"

    # -- rendering ----------------------------------------------------------------------------

    @property
    def gauge_width(self) -> int:
        """The bar's cells: 30, or what is left beside its words when the pane is narrow."""
        width = self.content_region.width - 2  # the summary's padding
        if width <= 0:
            return GAUGE_WIDTH  # not laid out yet
        room = width - len("Budget  999 / 120 target, cap 200")
        return max(GAUGE_MIN, min(GAUGE_WIDTH, room))

    def _render_summary(self) -> None:
        self.summary.update(
            summary_renderable(self.result, self.label, self.error, self.watching, self.gauge_width)
        )

    def on_resize(self) -> None:
        # A short terminal (24 rows and less) drops the margins and shortens the table, so the block the
        # agent receives keeps a few lines of its own.
        self.set_class(self.size.height < SHORT_HEIGHT, "-short")
        self._render_summary()

    def _render_all(self, keep: str | None = None) -> None:
        """Show `self.data`; the cursor stays on epic `keep` when it is still there."""
        result = self.result
        self._render_summary()
        self._fill_table(result.rows if result is not None else (), keep)
        self.table.display = bool(result is not None and result.rows)
        self.block_title.update(block_title(result))
        self.block.update(block_renderable(result))
        self._update_tab_label()

    def _fill_table(self, rows: Sequence[EpicRow], keep: str | None) -> None:
        table = self.table
        table.clear()
        for i, row in enumerate(rows):
            table.add_row(*row_cells(row, row.id in self.expanded), key=str(i))
        index = next((i for i, r in enumerate(rows) if r.id == keep), min(self._current, len(rows) - 1))
        self._current = max(index, 0)
        if rows:
            table.move_cursor(row=self._current, animate=False)

    def _update_tab_label(self) -> None:
        pane = next((a for a in self.ancestors if isinstance(a, TabPane)), None)
        tabbed = next((a for a in self.ancestors if isinstance(a, TabbedContent)), None)
        if pane is None or tabbed is None or pane.id is None:
            return
        label = Text(f"5 {PANE_TITLE} ")
        result = self.result
        label.append(str(len(result.rows)) if result is not None else "…", style="bold")
        if result is not None and result.step is not Step.NONE:
            label.append(" ◐", style="bold yellow")
        tabbed.get_tab(pane).label = label

    def _visible(self) -> bool:
        return self.is_mounted and all(w.display for w in (self, *self.ancestors) if isinstance(w, Widget))

    # -- the highlighted epic -----------------------------------------------------------------

    @property
    def rows(self) -> tuple[EpicRow, ...]:
        result = self.result
        return result.rows if result is not None else ()

    @property
    def current_row(self) -> EpicRow | None:
        rows = self.rows
        return rows[self._current] if 0 <= self._current < len(rows) else None

    def block_index(self, row: EpicRow) -> int | None:
        """The line of the block `row` loads as (1 = the header)."""
        if not row.loaded:
            return None
        n = 1
        for other in self.rows:
            if other.loaded:
                n += 1
            if other is row:
                return n
        return None

    def show_current(self) -> None:
        """Ask the preview to show the highlighted epic (or the pane's status)."""
        row = self.current_row
        if row is None:
            self.post_message(ShowInPreview(PANE_TITLE, self.overview()))
            return
        if row.id in self.expanded:
            lines = self.data.lines if self.data is not None else ()
            renderable = epic_body_renderable(row, lines)
        else:
            renderable = epic_loaded_renderable(row, self.block_index(row))
        self.post_message(ShowInPreview(f"Epic {row.id}", renderable))

    def overview(self) -> Text:
        """What the preview shows when there is no epic to show."""
        result = self.result
        if self.error is not None:
            return Text(self.error, style="bold red")
        if result is None:
            return Text("Loading…", style="dim")
        message = status_message(result)
        if message is not None:
            return message
        return ladder_lines(result)[0]

    def toggle(self, index: int | None = None) -> None:
        """Switch an epic's preview between what loads and its full body."""
        if index is not None:
            self._current = index
        row = self.current_row
        if row is None:
            return
        self.expanded ^= {row.id}
        self.table.update_cell(
            str(self._current), COLUMN_LABELS[0], row_cells(row, row.id in self.expanded)[0]
        )
        self.show_current()

    @on(DataTable.RowHighlighted, "#epics-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.cursor_row == self._current and self.current_row is not None:
            return
        self._current = event.cursor_row
        self.show_current()

    @on(DataTable.RowSelected, "#epics-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.toggle(event.cursor_row)

    def on_descendant_focus(self) -> None:
        self.show_current()

    # -- plain text, for tests and screen readers -----------------------------------------------

    def plain_rows(self) -> list[tuple[str, ...]]:
        return [tuple(c.plain for c in row_cells(r, r.id in self.expanded)) for r in self.rows]

    def plain_summary(self) -> str:
        group = summary_renderable(self.result, self.label, self.error, self.watching, self.gauge_width)
        return "\n".join(r.plain for r in group.renderables if isinstance(r, Text))
