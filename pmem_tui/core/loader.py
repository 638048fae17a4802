"""The permanent-memory loader: what an agent puts in its context from a project's Epics.

Implements ``spec/permanent-memory-loader.md`` and its reference (``spec/loader-reference.md``; rules
PL-1..PL-16) as a read-only service. The result is plain data (:class:`LoaderResult`: the block, one
:class:`EpicRow` per epic, the ladder trace) so the CLI prints it and a pane renders it. No Textual, no Rich.

The parts
    :mod:`~pmem_tui.core.loader_parse` (sections, fences, markers, summaries, Completed lines),
    :mod:`~pmem_tui.core.loader_age` (an epic's date and its source), :mod:`~pmem_tui.core.loader_ladder`
    (the block, the budget and the degradation ladder). This module reads the file and puts them together.

Where it reads
    ``<project>/.claude/memory/permanent_memory.md``, opened **once** through `safeio` (never through a link,
    never a FIFO or a device; a file over `READ_CAP`, 512 KiB, is skipped unread, its size named) and never
    written. ``manual_overrides.md`` in the same folder is never opened, listed or stat-ed.

Silence (PL-1)
    ``.claude/memory/`` absent -> status ``no_memory_dir``, empty block. The folder present but
    ``permanent_memory.md`` missing -> status ``no_file``, empty block (spec step 1: "does not exist -> exit
    silently"). A file with no ``## Epic:`` section -> status ``no_epics``, empty block: nothing is stamped,
    since an empty stamp would cost tokens for nothing.

Decoding
    UTF-8; a UTF-8 BOM is dropped. Bytes that are not UTF-8 are decoded as U+FFFD and the result carries a
    warning (the file is still loaded). Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (CRLF files read exactly
    like LF files). Control characters and U+2028/U+2029 in a loaded heading or summary are replaced by U+FFFD
    (a tab by a space), so the block never carries terminal escapes and each epic stays one line.

Age and the 90-day flag (PL-11, PL-13)
    From the epic's ``**Completed:**`` line, else its marker's date, else a date in its heading, else
    unknown (:mod:`~pmem_tui.core.loader_age`). Age is ``today - date`` in days with ``today`` from
    :func:`pmem_tui.core.clock.today` (``PMEM_TUI_TODAY``) unless passed in; an epic is stale when its age is
    over 90 days, and its block line starts with ``(>90d may be outdated) `` at every rung. An epic of
    unknown age is never stale and never fresh: its age is shown as unknown.

The block (PL-5, PL-6)
    A header line ``[permanent-memory | trust: file]`` stamps the whole block once, then one line per loaded
    epic, in file order: ``<heading text> — <summary>``, the summary cut to the per-epic cap (20 tokens), the
    whole line, prefix included, cut to 120 characters::

        [permanent-memory | trust: file]
        Epic: FEAT-A — cursor pagination for feed — Cursor-based pagination chosen over offset; opaque…
        (>90d may be outdated) Epic: FEAT-B — JWT auth — tokens in httpOnly cookies

Budget and the degradation ladder (PL-7, PL-8, PL-14)
    Tokens are :func:`pmem_tui.core.tokens.estimate_tokens` (``ceil(chars / 4)``, offline); the file's
    size, for the 8,000-token skip, counts a line ending as one character, so CRLF and LF files fare alike.
    The rungs apply in order only while the block is over the 120-token target; the 8,000-token skip is the
    last one
    (:mod:`~pmem_tui.core.loader_ladder`). ``LoaderResult.trace`` records every rung tried; each ``EpicRow``
    says whether it loaded and which step dropped or reduced it.

Nothing here decides from memory content (PL-10): the content is data to show. Only the marker's
``confidence=`` and date fields, the Completed line and an ISO date in the heading feed the ladder and the
stale flag.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pmem_tui.core import clock, safeio
from pmem_tui.core.errors import PmemError
from pmem_tui.core.loader_age import DateSource, describe_source, epic_date
from pmem_tui.core.loader_ladder import (
    DEFAULT_BUDGET,
    ELLIPSIS,
    HEADER,
    SEPARATOR,
    STALE_PREFIX,
    Budget,
    RenderedLine,
    SkipReason,
    Step,
    StepTrace,
    block_of,
    compose,
    trim_to_chars,
    trim_to_tokens,
)
from pmem_tui.core.loader_parse import (
    TENTATIVE_BELOW,
    Epic,
    Marker,
    ParsedFile,
    Shape,
    find_iso_date,
    iter_lines,
    parse_epics,
    parse_marker,
)
from pmem_tui.core.model import PROJECT_MEMORY_DIR
from pmem_tui.core.tokens import CHARS_PER_TOKEN, estimate_tokens, tokens_for_chars

# The most the loader reads of permanent_memory.md: 16 times the size past which the 8,000-token skip may
# apply (the summarizer archives epics well before that). A larger file is skipped unread, with its size
# named: the ladder is applied in full to every file it reads (PL-14), and no file is read without bound.
READ_CAP = 512 * 1024

__all__ = [
    "DEFAULT_BUDGET",
    "ELLIPSIS",
    "HEADER",
    "MEMORY_DIR",
    "MEMORY_FILE",
    "PRODUCER_EPIC_CAP",
    "SEPARATOR",
    "STALE_PREFIX",
    "TENTATIVE_BELOW",
    "Budget",
    "DateSource",
    "Epic",
    "EpicRow",
    "FileStats",
    "LoaderResult",
    "Marker",
    "ParsedFile",
    "RenderedLine",
    "Shape",
    "SkipReason",
    "Status",
    "Step",
    "StepTrace",
    "compose",
    "describe_source",
    "file_over_limit_warning",
    "find_iso_date",
    "iter_lines",
    "load_permanent_memory",
    "memory_path",
    "parse_epics",
    "parse_marker",
    "trim_to_chars",
    "trim_to_tokens",
    "unread",
    "unread_warning",
]

MEMORY_DIR = PROJECT_MEMORY_DIR
MEMORY_FILE = "permanent_memory.md"
PRODUCER_EPIC_CAP = 500  # the epic-summarizer's own cap on one epic section, in tokens


class Status(StrEnum):
    NO_MEMORY_DIR = "no_memory_dir"  # .claude/memory/ absent: silent
    NO_FILE = "no_file"  # folder present, permanent_memory.md absent: silent
    NO_EPICS = "no_epics"  # file read, no epic section: empty block
    LOADED = "loaded"  # a block was composed (it may still be empty if every epic was dropped)
    SKIPPED = "skipped"  # skip_file: too large, or over the cap even with IDs only


@dataclass(frozen=True)
class EpicRow:
    """One epic's outcome: what a pane row shows."""

    epic: Epic
    date: dt.date | None  # None: age unknown (no Completed line, marker date or heading date)
    date_source: DateSource
    age_days: int | None
    stale: bool  # over 90 days old; never when the age is unknown
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

    @property
    def section_tokens(self) -> int:
        """The whole section's estimate: what the producer caps at 500 tokens (PL-16)."""
        return -(-self.epic.chars // CHARS_PER_TOKEN)

    @property
    def over_producer_cap(self) -> bool:
        return self.section_tokens > PRODUCER_EPIC_CAP


@dataclass(frozen=True)
class FileStats:
    path: Path
    size: int
    mtime: dt.datetime
    chars: int  # line endings counted as one (CRLF too)
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


def file_over_limit_warning(tokens: int, budget: Budget) -> str:
    """The warning of the ladder's last rung (the pane says it in its ladder line instead)."""
    return (
        f"the file is {tokens} tokens, over {budget.skip_file_over}, and its block is over the "
        f"{budget.target}-token target even with epic IDs only: skipped"
    )


def unread_warning(size: int, tokens: int, budget: Budget) -> str:
    """The warning of a file over `READ_CAP`, skipped without being read (the pane says it in its ladder
    line instead)."""
    return (
        f"the file is {size} bytes, over the {READ_CAP // 1024} KiB the loader reads (at least "
        f"{tokens} tokens, over {budget.skip_file_over}): skipped unread"
    )


def unread(result: LoaderResult) -> bool:
    """The file was skipped without being read: over `READ_CAP`, no epic and no rung of the ladder seen."""
    return result.file is not None and result.file.size > READ_CAP


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
        if project.exists():
            raise PmemError(f"The project {project} is not a folder.")
        raise PmemError(f"The project folder {project} does not exist.")
    folder = safeio.entry_kind(project, MEMORY_DIR.as_posix())  # never through a link (safeio)
    if folder == "symlink":
        raise PmemError(f"{path.parent} is a symbolic link (or inside one), which the loader never follows.")
    if folder != "dir":
        return result(Status.NO_MEMORY_DIR)
    cap = READ_CAP
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
    # A line ending is one character, as in a section's size (a CRLF file loads as its LF twin). Unread (over
    # the cap): at least size/4 characters, so the token figure is a lower bound.
    chars = len(text) - text.count("\r\n") if data is not None else -(-st.st_size // 4)
    stats = FileStats(
        path=path,
        size=st.st_size,
        mtime=mtime,
        chars=chars,
        tokens=tokens_for_chars(chars),
        bom=(data or b"").startswith(b"\xef\xbb\xbf"),
        utf8=utf8,
    )

    if data is None:  # over the read cap: far past the 8,000-token skip, and never read whole
        warnings.append(unread_warning(st.st_size, stats.tokens, budget))
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

    dated: list[tuple[Epic, dt.date | None, DateSource, int | None, bool]] = []
    for epic in parsed.epics:
        date, source = epic_date(epic)
        age = (when - date).days if date is not None else None
        dated.append((epic, date, source, age, age is not None and age > budget.stale_after_days))
    step, skip, rungs, trace = compose(
        ((e, stale) for e, _, _, _, stale in dated), budget, file_tokens=stats.tokens
    )
    if skip is SkipReason.FILE_OVER_LIMIT:
        warnings.append(file_over_limit_warning(stats.tokens, budget))
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
    block = block_of(r.line for r in rows if r.line is not None)
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
