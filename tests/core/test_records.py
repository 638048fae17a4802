"""`_archive/_index.md`: one written record format, many hand-written ones read, byte-keeping edits."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core import textio
from pmem_tui.core.model import ArchiveRecord
from pmem_tui.core.records import (
    add_record,
    empty_archive_index,
    find_record,
    format_record,
    parse_date,
    parse_records,
    remove_record,
    replace_record,
)
from pmem_tui.core.textio import split_lines, strip_ending
from tests.campaign import examples

D = dt.date

# --- hand-written archive indexes an agent could write by following the spec ----------------------
# Reused by the spec conformance tests (PM-ARC-5, PM-DEL-3, PM-REC-2): each maps to the records it must yield,
# as (path, index_line, archived, reason, deleted, deadline).

HEADER = (
    "# Archive index\n\n"
    "One section per archived or deleted memory file, written so that people and agents can read it; "
    "the index line is kept as inline code exactly as it stood in `_index.md`, so recovery can restore it.\n"
)
OURS = (
    HEADER
    + """
## projects/old.md
- Original path: `projects/old.md`
- Index line: `` - [Old](projects/old.md) — an old `thing` ``
- Archived: 2026-11-30
- Reason: project shipped
- Deleted: 2026-12-01
- Recovery deadline: 2026-12-31
- Line above: `## Projects`
- Line below: (blank line)
"""
)

ARCHIVED_HEADING = """# Archive

### Archived: projects/old.md
- Path: projects/old.md
- Index entry: "- [Old](projects/old.md) — an old thing"
- Archive date: 2026-11-30 (Mon)
- Why: project shipped
"""

DATED_HEADING_FENCED_LINE = """## 2026-11-30 — projects/old.md

**Reason:** project shipped

**Active index line:**

```
- [Old](projects/old.md) — an old thing
```
"""

LIST_STYLE = """# Archive index

- **projects/old.md**
  - Line: `- [Old](projects/old.md) — an old thing`
  - Date archived: Mon 2026-11-30
  - Reason: project shipped
  - Deletion date: 2026-12-01
- **notes/x.md**
  - Index line: > - notes/x.md — x
  - Archived: Monday, 30 Nov 2026
  - Reason: duplicate
"""

CHINESE = """# 归档索引

## projects/旧项目.md
- 原路径：projects/旧项目.md
- 索引行：`- [旧项目](projects/旧项目.md) — 已完成`
- 归档日期：2026-11-30
- 原因：项目结束
- 删除日期：2026-12-01
- 恢复截止：2026-12-31
"""

TABLE = """# Archive index

| Path | Index line | Archived | Reason | Deleted | Deadline |
|---|---|---|---|---|---|
| projects/a.md | `- [A](projects/a.md) — a \\| b` | 2026-11-30 | done | | |
| notes/b.md | - notes/b.md — b | 2026-11-29 (Sun) | dup | 2026-12-01 | |
"""

LEGACY = """## notes/legacy.md
- Archived: 2026-01-05
- Reason: old
"""

QUOTED_NO_BULLETS = """### notes/q.md
Index line:
> - [Q](notes/q.md) — quoted
Archived: 2026-11-30
Reason: r
Recover by: 2027-01-01
"""

GROUPED_BY_DATE = """## 2026-11-30

- **projects/x.md** — reason: shipped, done
- `projects/y.md` — archived Tue 2026-12-01

## Trash
### projects/z.md
- Deleted: 2026-12-05
- Original: projects/z.md
- Exact active index line: `- projects/z.md — z`
"""

HEADLESS = """Original path: notes/h1.md
Index line: `- notes/h1.md — one`
Date: 2026-11-30
Reason: first

