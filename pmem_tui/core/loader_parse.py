"""The dual-read rule: ``permanent_memory.md``'s lines -> one :class:`Epic` per ``## Epic:`` section.

Part of the loader (:mod:`pmem_tui.core.loader` documents the whole). What this module decides:

Sections (PL-2, PL-15)
    A section starts at a line beginning with ``## `` (column 0) **outside a fenced code block** and ends
    before the next one. Fences follow CommonMark: a line of three or more backticks or tildes (up to three
    spaces of indent) opens one, a line of the same character, at least as long, with nothing after it closes
    it; a fence never closed runs to the end of the file (with a warning, since every heading after it is
    then code). An epic's heading reads ``Epic: <ID> — <intent>`` (``—``, ``–``, `` - `` or `` -- ``).

Summary (PL-3, PL-4, PL-15)
    v2: the first non-empty body line is an ``<!-- af-memory:v2 … -->`` marker; the summary is the next
    non-empty line that is not an HTML comment (a second comment after the marker is skipped, whole, even
    over several lines). v1: the first non-empty line. A Markdown heading or a fence is never a summary.

Body lines after the summary
    Read only for two things: fences (so a fenced ``## `` is not a section) and the epic's
    ``**Completed:** YYYY-MM-DD`` line (PL-13; the first one outside a fence). Nothing else in the body can
    change the result. The section's size (characters) is counted for the producer's 500-token cap (PL-16).

Confidence (PL-9)
    A number in 0..1, a percentage (``55%``), or a word: ``tentative`` and ``low`` are tentative, ``medium``
    and ``high`` are not. Tentative = below 0.7, the summarizer's own threshold.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from pmem_tui.core.md_lines import commonmark_closes, commonmark_opens
from pmem_tui.core.words import plural

TENTATIVE_BELOW = 0.7
CONFIDENCE_WORDS = {"tentative": True, "low": True, "medium": False, "high": False}


class Shape(StrEnum):
    V1 = "v1"
    V2 = "v2"


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
        known = {"epic", "confidence", "items", "date", "updated", "completed"}
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
    lines_read: tuple[int, ...]  # the lines loaded: heading, marker, summary
    summary: str | None
    marker: Marker | None = None
    confidence: str | None = None  # the marker's value, as written
    confidence_value: float | None = None
    tentative: bool = False
    items: int | None = None
    marker_date: dt.date | None = None
    marker_date_key: str | None = None  # the marker field it came from: completed, updated or date
    completed: dt.date | None = None  # from the section's **Completed:** line
    completed_line_no: int | None = None
    chars: int = 0  # the whole section's characters, line endings counted as one
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedFile:
    epics: tuple[Epic, ...]
    warnings: tuple[str, ...]


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SECTION_START = ("## ", "##\t")
_EPIC_HEADING = re.compile(r"epic:[ \t]*(?P<rest>.*)", re.IGNORECASE)
# `Epic FEAT-1 — intent` with any separator `Epic:` takes (found in trial: ` - ` was dropped unsaid).
_EPIC_NO_COLON = re.compile(r"epic[ \t]+[^\s—–]+[ \t]*(?:[—–]|--?(?:\s|$))", re.IGNORECASE)
_EPIC_ID = re.compile(r"[^\s—–]+")
_MARKER = re.compile(r"<!--\s*af-memory:v(?P<version>\d+)\b(?P<body>.*)", re.IGNORECASE)
_FIELD = re.compile(r'(?P<key>[A-Za-z_][\w-]*)=(?:"(?P<quoted>[^"]*)"|(?P<bare>\S*))')
_MD_HEADING = re.compile(r"#{1,6}(?:\s|$)")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")  # U+2028/9 split lines for splitlines()
# `**Completed:** 2025-10-01`, `**Completed**: …`, `- Completed: …` (the first date after it is the one).
_COMPLETED = re.compile(
    r" {0,3}(?:[-*+][ \t]+)?(\*\*|__)?completed(?:\1)?[ \t]*:[ \t]*(?:\*\*|__)?(?P<rest>.*)", re.IGNORECASE
)


def iter_lines(text: str) -> Iterator[str]:
    """The lines of `text`, without their endings (``\\n``, ``\\r\\n`` or ``\\r``), lazily."""
    start = 0
    for m in _LINE_BREAK.finditer(text):
        yield text[start : m.start()]
        start = m.end()
    if start < len(text):
        yield text[start:]


def clean(text: str) -> str:
    """`text` with control characters and line or paragraph separators replaced (a tab by a space),
    stripped: safe to print, and one line for any reader."""
    return _CONTROL.sub("\ufffd", text.replace("\t", " ")).strip()


def parse_date(value: str) -> dt.date | None:
    """The ``YYYY-MM-DD`` date `value` starts with (a time may follow), or None."""
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


def parse_confidence(raw: str) -> tuple[float | None, bool, str | None]:
    """`(value, tentative, warning)` for a marker's ``confidence=`` value."""
    word = raw.strip().lower()
    if word in CONFIDENCE_WORDS:
        return None, CONFIDENCE_WORDS[word], None
    percent = word.endswith("%")
    try:
        value = float(word[:-1] if percent else word)
    except ValueError:
        value = None
    if value is not None and percent:
        value /= 100
    if value is None or not 0.0 <= value <= 1.0:
        words = ", ".join(CONFIDENCE_WORDS)
        return None, False, f"marker confidence={raw} is not 0..1, a percentage or one of {words}"
    return value, value < TENTATIVE_BELOW, None


