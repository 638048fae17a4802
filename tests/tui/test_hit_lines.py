"""A search result's two lines (`HitLines`): drawn straight to strips, cut to the width with an ellipsis,
never wrapped, the matches highlighted on top of the option's own style."""

from __future__ import annotations

from typing import Any

from rich.style import Style as RichStyle
from textual.style import Style

from pmem_tui.core.search import Hit
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
    assert strips[1].cell_length == 30 and strips[1].text.endswith(ELLIPSIS)
    assert strips[1].text == "  " + snippet[:27] + ELLIPSIS
    # cut inside a match: the ellipsis is highlighted as the cell it replaces
    cut = _render(_hit("ab quokka", ((3, 9),)), 7)[1]
    assert cut.text == "  ab q" + ELLIPSIS
    last = list(cut)[-1]
    assert last.text == ELLIPSIS and last.style is not None and last.style.reverse


def test_wide_characters_are_counted_in_cells() -> None:
    snippet = "会议记录：季度计划与预算评审会议记录"
    strips = _render(_hit(snippet, ((0, 4),)), 20)
    assert all(strip.cell_length <= 20 for strip in strips)
    assert strips[1].text.startswith("  会议记录") and strips[1].text.rstrip().endswith(ELLIPSIS)
