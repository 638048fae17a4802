"""A search result's two lines (`HitLines`): drawn straight to strips, cut to the width with an ellipsis,
never wrapped, the matches highlighted on top of the option's own style."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rich.cells import cell_len
from rich.style import Style as RichStyle
from textual.style import Style

from pmem_tui.core.search import Hit
from pmem_tui.core.search.find import matcher, snippet
from pmem_tui.core.search.query import parse as parse_query
from pmem_tui.tui.widgets.hit_lines import ELLIPSIS, HitLines, hit_parts

BASE = Style.from_rich_style(RichStyle(bgcolor="#102030", color="#e0e0e0"))


def _hit(snippet: str, spans: tuple[tuple[int, int], ...], location: str = "active") -> Hit:
    return Hit("notes/a.md", location, 7, snippet, spans, 1.0)


def _render(hit: Hit, width: int) -> list[Any]:
    return HitLines(hit).render_strips(width, None, BASE, None)  # type: ignore[arg-type]


def test_two_lines_where_and_the_snippet_with_its_matches() -> None:
    head, body = hit_parts(_hit("find the quokka here", ((9, 15),), "archive"))
    assert head == (("notes/a.md", "bold"), (":7", "cyan"), ("  archive", "yellow"))
    assert body == (("  ", ""), ("find the ", ""), ("quokka", "bold reverse"), (" here", ""))
    assert hit_parts(_hit("x", ()))[0][-1] == (":7", "cyan")  # an active file's place is not said


def test_a_match_is_drawn_on_the_options_own_style() -> None:
    strips = _render(_hit("find the quokka here", ((9, 15),)), 80)
    assert [strip.text for strip in strips] == ["notes/a.md:7", "  find the quokka here"]
    segments = {seg.text: seg.style for seg in strips[1]}
    match = segments["quokka"]
    assert match is not None and match.bold and match.reverse and match.bgcolor == BASE.rich_style.bgcolor
    plain = segments["find the "]
    assert plain is not None and not plain.reverse and plain.bgcolor == BASE.rich_style.bgcolor


def test_a_long_line_is_cut_with_an_ellipsis_never_wrapped() -> None:
    snippet = "word " * 40 + "quokka"
    strips = _render(_hit(snippet, ((200, 206),)), 30)
    assert len(strips) == 2 and all(strip.cell_length <= 30 for strip in strips)
    assert strips[1].cell_length == 30 and strips[1].text.startswith("  " + ELLIPSIS)
    assert strips[1].text == "  " + ELLIPSIS + snippet[-27:]  # the match at the end: the line's end
    # a match wider than the window: its start, and the ellipsis highlighted as the cell it replaces
    cut = _render(_hit("ab quokka", ((3, 9),)), 7)[1]
    assert cut.text == "  " + ELLIPSIS + "quo" + ELLIPSIS
    last = list(cut)[-1]
    assert last.text == ELLIPSIS and last.style is not None and last.style.reverse


def _shown(strip: Any) -> tuple[str, list[str]]:
    """A strip's text and the texts drawn highlighted (the matches)."""
    return strip.text, [seg.text for seg in strip if seg.style is not None and seg.style.reverse]


# The trial's line: an agent's one-line paragraph whose only match is at its end (the core's snippet keeps
# its last 120 characters, the match 90 in, and the list cut it off from the right).
TRIAL = (
    "The migration should wait until the quarterly freeze ends, because the billing reconciliation job runs "
    "nightly and any schema change during the freeze window needs sign-off from finance; the rollout plan "
    "depends on zanzibar being stable."
)


def _found(text: str, query: str) -> Hit:
    pattern = matcher(parse_query(query))
    line, snippet_text, spans = snippet(text, pattern)
    return Hit("notes/a.md", "active", line, snippet_text, spans, 1.0)


@pytest.mark.parametrize("width", [20, 40, 76, 100, 156])  # the list at 80 and 160 columns, and narrower
def test_the_match_shows_whatever_the_width(width: int) -> None:
    hit = _found("# Plan\n\n" + TRIAL + "\n", "zanzibar")
    body = _render(hit, width)[1]
    text, marked = _shown(body)
    assert body.cell_length <= width and marked == ["zanzibar"]
    assert text.startswith("  ")
    if body.cell_length == width:  # cut: an ellipsis on each side cut away
        assert text.startswith("  " + ELLIPSIS) and ELLIPSIS not in text[3:-1]


@pytest.mark.parametrize("width", [30, 76, 156])
@pytest.mark.parametrize(
    "text, query, expected",
    [
        ("zanzibar " + "filler words " * 30, "zanzibar", "zanzibar"),
        ("filler words " * 30 + "zanzibar", "zanzibar", "zanzibar"),
        ("filler " * 20 + "quokka and zanzibar " + "filler " * 20 + "zanzibar", "zanzibar", "zanzibar"),
        ("会议记录" * 40 + "季度预算" + "会议记录" * 40, "季度预算", "季度预算"),
        ("会议记录" * 40 + "季度预算", "季度预算", "季度预算"),
    ],
    ids=["at-the-start", "at-the-end", "two-words-two-matches", "wide-in-the-middle", "wide-at-the-end"],
)
def test_the_first_match_is_the_highlighted_span(text: str, query: str, expected: str, width: int) -> None:
    hit = _found(text + "\n", query)
    body = _render(hit, width)[1]
    shown, marked = _shown(body)
    assert body.cell_length <= width
    assert marked and marked[0] == expected, shown


def test_several_matches_on_one_line_each_highlighted_when_shown() -> None:
    hit = _found("filler " * 30 + "zanzibar then zanzibar again " + "filler " * 30 + "\n", "zanzibar")
    shown, marked = _shown(_render(hit, 60)[1])
    assert marked == ["zanzibar", "zanzibar"], shown


def test_a_five_megabyte_line_shows_its_match_cheaply() -> None:
    text = "# Huge\n\n" + "y" * 5_000_000 + " quokka is here.\n"
    hit = _found(text, "quokka")
    started = time.perf_counter()
    strips = _render(hit, 76)
    took = time.perf_counter() - started
    shown, marked = _shown(strips[1])
    assert marked == ["quokka"] and shown.endswith("quokka is here."), shown
    assert took < 0.01  # the window is over the snippet (120 characters), never the line


def test_a_window_never_splits_the_cell_count_on_a_wide_character() -> None:
    for width in range(8, 40):
        for lead in range(0, 12):
            hit = _hit("x" * lead + "会议记录" * 20 + "zz" + "会议" * 20, ((lead + 80, lead + 82),))
            body = _render(hit, width)[1]
            shown, marked = _shown(body)
            assert body.cell_length == width and cell_len(shown) == width
            assert marked == ["zz"], (width, lead, shown)


def test_wide_characters_are_counted_in_cells() -> None:
    snippet = "会议记录：季度计划与预算评审会议记录"
    strips = _render(_hit(snippet, ((0, 4),)), 20)
    assert all(strip.cell_length <= 20 for strip in strips)
    assert strips[1].text.startswith("  会议记录") and strips[1].text.rstrip().endswith(ELLIPSIS)
