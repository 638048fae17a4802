"""The loader against its reference (docs/spec/loader-reference.md): rules PL-13, PL-14 and PL-15.

The epics files here are written by hand the way the epic-summarizer writes v2 sections (the example in the
reference) and the way a person writes v1 sections.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core.loader import (
    STALE_PREFIX,
    DateSource,
    LoaderResult,
    SkipReason,
    Status,
    Step,
    load_permanent_memory,
    parse_epics,
)

TODAY = dt.date(2026, 3, 1)

# The producer's v2 section, as in the reference, with its Completed line.
FEAT_A = """\
## Epic: FEAT-A — cursor pagination for feed
<!-- af-memory:v2 epic=FEAT-A confidence=0.82 items=5 -->
Cursor-based pagination chosen over offset; opaque base64 cursor.

### Architectural decisions
- [decision] Keyset pagination over OFFSET (confidence: 0.91)
### Gotchas discovered
### Anti-patterns to avoid
### Patterns that worked
### Conflicts encountered
### Tentative (low confidence — review)
- [gotcha] suspected N+1 on author hydration (confidence: 0.61)

**Completed:** 2025-10-01
**Trace summary:** 4 traces, 1 hallucination, 2 logic errors recovered

"""

# A person's v1 section: no marker, a deadline in the summary, no Completed line.
AUTH_7 = """\
## Epic: AUTH-7 — session tokens
Deadline is 2027-03-01: tokens move to httpOnly cookies before then.

### Gotchas discovered
- Safari drops SameSite=None cookies that are not also Secure.