class Fence:
    """CommonMark fence state across lines (`md_lines`' CommonMark rule), counting the `## ` it hides."""

    def __init__(self) -> None:
        self.open: str | None = None  # the opening run of backticks or tildes
        self.line_no = 0
        self.headings = 0  # "## " lines swallowed while open

    def feed(self, line_no: int, line: str) -> bool:
        """True when `line` is a fence line or inside a fence (so it is code, not Markdown)."""
        if "`" not in line[:6] and "~" not in line[:6]:  # cheap test first: most lines are not fences
            if self.open is not None and line.startswith(_SECTION_START):
                self.headings += 1
            return self.open is not None
        if self.open is not None:
            if commonmark_closes(line, self.open):
                self.open = None
            elif line.startswith(_SECTION_START):
                self.headings += 1
            return True
        run = commonmark_opens(line)
        if run is None:
            return False
        self.open, self.line_no, self.headings = run, line_no, 0
        return True


class _Section:
    """A section being read. `settled` turns True once its summary line (or the lack of one) is known."""

    def __init__(self, line_no: int, heading: str, chars: int) -> None:
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
        self.in_comment = False  # inside an HTML comment after the v2 marker
        self.settled = False
        self.completed: dt.date | None = None
        self.completed_line_no: int | None = None
        self.chars = chars

    def feed(self, line_no: int, line: str, code: bool) -> None:
        """Look at one body line; `code` when it is a fence line or inside a fence."""
        if self.epic_id is None:
            return  # not an epic: nothing in it is read
        if not self.settled:
            self._feed_summary(line_no, line, code)
        if not code:
            self._feed_completed(line_no, line)

    def _feed_summary(self, line_no: int, line: str, code: bool) -> None:
        stripped = line.strip()
        if not stripped:
            return
        if code:
            self.settled = True
            self.warnings.append(f"no summary line: line {line_no} opens a code block")
            return
        if self.awaiting_first:
            self.awaiting_first = False
            parsed = parse_marker(stripped)
            if parsed is not None:
                marker, version = parsed
                if version == 2:
                    self.lines_read.append(line_no)
                    self.marker = marker
                    return  # v2: the summary is the next non-empty line that is not a comment
                self.warnings.append(f"marker af-memory:v{version} is not v2; section read as v1")
        elif self.marker is not None and (self.in_comment or stripped.startswith("<!--")):
            # PL-15: another comment after the marker is never the summary.
            self.in_comment = "-->" not in (stripped[4:] if stripped.startswith("<!--") else stripped)
            return
        self.lines_read.append(line_no)
        self.settled = True
        if _MD_HEADING.match(stripped):
            self.warnings.append(f"no summary line: line {line_no} is a subsection heading")
            return
        self.summary = clean(stripped)

    def _feed_completed(self, line_no: int, line: str) -> None:
        if "ompleted" not in line[:20] and "OMPLETED" not in line[:20]:
            return  # cheap test first: an indented `- **Completed:**` puts it within the first 20 characters
        m = _COMPLETED.fullmatch(line)
        if m is None:
            return
        if self.completed_line_no is not None:
            self.warnings.append(f"line {line_no}: another Completed line; the first one is used")
            return
        date = find_iso_date(m["rest"])
        if date is None:
            self.warnings.append(f"line {line_no}: the Completed line has no YYYY-MM-DD date")
            return
        self.completed, self.completed_line_no = date, line_no

    def finish(self) -> Epic | None:
        if self.epic_id is None:
            return None
        if not self.settled:
            if self.in_comment:
                self.warnings.append("no summary line: a comment after the marker is never closed")
            else:
                self.warnings.append("no summary line: the section has no body")
        return _build_epic(self)


