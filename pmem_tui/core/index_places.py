"""Take an archived file's `_index.md` lines out, and put every one back byte for byte at its place.

A route may be listed more than once (two different lines, or the same line twice). Archive removes every
line and keeps each in the record with its neighbours; recover puts them back in file order. Each line's
neighbours are taken in the text without the later copies, so that putting the lines back one after the
other finds each neighbourhood again, even when the copies stood next to each other.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter, defaultdict
from collections.abc import Sequence

from pmem_tui.core import index
from pmem_tui.core.md_lines import Blocks
from pmem_tui.core.model import ArchiveRecord, IndexEntry, IndexPlace
from pmem_tui.core.textio import BOM, dominant_eol, line_ending, split_bom, split_lines

__all__ = ["Putting", "Taking", "record_places", "take_out"]


def take_out(text: str, entries: Sequence[IndexEntry]) -> tuple[str, list[IndexPlace]]:
    """`text` without the entries' lines, and each line's place (in file order)."""
    bom, body = split_bom(text)
    lines = split_lines(body)
    places = _take(lines, entries)
    return bom + "".join(lines), places


def _take(lines: list[str], entries: Sequence[IndexEntry]) -> list[IndexPlace]:
    """Take the entries' lines out of `lines` (in place); each line's place, in file order."""
    places: list[IndexPlace] = []
    for entry in sorted(entries, key=lambda e: e.line_no, reverse=True):  # the last copy first:
        after, before = index.neighbours_in(lines, entry.line_no)  # its neighbours: the lines around it now
        places.append(IndexPlace(entry.raw, after, before))
        index.drop_line(lines, entry.line_no)
    places.reverse()
    return places


class Taking:
    """`_index.md` while a batch takes routes out of it one after the other (archive): `take_out(route)` is
    `take_out(text, index.find_entries(text, route))` with `text` the text as it is then, but the index is
    parsed once, not once an item (0.1 s at 10^4 lines).

    Why the entries found once stay right: an entry's line is visible (not in a fence, a comment or front
    matter) and a visible line changes no block's state (`md_lines.Blocks`), so taking it out changes how no
    other line reads; a line below only moves up. One exception: the line after a taken first line becomes
    the first, and a first ``---`` opens front matter; the text is parsed again then.
    """

    def __init__(self, text: str) -> None:
        self.text = text  # as it is now
        self._bom, body = split_bom(text)
        self._lines = split_lines(body)
        self._rows: dict[str, list[index.EntryRow]] | None = None  # by route, numbered as when parsed
        self._gone: list[int] = []  # the lines taken out since, numbered as when parsed, in order

    def take_out(self, route: str) -> tuple[list[IndexEntry], list[IndexPlace]]:
        """The entries naming `route` (numbered in the text as it was), their places; `text` without them."""
        if self._rows is None:
            self._rows, self._gone = defaultdict(list), []
            for row in index.parse_rows(self.text):
                self._rows[row[2]].append(row)
        rows = self._rows.pop(route, [])
        if not rows:
            return [], []
        gone = self._gone
        entries = [
            IndexEntry(n - bisect_left(gone, n), raw, route, title, summary)
            for n, raw, _, title, summary in rows
        ]
        places = _take(self._lines, entries)
        for row in rows:
            insort(gone, row[0])
        if entries[0].line_no == 0:
            self._rows = None  # the next line is the first now: it may open front matter
        self.text = self._bom + "".join(self._lines)
        return entries, places


def record_places(rec: ArchiveRecord) -> list[IndexPlace]:
    """Every index line a record keeps, with its neighbours (none for a legacy record)."""
    if rec.index_line is None:
        return []
    return [IndexPlace(rec.index_line, rec.after, rec.before), *rec.more_lines]


class Putting:
    """`_index.md` while a batch puts routes' lines back one after the other (recover): `put_back(route,
    places)` puts each line back at its place (`index.insert_line`, in order) in the text as it is then,
    but the index is parsed once, not once an item.

    Why the entries found once stay right: a line put back where no block is open (after a visible line, or
    at the top of a file that does not start with ``---``), that is visible there itself (it opens no fence
    or comment), changes how no other line reads, and reads as it does alone; lines below only move down.
    Any other line put back (in a fence, a ``---`` or ``...`` that may close front matter, a line with a
    carriage return in it, one starting with U+FEFF (alone, it would read as a BOM), one after an
    unterminated last line ending with one, an empty one after an unterminated last line): the text is parsed
    again.
    """

    def __init__(self, text: str) -> None:
        self.text = text  # as it is now
        self._bom, body = split_bom(text)
        self._lines = split_lines(body)
        self._bodies, self._visible = index.entry_lines(text)  # the lines' bodies, which may hold an entry
        self._raws: dict[str, Counter[str]] | None = None  # each route's lines, as `find_entries` gives them

    def put_back(self, route: str, places: Sequence[IndexPlace]) -> tuple[list[str], list[str]]:
        """The lines added and the lines already there and kept; `text` with the lines added."""
        if self._raws is None:
            self._raws = defaultdict(Counter)
            for row in index.parse_rows(self.text):
                self._raws[row[2]][row[1]] += 1
        present = Counter(self._raws.get(route, ()))
        added: list[str] = []
        kept: list[str] = []
        for place in places:
            if present[place.line] > 0:  # already listed (an agent put it back): not added twice
                present[place.line] -= 1
                kept.append(place.line)
                continue
            self._insert(place)
            added.append(place.line)
        return added, kept

    def _insert(self, place: IndexPlace) -> None:
        lines, bodies, line = self._lines, self._bodies, place.line
        last = lines[-1] if lines else "\n"
        eol = dominant_eol(self.text)
        at = index.insert_in(lines, bodies, line, place.after, place.before, eol)
        self.text = self._bom + "".join(lines)
        quiet = (self._visible[at - 1] if at > 0 else not bodies or bodies[0].rstrip() != "---") and not (
            line_ending(last) == "" and last.endswith("\r")
        )
        if (
            self._raws is None
            or not quiet
            or "\r" in line
            or "\n" in line
            or line.startswith(BOM)  # read alone, a BOM would be the file's (found in review)
            or not lines[-1]  # an empty line after an unterminated last line: it only ends that line
            or line.rstrip() in ("---", "...")
            or Blocks(comments=True).hidden(line)
        ):
            self._lines = split_lines(split_bom(self.text)[1])
            self._bodies, self._visible = index.entry_lines(self.text)
            self._raws = None  # the entries parsed again when next asked
            return
        bodies.insert(at, line)
        self._visible.insert(at, True)
        for row in index.parse_rows(line):
            self._raws[row[2]][row[1]] += 1
