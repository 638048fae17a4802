"""The one record format pmem-tui writes in `_archive/_index.md` (the reader is `record_read`).

The format we write
-------------------
The file starts with ``# Archive index`` and one sentence. Each record is a level-2 heading naming the
original path, then one list item per field::

    ## projects/old.md
    - Original path: `projects/old.md`
    - Index line: `` - [Old](projects/old.md) — an old `thing` ``
    - Archived: 2026-11-30
    - Reason: project shipped
    - Deleted: 2026-12-01
    - Recovery deadline: 2026-12-31
    - Line above: `## Projects`
    - Line below: (blank line)

* ``Original path`` and ``Index line`` are inline code (CommonMark): the fence is one backtick longer than any
  backtick run inside, and one space pads each side when the content starts or ends with a backtick or
  starts and ends with a space, so any line (backticks, pipes, brackets, CJK, leading or trailing spaces)
  reads back exactly. A record without the line (legacy) says ``Index line: (not recorded)``.
* Dates are ISO ``YYYY-MM-DD``. ``Deleted`` and ``Recovery deadline`` appear once the file is in the trash.
* ``Line above`` / ``Line below`` are the `_index.md` lines that stood just before and after the entry,
  used to put it back at its old place (optional; ``(blank line)`` for an empty line). The heading is for
  people: the ``Original path`` field wins.
* ``Reason`` is plain text on one line (line breaks become spaces).
* A route listed more than once in `_index.md` keeps every line: ``Index line 2``, ``Line above 2``,
  ``Line below 2``… follow, in file order, each line's neighbours taken with the later copies removed, so
  putting them back one by one restores each at its place.
* ``Location`` (only on a record an agent wrote with it) says where the file stands inside `_archive/`.
"""

from __future__ import annotations

from pmem_tui.core.model import ArchiveRecord
from pmem_tui.core.textio import code_span

__all__ = [
    "BLANK_LINE",
    "HEADER_TEXT",
    "HEADER_TITLE",
    "NOT_RECORDED",
    "empty_archive_index",
    "format_record",
]

HEADER_TITLE = "# Archive index"
HEADER_TEXT = (
    "One section per archived or deleted memory file, written so that people and agents can read it; "
    "the index line is kept as inline code exactly as it stood in `_index.md`, so recovery can restore it."
)
NOT_RECORDED = "(not recorded)"
BLANK_LINE = "(blank line)"


def empty_archive_index(eol: str = "\n") -> str:
    """The content of a new `_archive/_index.md`."""
    return f"{HEADER_TITLE}{eol}{eol}{HEADER_TEXT}{eol}"


def _one_line(s: str) -> str:
    return s.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def _line_value(line: str) -> str:
    return code_span(line) if line else BLANK_LINE


def format_record(rec: ArchiveRecord, eol: str = "\n") -> str:
    """The record in the one format pmem-tui writes (see the module notes), ending with `eol`."""
    path = _one_line(rec.path)
    out = [f"## {path}", f"- Original path: {_line_value(path)}"]
    out.append(f"- Index line: {NOT_RECORDED if rec.index_line is None else _line_value(rec.index_line)}")
    if rec.archived is not None:
        out.append(f"- Archived: {rec.archived.isoformat()}")
    reason = _one_line(rec.reason).strip() if rec.reason is not None else ""
    if reason:
        out.append(f"- Reason: {reason}")
    if rec.deleted is not None:
        out.append(f"- Deleted: {rec.deleted.isoformat()}")
    if rec.deadline is not None:
        out.append(f"- Recovery deadline: {rec.deadline.isoformat()}")
    out += _neighbours("", rec.after, rec.before)
    for n, place in enumerate(rec.more_lines, start=2):
        out.append(f"- Index line {n}: {_line_value(place.line)}")
        out += _neighbours(f" {n}", place.after, place.before)
    if rec.location is not None:
        out.append(f"- Location: {_line_value(rec.location)}")
    return eol.join(out) + eol


def _neighbours(suffix: str, after: str | None, before: str | None) -> list[str]:
    """The fields naming an index line's neighbours (`suffix`: "" for the first line, " 2" for the next)."""
    out = [] if after is None else [f"- Line above{suffix}: {_line_value(after)}"]
    return out + ([] if before is None else [f"- Line below{suffix}: {_line_value(before)}"])
