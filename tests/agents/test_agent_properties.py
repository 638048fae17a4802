"""Hand-written archive indexes mixed at random: every record is found with its exact lines, and updating or
removing one changes only that record's bytes (PM-AGENT-1, PM-AGENT-2)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core.records import parse_records, remove_record, replace_record
from tests.agents.agent_roots import SHAPES, Variant, changes_outside, shape

PROSE = [
    "A paragraph the agent wrote.",
    "## Notes\nKept as written.",
    "> A quoted remark | with a pipe",
    "- a plain bullet without a path\n- another one",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "```\n## projects/in-code.md\n- Index line: `x`\n```",
    "Some **bold** words: and a colon.",
]

_BLOCK = st.one_of(st.sampled_from(sorted(SHAPES)).map(lambda s: ("record", s)), st.sampled_from(PROSE))


def _ids(rec: object) -> object:
    return dataclasses.replace(rec, start=0, end=0)  # type: ignore[type-var]


@pytest.mark.rule("PM-AGENT-1", "PM-AGENT-2")
@settings(max_examples=60, deadline=None)
@given(
    st.lists(_BLOCK, min_size=1, max_size=6),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
    st.data(),
)
def test_update_and_remove_touch_only_their_record(
    blocks: list[tuple[str, str] | str], eol: str, bom: bool, final: bool, data: st.DataObject
) -> None:
    parts: list[str] = ["# Archive index\n\nIntro by the agent.\n\n"]
    ranges: list[tuple[str, int, int]] = []  # (path, first line, one past the last) of each record block
    line = 4
    for k, block in enumerate(blocks):
        if isinstance(block, tuple):
            path = f"notes/r{k}.md"
            text = SHAPES[block[1]].replace("projects/old.md", path)
        else:
            path, text = "", block + "\n"
        if path:
            ranges.append((path, line, line + text.count("\n")))
        parts += [text, "\n"]
        line += text.count("\n") + 1
    source = shape("".join(parts)[:-1], Variant(eol, bom, final, ""))
    records = parse_records(source)
    assert [r.path for r in records] == [p for p, _, _ in ranges]
    if not records:
        return
    k = data.draw(st.integers(0, len(records) - 1))
    rec, (_, lo, hi) = records[k], ranges[k]
    assert lo <= rec.start < rec.end <= hi
    others = [_ids(r) for i, r in enumerate(records) if i != k]

    new = dataclasses.replace(rec, deleted=dt.date(2026, 12, 1), deadline=dt.date(2026, 12, 31))
    updated = replace_record(source, rec, new)
    assert changes_outside(source, updated, lo, hi) == []
    again = parse_records(updated)
    assert [_ids(r) for i, r in enumerate(again) if i != k] == others
    assert (again[k].path, again[k].deleted, again[k].index_line) == (rec.path, new.deleted, rec.index_line)
    assert again[k].layout == rec.layout

    removed = remove_record(source, rec)
    assert changes_outside(source, removed, lo, hi) == []
    assert [_ids(r) for r in parse_records(removed)] == others


_PIECES = st.sampled_from(
    [
        "- ",
        "## ",
        "**",
        "`",
        "``",
        "|",
        "---",
        "—",
        " ",
        "\n",
        "\r\n",
        ":",
        "：",
        "(",
        ")",
        "> ",
        "```\n",
        "projects/a.md",
        "notes/b.md",
        "_archive/c.md",
        "index line",
        "reason",
        "archived",
        "deleted",
        "Index line 2",
        "Line above",
        "moved to",
        "2026-11-30",
        "30 Nov 2026",
        "原因",
        "索引行",
        "x",
    ]
)


@pytest.mark.rule("PM-AGENT-1")
@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_any_text_reads_without_error_and_updates_stay_readable(text: str) -> None:
    from pmem_tui.core.record_read import _parse  # the reader itself, not its never-raise wrapper

    records = _parse(text)
    for rec in records:
        new = dataclasses.replace(rec, deleted=dt.date(2026, 12, 1), deadline=dt.date(2026, 12, 31))
        out = replace_record(text, rec, new)
        assert any(r.path == rec.path and r.deleted == new.deleted for r in _parse(out))
        remove_record(text, rec)
