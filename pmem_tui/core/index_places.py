"""Take an archived file's `_index.md` lines out, and put every one back byte for byte at its place.

A route may be listed more than once (two different lines, or the same line twice). Archive removes every
line and keeps each in the record with its neighbours; recover puts them back in file order. Each line's
neighbours are taken in the text without the later copies, so that putting the lines back one after the
other finds each neighbourhood again, even when the copies stood next to each other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pmem_tui.core import index
from pmem_tui.core.model import ArchiveRecord, IndexEntry, IndexPlace

__all__ = ["put_back", "record_places", "take_out"]


def take_out(text: str, entries: Sequence[IndexEntry]) -> tuple[str, list[IndexPlace]]:
    """`text` without the entries' lines, and each line's place (in file order)."""
    ordered = sorted(entries, key=lambda e: e.line_no)
    places: list[IndexPlace] = []
    current = text
    for entry in reversed(ordered):  # the last copy first: its neighbours are the lines around it now
        after, before = index.neighbours(current, entry.line_no)
        places.append(IndexPlace(entry.raw, after, before))
        current = index.remove_line(current, entry.line_no)
    places.reverse()
    return current, places


def record_places(rec: ArchiveRecord) -> list[IndexPlace]:
    """Every index line a record keeps, with its neighbours (none for a legacy record)."""
    if rec.index_line is None:
        return []
    return [IndexPlace(rec.index_line, rec.after, rec.before), *rec.more_lines]


def put_back(text: str, route: str, places: Sequence[IndexPlace]) -> tuple[str, list[str], list[str]]:
    """`text` with each line back at its place: (new text, lines added, lines already there and kept)."""
    present = Counter(e.raw for e in index.find_entries(text, route))
    added: list[str] = []
    kept: list[str] = []
    for place in places:
        if present[place.line] > 0:  # already listed (an agent put it back): not added twice
            present[place.line] -= 1
            kept.append(place.line)
            continue
        text = index.insert_line(text, place.line, place.after, place.before)
        added.append(place.line)
    return text, added, kept
