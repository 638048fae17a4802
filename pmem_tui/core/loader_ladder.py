"""The block and the degradation ladder (PL-5..PL-8, PL-14): epics -> the lines the agent receives.

Part of the loader (:mod:`pmem_tui.core.loader` documents the whole). The rungs, each cumulative, are tried
in order **only while the block is over the target** (120 tokens):

1. ``drop_tentative``: tentative epics leave the block;
2. ``trim_summaries``: every summary cut to the per-epic target (12 tokens);
3. ``ids_only``: each line is ``Epic: <ID>`` (with the stale prefix);
4. ``skip_file``: the last rung, taken only when ``ids_only`` is still over the target **and** the file is
   over 8,000 tokens ("the summarizer's cap was bypassed"); reason ``file_over_limit``.

A block still over the target after ``ids_only`` from a file within 8,000 tokens loads when within the hard
cap (200): the target is what the ladder aims at, the cap is never exceeded; over the cap the file is skipped
(reason ``over_cap``: no rule says which epics to keep).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from pmem_tui.core.loader_parse import Epic
from pmem_tui.core.tokens import CHARS_PER_TOKEN, estimate_tokens

HEADER = "[permanent-memory | trust: file]"
STALE_PREFIX = "(>90d may be outdated) "
SEPARATOR = " — "
ELLIPSIS = "…"


@dataclass(frozen=True)
class Budget:
    """The spec's budget table, plus the limits the loader applies around it."""

    target: int = 120  # always-loaded tokens: what the ladder aims at
    cap: int = 200  # always-loaded hard cap: never exceeded
    epic_summary_target: int = 12  # tokens of one summary after `trim_summaries`
    epic_summary_cap: int = 20  # tokens of one summary, always
    subsection_line_target: int = 1  # no subsection line is ever loaded
    subsection_line_cap: int = 2
    line_chars: int = 120  # characters of one block line, prefix included
    skip_file_over: int = 8000  # file tokens above which the last rung skips the file
    stale_after_days: int = 90


DEFAULT_BUDGET = Budget()


class Step(StrEnum):
    """The degradation ladder, in order. `number` is the rung (0 = no degradation)."""

    NONE = "none"
    DROP_TENTATIVE = "drop_tentative"
    TRIM_SUMMARIES = "trim_summaries"
    IDS_ONLY = "ids_only"
    SKIP_FILE = "skip_file"

    @property
    def number(self) -> int:
        return list(Step).index(self)

    @property
    def label(self) -> str:
        return _STEP_LABELS[self]


_STEP_LABELS = {
    Step.NONE: "no degradation",
    Step.DROP_TENTATIVE: "tentative epics dropped",
    Step.TRIM_SUMMARIES: "summaries trimmed",
    Step.IDS_ONLY: "epic IDs only",
    Step.SKIP_FILE: "file skipped",
}


class SkipReason(StrEnum):
    FILE_OVER_LIMIT = "file_over_limit"
    OVER_CAP = "over_cap"


@dataclass(frozen=True)
class StepTrace:
    """One rung tried: the block's tokens after it and the epics it changed (dropped, trimmed, reduced)."""

    step: Step
    tokens: int
    affected: tuple[str, ...]
    saved: int  # tokens saved against the previous rung


def trim_to_chars(text: str, max_chars: int) -> str:
    """`text` cut to at most `max_chars` characters, ending with ``…`` when cut."""
    if len(text) <= max_chars:
        return text
    if max_chars <= len(ELLIPSIS):
        return ELLIPSIS[:max_chars]
    keep = text[: max_chars - len(ELLIPSIS)]
    space = keep.rfind(" ")
    if space >= len(keep) // 2:
        keep = keep[:space]
    return keep.rstrip() + ELLIPSIS


def trim_to_tokens(text: str, max_tokens: int) -> str:
    """`text` cut (see :func:`trim_to_chars`) so that ``estimate_tokens`` is at most `max_tokens`."""
    if estimate_tokens(text) <= max_tokens:
        return text
    chars = min(len(text), max_tokens * CHARS_PER_TOKEN)
    out = trim_to_chars(text, chars)
    while chars > 0 and estimate_tokens(out) > max_tokens:
        chars -= 1
        out = trim_to_chars(text, chars)
    return out


@dataclass(frozen=True)
class RenderedLine:
    text: str
    summary_trimmed: bool
    line_trimmed: bool


def render(epic: Epic, stale: bool, step: Step, budget: Budget) -> RenderedLine:
    prefix = STALE_PREFIX if stale else ""
    summary_trimmed = False
    if step is Step.IDS_ONLY:
        body = f"Epic: {epic.id}"
    else:
        body = epic.heading
        if epic.summary:
            limit = budget.epic_summary_target if step is Step.TRIM_SUMMARIES else budget.epic_summary_cap
            summary = trim_to_tokens(epic.summary, limit)
            summary_trimmed = summary != epic.summary
            body += SEPARATOR + summary
    full = prefix + body
    line = trim_to_chars(full, budget.line_chars)
    return RenderedLine(line, summary_trimmed, line != full)


def block_of(lines: Iterable[str]) -> str:
    lines = list(lines)
    return "\n".join([HEADER, *lines]) if lines else ""


_LADDER = (Step.NONE, Step.DROP_TENTATIVE, Step.TRIM_SUMMARIES, Step.IDS_ONLY)


def compose(
    epics: Iterable[tuple[Epic, bool]], budget: Budget = DEFAULT_BUDGET, *, file_tokens: int = 0
) -> tuple[Step, SkipReason | None, list[list[RenderedLine | None]], tuple[StepTrace, ...]]:
    """Walk the ladder over `(epic, stale)` pairs of a file of `file_tokens`; see the module docstring.

    Returns the step applied, the skip reason (if the cap forced a skip), the lines of every rung tried (one
    entry per epic, None when that rung dropped it) and the trace.
    """
    pairs = list(epics)
    trace: list[StepTrace] = []
    rungs: list[list[RenderedLine | None]] = []
    applied = Step.NONE
    for step in _LADDER:
        rendered: list[RenderedLine | None] = [
            None if step is not Step.NONE and epic.tentative else render(epic, stale, step, budget)
            for epic, stale in pairs
        ]
        tokens = estimate_tokens(block_of(r.text for r in rendered if r is not None))
        affected: list[str] = []
        if rungs:
            for (epic, _), before, after in zip(pairs, rungs[-1], rendered, strict=True):
                if before is not None and (after is None or after.text != before.text):
                    affected.append(epic.id)
        saved = trace[-1].tokens - tokens if trace else 0
        trace.append(StepTrace(step=step, tokens=tokens, affected=tuple(affected), saved=saved))
        rungs.append(rendered)
        applied = step
        if tokens <= budget.target:
            break
    skip: SkipReason | None = None
    if trace[-1].tokens > budget.target and file_tokens > budget.skip_file_over:
        skip = SkipReason.FILE_OVER_LIMIT  # the last rung: still over budget, and an extreme file
    elif trace[-1].tokens > budget.cap:
        skip = SkipReason.OVER_CAP
    if skip is not None:
        ids = tuple(e.id for (e, _), r in zip(pairs, rungs[-1], strict=True) if r is not None)
        trace.append(StepTrace(step=Step.SKIP_FILE, tokens=0, affected=ids, saved=trace[-1].tokens))
        applied = Step.SKIP_FILE
    return applied, skip, rungs, tuple(trace)