"""


def write(tmp_path: Path, text: str, mtime: dt.datetime | None = None) -> Path:
    project = tmp_path / "proj"
    folder = project / ".claude" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "permanent_memory.md"
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime.timestamp(), mtime.timestamp()))
    return project


def load(project: Path) -> LoaderResult:
    return load_permanent_memory(project, today=TODAY)


# ------------------------------------------------------------------------------------------------ PL-13


@pytest.mark.rule("PL-13", "PL-11")
def test_age_comes_from_the_completed_line(tmp_path: Path) -> None:
    row = load(write(tmp_path, "# Permanent memory\n\n" + FEAT_A)).rows[0]
    assert (row.date, row.date_source) == (dt.date(2025, 10, 1), DateSource.COMPLETED)
    assert row.age_days == 151 and row.stale
    assert row.line is not None and row.line.startswith(STALE_PREFIX)


@pytest.mark.rule("PL-13")
def test_a_deadline_in_the_summary_is_not_the_epic_date(tmp_path: Path) -> None:
    row = load(write(tmp_path, AUTH_7, mtime=dt.datetime(2026, 2, 28, 12))).rows[0]
    assert row.date_source is DateSource.NONE
    assert (row.date, row.age_days, row.stale) == (None, None, False)


@pytest.mark.rule("PL-13")
def test_undated_epics_do_not_take_the_file_mtime(tmp_path: Path) -> None:
    # Any edit of the file would otherwise make every undated epic look fresh.
    text = AUTH_7 + "## Epic: OPS-4 — deploys\nBlue-green deploys.\n"
    rows = load(write(tmp_path, text, mtime=dt.datetime(2026, 3, 1, 9))).rows
    assert [(r.date_source, r.date, r.age_days) for r in rows] == [(DateSource.NONE, None, None)] * 2


@pytest.mark.rule("PL-13")
@pytest.mark.parametrize(
    ("section", "source", "date"),
    [
        # The Completed line wins over the marker, the heading and the summary.
        (
            "## Epic: F-1 — shipped 2020-01-01\n<!-- af-memory:v2 epic=F-1 updated=2024-01-01 -->\n"
            "Summary 2021-01-01.\n\n**Completed:** 2025-12-01\n",
            DateSource.COMPLETED,
            dt.date(2025, 12, 1),
        ),
        # Shapes a person or an agent writes.
        (
            "## Epic: F-1 — a\nSummary.\n\n- **Completed**: 2025-11-02\n",
            DateSource.COMPLETED,
            dt.date(2025, 11, 2),
        ),
        (
            "## Epic: F-1 — a\nSummary.\nCompleted: 2025-11-03T10:00Z\n",
            DateSource.COMPLETED,
            dt.date(2025, 11, 3),
        ),
        ("## Epic: F-1 — a\n**Completed:** 2025-11-04\n", DateSource.COMPLETED, dt.date(2025, 11, 4)),
        # Without one: the marker, then a date in the heading; never the summary, never the mtime.
        (
            "## Epic: F-1 — a 2020-01-01\n<!-- af-memory:v2 epic=F-1 date=2025-01-01 -->\nSum 2021-01-01.\n",
            DateSource.MARKER,
            dt.date(2025, 1, 1),
        ),
        ("## Epic: F-1 — shipped 2025-11-30\nSum 2021-01-01.\n", DateSource.HEADING, dt.date(2025, 11, 30)),
        ("## Epic: F-1 — a\nSum 2021-01-01.\n", DateSource.NONE, None),
    ],
)
def test_date_sources_in_order(
    tmp_path: Path, section: str, source: DateSource, date: dt.date | None
) -> None:
    row = load(write(tmp_path, section)).rows[0]
    assert (row.date_source, row.date) == (source, date)


@pytest.mark.rule("PL-13")
def test_a_completed_line_in_a_code_block_or_another_epic_does_not_count(tmp_path: Path) -> None:
    text = (
        "## Epic: F-1 — a\nSummary.\n\n```\n**Completed:** 2020-01-01\n```\n"
        "## Epic: F-2 — b\nSummary.\n**Completed:** 2025-12-24\n"
    )
    rows = load(write(tmp_path, text)).rows
    assert [(r.id, r.date_source, r.date) for r in rows] == [
        ("F-1", DateSource.NONE, None),
        ("F-2", DateSource.COMPLETED, dt.date(2025, 12, 24)),
    ]


@pytest.mark.rule("PL-13")
def test_a_completed_line_without_a_date_is_a_warning(tmp_path: Path) -> None:
    row = load(write(tmp_path, "## Epic: F-1 — a 2025-12-01\nSummary.\n**Completed:** last week\n")).rows[0]
    assert (row.date_source, row.date) == (DateSource.HEADING, dt.date(2025, 12, 1))
    assert any("Completed" in w for w in row.epic.warnings)


# ------------------------------------------------------------------------------------------------ PL-14


@pytest.mark.rule("PL-14", "PL-8")
def test_a_long_file_whose_block_fits_is_not_skipped(tmp_path: Path) -> None:
    head = "## Epic: F-1 — a\n<!-- af-memory:v2 epic=F-1 confidence=0.9 items=1 -->\ntiny summary\n\n"
    text = head + "x" * (8000 * 4 - len(head) + 1)  # 32,001 characters: 8,001 tokens
    result = load(write(tmp_path, text))
    assert result.file is not None and result.file.tokens == 8001
    assert result.status is Status.LOADED and result.step is Step.NONE
    assert result.lines[1:] == ("Epic: F-1 — a — tiny summary",)
    assert [t.step for t in result.trace] == [Step.NONE]


@pytest.mark.rule("PL-14", "PL-8")
def test_a_long_file_is_skipped_only_after_ids_only(tmp_path: Path) -> None:
    # IDs only are over the 120 target (but within the 200 cap): the skip rung is the next one.
    body = "".join(f"## Epic: EPIC-{i:03} — x\nshort\n\n" for i in range(40))
    text = body + "y" * (8000 * 4 - len(body) + 1)
    result = load(write(tmp_path, text))
    steps = [t.step for t in result.trace]
    assert steps == [Step.NONE, Step.DROP_TENTATIVE, Step.TRIM_SUMMARIES, Step.IDS_ONLY, Step.SKIP_FILE]
    assert result.trace[3].tokens > 120
    assert (result.status, result.skip_reason, result.block) == (
        Status.SKIPPED,
        SkipReason.FILE_OVER_LIMIT,
        "",
    )
    assert all(r.step is Step.SKIP_FILE and not r.loaded for r in result.rows)


@pytest.mark.rule("PL-14", "PL-8")
def test_a_short_file_over_the_target_with_ids_only_still_loads_within_the_cap(tmp_path: Path) -> None:
    body = "".join(f"## Epic: EPIC-{i:03} — x\nshort\n\n" for i in range(40))
    result = load(write(tmp_path, body))
    assert result.status is Status.LOADED and result.step is Step.IDS_ONLY
    assert 120 < result.used <= 200


# ------------------------------------------------------------------------------------------------ PL-15


@pytest.mark.rule("PL-15")
def test_an_epic_heading_in_a_code_block_is_not_an_epic(tmp_path: Path) -> None:
    text = (
        "## Epic: F-1 — how to write epics\nUse this template.\n\n"
        "```markdown\n## Epic: TEMPLATE — never loaded\nOne line.\n```\n\n"
        "~~~~\n## Epic: TILDE — never loaded\n~~~\n~~~~\n"
        "## Epic: F-2 — b\nSecond.\n"
    )
    result = load(write(tmp_path, text))
    assert [r.id for r in result.rows] == ["F-1", "F-2"]
    assert "TEMPLATE" not in result.block and "TILDE" not in result.block


@pytest.mark.rule("PL-15")
def test_an_unclosed_fence_is_said(tmp_path: Path) -> None:
    text = "## Epic: F-1 — a\nSummary.\n```\n## Epic: F-2 — in code\nx\n"
    result = load(write(tmp_path, text))
    assert [r.id for r in result.rows] == ["F-1"]
    assert any("never closed" in w for w in result.warnings)


@pytest.mark.rule("PL-15", "PL-3")
@pytest.mark.parametrize(
    "between",
    ["<!-- reviewed by bob -->\n", "\n<!-- generated -->\n\n", "<!-- a comment\nover two lines -->\n"],
)
def test_the_v2_summary_is_never_another_comment(tmp_path: Path, between: str) -> None:
    marker = "<!-- af-memory:v2 epic=F-1 confidence=0.9 items=2 -->"
    text = f"## Epic: F-1 — a\n{marker}\n{between}The real summary.\n"
    epic = load(write(tmp_path, text)).rows[0].epic
    assert epic.summary == "The real summary."


@pytest.mark.rule("PL-15", "PL-9")
@pytest.mark.parametrize(
    ("confidence", "tentative"),
    [
        ("low", True),
        ("LOW", True),
        ("tentative", True),
        ("0.5", True),
        ("55%", True),
        ("medium", False),
        ("high", False),
        ("0.7", False),
        ("0.82", False),
        ("90%", False),
    ],
)
def test_confidence_words_and_numbers(tmp_path: Path, confidence: str, tentative: bool) -> None:
    text = f"## Epic: F-1 — a\n<!-- af-memory:v2 epic=F-1 confidence={confidence} items=2 -->\nSummary.\n"
    epic = load(write(tmp_path, text)).rows[0].epic
    assert epic.tentative is tentative
    assert epic.warnings == ()


FENCE_LINES = ["```", "~~~", "````", "## Epic: X-1 — a", "body", "", "   ```py", "**Completed:** 2020-01-01"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(FENCE_LINES), max_size=20))
@pytest.mark.rule("PL-15", "PL-13")
def test_nothing_inside_a_longer_fence_is_read(lines: list[str]) -> None:
    # No generated line can close a six-backtick fence: every heading and Completed line inside it is code.
    parsed = parse_epics(
        ["## Epic: F-0 — first", "summary", "``````", *lines, "``````", "## Epic: F-9 — b", "x"]
    )
    assert [(e.id, e.completed) for e in parsed.epics] == [("F-0", None), ("F-9", None)]
    assert parsed.epics[1].line_no == len(lines) + 5
