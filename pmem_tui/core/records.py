"""`_archive/_index.md`: archive and trash records, read tolerantly, written in one documented format.

The format we write is described in `record_format`.

Reading
-------
`parse_records` never raises. A record starts at:

* a heading (any level) naming a ``.md`` path, after optional dates, weekdays and words such as ``Archived:``
  (``## projects/old.md``, ``### Archived: projects/old.md``, ``## 2026-11-30 — projects/old.md``), or any
  heading directly followed by a field line;
* a list item at the left margin naming a path at its start (``- **projects/old.md**``, ``- `projects/old.md`
  — archived 2026-11-30``), also under a heading record of another path; its fields are the following indented
  lines, or written inline after the path (``— reason: done — index line: `…```, see `record_inline`); one
  naming the path of the heading record it stands in is part of it before the heading's field lines, or when
  it adds only a deletion date or deadline, else a record of its own (an archive date, reason or index line);
* a field line with no record open, or a path field naming another path than the open record's path field
  (records written without headings);
* a row of a Markdown table whose header row names a path column (layout ``table``).

A record's lines run from its start to its last field line (or the value block under it), plus the lines
directly under those without a blank line between, and indented lines under a list or headless record. Prose
further down a heading's section, or a list record for another path written under it, is not part of it: it
stays when the record is removed or updated. A heading record ends at the next heading or record start; a list
or headless record at the next line at the left margin that is not a field. A date in a record's heading or
list line (or in a heading above a group of list records) is the deadline when deadline words govern it
(the next date in their clause: ``recoverable until `2026-12-20```, ``expires on``…, ``到期：``…,
``2026-12-20 截止``), else the archive date when its own clause speaks of archiving and not of deleting
(``archived 2026-01-01, deleted 2026-01-05``), else the deletion date when the words speak of deleting or the
trash, else the archive date (``## 2026-01-01 (keep until Q3)``: the archive date); fields win.

Field lines are ``Label: value`` with optional bullet and bold (``**Label:** value``, ``**Label**: value``),
``:`` or ``：``; labels are matched case-insensitively from `LABELS` (English and Chinese wordings). Values:

* dates: the first date found in ``2026-11-30``, ``2026/11/30``, ``2026年11月30日``, ``30 Nov 2026``,
  ``Nov 30, 2026`` forms, so weekdays around it (``2026-11-30 (Mon)``, ``Mon 2026-11-30``) do not matter;
* lines (index line, line above/below): a code span, a quoted ``"…"`` / ``“…”`` / ``「…」`` string, text after
  ``>``, a fenced code block or ``>`` quote on the lines right under an empty field, or the plain text;
  ``(not recorded)``, ``none``, ``n/a``, ``-``, ``无``… mean no line (a legacy record);
* paths: a code span, a link, bold or plain text; ``./``, ``~/.persistent-memory/``, ``_archive/`` and
  ``_archive/_trash/`` prefixes are dropped;
* ``Location`` / ``Moved to`` / ``归档位置``…: where the file stands inside `_archive/` (see `archive_match`);
* ``Index line 2`` (``Line above 2``…), or a second ``Index line`` field: the next line of a route listed
  twice.

A deleted record with no deadline gets deletion date + 30 days. A record without a path is skipped.

The code lives in `record_format` (what we write), `record_values`, `record_inline` and `record_read` (what we
read), `record_edit` and `record_update` (changing one record's bytes, in its own shape); this module is the
one name the rest of the code imports, except the scan (`tree`), which imports the parser alone so that the
app loads no record editor until an action needs one.
"""

from __future__ import annotations

from collections.abc import Iterable

from pmem_tui.core.archive_match import newest
from pmem_tui.core.model import ArchiveRecord
from pmem_tui.core.record_edit import add_record, record_deletion, remove_record, replace_record
from pmem_tui.core.record_format import empty_archive_index, format_record
from pmem_tui.core.record_read import line_span, parse_records
from pmem_tui.core.record_values import LABELS, parse_date

__all__ = [
    "LABELS",
    "add_record",
    "empty_archive_index",
    "find_record",
    "format_record",
    "line_span",
    "parse_date",
    "parse_records",
    "record_deletion",
    "remove_record",
    "replace_record",
]


def find_record(recs: Iterable[ArchiveRecord], path: str) -> ArchiveRecord | None:
    """The record of that original path every action uses (`archive_match.newest`), or None."""
    return newest([r for r in recs if r.path == path])
