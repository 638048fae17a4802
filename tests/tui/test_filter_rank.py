"""The filter keeps strong matches only (issue 14, item 7): the query as typed, or its letters in chunks
that each begin a word; scattered letters no longer match. The matched characters are highlighted."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_filter import term_matches
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.widgets.fuzzy import highlights, term_positions, term_test

LINE = st.text(alphabet="abrdl-/. _Éé1", max_size=40)
TERM = st.text(alphabet="abrdlé1", min_size=2, max_size=5)


@given(LINE, TERM)
def test_the_regex_the_highlight_and_the_plain_definition_agree(line: str, term: str) -> None:
    matched = bool(next(iter(term_test(term)([line]))))
    assert matched == term_matches(term, line)
    positions = term_positions(line, term)
    assert bool(positions) == matched
    assert "".join(line[i] for i in positions) == term if matched else positions == []


def test_scattered_letters_do_not_match() -> None:
    test = term_test("read")
    assert not next(iter(test(["routing service\ngo rewrite live, p95 180 ms"])))
    assert next(iter(test(["notes/reading-list.md"])))
    assert next(iter(term_test("rl")(["notes/reading-list.md"])))  # word starts: reading, list
    assert not next(iter(term_test("rl")(["notes/our-plan.md"])))  # r and l inside words


async def test_read_finds_the_reading_lists_and_highlights_the_match(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"read")
        await settle(pilot)
        assert app.main_screen is not None
        lst = app.main_screen.view("index").list
        assert [r.path for r in lst.rows] == ["notes/reading-list.md", "notes/reading-list-2.md"]
        strip = lst.render_line(0)
        underlined = "".join(s.text for s in strip if s.style is not None and s.style.underline)
        assert "read" in underlined.lower()
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"rl")
        await settle(pilot)
        assert {"notes/reading-list.md", "notes/reading-list-2.md"} <= {r.path for r in lst.rows}


def test_highlights_prefer_the_query_as_typed() -> None:
    assert highlights("Reading list", "read") == [0, 1, 2, 3]
    assert highlights("Reading list", "rl") == [0, 8]
    assert highlights("İstanbul", "st") == []  # lowercasing changes the length: no highlight, no error
