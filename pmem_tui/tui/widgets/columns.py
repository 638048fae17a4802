"""A list's columns in the width it has: the path cut in the middle (two paths that differ near the end
stay two different texts), and a column the pane can spare (the Index's title) dropped before the path
is cut at all."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size

COLUMN_GAP = 2
ELLIPSIS = "…"
WHOLE = 10  # a column no wider than this (a date, a size, a kind) is not cut: "2026-1…" says nothing


def column_widths(
    avail: int,
    col_max: Sequence[int],
    caps: Sequence[float],
    *,
    path_column: int | None = 0,
    droppable: Sequence[int] = (),
) -> list[int]:
    """Per column its width (0: dropped); the last column takes what is left. `caps`: the share of
    `avail` each column but the last may take at most, but a column of at most `WHOLE` cells takes
    them all (the last, free text, gives way). What the last column has beyond its widest cell goes to
    the columns cut short, in order; an empty column takes no room, the last too (found in trial: the
    History view cut its origin to "seen on di…" beside an empty "where"). When the path column would
    still be cut, the `droppable` columns go and their share goes to the path."""
    n = len(col_max)
    if n == 0:
        return []
    shares = list(caps if n >= 3 else (0.6,))
    shares += [0.2] * (n - len(shares))
    widths = _fit(avail, col_max, shares, set())
    p = path_column
    if p is None or p >= n - 1 or widths[p] >= col_max[p]:
        return widths
    dropped = {d for d in droppable if d < n - 1 and d != p}
    if not dropped:
        return widths
    shares[p] += sum(shares[d] for d in dropped)
    return _fit(avail, col_max, shares, dropped)


def dropped(widths: Sequence[int], col_max: Sequence[int]) -> frozenset[int]:
    """The columns `column_widths` left out: a column of width 0, but the last only when it is empty. A last
    column with text and no room is still drawn (cut at the row's end), so its title stays (found in review:
    at 80 columns the health review drew its reasons under no title)."""
    last = len(widths) - 1
    return frozenset(i for i, w in enumerate(widths) if not w and (i < last or not col_max[last]))


def _fit(avail: int, col_max: Sequence[int], shares: Sequence[float], dropped: set[int]) -> list[int]:
    widths: list[int] = []
    used = 0
    for i in range(len(col_max) - 1):
        if i in dropped:
            widths.append(0)
            continue
        w = min(col_max[i], max(int(avail * shares[i]), 3, WHOLE if col_max[i] <= WHOLE else 0))
        widths.append(w)
        used += w + COLUMN_GAP
    # the last column's room beyond its widest cell; empty, it needs no gap before it either
    spare = avail - used - col_max[-1] if col_max[-1] else avail - used + COLUMN_GAP
    for i in range(len(col_max) - 1):
        if spare <= 0:
            break
        if i not in dropped and widths[i] < col_max[i]:
            grown = min(col_max[i], widths[i] + spare)
            spare -= grown - widths[i]
            used += grown - widths[i]
            widths[i] = grown
    widths.append(max(0, avail - used) if col_max[-1] else 0)
    return widths


def width_of(text: str) -> int:
    """`cell_len(text)`, without a place in Rich's cache for plain ASCII (a measure reads thousands of cells
    from its sample of the rows: the cache's 4,096 entries held ~0.7 MB for as long as the app ran)."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def cut_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells: its start and its end (the file's name) around an ellipsis."""
    if width_of(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    tail_room = room - room // 3  # the end says more (the file's name); the start says the folder
    if text.isascii() and text.isprintable():  # a cell a character: cut by length, not through Rich's cache
        return text[: room - tail_room].rstrip() + ELLIPSIS + text[len(text) - tail_room :]
    head = set_cell_size(text, room - tail_room).rstrip()
    tail = ""
    for ch in reversed(text):
        if cell_len(ch + tail) > tail_room:
            break
        tail = ch + tail
    return head + ELLIPSIS + tail  # head <= room - tail_room cells, tail <= tail_room: it fits
