"""An epic's date, and where it came from (PL-13, PL-11).

The reference reads an epic's age from its ``**Completed:** YYYY-MM-DD`` line. Other sources are guesses,
used only when there is no such line, in this order:

1. ``completed`` — the section's ``**Completed:**`` line (outside a code block; the first one);
2. ``marker`` — the v2 marker's ``completed=``, ``updated=`` or ``date=`` field (written by a program);
3. ``heading`` — the first ISO date in the heading (a person's habit:
   ``## Epic: OPS-4 — deploys (2025-11-30)``);
4. ``none`` — the age is unknown: the epic is neither fresh nor stale, and gets no prefix.

Never the summary line (it holds deadlines: "Deadline is 2027-03-01") and never the file's mtime (one edit
would make every undated epic look fresh).
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pmem_tui.core.loader_parse import Epic, find_iso_date


class DateSource(StrEnum):
    COMPLETED = "completed"
    MARKER = "marker"
    HEADING = "heading"
    NONE = "none"


def epic_date(epic: Epic) -> tuple[dt.date | None, DateSource]:
    """`epic`'s date and its source, in the order above."""
    if epic.completed is not None:
        return epic.completed, DateSource.COMPLETED
    if epic.marker_date is not None:
        return epic.marker_date, DateSource.MARKER
    found = find_iso_date(epic.heading)
    if found is not None:
        return found, DateSource.HEADING
    return None, DateSource.NONE


def describe_source(epic: Epic, source: DateSource) -> str:
    """Where the date came from, in words (the view says it); for ``none``, what was looked for."""
    if source is DateSource.COMPLETED:
        return f"its Completed line (line {epic.completed_line_no})"
    if source is DateSource.MARKER:
        return f"the marker's {epic.marker_date_key}= field (no Completed line)"
    if source is DateSource.HEADING:
        return "a date in its heading (no Completed line: a guess)"
    return "no Completed line, marker date or heading date"
