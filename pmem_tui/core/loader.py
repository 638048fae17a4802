"""The permanent-memory loader: what an agent puts in its context from a project's Epics.

Implements ``spec/permanent-memory-loader.md`` (rules PL-1..PL-12) as a read-only service. The result is
plain data (:class:`LoaderResult`: the block, one :class:`EpicRow` per epic, the ladder trace) so the CLI
prints it and a pane renders it. No Textual, no Rich.

Where it reads
    ``<project>/.claude/memory/permanent_memory.md``, opened **once** through `safeio` (never through a link,
    never a FIFO or a device; a file too large to hold 8,000 tokens or fewer is skipped unread) and never
    written. ``manual_overrides.md`` in the same folder is never opened, listed or stat-ed.

Silence (PL-1)
    ``.claude/memory/`` absent -> status ``no_memory_dir``, empty block. The folder present but
    ``permanent_memory.md`` missing -> status ``no_file``, empty block (spec step 1: "does not exist -> exit
    silently"). A file with no ``## Epic:`` section -> status ``no_epics``, empty block: nothing is stamped,
    since an empty stamp would cost tokens for nothing.

Decoding
    UTF-8; a UTF-8 BOM is dropped. Bytes that are not UTF-8 are decoded as U+FFFD and the result carries a
    warning (the file is still loaded). Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (CRLF files read exactly
    like LF files). Control characters in a loaded heading or summary are replaced by U+FFFD (a tab by a
    space), so the block never carries terminal escapes.

Sections and the dual-read rule (PL-2, PL-3, PL-4)
    A section starts at a line beginning with ``## `` (column 0) and ends before the next one. It is an epic
    when its heading reads ``Epic: <ID> — <intent>`` (``—``, ``–``, `` - `` or `` -- `` accepted as the
    separator; an intent may be missing; ``Epic`` is matched case-insensitively). Other ``##`` sections are
    ignored. Blank lines before the first body line are skipped, then:

    * **v2**: the first non-empty body line is an ``<!-- af-memory:v2 … -->`` marker. Loaded: the heading,
      the marker and the next non-empty line (the summary).
    * **v1**: anything else. Loaded: the heading and the first non-empty line.

    If the would-be summary line is itself a Markdown heading (``### Gotchas`` …) the epic has no summary: a
    subsection is never loaded. Parsing of a section **stops after its summary line**: every later line of
    the section is only tested with ``str.startswith("## ")`` to find where the next section begins. Body
    text cannot influence the result (tested). Consequences: a marker that is not the first body line is
    never seen (the section reads as v1); a ``## `` line inside a fenced code block still starts a new
    section (tracking fences would mean interpreting the body).

Markers (PL-3, PL-9)
    ``key=value`` fields (value unquoted, or in double quotes), keys case-insensitive, extra fields kept and
    reported. Tolerated with a per-epic warning: missing ``epic=``/``confidence=``/``items=``, ``epic=``
    different from the heading ID (the heading wins), an unclosed comment (fields are read from that line
    only; no later line is searched for ``-->``), an unparseable value. Another version (``af-memory:v3``)
    is not v2: the section reads as v1, with a warning.

Tentative (PL-8 step 1, PL-9)
    An epic is tentative when its marker says ``confidence=tentative`` or a number below 0.7 (the epic
    summarizer's own threshold for its "Tentative" subsection). v1 epics have no marker and are never
    tentative: deciding would mean reading the body. ``items=`` is reported, not used by any step.

Epic date and the 90-day flag (PL-11)
    In order: the marker's ``updated=`` field, its ``date=`` field (``YYYY-MM-DD``, optionally followed by a
    time), the first ISO date ``YYYY-MM-DD`` in the heading, the first in the summary line, else the file's
    modification date (local time). ``EpicRow.date_source`` says which one was used. Age is ``today - date``
    in days with ``today`` from :func:`pmem_tui.core.clock.today` (``PMEM_TUI_TODAY``) unless passed in; an
    epic is stale when its age is over 90 days, and its block line starts with ``(>90d may be outdated) ``
    at every step of the ladder.

The block (PL-5, PL-6)
    A header line ``[permanent-memory | trust: file]`` stamps the whole block once (the reference format of
    the upstream skill, with the spec's ``trust: file`` spelling), then one line per loaded epic, in file
    order::

        [permanent-memory | trust: file]
        Epic: FEAT-A — cursor pagination for feed — Cursor-based pagination chosen over offset; opaque…
        (>90d may be outdated) Epic: FEAT-B — JWT auth — tokens in httpOnly cookies

    An epic line is ``<heading text> — <summary>`` (the heading text as written, after ``## ``), or the
    heading text alone when there is no summary. The summary is first cut to the per-epic cap (20 tokens);
    the whole line, prefix included, is cut to 120 characters. Cuts happen at a word boundary when one is in
    the second half of the kept text, and end with ``…``. Lines are joined with ``\\n``; the block has no
    final newline (the CLI adds one).

Budget and the degradation ladder (PL-7, PL-8)
    Tokens are :func:`pmem_tui.core.tokens.estimate_tokens` (``ceil(chars / 4)``, offline). ``used`` is the
    estimate of the whole block, header included. Order of checks:

    0. **Skip first**: a file over 8,000 tokens (its decoded text) is skipped without being parsed; step
       ``skip_file``, reason ``file_over_limit``.
    1. Compose with no degradation. If ``used`` is within the **target** (120) it loads as is.
    2. Otherwise walk the ladder, each step cumulative, and stop at the first step whose block is within the
       target: ``drop_tentative`` (tentative epics leave the block), ``trim_summaries`` (every summary cut
       to the per-epic target, 12 tokens), ``ids_only`` (each line is ``Epic: <ID>``, with the stale
       prefix).
    3. If even ``ids_only`` is over the target it still loads when within the **hard cap** (200): the target
       is what the ladder aims at, the cap is never exceeded. If ``ids_only`` is over the cap, the file is
       skipped (step ``skip_file``, reason ``over_cap``): the spec's last rung, and no rule says which epics
       to keep.

    The per-subsection budget (1, cap 2) is honoured trivially: no subsection line is ever loaded.
    ``LoaderResult.trace`` records every step tried, its token total and the epics it affected; each
    ``EpicRow`` says whether it loaded and which step dropped or reduced it.

Nothing here decides from memory content (PL-10): the content is data to show. Only the marker's
``confidence=`` and date fields, and ISO dates in the heading/summary, feed the ladder and the stale flag.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pmem_tui.core import clock, safeio
from pmem_tui.core.errors import PmemError
from pmem_tui.core.model import PROJECT_MEMORY_DIR
from pmem_tui.core.tokens import CHARS_PER_TOKEN, estimate_tokens, tokens_for_chars

MEMORY_DIR = PROJECT_MEMORY_DIR
MEMORY_FILE = "permanent_memory.md"
HEADER = "[permanent-memory | trust: file]"
STALE_PREFIX = "(>90d may be outdated) "
SEPARATOR = " — "
ELLIPSIS = "…"
TENTATIVE_BELOW = 0.7


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
    skip_file_over: int = 8000  # file tokens above which the file is skipped unread
    stale_after_days: int = 90


DEFAULT_BUDGET = Budget()


class Status(StrEnum):
    NO_MEMORY_DIR = "no_memory_dir"  # .claude/memory/ absent: silent
    NO_FILE = "no_file"  # folder present, permanent_memory.md absent: silent
    NO_EPICS = "no_epics"  # file read, no epic section: empty block
    LOADED = "loaded"  # a block was composed (it may still be empty if every epic was dropped)
    SKIPPED = "skipped"  # skip_file: too large, or over the cap even with IDs only


class Shape(StrEnum):
    V1 = "v1"
    V2 = "v2"


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


class DateSource(StrEnum):
    MARKER_UPDATED = "marker:updated"
    MARKER_DATE = "marker:date"
    HEADING = "heading"
    SUMMARY = "summary"
    MTIME = "mtime"


@dataclass(frozen=True)
class Marker:
    """A parsed ``<!-- af-memory:v2 … -->`` line: every ``key=value`` in order, keys lowered."""

    raw: str
    fields: tuple[tuple[str, str], ...]
    closed: bool

    def get(self, key: str) -> str | None:
        for k, v in self.fields:
            if k == key:
                return v
        return None

    @property
    def extra(self) -> tuple[tuple[str, str], ...]:
        known = {"epic", "confidence", "items", "date", "updated"}
        return tuple((k, v) for k, v in self.fields if k not in known)


@dataclass(frozen=True)
class Epic:
    """One ``## Epic:`` section as the dual-read rule sees it. Line numbers are 1-based."""

    id: str
    intent: str
    heading: str  # the heading text after "## ", as written (sanitized)
    shape: Shape
    line_no: int
    end_line_no: int  # last line of the section (the line before the next "## ", or the file's last line)
    lines_read: tuple[int, ...]  # the only lines whose content was looked at: heading, marker, summary
    summary: str | None
    marker: Marker | None = None
    confidence: str | None = None  # the marker's value, as written
    confidence_value: float | None = None
    tentative: bool = False
    items: int | None = None
    marker_date: dt.date | None = None
    marker_date_source: DateSource | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedFile:
    epics: tuple[Epic, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class EpicRow:
    """One epic's outcome: what a pane row shows."""

    epic: Epic
    date: dt.date
    date_source: DateSource
    age_days: int
    stale: bool
    loaded: bool
    step: Step | None  # the step that dropped it (loaded=False) or reduced its line (loaded=True)
    line: str | None  # its line in the final block; None when dropped
    tokens: int  # estimate of `line` (0 when dropped)
    full_line: str  # its line with no degradation
    full_tokens: int
    summary_trimmed: bool  # its summary was cut (per-epic cap or target) in the final block
    line_trimmed: bool  # its line was cut to the line limit in the final block

    @property
    def id(self) -> str:
        return self.epic.id


@dataclass(frozen=True)
class StepTrace:
    """One rung tried: the block's tokens after it and the epics it changed (dropped, trimmed, reduced)."""

    step: Step
    tokens: int
    affected: tuple[str, ...]
    saved: int  # tokens saved against the previous rung


@dataclass(frozen=True)
class FileStats:
    path: Path
    size: int
    mtime: dt.datetime
    chars: int
    tokens: int
    bom: bool
    utf8: bool


@dataclass(frozen=True)
class LoaderResult:
    project: Path
    path: Path  # the permanent_memory.md path (it may not exist)
    status: Status
    today: dt.date
    budget: Budget
    block: str = ""  # exactly what the agent receives ("" = nothing)
    used: int = 0  # estimate_tokens(block)
    step: Step = Step.NONE
    skip_reason: SkipReason | None = None
    rows: tuple[EpicRow, ...] = ()
    trace: tuple[StepTrace, ...] = ()
    file: FileStats | None = None
    warnings: tuple[str, ...] = ()

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(self.block.split("\n")) if self.block else ()

    @property
    def silent(self) -> bool:
        return self.status in (Status.NO_MEMORY_DIR, Status.NO_FILE)

    @property
    def within_target(self) -> bool:
        return self.used <= self.budget.target

    @property
    def within_cap(self) -> bool:
        return self.used <= self.budget.cap


# --------------------------------------------------------------------------------------------- parsing

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SECTION_START = ("## ", "##\t")
_EPIC_HEADING = re.compile(r"epic:[ \t]*(?P<rest>.*)", re.IGNORECASE)
_EPIC_NO_COLON = re.compile(r"epic[ \t]+[^\s—–]+[ \t]*[—–]", re.IGNORECASE)
_EPIC_ID = re.compile(r"[^\s—–]+")
_MARKER = re.compile(r"<!--\s*af-memory:v(?P<version>\d+)\b(?P<body>.*)", re.IGNORECASE)
_FIELD = re.compile(r'(?P<key>[A-Za-z_][\w-]*)=(?:"(?P<quoted>[^"]*)"|(?P<bare>\S*))')
_MD_HEADING = re.compile(r"#{1,6}(?:\s|$)")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def iter_lines(text: str) -> Iterator[str]:
    """The lines of `text`, without their endings (``\\n``, ``\\r\\n`` or ``\\r``), lazily."""
    start = 0
    for m in _LINE_BREAK.finditer(text):
        yield text[start : m.start()]
        start = m.end()
    if start < len(text):
        yield text[start:]


def _clean(text: str) -> str:
    return _CONTROL.sub("\ufffd", text.replace("\t", " ")).strip()


def _parse_date(value: str) -> dt.date | None:
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})(?![\d])", value)
    if not m:
        return None
    try:
        return dt.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def find_iso_date(text: str) -> dt.date | None:
    """The first valid ``YYYY-MM-DD`` date in `text` (impossible dates such as 2025-13-40 are passed over)."""
    for m in _ISO_DATE.finditer(text):
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            continue
    return None


