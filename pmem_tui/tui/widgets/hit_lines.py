"""A search result drawn as two lines, straight to strips: where it is, and its snippet with the matches
highlighted. Each line is cut to the list's width with an ellipsis, never wrapped: the snippet around its
first match (`_cut_around`), so the match shows at any width (the core's snippet may hold it 90 characters
in).

Why not a Rich `Text` in the `OptionList`: Textual converts it to a `Content` and lays it out (wraps it) again
on every keystroke, the list's render cache being cleared when its options are replaced; for 20 results that
was ~60% of a keystroke's repaint. Here a result is a few segments, cut once per width and style.
"""

from __future__ import annotations

from rich.cells import cell_len
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
INDENT = "  "  # the snippet's line is indented under the path


def hit_parts(hit: Hit) -> tuple[tuple[Part, ...], tuple[Part, ...]]:
    """A result's two lines as (text, style) parts: its path and line (and place when it is not active),
    then its snippet, indented, with each match highlighted."""
    head: list[Part] = [(printable(hit.path), PATH), (f":{hit.line}", LINE)]
    if hit.location != "active":
        head.append((f"  {hit.location}", PLACE))
    body: list[Part] = [(INDENT, "")]
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


def focus_cells(hit: Hit) -> tuple[int, int] | None:
    """The first match's cells in the snippet (wide characters count two), or None without a match."""
    if not hit.spans:
        return None
    start, end = hit.spans[0]
    before = cell_len(hit.snippet[:start])
    return before, before + cell_len(hit.snippet[start:end])


def _cut_around(strip: Strip, width: int, focus: tuple[int, int] | None, keep: int = len(INDENT)) -> Strip:
    """`strip` in at most `width` cells, its first `keep` cells (the indent) kept and the rest a window on the
    `focus` cells (counted after the indent) centred on them, with an ellipsis on each side that is cut (in
    the style of the cell it replaces). A match wider than the window shows its start. Without a focus, or
    when the window is too narrow for an ellipsis each side, it is `_cut`: the line's start."""
    if strip.cell_length <= width:
        return strip
    inner = width - keep - 2  # the window between the two ellipses
    if focus is None or inner < 1:
        return _cut(strip, width)
    length = strip.cell_length - keep
    start, end = focus
    if end > length:  # (spans beyond the text: never from `snippet`; the line's start, as before)
        return _cut(strip, width)
    first = start - max(0, (inner - (end - start)) // 2)
    if first <= 0:  # the match is near the start: the start, as `_cut` keeps it
        return _cut(strip, width)
    head = strip.crop(0, keep)
    rest = strip.crop(keep, strip.cell_length)
    if first + inner >= length:  # near the end: an ellipsis, then the end
        tail = rest.crop(length - (width - keep - 1), length)
        return Strip([*head, _ellipsis(rest, length - (width - keep - 1) - 1), *tail], width)
    middle = rest.crop(first, first + inner)
    return Strip([*head, _ellipsis(rest, first - 1), *middle, _ellipsis(rest, first + inner)], width)


def _ellipsis(strip: Strip, at: int) -> Segment:
    """An ellipsis in the style of the cell at `at` (the one it stands for)."""
    return Segment(ELLIPSIS, next((seg.style for seg in strip.crop(at, at + 1)), None))


class HitLines(Visual):
    """One result's two lines (see the module)."""

    def __init__(self, hit: Hit, theme: TerminalTheme | None = None) -> None:
        self.hit = hit
        self.lines = hit_parts(hit)
        self.focus = focus_cells(hit)  # the snippet's window is centred on it (`_cut_around`)
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

        head, body = (Strip([Segment(text, rich(name)) for text, name in ln]) for ln in self.lines)
        strips = [_cut(head, width), _cut_around(body, width, self.focus)]
        return strips[:height] if height is not None else strips

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(Strip([Segment(text) for text, _ in line]).cell_length for line in self.lines)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines)
