"""Edit `_archive/_index.md`: add, update and remove one record, changing only that record's bytes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace

from pmem_tui.core.md_lines import atx
from pmem_tui.core.model import RECOVERY_DAYS, ArchiveRecord
from pmem_tui.core.record_format import empty_archive_index, format_record
from pmem_tui.core.record_read import Reading, parse_records
from pmem_tui.core.record_update import update_in_place
from pmem_tui.core.record_values import fence_state
from pmem_tui.core.textio import dominant_eol, line_ending, split_bom, split_lines, strip_ending


def _same(a: ArchiveRecord, b: ArchiveRecord) -> bool:
    return replace(a, start=0, end=0) == replace(b, start=0, end=0)


# `parse_records`, or a `record_read.Reading`'s `records` (a batch reads the text once, then what changed)
Parse = Callable[[str], list[ArchiveRecord]]


def _locate(text: str, rec: ArchiveRecord, parse: Parse) -> ArchiveRecord:
    """The record as it stands in `text` now; ValueError when it is no longer there."""
    records = parse(text)
    for r in records:
        if (r.start, r.end, r.path, r.layout) == (rec.start, rec.end, rec.path, rec.layout):
            return r
    for r in reversed(records):
        if _same(r, rec):
            return r
    raise ValueError(f"the archive record for {rec.path} is no longer in the archive index")


def _open_fence(lines: list[str]) -> str | None:
    return fence_state([strip_ending(x) for x in lines])[1]


def add_record(text: str, rec: ArchiveRecord, reading: Reading | None = None) -> str:
    """Append `rec` in our format after a blank line, with the file's dominant line ending.

    Existing bytes are never changed: a missing final newline is added, an unclosed code fence is closed and a
    blank line separates the record. A file without any content first gets the header. `reading`: what
    reads `text` (a batch's `Reading`: the fence still open is found from its last cut, not the top).
    """
    bom, body = split_bom(text)
    eol = dominant_eol(body)
    if not body.strip():
        return bom + body + empty_archive_index(eol) + eol + format_record(rec, eol)
    if reading is not None and body.endswith("\n"):
        fence = reading.open_fence(text)
    else:
        if not body.endswith("\n"):
            body += eol
        fence = _open_fence(split_lines(body))
    if fence is not None:
        body += fence + eol
    if body[body.rfind("\n", 0, len(body) - 1) + 1 :].strip():  # the last line is not blank
        body += eol
    return bom + body + format_record(rec, eol)


def replace_record(text: str, old: ArchiveRecord, new: ArchiveRecord, parse: Parse = parse_records) -> str:
    """Replace `old` by `new`, in the record's own shape when it can be edited in place (`record_update`).

    Otherwise a heading record (layout ``section``) is rewritten in place in our format (its heading keeps the
    old heading's level), and a table row or a list/headless record is removed and `new` is appended.
    Raises ValueError when `old` is no longer in the text.
    """
    found = _locate(text, old, parse)
    updated = update_in_place(text, found, new, parse)
    if updated is not None:
        return updated
    if found.layout != "section":
        return add_record(remove_record(text, found, parse), new)
    bom, body = split_bom(text)
    lines = split_lines(body)
    eol = dominant_eol(body)
    block = split_lines(format_record(new, eol))
    heading = atx(strip_ending(lines[found.start]))
    if heading and heading[0] != 2:
        block[0] = "#" * heading[0] + block[0][2:]
    if not line_ending(lines[found.end - 1]):
        block[-1] = strip_ending(block[-1])
    lines[found.start : found.end] = block
    return bom + "".join(lines)


def remove_record(text: str, rec: ArchiveRecord, parse: Parse = parse_records) -> str:
    """Remove the record's lines, and one blank line next to them when it would otherwise leave two blank
    lines together, a blank line at the top or one at the end.

    Nothing else changes; a file without final newline keeps having none. Raises ValueError when `rec` is no
    longer in the text.
    """
    found = _locate(text, rec, parse)
    bom, body = split_bom(text)
    lines = split_lines(body)
    start, end = found.start, found.end
    prev_blank = start > 0 and not strip_ending(lines[start - 1]).strip()
    next_blank = end < len(lines) and not strip_ending(lines[end]).strip()
    if next_blank and (prev_blank or start == 0):
        end += 1
    elif prev_blank and end == len(lines):
        start -= 1
    final_newline = not lines or bool(line_ending(lines[-1]))
    del lines[start:end]
    if lines and not final_newline:
        lines[-1] = strip_ending(lines[-1])
    return bom + "".join(lines)


def record_deletion(
    text: str,
    rel: str,
    old: ArchiveRecord | None,
    today: dt.date,
    reason: str | None = None,
    parse: Parse = parse_records,
) -> tuple[str, dt.date]:
    """`rel` goes to the trash `today`: its record `old` (or, without one, a new record giving `reason`) gets
    the deletion date and the deadline, RECOVERY_DAYS later. The text with that record, and the deadline."""
    deadline = today + dt.timedelta(days=RECOVERY_DAYS)
    if old is not None:
        return replace_record(text, old, replace(old, deleted=today, deadline=deadline), parse), deadline
    new = ArchiveRecord(
        path=rel, index_line=None, archived=None, reason=reason, deleted=today, deadline=deadline
    )
    return add_record(text, new), deadline