def parse_marker(line: str) -> tuple[Marker, int] | None:
    """`(marker, version)` when `line` (stripped) is an ``<!-- af-memory:vN …`` comment, else None."""
    m = _MARKER.match(line)
    if not m:
        return None
    body = m["body"]
    closed = "-->" in body
    if closed:
        body = body[: body.index("-->")]
    fields: list[tuple[str, str]] = []
    for f in _FIELD.finditer(body):
        value = f["quoted"] if f["quoted"] is not None else f["bare"]
        fields.append((f["key"].lower(), value))
    return Marker(raw=line, fields=tuple(fields), closed=closed), int(m["version"])


class _Section:
    """A section being read. `done` turns True once its summary line (or the lack of one) is settled."""

    def __init__(self, line_no: int, heading: str) -> None:
        self.line_no = line_no
        self.end_line_no = line_no
        self.heading = heading
        self.epic_id: str | None = None
        self.intent = ""
        self.warnings: list[str] = []
        self.lines_read = [line_no]
        self.marker: Marker | None = None
        self.summary: str | None = None
        self.awaiting_first = True  # no body line seen yet
        self.done = False

    def feed(self, line_no: int, line: str) -> None:
        """Look at one body line, before the summary is settled."""
        stripped = line.strip()
        if not stripped:
            return
        if self.awaiting_first:
            self.awaiting_first = False
            parsed = parse_marker(stripped)
            if parsed is not None:
                marker, version = parsed
                if version == 2:
                    self.lines_read.append(line_no)
                    self.marker = marker
                    return  # v2: the summary is the next non-empty line
                self.warnings.append(f"marker af-memory:v{version} is not v2; section read as v1")
        self.lines_read.append(line_no)
        self.done = True
        if _MD_HEADING.match(stripped):
            self.warnings.append(f"no summary line: line {line_no} is a subsection heading")
            return
        self.summary = _clean(stripped)

    def finish(self) -> Epic | None:
        if self.epic_id is None:
            return None
        if not self.done:
            self.warnings.append("no summary line: the section has no body")
        return _build_epic(self)


