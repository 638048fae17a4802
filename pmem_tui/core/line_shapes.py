"""A line kept as its shape plus its parts: the one memory trick behind `IndexEntry.raw`, in one place.

Why it exists: an index of 10^5 lines would otherwise hold each line's text twice (the line, and its route,
title and summary parsed from it). Measured on a 10^5-line index (`read_index`, tracemalloc): 37.5 MB held
with shapes, 70.8 MB with plain lines, on a peak-RSS target the app already misses at 10^5 files
(BENCHMARKS.md, measure 7). Most lines share a few shapes (`- [` … `](` … `) — ` …), so the text around the
parts is kept once per shape and the line is joined again when asked.

The interface is two plain functions: ``unpack(pack(line, parts), parts) == line`` for any line and parts.
"""

from __future__ import annotations

# A line as given, or the text around its parts (one more piece than there are parts that are not None).
Form = str | tuple[str, ...]

# One tuple per distinct shape, shared by every line of that shape. Bounded: past this many distinct shapes
# (hand-made oddities), lines are kept whole.
_SHAPES: dict[tuple[str, ...], tuple[str, ...]] = {}
_MAX_SHAPES = 1024


def pack(line: str, parts: tuple[str | None, ...]) -> Form:
    """The shared text around `parts` (those not None, in that order) in `line`, or `line` itself when they
    do not all occur in it in that order (escaped or decoded parts) or the table of shapes is full."""
    pieces: list[str] = []
    pos = 0
    for part in parts:
        if part is None:
            continue
        at = line.find(part, pos)
        if at < 0:
            return line
        pieces.append(line[pos:at])
        pos = at + len(part)
    pieces.append(line[pos:])
    shape = tuple(pieces)
    shared = _SHAPES.get(shape)
    if shared is None:
        if len(_SHAPES) >= _MAX_SHAPES:
            return line
        shared = _SHAPES.setdefault(shape, shape)
    return shared


def unpack(form: Form, parts: tuple[str | None, ...]) -> str:
    """The line `form` was packed from, given the same `parts`."""
    if type(form) is str:
        return form
    pieces = iter(form)
    return next(pieces) + "".join(part + next(pieces) for part in parts if part is not None)
