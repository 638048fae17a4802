"""`_index.md`: reading hand-written routes, and editing one line without touching any other byte."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pmem_tui.core import index as index_mod
from pmem_tui.core import textio
from pmem_tui.core.index import (
    append_line,
    find_entries,
    insert_at,
    insert_line,
    make_line,
    neighbours,
    normalize_route,
    parse_index,
    parse_line,
    read_index,
    remove_line,
    replace_line,
)
from pmem_tui.core.model import IndexEntry
from pmem_tui.core.textio import split_bom, split_lines, strip_ending
from tests.campaign import examples

# --- textio ---------------------------------------------------------------------------------------


@given(st.binary(max_size=200))
def test_decode_encode_round_trips_any_bytes(data: bytes) -> None:
    assert textio.encode(textio.decode(data)) == data


def test_invalid_utf8_is_kept_and_shown_as_replacement() -> None:
    data = b"- projects/a.md \xff\xfe caf\xc3\xa9\n"
    text = textio.decode(data)
    assert not textio.is_valid_utf8(data)
    assert textio.is_valid_utf8("café".encode())
    assert textio.encode(text) == data
    assert textio.display(text) == "- projects/a.md \ufffd\ufffd café\n"


def test_encode_replaces_surrogates_decode_never_makes() -> None:
    assert textio.encode("a\ud800b") == "a\ufffdb".encode()


def test_split_lines_only_on_lf_and_crlf() -> None:
    text = "a\x0bb\x0cc\x1cd\u2028e\x85f\rg\r\nh\ni"
    assert textio.split_lines(text) == ["a\x0bb\x0cc\x1cd\u2028e\x85f\rg\r\n", "h\n", "i"]
    assert textio.split_lines("") == []
    assert textio.split_lines("\n\n") == ["\n", "\n"]


@given(st.text())
def test_split_lines_joins_back(text: str) -> None:
    assert "".join(textio.split_lines(text)) == text


def test_dominant_eol() -> None:
    assert textio.dominant_eol("a\r\nb\r\nc\n") == "\r\n"
    assert textio.dominant_eol("a\r\nb\n") == "\n"
    assert textio.dominant_eol("abc") == "\n"


def test_code_span_round_trip_examples() -> None:
    for content in ["x", "`", "a `b` c", " lead", "trail ", " both ", "  ", "``x``", "- [A](a.md) — `x`"]:
        span = textio.code_span(content)
        assert textio.read_code_span(span) == (content, "")


# --- parse_line: the accepted shapes --------------------------------------------------------------

ACCEPTED = [
    ("- [Old](projects/old.md) — an old thing", ("projects/old.md", "Old", "an old thing")),
    ("* [Old](projects/old.md) – en dash", ("projects/old.md", "Old", "en dash")),
    ("+ [Old](projects/old.md) - spaced hyphen", ("projects/old.md", "Old", "spaced hyphen")),
    ("1. [Old](projects/old.md): colon", ("projects/old.md", "Old", "colon")),
    ("12) [Old](projects/old.md) — numbered paren", ("projects/old.md", "Old", "numbered paren")),
    ("    - [Old](projects/old.md) — indented", ("projects/old.md", "Old", "indented")),
    ("\t- [Old](projects/old.md) — tab", ("projects/old.md", "Old", "tab")),
    ("- [Old](projects/old.md)", ("projects/old.md", "Old", None)),
    ("- [Old](projects/old.md) —", ("projects/old.md", "Old", None)),
    ("- [My plan](<projects/my plan.md>) — angle", ("projects/my plan.md", "My plan", "angle")),
    ("- [My plan](projects/my plan.md) — spaces", ("projects/my plan.md", "My plan", "spaces")),
    ("- [My plan](projects/my%20plan.md) — escaped", ("projects/my plan.md", "My plan", "escaped")),
    ("- [v2](projects/plan (v2).md) — parens", ("projects/plan (v2).md", "v2", "parens")),
    ("- [odd](projects/a).md) — unbalanced", ("projects/a).md", "odd", "unbalanced")),
    ("- [b](projects/[draft] b.md) — brackets", ("projects/[draft] b.md", "b", "brackets")),
    ("- [A [x]](projects/a.md) — nested title", ("projects/a.md", "A [x]", "nested title")),
    ("- [项目](projects/项目 (一).md) — 中文摘要", ("projects/项目 (一).md", "项目", "中文摘要")),
    ('- [A](projects/a.md "link title") — titled', ("projects/a.md", "A", "titled")),
    ("- [A](projects/a.md#section) — fragment", ("projects/a.md", "A", "fragment")),
    ("- [A](./projects/a.md) — dot slash", ("projects/a.md", "A", "dot slash")),
    ("- [A](~/.persistent-memory/projects/a.md) — home", ("projects/a.md", "A", "home")),
    ("- [A](projects/a.md) loose summary", ("projects/a.md", "A", "loose summary")),
    ("- **[A](projects/a.md)** — bold link", ("projects/a.md", "A", "bold link")),
    ("- projects/a.md — bare", ("projects/a.md", None, "bare")),
    ("- projects/a.md", ("projects/a.md", None, None)),
    ("- projects/my plan [v2].md — bare spaces", ("projects/my plan [v2].md", None, "bare spaces")),
    ("- notes/日记 2026.md — 中文", ("notes/日记 2026.md", None, "中文")),
    ("- projects/a.md: colon summary", ("projects/a.md", None, "colon summary")),
    ("- projects/a.md：全角冒号", ("projects/a.md", None, "全角冒号")),
    # a pipe, as a table-minded agent writes it (found in trial: the summary kept its "| ")
    (
        "1. [Decisions](projects/alpha/decisions.md) | decisions log",
        ("projects/alpha/decisions.md", "Decisions", "decisions log"),
    ),
    ("- `notes/a.md` | s", ("notes/a.md", None, "s")),
    ("- projects/a.md——中文破折号", ("projects/a.md", None, "中文破折号")),
    ("- projects/a.md - hyphen", ("projects/a.md", None, "hyphen")),
    ("- `projects/a.md` — code", ("projects/a.md", None, "code")),
    ("- ``projects/a`b.md`` — code with backtick", ("projects/a`b.md", None, "code with backtick")),
    ("- `projects/my plan.md`", ("projects/my plan.md", None, None)),
    ("- **Old** (projects/old.md) — bold title", ("projects/old.md", "Old", "bold title")),
    ("- __Old__ (projects/old.md)", ("projects/old.md", "Old", None)),
    ("- **projects/old.md** — bold path", ("projects/old.md", None, "bold path")),
    ("- Old project (projects/old.md) — plain title", ("projects/old.md", "Old project", "plain title")),
    ("- <projects/a b.md> — autolink style", ("projects/a b.md", None, "autolink style")),
    ("- [ ] projects/a.md — task", ("projects/a.md", None, "task")),
    ("- ~/.persistent-memory/notes/n.md — home prefix", ("notes/n.md", None, "home prefix")),
    ("- a.md — top level", ("a.md", None, "top level")),
    ("- [A](projects/a.md) — summary with — dashes: and [links](x.md)", None),  # checked below
]


@pytest.mark.rule("PM-LOAD-3", "PM-CORE-5")
@pytest.mark.parametrize(("line", "expected"), [a for a in ACCEPTED if a[1] is not None])
def test_parse_line_accepts(line: str, expected: tuple[str, str | None, str | None]) -> None:
    assert parse_line(line) == expected
    assert parse_line(line + "\r\n") == expected  # a line may still carry its ending


def test_summary_keeps_later_separators_and_links() -> None:
    assert parse_line("- [A](projects/a.md) — summary with — dashes: and [links](x.md)") == (
        "projects/a.md",
        "A",
        "summary with — dashes: and [links](x.md)",
    )


REJECTED = [
    "# Index",
    "## projects/a.md",
    "projects/a.md — not a list item",
    "-projects/a.md — no space after the bullet",
    "- notes/a.txt — not markdown",
    "- [A](projects/a.mdx) — not .md",
    "- [A](projects/A.MD) — upper-case extension",
    "- See the README.md — prose with spaces",
    "- Old: projects/old.md — a title before a colon is prose",
    "- [x](https://example.com/a.md) — a URL",
    "- <https://example.com/a.md>",
    "- just some words",
    "- ",
    "-",
    "",
    "> - projects/a.md — quoted",
    "| projects/a.md | table |",
    "- [A](projects/a.md — unclosed",
    "- projects/.md — no name",
    "- `projects/a.md — unclosed code",
    "- [A](projects/a.md)x — glued text",
    "<!-- - projects/a.md — comment -->",
]


@pytest.mark.rule("PM-CORE-5")
@pytest.mark.parametrize("line", REJECTED)
def test_parse_line_rejects(line: str) -> None:
    assert parse_line(line) is None


def test_normalize_route() -> None:
    assert normalize_route("./././a.md") == "a.md"
    assert normalize_route("/home/me/.persistent-memory/notes/x.md") == "notes/x.md"
    assert normalize_route("notes/x.txt") is None
    assert normalize_route("http://x/y.md") is None


# --- parse_index ----------------------------------------------------------------------------------

INDEX = (
    "\ufeff# Memory index\r\n"
    "\r\n"
    "Routes for on-demand memory. Keep one line per file.\r\n"
    "\r\n"
    "## Projects\r\n"
    "- [Old](projects/old.md) — an old thing\r\n"
    "- projects/new.md: the new one\r\n"
    "\r\n"
    "```\r\n"
    "- projects/in-code.md — not an entry\r\n"
    "```\r\n"
    "<!--\r\n"
    "- projects/commented.md — not an entry\r\n"
    "-->\r\n"
    "## Notes\r\n"
    "1. `notes/x.md` — x\r\n"
    "- notes/readme.txt — not markdown"
)


@pytest.mark.rule("PM-CORE-5", "PM-LOAD-3")
def test_parse_index_finds_entries_and_skips_code_and_comments() -> None:
    entries = parse_index(INDEX)
    assert [(e.line_no, e.route, e.title, e.summary) for e in entries] == [
        (5, "projects/old.md", "Old", "an old thing"),
        (6, "projects/new.md", None, "the new one"),
        (15, "notes/x.md", None, "x"),
    ]
    assert entries[0].raw == "- [Old](projects/old.md) — an old thing"
    assert find_entries(INDEX, "notes/x.md")[0].line_no == 15
    assert find_entries(INDEX, "projects/in-code.md") == []


def test_parse_index_front_matter_and_bom_first_line() -> None:
    text = "---\nfiles:\n- projects/yaml.md\n---\n- projects/a.md — a\n"
    assert [e.route for e in parse_index(text)] == ["projects/a.md"]
    bom = "\ufeff- projects/a.md — a"
    [entry] = parse_index(bom)
    assert entry.raw == "- projects/a.md — a"  # the BOM belongs to the file, not to the line


@pytest.mark.parametrize(
    "text",
    [INDEX, "---\nfiles:\n- projects/yaml.md\n---\n- projects/a.md — a\n", "\ufeff- [A](./projects/a.md)\n"],
)
def test_parse_rows_are_the_entries_fields(text: str) -> None:
    rows = index_mod.parse_rows(text)
    assert rows == [(e.line_no, e.raw, e.route, e.title, e.summary) for e in parse_index(text)]
    assert rows and all(type(row) is tuple and len(row) == 5 for row in rows)


def test_duplicate_routes_are_all_found() -> None:
    text = "- projects/a.md — one\n- [A](projects/a.md) — two\n"
    assert [e.line_no for e in find_entries(text, "projects/a.md")] == [0, 1]


# --- editing --------------------------------------------------------------------------------------


@pytest.mark.rule("PM-ARC-4", "PM-CORE-5")
def test_remove_line_touches_only_that_line() -> None:
    out = remove_line(INDEX, 5)
    assert out == INDEX.replace("- [Old](projects/old.md) — an old thing\r\n", "")
    assert out.startswith("\ufeff# Memory index\r\n")
    assert not out.endswith("\n")


def test_remove_last_line_without_final_newline_keeps_none() -> None:
    assert remove_line("a\nb\nc", 2) == "a\nb"
    assert remove_line("a\nb\nc\n", 2) == "a\nb\n"
    assert remove_line("\ufeffonly", 0) == "\ufeff"
    assert remove_line("a\r\n\r\nc", 2) == "a\r\n\r\n"  # a blank line without its ending would vanish


def test_remove_line_out_of_range() -> None:
    with pytest.raises(IndexError):
        remove_line("a\n", 1)
    with pytest.raises(IndexError):
        replace_line("", 0, "x")


def test_neighbours() -> None:
    text = "\ufeffa\r\nb\r\nc"
    assert neighbours(text, 0) == (None, "b")
    assert neighbours(text, 1) == ("a", "c")
    assert neighbours(text, 2) == ("b", None)


@pytest.mark.rule("PM-REC-4")
def test_insert_line_back_between_its_neighbours() -> None:
    text = "# I\n- projects/a.md — a\n- projects/b.md — b\n- projects/c.md — c\n"
    after, before = neighbours(text, 2)
    removed = remove_line(text, 2)
    assert insert_line(removed, "- projects/b.md — b", after, before) == text


def test_insert_line_fallbacks() -> None:
    text = "# I\n- x.md\n\n- y.md\n"
    # Only one neighbour left: the old place is gone, so the line goes at the end (issue 2's rule).
    assert insert_line(text, "- n.md", "- gone.md", "- y.md") == text + "- n.md\n"
    assert insert_line(text, "- n.md", "- x.md", "- gone.md") == text + "- n.md\n"
    # Both neighbours still together: between them.
    assert insert_line(text, "- n.md", "- x.md", "") == "# I\n- x.md\n- n.md\n\n- y.md\n"
    # Neither: at the end.
    assert insert_line(text, "- n.md", "- gone.md", "- gone2.md") == text + "- n.md\n"
    # Blank neighbours alone say nothing about the place.
    assert insert_line(text, "- n.md", "", "") == text + "- n.md\n"
    # At the top: `after` None and the first line is `before`.
    assert insert_line(text, "- n.md", None, "# I") == "- n.md\n" + text
    # At the end: `after` is the last line.
    assert insert_line(text, "- n.md", "- y.md", None) == text + "- n.md\n"


def test_insert_line_uses_dominant_eol_and_keeps_missing_final_newline() -> None:
    assert insert_line("a\r\nb\r\nc", "x", "a", "b") == "a\r\nx\r\nb\r\nc"
    assert insert_line("a\r\nb", "x", "b", None) == "a\r\nb\r\nx"
    assert append_line("a\r\nb\r\n", "x") == "a\r\nb\r\nx\r\n"
    assert append_line("a\r\nb", "x") == "a\r\nb\r\nx"


def test_insert_into_empty_file() -> None:
    assert insert_line("", "- a.md", None, None) == "- a.md\n"
    assert insert_line("\ufeff", "- a.md", "gone", "gone") == "\ufeff- a.md\n"
    assert append_line("", "- a.md") == "- a.md\n"


def test_insert_at_and_replace_line() -> None:
    assert insert_at("\ufeffa\nb\n", 0, "x") == "\ufeffx\na\nb\n"
    assert insert_at("a\nb", 99, "x") == "a\nb\nx"
    assert replace_line("a\r\nb\nc", 0, "A") == "A\r\nb\nc"
    assert replace_line("a\r\nb\nc", 2, "C") == "a\r\nb\nC"


# --- make_line ------------------------------------------------------------------------------------


@pytest.mark.rule("PM-SAVE-3")
def test_make_line_shapes() -> None:
    assert make_line("projects/a.md", "A", "an a") == "- [A](projects/a.md) — an a"
    assert make_line("projects/my plan.md", "Plan", None) == "- [Plan](<projects/my plan.md>)"
    assert make_line("projects/a.md", None, "x") == "- projects/a.md — x"
    assert make_line("my plan.md", None, "x") == "- `my plan.md` — x"
    assert make_line("projects/a.md", "A", "two\nlines") == "- [A](projects/a.md) — two lines"
    with pytest.raises(ValueError):
        make_line("/abs/a.md", None, None)
    with pytest.raises(ValueError):
        make_line("notes/a.txt", None, None)


_SEGMENT = st.text(
    alphabet=st.sampled_from(list("abcXYZ019 -_.()[]<>%\\'\"`#&项目日记ü")), min_size=1, max_size=8
).filter(lambda s: s.strip() == s and s not in (".", ".."))
_ROUTE = st.builds(
    lambda parts, name: "/".join([*parts, name + ".md"]),
    st.lists(_SEGMENT, max_size=2),
    _SEGMENT,
)
_WORDS = st.one_of(st.none(), st.text(min_size=1, max_size=30).map(lambda s: s.strip() or "x"))


@settings(max_examples=500, deadline=None)
@given(_ROUTE, _WORDS, _WORDS)
def test_make_line_reads_back(route: str, title: str | None, summary: str | None) -> None:
    assume(normalize_route(route) == route and not route.startswith("\\"))
    assume(title is None or ("\n" not in title and "\r" not in title))
    assume(summary is None or ("\n" not in summary and "\r" not in summary))
    line = make_line(route, title, summary)
    assert parse_line(line) == (route, title, summary)
    assert [e.route for e in parse_index(line + "\n")] == [route]


# --- properties over generated index files --------------------------------------------------------

_entry_line = st.builds(
    lambda route, title, summary, bullet, indent: (
        indent + bullet + " " + make_line(route, title, summary)[2:]
    ),
    _ROUTE.filter(lambda r: normalize_route(r) == r and not r.startswith("\\")),
    _WORDS.filter(lambda s: s is None or not any(c in s for c in "\r\n")),
    _WORDS.filter(lambda s: s is None or not any(c in s for c in "\r\n")),
    st.sampled_from(["-", "*", "+", "1.", "2)"]),
    st.sampled_from(["", "  "]),
)
_junk_line = st.one_of(
    st.text(max_size=30),
    st.binary(max_size=20).map(textio.decode),  # invalid UTF-8 survives as surrogate escapes
    st.sampled_from(["", "", "# Index", "## Projects", "```", "<!--", "-->", "---", "- ", "\x0b\x0c\u2028"]),
).map(lambda s: s.replace("\n", " ").rstrip("\r"))
_file = st.builds(
    lambda lines, eol, bom, final: (
        ("\ufeff" if bom else "") + eol.join(lines) + (eol if final and lines else "")
    ),
    st.lists(st.one_of(_entry_line, _junk_line), min_size=1, max_size=12),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)


def _bodies(text: str) -> list[str]:
    return [strip_ending(x) for x in split_lines(split_bom(text)[1])]


def _unambiguous(removed: str, after: str | None, before: str | None) -> bool:
    if after is None:
        return True
    bodies = _bodies(removed)
    n = len(bodies)
    hits = [
        i
        for i, b in enumerate(bodies)
        if b == after
        and (
            (before is None and i == n - 1) or (before is not None and i + 1 < n and bodies[i + 1] == before)
        )
    ]
    return len(hits) == 1


@pytest.mark.rule("PM-ARC-4", "PM-REC-4", "PM-CORE-5")
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_file, st.data())
def test_remove_then_insert_gives_back_the_same_text(text: str, data: st.DataObject) -> None:
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = split_lines(split_bom(text)[1])
    assume(lines)
    n = data.draw(st.integers(0, len(lines) - 1))
    raw = strip_ending(lines[n])
    after, before = neighbours(text, n)
    removed = remove_line(text, n)
    # A U+FEFF that starts the next line becomes the file's first character: its bytes are kept exactly,
    # but it now reads as a BOM, so the line-by-line comparisons below no longer apply.
    assume(split_bom(removed)[0] == split_bom(text)[0])

    # remove_line changes exactly one line.
    bodies = _bodies(text)
    assert _bodies(removed) == bodies[:n] + bodies[n + 1 :]
    bom = split_bom(text)[0]
    assert removed.startswith(bom)
    if textio.line_ending(lines[n]) or n == 0:
        assert removed == bom + "".join(lines[:n] + lines[n + 1 :])

    restored = insert_line(removed, raw, after, before)
    rest = split_bom(removed)[1]
    knowable = "\n" in rest or (eol == "\n" and rest != "")
    blank_before_last = (
        n == len(lines) - 1 and n > 0 and not textio.line_ending(lines[n]) and not bodies[n - 1]
    )
    if knowable and _unambiguous(removed, after, before) and not blank_before_last:
        assert restored == text
        assert textio.encode(restored) == textio.encode(text)
    else:
        # Still nothing else moved: taking the inserted line out again gives the same text.
        back = _bodies(restored)
        assert any(b == raw and remove_line(restored, k) == removed for k, b in enumerate(back))


@settings(max_examples=500, deadline=None)
@given(st.one_of(_file, st.text(), st.binary().map(textio.decode)))
def test_parse_never_raises(text: str) -> None:
    for entry in parse_index(text):
        assert entry.route.endswith(".md")
        assert "\n" not in entry.raw
        assert _bodies(text)[entry.line_no] == entry.raw
    for line in text.split("\n")[:20]:
        parse_line(line)


# --- parse_index's fast path for canonical lines: the same entries as `parse_line` on every line ---------

_PIECES = [
    "- ",
    "* ",
    "1. ",
    "12) ",
    "  - ",
    "-\t",
    "[",
    "]",
    "(",
    ")",
    "t",
    " ",
    "\t",
    "—",
    "–",
    "——",
    "x.md",
    "a/b.md",
    "./",
    ".persistent-memory/",
    "~/",
    "/.md",
    ".md",
    "http://",
    ":",
    "\\",
    "`",
    "**",
    "\xa0",
    "\u3000",
    "\r",
    "\ufeff",
    "%20",
    "<",
    ">",
    "é",
    "[ ] ",
    "[x] ",
    '"',
    "'",
    "y z",
    "## h",
    "```",
]
_DESTS = [
    "a/b-c_d.md",
    "a.md.md",
    "a.mdx.md",
    "./a.md",
    "x/.md",
    ".md",
    "..md",
    "~/.persistent-memory/a.md",
    "a:b.md",
    "a b.md",
    "p/中.md",
]
_TAILS = ["—", "–", " ", "\t", "s", "\xa0", "——", ":", "：", "\r", ".md", "`"]


def _slow_entries(text: str) -> list[tuple[int, str, str | None, str | None]]:
    """What parse_index gives, from `parse_line` alone (no fence or front matter in these texts)."""
    _, body = split_bom(text)
    out = []
    for n, line in enumerate(split_lines(body)):
        parsed = parse_line(strip_ending(line))
        if parsed is not None:
            out.append((n, *parsed))
    return out


@settings(max_examples=examples(1000), suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.lists(st.sampled_from([p for p in _PIECES if p != "```"]), max_size=10).map("".join),
            st.tuples(
                st.sampled_from(["- ", "* ", "3) ", "  + "]),
                st.text(st.sampled_from("t *_é]["), max_size=5),
                st.sampled_from(_DESTS),
                st.lists(st.sampled_from(["—", "–", " ", "\t", "s", "\xa0", "——", ":", "\r"]), max_size=5),
            ).map(lambda t: f"{t[0]}[{t[1]}]({t[2]}){''.join(t[3])}"),
            st.tuples(
                st.sampled_from(["- ", "* ", "3) ", "- [ ] "]),
                st.sampled_from(["", "`", "**"]),
                st.sampled_from(_DESTS),
                st.lists(st.sampled_from(_TAILS), max_size=6),
            ).map(lambda t: f"{t[0]}{t[1]}{t[2]}{t[1]}{''.join(t[3])}"),
        ),
        max_size=8,
    ),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_parse_index_matches_parse_line_on_every_line(lines: list[str], eol: str, final: bool) -> None:
    text = eol.join(lines) + (eol if final else "")
    got = [(e.line_no, e.route, e.title, e.summary) for e in parse_index(text)]
    assert got == _slow_entries(text)
    for e in parse_index(text):
        assert "\n" not in e.raw and not e.raw.endswith("\r\n")


def test_parse_index_fast_path_shapes() -> None:
    text = (
        "- [Title](projects/a.md) — the summary\n"
        "- [ Spaced ](b.md)\n"
        "- [](./c.md) —— dashes\n"
        "- [t](~/.persistent-memory/d.md) – en dash  \n"
        "- [t](x/.md) — not a route\n"
        "1. [t](e.md)—tight\r\n"
        "- [t](f.md) — trailing nbsp\xa0\n"
        "- [t](g.md) —\n"
        "- [t](h.md)\r\n"
        "- projects/x.md — bare\n"
        "- `projects/y.md`: code\n"
        "- z.md:\n"
    )
    got = [(e.line_no, e.route, e.title, e.summary) for e in parse_index(text)]
    assert got == _slow_entries(text)
    assert got[:4] == [
        (0, "projects/a.md", "Title", "the summary"),
        (1, "b.md", "Spaced", None),
        (2, "c.md", None, "dashes"),
        (3, "d.md", "t", "en dash"),
    ]
    assert got[-3:] == [
        (9, "projects/x.md", None, "bare"),
        (10, "projects/y.md", None, "code"),
        (11, "z.md", None, None),
    ]


# --- entries keep a shape, not their line (memory): `raw` must still be the line, byte for byte ----------

_fast_line = st.builds(
    lambda indent, bullet, gap, part, sep, summary, tail: indent + bullet + gap + part + sep + summary + tail,
    st.sampled_from(["", "  ", "\t"]),
    st.sampled_from(["-", "*", "+", "1.", "12)"]),
    st.sampled_from([" ", "\t", "  "]),
    st.one_of(
        st.builds(
            lambda t, r: f"[{t}]({r})",
            st.sampled_from(["", "T", " T ", "  ", "项目 x", "a—b"]),
            st.sampled_from(["a.md", "projects/a.md", "./a.md", "notes/.md", "x/.persistent-memory/b.md"]),
        ),
        st.sampled_from(["`projects/a.md`", "projects/a-b_c.md", "notes/x.y.md"]),
    ),
    st.sampled_from(["", " — ", "—", " – ", ": ", "：", " : ", " —  ", " ——"]),
    st.sampled_from(["", "s", "sum — mary", "项目", "x: y", "a " * 3]),
    st.sampled_from(["", " ", "\t", "  "]),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_fast_line, _file))
def test_every_entry_gives_back_its_line(text: str) -> None:
    """Whatever shape a line has, the entry parsed from it gives back exactly that line, and equals (and
    hashes as) an entry made from the line itself."""
    bodies = _bodies(text)
    for entry in parse_index(text):
        assert entry.raw == bodies[entry.line_no]
        whole = IndexEntry(entry.line_no, bodies[entry.line_no], entry.route, entry.title, entry.summary)
        assert whole == entry and hash(whole) == hash(entry)
        assert whole.raw == entry.raw


@pytest.mark.parametrize(("line", "expected"), [a for a in ACCEPTED if a[1] is not None])
def test_accepted_lines_give_back_their_line(line: str, expected: tuple[str, str | None, str | None]) -> None:
    (entry,) = parse_index(line)
    assert (entry.raw, entry.route, entry.title, entry.summary) == (line, *expected)


_part = st.one_of(st.none(), st.text(max_size=6), st.sampled_from(["a", "—", " ", "x.md"]))


@given(st.text(max_size=20), st.text(max_size=6), _part, _part)
def test_an_entry_gives_back_any_line_it_is_made_from(
    raw: str, route: str, title: str | None, summary: str | None
) -> None:
    """Parts that are not in the line, in another order, or repeated: the line still comes back exactly."""
    entry = IndexEntry(3, raw, route, title, summary)
    assert (entry.line_no, entry.raw, entry.route, entry.title, entry.summary) == (
        3,
        raw,
        route,
        title,
        summary,
    )
    assert entry == IndexEntry(3, raw, route, title, summary)
    assert entry != IndexEntry(3, raw + "x", route, title, summary)
    assert repr(entry).startswith("IndexEntry(line_no=3, raw=")
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.route = "other.md"  # type: ignore[misc]


def test_lines_share_their_shape() -> None:
    a, b = parse_index("- [A](projects/a.md) — one\n- [B](notes/b.md) — two\n")
    assert a._form is b._form  # one shape for both lines, not two lines


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(_file, st.lists(st.one_of(_fast_line, _junk_line), max_size=30).map("\n".join)),
    st.sampled_from([1, 2, 7, 64]),
)
@example("---\n- 0.md\n- 0.md\n---", 1)  # front matter seen even when a block is shorter than its "---"
def test_read_index_block_by_block_equals_parse_index(text: str, block: int) -> None:
    """Blocks end anywhere in a line, in a fence or a comment, after a BOM: the entries are the same."""
    data = textio.encode(text)
    saved = index_mod.READ_BLOCK
    index_mod.READ_BLOCK = block
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "_index.md"
            path.write_bytes(data)
            got = read_index(path)
            assert read_index(Path(tmp) / "missing.md") is None
    finally:
        index_mod.READ_BLOCK = saved
    assert got == parse_index(textio.decode(data))