def _build_epic(s: _Section) -> Epic:
    assert s.epic_id is not None
    warnings = list(s.warnings)
    confidence: str | None = None
    confidence_value: float | None = None
    items: int | None = None
    marker_date: dt.date | None = None
    date_source: DateSource | None = None
    tentative = False
    marker = s.marker
    if marker is not None:
        if not marker.closed:
            warnings.append("marker comment is not closed on its line (no '-->')")
        seen: set[str] = set()
        for key, _ in marker.fields:
            if key in seen:
                warnings.append(f"marker field {key}= repeated; the first one is used")
            seen.add(key)
        missing = [k for k in ("epic", "confidence", "items") if marker.get(k) is None]
        if missing:
            warnings.append("marker lacks " + ", ".join(f"{k}=" for k in missing))
        epic_field = marker.get("epic")
        if epic_field is not None and epic_field != s.epic_id:
            warnings.append(f"marker epic={epic_field} differs from the heading ID {s.epic_id}; heading used")
        confidence = marker.get("confidence")
        if confidence is not None:
            if confidence.lower() == "tentative":
                tentative = True
            else:
                try:
                    value = float(confidence)
                except ValueError:
                    value = None
                if value is None or not 0.0 <= value <= 1.0:
                    warnings.append(f"marker confidence={confidence} is not 0..1 or 'tentative'")
                else:
                    confidence_value = value
                    tentative = value < TENTATIVE_BELOW
        raw_items = marker.get("items")
        if raw_items is not None:
            if raw_items.isdigit():
                items = int(raw_items)
            else:
                warnings.append(f"marker items={raw_items} is not a whole number")
        for key, source in (("updated", DateSource.MARKER_UPDATED), ("date", DateSource.MARKER_DATE)):
            raw = marker.get(key)
            if raw is None:
                continue
            parsed = _parse_date(raw)
            if parsed is None:
                warnings.append(f"marker {key}={raw} is not a YYYY-MM-DD date")
            elif marker_date is None:
                marker_date, date_source = parsed, source
    return Epic(
        id=s.epic_id,
        intent=s.intent,
        heading=s.heading,
        shape=Shape.V2 if marker is not None else Shape.V1,
        line_no=s.line_no,
        end_line_no=s.end_line_no,
        lines_read=tuple(s.lines_read),
        summary=s.summary,
        marker=marker,
        confidence=confidence,
        confidence_value=confidence_value,
        tentative=tentative,
        items=items,
        marker_date=marker_date,
        marker_date_source=date_source,
        warnings=tuple(warnings),
    )


