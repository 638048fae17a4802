"""A search result drawn as two lines, straight to strips: where it is, and its snippet with the matches
highlighted. Each line is cut to the list's width with an ellipsis, never wrapped.

Why not a Rich `Text` in the `OptionList`: Textual converts it to a `Content` and lays it out (wraps it) again
on every keystroke, the list's render cache being cleared when its options are replaced; for 20 results that
was ~60% of a keystroke's repaint. Here a result is a few segments, cut once per width and style.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from pmem_tui.core.search import Hit
from pmem_tui.core.textio import printable

# The parts' styles, on top of the option's own style (highlighted or not).
PATH, LINE, PLACE, MATCH = "bold", "cyan", "yellow", "bold reverse"
ELLIPSIS = "…"
Part = tuple[str, str]  # (text, style name; "" for the option's own style)


def hit_parts(hit: Hit) -> tuple[tuple[Part, ...], tuple[Part, ...]]:
    """A result's two lines as (text, style) parts: its path and line (and place when it is not active),
    then its snippet, indented, with each match highlighted."""
    head: list[Part] = [(printable(hit.path), PATH), (f":{hit.line}", LINE)]
    if hit.location != "active":
        head.append((f"  {hit.location}", PLACE))
    body: list[Part] = [("  ", "")]
    at = 0
    for start, end in hit.spans:
        body.append((hit.snippet[at:start], ""))
        body.append((hit.snippet[start:end], MATCH))
        at = end
    body.append((hit.snippet[at:], ""))
    return tuple(p for p in head if p[0]), tuple(p for p in body if p[0])


def _cut(strip: Strip, width: int) -> Strip:
    """`strip` in at most `width` cells: when longer, its first `width - 1` and an ellipsis in the style of
    the cell it replaces (as Textual's `Content.truncate`)."""
    if strip.cell_length <= width:
        return strip
    if width <= 0:
        return Strip.blank(0)
    kept = strip.crop(0, width - 1)
    replaced = strip.crop(width - 1, width)
    style = next((seg.style for seg in replaced), None)
    return Strip([*kept, Segment(ELLIPSIS, style)], width)


class HitLines(Visual):
    """One result's two lines (see the module)."""

    def __init__(self, hit: Hit, theme: TerminalTheme | None = None) -> None:
        self.hit = hit
        self.lines = hit_parts(hit)
        self.theme = theme  # the app's `ansi_theme`: Rich's named colours as the app shows them

    def plain(self) -> str:
        """The two lines' text (what the tests read)."""
        return "\n".join("".join(text for text, _ in line) for line in self.lines)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        styles: dict[str, RichStyle] = {}

        def rich(name: str) -> RichStyle:
            if name not in styles:
                part = Style.from_rich_style(RichStyle.parse(name), self.theme) if name else Style()
                styles[name] = (style + part).rich_style
            return styles[name]

        strips = [_cut(Strip([Segment(text, rich(name)) for text, name in ln]), width) for ln in self.lines]
        return strips[:height] if height is not None else strips

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(Strip([Segment(text) for text, _ in line]).cell_length for line in self.lines)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines)