@dataclass
class _MarkerFacts:
    confidence: str | None = None
    confidence_value: float | None = None
    tentative: bool = False
    items: int | None = None
    marker_date: dt.date | None = None
    marker_date_key: str | None = None


def _marker_facts(marker: Marker, epic_id: str, warnings: list[str]) -> _MarkerFacts:
    """What the marker says: confidence, items, its date; problems go to `warnings`."""
    out = _MarkerFacts()
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
    if epic_field is not None and epic_field != epic_id:
        warnings.append(f"marker epic={epic_field} differs from the heading ID {epic_id}; heading used")
    confidence = marker.get("confidence")
    if confidence is not None:
        out.confidence = confidence
        out.confidence_value, out.tentative, problem = parse_confidence(confidence)
        if problem:
            warnings.append(problem)
    raw_items = marker.get("items")
    if raw_items is not None:
        if raw_items.isdigit():
            out.items = int(raw_items)
        else:
            warnings.append(f"marker items={raw_items} is not a whole number")
    for key in ("completed", "updated", "date"):
        raw = marker.get(key)
        if raw is None:
            continue
        parsed = parse_date(raw)
        if parsed is None:
            warnings.append(f"marker {key}={raw} is not a YYYY-MM-DD date")
        elif out.marker_date is None:
            out.marker_date, out.marker_date_key = parsed, key
    return out


def _build_epic(s: _Section) -> Epic:
    assert s.epic_id is not None
    warnings = list(s.warnings)
    facts = _marker_facts(s.marker, s.epic_id, warnings) if s.marker is not None else _MarkerFacts()
    return Epic(
        id=s.epic_id,
        intent=s.intent,
        heading=s.heading,
        shape=Shape.V2 if s.marker is not None else Shape.V1,
        line_no=s.line_no,
        end_line_no=s.end_line_no,
        lines_read=tuple(s.lines_read),
        summary=s.summary,
        marker=s.marker,
        confidence=facts.confidence,
        confidence_value=facts.confidence_value,
        tentative=facts.tentative,
        items=facts.items,
        marker_date=facts.marker_date,
        marker_date_key=facts.marker_date_key,
        completed=s.completed,
        completed_line_no=s.completed_line_no,
        chars=s.chars,
        warnings=tuple(warnings),
    )


def _open_section(line_no: int, line: str, warnings: list[str]) -> _Section:
    heading = clean(line[2:])
    section = _Section(line_no, heading, len(line) + 1)  # line endings count as one character
    m = _EPIC_HEADING.fullmatch(heading)
    if m is None:
        if _EPIC_NO_COLON.match(heading):
            warnings.append(f"line {line_no}: heading looks like an epic but lacks 'Epic:'; ignored")
        return section
    rest = m["rest"]
    id_match = _EPIC_ID.match(rest)
    if id_match is None:
        warnings.append(f"line {line_no}: epic heading has no ID; ignored")
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
    """Apply the dual-read rule to `lines` (without line endings); see the module docstring."""
    epics: list[Epic] = []
    warnings: list[str] = []
    current: _Section | None = None
    fence = Fence()
    for line_no, line in enumerate(lines, start=1):
        code = fence.feed(line_no, line)
        if not code and line.startswith(_SECTION_START):
            if current is not None:
                epic = current.finish()
                if epic is not None:
                    epics.append(epic)
            current = _open_section(line_no, line, warnings)
            continue
        if current is None:
            continue  # preamble before the first section
        current.end_line_no = line_no
        current.chars += 1 + len(line)
        current.feed(line_no, line, code)
    if current is not None:
        epic = current.finish()
        if epic is not None:
            epics.append(epic)
    if fence.open is not None and fence.headings:
        headings = plural(fence.headings, "'## ' heading")
        are = "is" if fence.headings == 1 else "are"
        warnings.append(
            f"line {fence.line_no}: a code block is never closed; the {headings} after it {are} read as code"
        )
    seen: set[str] = set()
    for epic in epics:
        if epic.id in seen:
            warnings.append(f"epic {epic.id} appears more than once")
        seen.add(epic.id)
    return ParsedFile(epics=tuple(epics), warnings=tuple(warnings))