def _open_section(line_no: int, line: str, warnings: list[str]) -> _Section:
    heading = _clean(line[2:])
    section = _Section(line_no, heading)
    m = _EPIC_HEADING.fullmatch(heading)
    if m is None:
        if _EPIC_NO_COLON.match(heading):
            warnings.append(f"line {line_no}: heading looks like an epic but lacks 'Epic:'; ignored")
        section.done = True  # not an epic: nothing in it is read
        return section
    rest = m["rest"]
    id_match = _EPIC_ID.match(rest)
    if id_match is None:
        warnings.append(f"line {line_no}: epic heading has no ID; ignored")
        section.done = True
        return section
    section.epic_id = id_match.group()
    remainder = rest[id_match.end() :].strip()
    if remainder[:1] in ("—", "–"):
        remainder = remainder[1:].strip()
    elif re.match(r"--?(?:\s|$)", remainder):
        remainder = remainder.lstrip("-").strip()
    elif remainder:
        section.warnings.append("heading has no ' — ' between the ID and the intent")
    section.intent = remainder
    return section


def parse_epics(lines: Iterable[str]) -> ParsedFile:
    """Apply the dual-read rule to `lines` (without line endings).

    Once a section's summary is settled, its later lines are only tested with ``startswith`` for the next
    ``## `` heading: nothing else in the body is read.
    """
    epics: list[Epic] = []
    warnings: list[str] = []
    current: _Section | None = None
    for line_no, line in enumerate(lines, start=1):
        if line.startswith(_SECTION_START):
            if current is not None:
                epic = current.finish()
                if epic is not None:
                    epics.append(epic)
            current = _open_section(line_no, line, warnings)
            continue
        if current is None:
            continue  # preamble before the first section
        current.end_line_no = line_no
        if current.done:
            continue  # body: never read
        current.feed(line_no, line)
    if current is not None:
        epic = current.finish()
        if epic is not None:
            epics.append(epic)
    seen: set[str] = set()
    for epic in epics:
        if epic.id in seen:
            warnings.append(f"epic {epic.id} appears more than once")
        seen.add(epic.id)
    return ParsedFile(epics=tuple(epics), warnings=tuple(warnings))


