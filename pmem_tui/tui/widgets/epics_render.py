"""The Epics pane's pure rendering: loader result -> Rich renderables (no widget, no I/O).

The summary (where, counts, gauge, ladder, warnings), the table's cells, the block, and the preview of one
epic (what it loads, or its full body with its typed entries). User text is always a Rich ``Text``, never
markup. Used by :mod:`pmem_tui.tui.widgets.epics`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from pmem_tui.core.epic_entries import typed_entries
from pmem_tui.core.loader import (
    MEMORY_DIR,
    MEMORY_FILE,
    PRODUCER_EPIC_CAP,
    READ_CAP,
    STALE_PREFIX,
    DateSource,
    EpicRow,
    LoaderResult,
    SkipReason,
    Status,
    Step,
    StepTrace,
    describe_source,
    file_over_limit_warning,
    unread,
    unread_warning,
)
from pmem_tui.core.report import human_size
from pmem_tui.core.textio import printable
from pmem_tui.core.words import plural
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.widgets.epics_extras import entries_renderable

GAUGE_WIDTH = 30  # cells for 0..cap (fewer when the pane is narrow)
GAUGE_MIN = 10
MAX_IDS_SHOWN = 3  # epic IDs listed per ladder rung before "+N more"
MAX_WARNINGS_SHOWN = 3
MAX_WARNINGS_SHOWN_SHORT = 1  # a pane of few rows: each warning wraps, so fewer keep the block in view

_LADDER = (Step.NONE, Step.DROP_TENTATIVE, Step.TRIM_SUMMARIES, Step.IDS_ONLY, Step.SKIP_FILE)
DATE_SOURCE_CELLS = {  # the table's "From" column: where an epic's age comes from (PL-13)
    DateSource.COMPLETED: ("completed", ""),
    DateSource.MARKER: ("marker", "dim"),
    DateSource.HEADING: ("heading", "dim"),
    DateSource.NONE: ("—", "dim"),
}
_VERB = {
    Step.DROP_TENTATIVE: "dropped",
    Step.TRIM_SUMMARIES: "trimmed",
    Step.IDS_ONLY: "reduced to IDs",
    Step.SKIP_FILE: "skipped",
}


def step_name(step: Step) -> str:
    return step.value.replace("_", " ")


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
    if step is Step.NONE:
        head.append(f": the full block is within the {result.budget.target}-token target", style="dim")
        return [head]
    if unread(result) and result.file is not None:  # no rung was tried: the file was never read
        head.append(
            f": the file is {human_size(result.file.size)}, over the {READ_CAP // 1024} KiB the loader "
            "reads: skipped unread",
            style="yellow",
        )
        return [head]
    if result.skip_reason is SkipReason.FILE_OVER_LIMIT and result.file is not None:
        head.append(
            f": the file is {result.file.tokens:,} tokens, over {result.budget.skip_file_over:,}, and even "
            f"epic IDs only are over the {result.budget.target}-token target",
            style="yellow",
        )
    elif result.skip_reason is SkipReason.OVER_CAP:
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
    result: LoaderResult | None,
    label: str,
    error: str | None,
    watching: str,
    gauge: int = GAUGE_WIDTH,
    max_warnings: int = MAX_WARNINGS_SHOWN,
) -> Group:
    """The top of the pane: where, counts, the gauge, the ladder, file warnings (the first
    `max_warnings`)."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(f"{printable(label)}/{MEMORY_DIR.as_posix()}/", style="dim")
    head.append(MEMORY_FILE, style="bold")
    parts: list[RenderableType] = [head]
    if error is not None:
        parts.append(Text(error, style="bold red"))
        parts.append(Text(watching, style="dim"))  # whether a fix of the file will show by itself
        return Group(*parts)
    if result is None:
        parts.append(Text("loading…", style="dim"))
        return Group(*parts)
    counts = Text(no_wrap=True, overflow="ellipsis")
    if result.file is not None:
        head.append(f" · {human_size(result.file.size)}", style="dim")
    if result.rows:
        loaded = sum(1 for r in result.rows if r.loaded)
        counts.append(plural(len(result.rows), "epic"), style="bold")
        counts.append(f", {loaded} loaded · ")
    counts.append(watching, style="dim")
    parts.append(counts)
    message = status_message(result)
    if message is not None:
        parts.append(message)
        return Group(*parts)
    parts.append(gauge_text(result, gauge))
    parts.extend(ladder_lines(result))
    said: set[str] = set()  # what the ladder line above says
    if result.file is not None:
        said.add(file_over_limit_warning(result.file.tokens, result.budget))
        said.add(unread_warning(result.file.size, result.file.tokens, result.budget))
    warnings = [w for w in result.warnings if w not in said]
    if warnings:
        parts.append(warnings_renderable(warnings, max_warnings))
    return Group(*parts)


