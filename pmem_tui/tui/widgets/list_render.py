"""How a `MemoryList` draws a row: its cells cut to the columns' widths, flag, mark and highlights.

Plain functions of the row and the list's present state (widths, query, styles), so the list keeps only the
virtual-list work: which rows are visible, and the cache of their lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pmem_tui.core.textio import printable
from pmem_tui.tui.index_rows import flags_of
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.columns import COLUMN_GAP, cut_middle, width_of
from pmem_tui.tui.widgets.fuzzy import highlights

MEASURE_SAMPLE = 2000  # rows measured at most (columns are capped anyway)


def measure(rows: Sequence[Row]) -> tuple[list[int], int]:
    """The widest cell of each column (on a sample of the rows), and the flag column's width (0: none)."""
    sample = rows if len(rows) <= MEASURE_SAMPLE else rows[:: len(rows) // MEASURE_SAMPLE]
    columns = max((len(r.cells) for r in sample), default=0)
    maxima = [0] * columns
    for i in range(columns):
        maxima[i] = max((width_of(r.cells[i]) for r in sample if i < len(r.cells)), default=0)
    flags = flags_of(rows)
    return maxima, max((len(f) for f in flags), default=-1) + 1


def outgrows(old: Row, row: Row, widest: Sequence[int], flag_width: int) -> bool:
    """Whether `row`, replacing `old`, needs the columns measured again: a cell wider than its column's
    widest, or a new flag at least as wide as the flag column."""
    if row.flag != old.flag and len(row.flag) >= flag_width:
        return True
    return row.cells != old.cells and any(map(int.__gt__, map(width_of, row.cells), widest))


@dataclass(frozen=True)
class RowStyles:
    """The list's component styles (partial: laid over the line's own)."""

    marked: Style
    flag: Style
    dim: Style
    match: Style
    cursor: Style

    @classmethod
    def of(cls, get: Callable[..., Style]) -> RowStyles:
        """The styles from the list's component classes (`get`: the widget's `get_component_rich_style`)."""
        return cls(
            marked=get("memory-list--marked", partial=True),
            flag=get("memory-list--flag", partial=True),
            dim=get("memory-list--dim", partial=True),
            match=get("memory-list--match", partial=True),
            cursor=get("memory-list--cursor"),
        )


def row_strip(
    row: Row,
    widths: list[int],
    width: int,
    *,
    flag_width: int,
    path_column: int | None,
    query: str,
    marked: bool,
    style: Style,
    styles: RowStyles,
    console: Console,
) -> Strip:
    """One line of the list: `widths` per column (0: dropped), `style` the line's (cursor included)."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append("● " if marked else "  ", styles.marked)
    if flag_width:
        text.append(row.flag.ljust(flag_width), styles.flag)
    last = len(widths) - 1
    end = max((i for i, w in enumerate(widths) if w), default=last)  # no gap after it: an empty last column
    for i, w in enumerate(widths):
        if not w and i < last:
            continue  # dropped to leave the path its room
        cell = printable(row.cells[i]) if i < len(row.cells) else ""
        if i == path_column:
            cell = cut_middle(cell, w)
        piece = Text(cell, style=styles.dim if i > 0 else "", no_wrap=True, end="")
        for at in highlights(cell, query) if query else ():
            piece.stylize(styles.match, at, at + 1)
        piece.truncate(w, overflow="ellipsis", pad=True)
        text.append_text(piece)
        if i < end:
            text.append(" " * COLUMN_GAP)
    text.truncate(width, overflow="ellipsis", pad=True)
    segments = [Segment(s.text, style + s.style if s.style else style) for s in text.render(console)]
    return Strip(segments, width).crop(0, width)


def text_strip(text: Text, width: int, base: Style, console: Console) -> Strip:
    """A line of plain text (the empty list's sentence), cut or padded to `width`."""
    text.truncate(width, overflow="ellipsis", pad=True)
    return Strip(list(text.render(console, end="")), width).apply_style(base)