Original path: notes/h2.md
Index line: “- notes/h2.md — two”
Date: 30 Nov 2026
"""

LINE_OLD = "- [Old](projects/old.md) — an old thing"
HAND_WRITTEN: dict[str, tuple[str, list[tuple[object, ...]]]] = {
    "ours": (
        OURS,
        [
            (
                "projects/old.md",
                "- [Old](projects/old.md) — an old `thing`",
                D(2026, 11, 30),
                "project shipped",
                D(2026, 12, 1),
                D(2026, 12, 31),
            )
        ],
    ),
    "archived-heading": (
        ARCHIVED_HEADING,
        [("projects/old.md", LINE_OLD, D(2026, 11, 30), "project shipped", None, None)],
    ),
    "dated-heading-fenced-line": (
        DATED_HEADING_FENCED_LINE,
        [("projects/old.md", LINE_OLD, D(2026, 11, 30), "project shipped", None, None)],
    ),
    "list-style": (
        LIST_STYLE,
        [
            (
                "projects/old.md",
                LINE_OLD,
                D(2026, 11, 30),
                "project shipped",
                D(2026, 12, 1),
                D(2026, 12, 31),
            ),
            ("notes/x.md", "- notes/x.md — x", D(2026, 11, 30), "duplicate", None, None),
        ],
    ),
    "chinese": (
        CHINESE,
        [
            (
                "projects/旧项目.md",
                "- [旧项目](projects/旧项目.md) — 已完成",
                D(2026, 11, 30),
                "项目结束",
                D(2026, 12, 1),
                D(2026, 12, 31),
            )
        ],
    ),
    "table": (
        TABLE,
        [
            ("projects/a.md", "- [A](projects/a.md) — a | b", D(2026, 11, 30), "done", None, None),
            ("notes/b.md", "- notes/b.md — b", D(2026, 11, 29), "dup", D(2026, 12, 1), D(2026, 12, 31)),
        ],
    ),
    "legacy": (LEGACY, [("notes/legacy.md", None, D(2026, 1, 5), "old", None, None)]),
    "quoted-no-bullets": (
        QUOTED_NO_BULLETS,
        [("notes/q.md", "- [Q](notes/q.md) — quoted", D(2026, 11, 30), "r", None, D(2027, 1, 1))],
    ),
    "grouped-by-date": (
        GROUPED_BY_DATE,
        [
            ("projects/x.md", None, D(2026, 11, 30), "shipped, done", None, None),
            ("projects/y.md", None, D(2026, 12, 1), None, None, None),
            ("projects/z.md", "- projects/z.md — z", None, None, D(2026, 12, 5), D(2027, 1, 4)),
        ],
    ),
    "headless": (
        HEADLESS,
        [
            ("notes/h1.md", "- notes/h1.md — one", D(2026, 11, 30), "first", None, None),
            ("notes/h2.md", "- notes/h2.md — two", D(2026, 11, 30), None, None, None),
        ],
    ),
}


def _fields(rec: ArchiveRecord) -> tuple[object, ...]:
    return (rec.path, rec.index_line, rec.archived, rec.reason, rec.deleted, rec.deadline)


@pytest.mark.rule("PM-ARC-5", "PM-DEL-3", "PM-REC-2")
@pytest.mark.parametrize("name", list(HAND_WRITTEN))
def test_hand_written_records_are_read(name: str) -> None:
    text, expected = HAND_WRITTEN[name]
    assert [_fields(r) for r in parse_records(text)] == expected
    # The same with CRLF endings and a BOM.
    crlf = "\ufeff" + text.replace("\n", "\r\n")
    assert [_fields(r) for r in parse_records(crlf)] == expected


def test_layouts_and_spans() -> None:
    [ours] = parse_records(OURS)
    assert (ours.layout, ours.start, ours.end) == ("section", 4, 13)
    assert (ours.after, ours.before) == ("## Projects", "")
    a, b = parse_records(TABLE)
    assert (a.layout, a.start, a.end, b.start, b.end) == ("table", 4, 5, 5, 6)
    old, x = parse_records(LIST_STYLE)
    assert (old.layout, old.start, old.end, x.start, x.end) == ("list", 2, 7, 7, 11)
    [legacy] = parse_records(LEGACY)
    assert legacy.legacy and legacy.index_line is None


@pytest.mark.rule("PM-REC-2")
def test_not_recorded_line_is_legacy() -> None:
    for value in ["(not recorded)", "none", "N/A", "—", "无", ""]:
        [rec] = parse_records(f"## notes/a.md\n- Index line: {value}\n- Archived: 2026-01-01\n")
        assert rec.index_line is None, value


@pytest.mark.rule("PM-DEL-3")
def test_deadline_defaults_to_thirty_days_after_deletion() -> None:
    [rec] = parse_records("## notes/a.md\n- Deleted: 2026-12-20\n")
    assert rec.deadline == D(2027, 1, 19)
    [rec] = parse_records("## notes/a.md\n- Deleted: 2026-12-20\n- Deadline: 2027-02-01\n")
    assert rec.deadline == D(2027, 2, 1)


def test_parse_date_forms() -> None:
    for value in [
        "2026-11-30",
        "2026-11-30 (Mon)",
        "Mon 2026-11-30",
        "Monday, 2026-11-30",
        "2026/11/30",
        "2026年11月30日",
        "30 Nov 2026",
        "Monday, 30 November 2026",
        "Nov 30, 2026",
        "November 30th, 2026",
    ]:
        assert parse_date(value) == D(2026, 11, 30), value
    assert parse_date("2026-02-30") is None
    assert parse_date("soon") is None


def test_field_labels_are_tolerant() -> None:
    text = (
        "## projects/a.md\n"
        "- **Original Path:** `projects/a.md`\n"
        "- **INDEX LINE**: `- projects/a.md — a`\n"
        "* archived on: 2026-11-30\n"
        "1. reason for archiving: done\n"
        "- Recoverable until: 2027-01-01\n"
        "- Deleted on: 2026-12-02\n"
        "- Index position: after `## P` / before `- projects/b.md — b`\n"
    )
    [rec] = parse_records(text)
    assert _fields(rec) == (
        "projects/a.md",
        "- projects/a.md — a",
        D(2026, 11, 30),
        "done",
        D(2026, 12, 2),
        D(2027, 1, 1),
    )
    assert (rec.after, rec.before) == ("## P", "- projects/b.md — b")


def test_paths_are_normalised() -> None:
    for value in [
        "~/.persistent-memory/projects/a.md",
        "./projects/a.md",
        "_archive/projects/a.md",
        "[projects/a.md](_archive/projects/a.md)",
    ]:
        [rec] = parse_records(f"## Record\n- Original path: {value}\n")
        assert rec.path == "projects/a.md", value


def test_records_without_path_are_skipped_and_prose_is_ignored() -> None:
    text = (
        "# Archive\n\nSome notes about archiving: see below.\n\n"
        "## Old things\n- Reason: no path here\n\n"
        "- See projects/x.md for details\n"
        "## projects/ok.md\n- Archived: 2026-01-01\n"
    )
    assert [r.path for r in parse_records(text)] == ["projects/ok.md"]


def test_a_second_path_field_naming_the_same_file_does_not_split_the_record() -> None:
    text = (
        "## projects/a.md\n- Original path: projects/a.md\n- File: _archive/projects/a.md\n- Reason: r\n"
        "## Archived\nPath: notes/b.md\nReason: b\n\nPath: notes/c.md\nReason: c\n"
    )
    assert [(r.path, r.reason) for r in parse_records(text)] == [
        ("projects/a.md", "r"),
        ("notes/b.md", "b"),
        ("notes/c.md", "c"),
    ]


def test_find_record_returns_the_newest() -> None:
    text = "## notes/a.md\n- Reason: first\n\n## notes/b.md\n\n## notes/a.md\n- Reason: second\n"
    records = parse_records(text)
    found = find_record(records, "notes/a.md")
    assert found is not None and found.reason == "second"
    assert find_record(records, "notes/none.md") is None


# --- the format we write --------------------------------------------------------------------------


@pytest.mark.rule("PM-ARC-5", "PM-DEL-3")
def test_format_record_full_example() -> None:
    rec = ArchiveRecord(
        path="projects/old.md",
        index_line="- [Old](projects/old.md) — an old `thing`",
        archived=D(2026, 11, 30),
        reason="project shipped",
        deleted=D(2026, 12, 1),
        deadline=D(2026, 12, 31),
        after="## Projects",
        before="",
    )
    assert add_record("", rec) == OURS
    assert format_record(rec, "\r\n") == OURS.split("\n\n", 2)[2].replace("\n", "\r\n")


def test_format_legacy_and_minimal_records() -> None:
    rec = ArchiveRecord(path="notes/a.md", index_line=None, archived=None, reason="two\nlines")
    text = format_record(rec)
    assert text == (
        "## notes/a.md\n- Original path: `notes/a.md`\n- Index line: (not recorded)\n- Reason: two lines\n"
    )
    [back] = parse_records(text)
    assert back.legacy and back.reason == "two lines"


def test_empty_archive_index() -> None:
    text = empty_archive_index()
    assert text.startswith("# Archive index\n\n") and text.endswith("\n")
    assert parse_records(text) == []
    assert empty_archive_index("\r\n").count("\r\n") == 3


_LINE = st.text(
    alphabet=st.one_of(
        st.characters(exclude_characters="\n"),
        st.sampled_from(["`", "|", "[", "]", "(", ")", "*", "_", "#", ">", " ", "—", "项", "\udc80", "\r"]),
    ),
    max_size=40,
)
_SEGMENT = st.text(
    alphabet=st.sampled_from(list("abcXYZ019 -_.()[]%'\"`#&*|项目日记ü")), min_size=1, max_size=8
).filter(lambda s: s.strip() == s and s not in (".", ".."))
_PATH = st.builds(
    lambda parts, name: "/".join([*parts, name + ".md"]),
    st.lists(_SEGMENT, max_size=2),
    _SEGMENT,
).filter(lambda p: not p.startswith(("./", "_archive/")) and ".persistent-memory/" not in p)
_DATE = st.one_of(st.none(), st.dates(min_value=D(2000, 1, 1), max_value=D(2100, 1, 1)))
_RECORD = st.builds(
    ArchiveRecord,
    path=_PATH,
    index_line=st.one_of(st.none(), _LINE),
    archived=_DATE,
    reason=st.one_of(st.none(), st.text(alphabet=st.characters(exclude_characters="\r\n"), max_size=30)),
    deleted=_DATE,
    deadline=_DATE,
    after=st.one_of(st.none(), _LINE),
    before=st.one_of(st.none(), _LINE),
)


def _expected(rec: ArchiveRecord) -> ArchiveRecord:
    reason = rec.reason.strip() if rec.reason is not None else None
    deadline = rec.deadline
    if rec.deleted is not None and deadline is None:
        deadline = rec.deleted + dt.timedelta(days=30)
    return dataclasses.replace(
        rec, reason=reason or None, deadline=deadline, start=0, end=0, layout="section"
    )


@pytest.mark.rule("PM-ARC-5", "PM-REC-2", "PM-REC-4")
@settings(max_examples=examples(500), deadline=None)
@given(_RECORD, st.sampled_from(["\n", "\r\n"]))
def test_format_then_parse_gives_the_record_back(rec: ArchiveRecord, eol: str) -> None:
    [back] = parse_records(format_record(rec, eol))
    assert dataclasses.replace(back, start=0, end=0) == _expected(rec)
    # Also when appended to an existing, hand-written archive index.
    records = parse_records(add_record(LIST_STYLE, rec))
    assert dataclasses.replace(records[-1], start=0, end=0) == _expected(rec)
    assert [_fields(r) for r in records[:-1]] == HAND_WRITTEN["list-style"][1]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.binary().map(textio.decode), st.lists(st.sampled_from([
    "## projects/a.md", "- Index line:", "```", "> x", "| Path | Line |", "|---|---|", "| a.md | `x` |",
    "- **b.md**", "  - Reason: r", "Path: c.md", "- Deleted: 2026-13-45", "", "# Archive", "~~~",
])).map("\n".join)))  # fmt: skip
def test_garbage_never_raises(text: str) -> None:
    for rec in parse_records(text):
        assert rec.path
        assert 0 <= rec.start < rec.end <= len(split_lines(text.lstrip("\ufeff")))


# --- editing --------------------------------------------------------------------------------------

MIXED = (
    "\ufeff# Archive index\r\n"
    "\r\n"
    "Hand-written notes stay as they are.\r\n"
    "\r\n"
    "## notes/first.md\r\n"
    "- Original path: `notes/first.md`\r\n"
    "- Index line: `- notes/first.md — 1`\r\n"
    "- Archived: 2026-11-01\r\n"
    "\r\n"
    "### Archived: projects/middle.md\r\n"
    "- Why: done   \r\n"
    '- Index entry: "- projects/middle.md — m"\r\n'
    "\r\n"
    "## notes/last.md\r\n"
    "- Archived: 2026-11-03"
)


def _lines(text: str) -> list[str]:
    return split_lines(text)


@pytest.mark.rule("PM-DEL-3", "PM-REC-5", "PM-AGENT-2")
def test_replace_section_record_in_place_keeps_other_bytes() -> None:
    old = find_record(parse_records(MIXED), "projects/middle.md")
    assert old is not None and (old.start, old.end) == (9, 12)
    new = dataclasses.replace(old, deleted=D(2026, 12, 1), deadline=D(2026, 12, 31))
    out = replace_record(MIXED, old, new)
    # The agent's lines stay as written; the new fields follow its last field, in its style and line ending.
    assert out == MIXED.replace(
        '- Index entry: "- projects/middle.md — m"\r\n',
        '- Index entry: "- projects/middle.md — m"\r\n'
        "- Deleted: 2026-12-01\r\n- Recovery deadline: 2026-12-31\r\n",
    )
    got = find_record(parse_records(out), "projects/middle.md")
    assert got is not None
    assert _fields(got) == (
        "projects/middle.md",
        "- projects/middle.md — m",
        None,
        "done",
        D(2026, 12, 1),
        D(2026, 12, 31),
    )


def test_replace_last_record_keeps_missing_final_newline() -> None:
    old = find_record(parse_records(MIXED), "notes/last.md")
    assert old is not None
    out = replace_record(MIXED, old, dataclasses.replace(old, reason="why not"))
    assert not out.endswith("\n")
    assert out.startswith(MIXED[: MIXED.index("## notes/last.md")])
    got = find_record(parse_records(out), "notes/last.md")
    assert got is not None and got.reason == "why not"


@pytest.mark.rule("PM-REC-5")
def test_remove_record_keeps_other_bytes() -> None:
    old = find_record(parse_records(MIXED), "projects/middle.md")
    assert old is not None
    out = remove_record(MIXED, old)
    assert out == MIXED.replace(
        "### Archived: projects/middle.md\r\n"
        "- Why: done   \r\n"
        '- Index entry: "- projects/middle.md — m"\r\n'
        "\r\n",
        "",
    )
    last = find_record(parse_records(MIXED), "notes/last.md")
    assert last is not None
    out = remove_record(MIXED, last)
    assert out == MIXED[: MIXED.index("\r\n\r\n## notes/last.md")]
    assert [r.path for r in parse_records(out)] == ["notes/first.md", "projects/middle.md"]


@pytest.mark.rule("PM-DEL-3", "PM-REC-5", "PM-AGENT-2")
def test_table_row_is_updated_in_its_cells() -> None:
    old = find_record(parse_records(TABLE), "projects/a.md")
    assert old is not None and old.layout == "table"
    new = dataclasses.replace(old, deleted=D(2026, 12, 1), deadline=D(2026, 12, 31))
    out = replace_record(TABLE, old, new)
    row = "| projects/a.md | `- [A](projects/a.md) — a \\| b` | 2026-11-30 | done | | |\n"
    assert out == TABLE.replace(row, row.replace("| | |", "| 2026-12-01 | 2026-12-31 |"))
    got = find_record(parse_records(out), "projects/a.md")
    assert got is not None and got.layout == "table"
    assert _fields(got) == (
        "projects/a.md",
        "- [A](projects/a.md) — a | b",
        D(2026, 11, 30),
        "done",
        D(2026, 12, 1),
        D(2026, 12, 31),
    )
    assert remove_record(TABLE, old) == TABLE.replace(row, "")


@pytest.mark.rule("PM-AGENT-2")
def test_list_record_is_updated_in_place() -> None:
    old, second = parse_records(LIST_STYLE)
    out = replace_record(LIST_STYLE, old, dataclasses.replace(old, reason="changed"))
    assert out == LIST_STYLE.replace("Reason: project shipped", "Reason: changed")
    out = replace_record(LIST_STYLE, second, dataclasses.replace(second, deadline=D(2027, 1, 1)))
    assert out == LIST_STYLE + "  - Recovery deadline: 2027-01-01\n"
    # Removing a list item keeps the blank line between the heading and the list.
    assert remove_record(LIST_STYLE, old) == "# Archive index\n\n" + LIST_STYLE.split("\n", 7)[7]


def test_stale_record_is_refused() -> None:
    [rec] = parse_records(LEGACY)
    with pytest.raises(ValueError):
        remove_record("# nothing here\n", rec)
    with pytest.raises(ValueError):
        replace_record("# nothing here\n", rec, rec)


def test_a_moved_record_is_still_found() -> None:
    [rec] = parse_records(LEGACY)
    moved = "# Archive\n\nIntro.\n\n" + LEGACY
    assert remove_record(moved, rec) == "# Archive\n\nIntro.\n"


@pytest.mark.rule("PM-ARC-5")
def test_add_record_crlf_no_final_newline_and_bom() -> None:
    rec = ArchiveRecord(path="notes/n.md", index_line="- notes/n.md — n", archived=D(2026, 12, 2), reason="r")
    out = add_record(MIXED, rec)
    assert out.startswith(MIXED + "\r\n\r\n## notes/n.md\r\n")
    assert out.endswith("\r\n") and "\n" not in out.replace("\r\n", "")
    assert [r.path for r in parse_records(out)] == [
        "notes/first.md",
        "projects/middle.md",
        "notes/last.md",
        "notes/n.md",
    ]
    # An unclosed code fence at the end is closed first, so the record is not swallowed.
    fenced = add_record("# Archive\n\n```\nstuff\n", rec)
    assert fenced.startswith("# Archive\n\n```\nstuff\n```\n\n## notes/n.md\n")
    assert [r.path for r in parse_records(fenced)] == ["notes/n.md"]
    assert add_record("\ufeff", rec).startswith("\ufeff# Archive index\n")


_JUNK_BLOCK = st.sampled_from(
    [
        "## Notes\nKept exactly as written.",
        "# Archive index",
        "## 2026 archive\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        "## Nothing here\n```\n## projects/in-code.md\n```",
    ]
)


@pytest.mark.rule("PM-REC-5", "PM-DEL-3")
@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(_RECORD, _JUNK_BLOCK), min_size=1, max_size=6),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.data(),
)
def test_remove_and_replace_touch_only_their_record(
    blocks: list[ArchiveRecord | str], eol: str, final: bool, data: st.DataObject
) -> None:
    parts = [
        format_record(b, eol) if isinstance(b, ArchiveRecord) else b.replace("\n", eol) + eol for b in blocks
    ]
    text = eol.join(parts)
    if not final:
        text = text[: -len(eol)]
    records = parse_records(text)
    written = [b for b in blocks if isinstance(b, ArchiveRecord)]
    assert [dataclasses.replace(r, start=0, end=0) for r in records] == [_expected(b) for b in written]
    if not records:
        return
    k = data.draw(st.integers(0, len(records) - 1))
    rec = records[k]
    lines = split_lines(text)
    others = [_expected(b) for i, b in enumerate(written) if i != k]

    removed = remove_record(text, rec)
    candidates = []
    for lo, hi in [(rec.start, rec.end), (rec.start - 1, rec.end), (rec.start, rec.end + 1)]:
        if (
            lo >= 0
            and hi <= len(lines)
            and all(not x.strip() for x in lines[lo : rec.start] + lines[rec.end : hi])
        ):
            kept = lines[:lo] + lines[hi:]
            if kept and not final:
                kept[-1] = strip_ending(kept[-1])
            candidates.append("".join(kept))
    assert removed in candidates
    assert [dataclasses.replace(r, start=0, end=0) for r in parse_records(removed)] == others

    new = dataclasses.replace(rec, reason="replaced", deleted=D(2026, 12, 1), deadline=None)
    replaced = replace_record(text, rec, new)
    after = split_lines(replaced)
    assert after[: rec.start] == lines[: rec.start]
    assert after[len(after) - (len(lines) - rec.end) :] == lines[rec.end :]
    again = parse_records(replaced)
    assert [dataclasses.replace(r, start=0, end=0) for r in again[:k] + again[k + 1 :]] == others
    assert again[k].reason == "replaced" and again[k].deadline == D(2026, 12, 31)
