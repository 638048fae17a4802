"""Which date a record's heading or list line gives: the archive date, the deletion date or the recovery
deadline. The deadline words must govern the date ("recoverable until 2026-02-01"); a heading such as
"## 2026-01-01 (keep until Q3)" is an archive date with a note, not a deadline (found in review)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core.records import parse_records
from tests.campaign import examples

D1, D2 = dt.date(2026, 1, 1), dt.date(2026, 2, 1)
NEXT = D1 + dt.timedelta(days=30)


@pytest.mark.rule("PM-ARC-5", "PM-DEL-3")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("## 2026-01-01 (keep until Q3)\n\n- projects/a.md\n", (D1, None, None)),
        ("## 2026-01-01 — keep until Q3\n- Path: projects/a.md\n", (D1, None, None)),
        ("- projects/a.md — 2026-01-01 keep until Q3\n", (D1, None, None)),
        ("## 2026-01-01 — recoverable until 2026-02-01\n\n- projects/a.md\n", (D1, None, D2)),
        ("## 2026-01-01 (deleted, recover by 2026-02-01)\n\n- projects/a.md\n", (None, D1, D2)),
        ("## 2026-01-01 (deleted)\n\n- projects/a.md\n", (None, D1, NEXT)),
        ("- projects/a.md — deleted 2026-01-01, recoverable until 2026-02-01\n", (None, D1, D2)),
        ("- projects/a.md — deleted 2026-01-01 (expires on 2026-02-01)\n", (None, D1, D2)),
        ("## Trash — expiry date: 2026-02-01\n\n- projects/a.md\n", (None, None, D2)),
        ("## projects/a.md — purge after 1 Feb 2026\n", (None, None, D2)),
        ("## projects/a.md — 恢复截止：2026年2月1日\n", (None, None, D2)),
        ("## projects/a.md — 2026-02-01 截止\n", (None, None, D2)),
        ("## projects/a.md — archived 2026-01-01 until further notice\n", (D1, None, None)),
    ],
)
def test_the_deadline_words_must_govern_the_date(
    text: str, expected: tuple[dt.date | None, dt.date | None, dt.date | None]
) -> None:
    (rec,) = parse_records(text)
    assert (rec.archived, rec.deleted, rec.deadline) == expected


_NOTE = st.sampled_from(["keep until Q3", "keep until the launch", "expires when done", "until later"])
_DATE = st.dates(dt.date(2000, 1, 1), dt.date(2099, 12, 31))


@pytest.mark.rule("PM-ARC-5")
@settings(max_examples=examples(200), deadline=None)
@given(_DATE, _NOTE, st.sampled_from(["({})", "— {}", ", {}", "{}"]))
def test_a_date_before_deadline_words_is_the_archive_date(date: dt.date, note: str, shape: str) -> None:
    for text in (
        f"## {date.isoformat()} {shape.format(note)}\n\n- projects/a.md\n",
        f"- projects/a.md — {date.isoformat()} {shape.format(note)}\n",
    ):
        (rec,) = parse_records(text)
        assert (rec.archived, rec.deadline) == (date, None), text


@pytest.mark.rule("PM-DEL-3")
@settings(max_examples=examples(200), deadline=None)
@given(_DATE, _DATE, st.sampled_from(["recoverable until", "recover by", "expires", "deadline:", "until"]))
def test_the_date_the_words_govern_is_the_deadline(first: dt.date, second: dt.date, words: str) -> None:
    heading = f"## {first.isoformat()} (deleted, {words} {second.isoformat()})"
    (rec,) = parse_records(heading + "\n\n- projects/a.md\n")
    assert (rec.deleted, rec.deadline) == (first, second)


D3 = dt.date(2026, 2, 15)


@pytest.mark.rule("PM-DEL-3")
@pytest.mark.parametrize(
    "line",
    [
        "recoverable until `2026-02-15`",
        "recoverable until **2026-02-15**",
        "expires in 45 days: 2026-02-15",
        "deadline for recovery 2026-02-15",
        "expires → 2026-02-15",
        "recoverable until end of 2026-02-15",
    ],
)
def test_a_deadline_written_with_marks_or_words_between_is_still_the_deadline(line: str) -> None:
    """The words between the deadline words and their date (backticks, bold, 'in 45 days:') do not make
    the deadline an archive date, with the deletion date's 30 days as the deadline instead: a purge would
    then take the file two weeks before the deadline the agent wrote (found in review)."""
    for text in (
        f"- projects/a.md — deleted 2026-01-01, {line}\n",
        f"## 2026-01-01 (deleted; {line})\n\n- projects/a.md\n",
    ):
        (rec,) = parse_records(text)
        assert (rec.archived, rec.deleted, rec.deadline) == (None, D1, D3), text


@pytest.mark.rule("PM-ARC-5")
@pytest.mark.parametrize(
    "text",
    [
        "## projects/a.md — keep until Q3, archived 2026-01-01\n",
        "## projects/a.md (keep until Q3) 2026-01-01\n",
        "## projects/a.md — keep until Q3 — 2026-01-01\n",
        "- projects/a.md — keep until the launch; archived 2026-01-01\n",
    ],
)
def test_deadline_words_before_a_clause_break_do_not_govern_the_date(text: str) -> None:
    (rec,) = parse_records(text)
    assert (rec.archived, rec.deadline) == (D1, None), text


D5 = dt.date(2026, 1, 5)


@pytest.mark.rule("PM-ARC-5", "PM-DEL-3")
@pytest.mark.parametrize(
    "text",
    [
        "## notes/a.md — 归档 2026-01-01，删除 2026-01-05\n",
        "- notes/a.md — 已归档 2026-01-01；已删除 2026-01-05\n",
        "## archived 2026-01-01, deleted 2026-01-05\n\n- notes/a.md\n",
        "## 2026-01-01 archived, 2026-01-05 deleted\n\n- notes/a.md\n",
    ],
)
def test_an_archive_date_beside_a_deletion_date_is_the_archive_date(text: str) -> None:
    """Each date takes the archive or delete word of its own clause: the archive date was read as the
    deletion date (the deadline 30 days after it, days before the one the tool promises) when a delete word
    stood anywhere in the text (the Chinese comma does not cut a line's parts; a group's heading is whole)."""
    (rec,) = parse_records(text)
    assert (rec.archived, rec.deleted, rec.deadline) == (D1, D5, D5 + dt.timedelta(days=30)), text


@pytest.mark.rule("PM-DEL-3")
@pytest.mark.parametrize("words", ["到期：", "到期日 ", "可恢复至 ", "保留至 ", "恢复期限：", "截止 "])
def test_chinese_deadline_words_before_the_date_govern_it(words: str) -> None:
    """'2026-02-15 到期' was the deadline, '到期：2026-02-15' and '可恢复至 2026-02-15' ('recoverable
    until') were not: the deadline came 30 days after the deletion date, two weeks before the one written."""
    (rec,) = parse_records(f"- projects/a.md — 删除于 2026-01-01，{words}2026-02-15\n")
    assert (rec.deleted, rec.deadline) == (D1, D3)


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "## " + "2026-01-01 " * n + "\n\n- projects/a.md\n",  # each date looked for from the start
        lambda n: "## " + "until " * n + "x,2026-01-01\n\n- projects/a.md\n",  # deadline words backtracked
    ],
    ids=["dates", "until"],
)
def test_a_long_heading_is_read_in_time_linear_in_its_length(make: Callable[[int], str]) -> None:
    """Found in review: date_hints looked for each next date from its position with every form (one scan of
    the rest of the line per date): a heading of a few thousand dates (an agent's, in `_archive/_index.md`,
    read by every scan) took tens of seconds. The clause rule for deadline words must not backtrack from
    each of them either. Both are read in one pass: four times the words cost about four times the CPU
    (3.5x measured; 16x when quadratic), never a bound in seconds."""
    import time

    def cpu(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.process_time()
            (rec,) = parse_records(text)
            best = min(best, time.process_time() - started)
            assert rec.path == "projects/a.md"
        return best

    assert cpu(make(1200)) < 8 * max(cpu(make(300)), 1e-4)


@pytest.mark.rule("PM-DEL-3")
@pytest.mark.parametrize(
    "line",
    [
        "- projects/a.md — deleted 2026-01-01, recover by Feb 15, 2026\n",
        "- projects/a.md — deleted 2026-01-01; expires on Sun, 2026-02-15\n",
        "- projects/a.md — deleted 2026-01-01; expires on Sunday, 15 Feb 2026\n",
    ],
)
def test_a_comma_inside_a_written_date_does_not_cut_a_lines_parts(line: str) -> None:
    """Found in review: a record's line is cut into parts at each comma, so 'recover by Feb 15, 2026' lost
    its year (no deadline read: 30 days after the deletion instead) and 'expires on Sun, 2026-02-15' lost its
    deadline words (read as the archive date)."""
    (rec,) = parse_records(line)
    assert (rec.archived, rec.deleted, rec.deadline) == (None, D1, D3)