# --------------------------------------------------------------------------------------------- composing


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


def _render(epic: Epic, stale: bool, step: Step, budget: Budget) -> RenderedLine:
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


def _block(lines: Iterable[str]) -> str:
    lines = list(lines)
    return "\n".join([HEADER, *lines]) if lines else ""


_LADDER = (Step.NONE, Step.DROP_TENTATIVE, Step.TRIM_SUMMARIES, Step.IDS_ONLY)


def compose(
    epics: Iterable[tuple[Epic, bool]], budget: Budget = DEFAULT_BUDGET
) -> tuple[Step, SkipReason | None, list[list[RenderedLine | None]], tuple[StepTrace, ...]]:
    """Walk the ladder over `(epic, stale)` pairs; see the module docstring for the rule.

    Returns the step applied, the skip reason (if the cap forced a skip), the lines of every rung tried (one
    entry per epic, None when that rung dropped it) and the trace.
    """
    pairs = list(epics)
    trace: list[StepTrace] = []
    rungs: list[list[RenderedLine | None]] = []
    applied = Step.NONE
    for step in _LADDER:
        rendered: list[RenderedLine | None] = [
            None if step is not Step.NONE and epic.tentative else _render(epic, stale, step, budget)
            for epic, stale in pairs
        ]
        tokens = estimate_tokens(_block(r.text for r in rendered if r is not None))
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
    if trace[-1].tokens > budget.cap:
        ids = tuple(e.id for (e, _), r in zip(pairs, rungs[-1], strict=True) if r is not None)
        trace.append(StepTrace(step=Step.SKIP_FILE, tokens=0, affected=ids, saved=trace[-1].tokens))
        applied, skip = Step.SKIP_FILE, SkipReason.OVER_CAP
    return applied, skip, rungs, tuple(trace)