def warnings_renderable(warnings: Sequence[str], shown: int = MAX_WARNINGS_SHOWN) -> Table:
    """The file's first `shown` warnings, each wrapped under its ``⚠`` (found in trial: one line each, cut
    at the pane's edge, "line 16: a code block is never …" hid what it was about); then how many more,
    and where they are all listed."""
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True, style="yellow")
    grid.add_column(ratio=1, style="yellow", overflow="fold")
    for warning in warnings[:shown]:
        grid.add_row("⚠", Text(printable(warning)))
    if len(warnings) > shown:
        # one line at 80 columns: "…and 2 more" under the warnings above says of what
        grid.add_row("⚠", Text(f"…and {len(warnings) - shown} more: `pmem-tui loader` lists all"))
    return grid


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
        text = Text(printable(line))
        if n == 1:
            text.stylize("bold dim")
        elif line.startswith(STALE_PREFIX):
            text.stylize("yellow", 0, len(STALE_PREFIX))
        grid.add_row(Text(str(n)), text)
    return grid


def loads_cell(row: EpicRow) -> Text:
    if not row.loaded:
        if row.step is Step.SKIP_FILE:
            return Text("✗ skipped", style="red")
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
    source, source_style = DATE_SOURCE_CELLS[row.date_source]
    return (
        ident,
        Text(epic.shape.value),
        confidence_cell(row),
        age_cell(row),
        tokens,
        loads_cell(row),
        Text(source, style=source_style),  # after Loads: at 80 columns what loads stays in view
        size_cell(row),
    )


def age_cell(row: EpicRow) -> Text:
    """Days since the epic's date; ``!`` and yellow when over 90 days (stale); ``?`` when unknown."""
    if row.age_days is None:
        return Text("?", style="dim", justify="right")
    if row.stale:
        return Text(f"{row.age_days}d!", style="bold yellow", justify="right")
    return Text(f"{row.age_days}d", justify="right")


def size_cell(row: EpicRow) -> Text:
    """The section's tokens; ``!`` and yellow over the producer's 500-token cap (PL-16)."""
    if row.over_producer_cap:
        return Text(f"{row.section_tokens}!", style="bold yellow", justify="right")
    return Text(str(row.section_tokens), style="dim", justify="right")


COLUMN_LABELS = ("Epic", "Shape", "Conf", "Age", "Tokens", "Loads", "From", "Size")


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
    source = describe_source(epic, row.date_source)
    if row.date is None:
        text.append(f"\nage unknown: {source} (neither fresh nor stale)", style="yellow")
    else:
        text.append(f"\ndated {row.date.isoformat()} from {source} · {row.age_days} days old", style="dim")
    if row.over_producer_cap:
        text.append(
            f"\nThe section is {row.section_tokens} tokens, over the producer's "
            f"{PRODUCER_EPIC_CAP}-token cap (written by hand, or the summarizer's cap was bypassed).",
            style="yellow",
        )
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
    section = list(lines[epic.line_no - 1 : epic.end_line_no])
    while section and not section[-1].strip():
        section.pop()
    entries = typed_entries(section, epic.line_no)
    if entries:
        parts += [entries_renderable(entries), Text()]
    head = Text("Full body", style="bold")
    head.append(
        f" (lines {epic.line_no}–{epic.end_line_no}; shown here only, the agent never loads it)", style="dim"
    )
    parts.append(head)
    if not section:
        parts.append(
            Text(f"The file changed since it was read: press {key_for('epics.reload')}.", style="yellow")
        )
    else:
        read = set(epic.lines_read) | {epic.completed_line_no}  # the Completed line dates it (PL-13)
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