# --------------------------------------------------------------------------------------------- loading


def _date_for(epic: Epic, mtime: dt.date) -> tuple[dt.date, DateSource]:
    if epic.marker_date is not None and epic.marker_date_source is not None:
        return epic.marker_date, epic.marker_date_source
    found = find_iso_date(epic.heading)
    if found is not None:
        return found, DateSource.HEADING
    if epic.summary:
        found = find_iso_date(epic.summary)
        if found is not None:
            return found, DateSource.SUMMARY
    return mtime, DateSource.MTIME


def memory_path(project: Path) -> Path:
    return Path(project) / MEMORY_DIR / MEMORY_FILE


def load_permanent_memory(
    project: Path | str, *, today: dt.date | None = None, budget: Budget = DEFAULT_BUDGET
) -> LoaderResult:
    """What the agent loads from `project`'s permanent memory. Reads one file, once; never writes.

    Raises :class:`PmemError` when `project` is not a folder or the file exists but cannot be read.
    """
    project = Path(project)
    when = today if today is not None else clock.today()
    path = memory_path(project)

    def result(status: Status, **kw: Any) -> LoaderResult:
        return LoaderResult(project=project, path=path, status=status, today=when, budget=budget, **kw)

    if not project.is_dir():
        raise PmemError(f"The project folder {project} does not exist.")
    folder = safeio.entry_kind(project, MEMORY_DIR.as_posix())  # never through a link (safeio)
    if folder == "symlink":
        raise PmemError(f"{path.parent} is a symbolic link (or inside one), which the loader never follows.")
    if folder != "dir":
        return result(Status.NO_MEMORY_DIR)
    cap = 4 * CHARS_PER_TOKEN * budget.skip_file_over + 3  # more is surely over it (4 bytes a char): unread
    try:
        data, st = safeio.read_unless_over(project, f"{MEMORY_DIR.as_posix()}/{MEMORY_FILE}", cap)
    except FileNotFoundError:
        return result(Status.NO_FILE)
    except safeio.UnsafeFile as err:  # a link, a FIFO, a device, a folder: never opened for reading
        raise PmemError(f"{path} is {err.detail}.") from err
    except OSError as err:
        raise PmemError(f"Cannot read {path}: {err.strerror or err}.") from err

    warnings: list[str] = []
    try:
        text, utf8 = (data or b"").decode("utf-8-sig"), True
    except UnicodeDecodeError:
        text, utf8 = (data or b"").decode("utf-8-sig", errors="replace"), False
        warnings.append("the file is not valid UTF-8: undecodable bytes are shown as U+FFFD")
    mtime = dt.datetime.fromtimestamp(st.st_mtime)
    # Unread (over `cap`): at least size/4 characters, so the token figure is a lower bound.
    chars = len(text) if data is not None else -(-st.st_size // 4)
    stats = FileStats(
        path=path,
        size=st.st_size,
        mtime=mtime,
        chars=chars,
        tokens=tokens_for_chars(chars),
        bom=(data or b"").startswith(b"\xef\xbb\xbf"),
        utf8=utf8,
    )

    if stats.tokens > budget.skip_file_over:
        warnings.append(f"the file is {stats.tokens} tokens, over {budget.skip_file_over}: skipped unread")
        return result(
            Status.SKIPPED,
            step=Step.SKIP_FILE,
            skip_reason=SkipReason.FILE_OVER_LIMIT,
            trace=(StepTrace(step=Step.SKIP_FILE, tokens=0, affected=(), saved=0),),
            file=stats,
            warnings=tuple(warnings),
        )

    parsed = parse_epics(iter_lines(text))
    warnings.extend(parsed.warnings)
    if not parsed.epics:
        return result(Status.NO_EPICS, file=stats, warnings=tuple(warnings))

    dated: list[tuple[Epic, dt.date, DateSource, int, bool]] = []
    for epic in parsed.epics:
        date, source = _date_for(epic, mtime.date())
        age = (when - date).days
        dated.append((epic, date, source, age, age > budget.stale_after_days))
    step, skip, rungs, trace = compose(((e, stale) for e, _, _, _, stale in dated), budget)
    final = [None] * len(dated) if step is Step.SKIP_FILE else rungs[-1]
    rows: list[EpicRow] = []
    for (epic, date, source, age, stale), full, line in zip(dated, rungs[0], final, strict=True):
        assert full is not None  # rung 0 drops nothing
        by: Step | None = None
        if line is None:
            by = Step.SKIP_FILE if step is Step.SKIP_FILE else Step.DROP_TENTATIVE
        elif line.text != full.text:
            by = step
        rows.append(
            EpicRow(
                epic=epic,
                date=date,
                date_source=source,
                age_days=age,
                stale=stale,
                loaded=line is not None,
                step=by,
                line=line.text if line else None,
                tokens=estimate_tokens(line.text) if line else 0,
                full_line=full.text,
                full_tokens=estimate_tokens(full.text),
                summary_trimmed=line.summary_trimmed if line else False,
                line_trimmed=line.line_trimmed if line else False,
            )
        )
    block = _block(r.line for r in rows if r.line is not None)
    return result(
        Status.SKIPPED if step is Step.SKIP_FILE else Status.LOADED,
        block=block,
        used=estimate_tokens(block),
        step=step,
        skip_reason=skip,
        rows=tuple(rows),
        trace=trace,
        file=stats,
        warnings=tuple(warnings),
    )
