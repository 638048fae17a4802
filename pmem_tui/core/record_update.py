"""Update one archive record in its own shape, changing only its bytes (PM-AGENT-2).

* A field already written is changed in place: its bullet, bold, label, colon and spacing stay, only the value
  after them is new (dates ISO, lines as inline code).
* A new field (``Deleted``, ``Recovery deadline`` when a file goes to the trash) is a new line right after the
  record's last field, written like that field (same bullet, bold and colon; Chinese labels when the record
  uses them). A list record written on one line gets it as a nested list item under it; a heading record
  without fields gets ``- Label: value`` under it.
* A table row gets its cells changed; a column the table does not have yet is added at the end of the header
  and delimiter rows, and the cell at the end of this row only (other rows need no cell for it).

The result is read back: when the record does not read as the new one (a shape we cannot edit in place, such
as a value in a code block under its field), `update_in_place` returns None and the caller rewrites the
record.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Callable
from dataclasses import replace

from pmem_tui.core.md_lines import ITEM
from pmem_tui.core.model import ArchiveRecord
from pmem_tui.core.record_format import BLANK_LINE, NOT_RECORDED
from pmem_tui.core.record_read import parse_records
from pmem_tui.core.record_values import LINE_FIELDS, field_match, table_columns
from pmem_tui.core.textio import code_span, dominant_eol, line_ending, split_bom, split_lines, strip_ending

__all__ = ["update_in_place"]

_ORDER = ("index_line", "archived", "reason", "deleted", "deadline", "after", "before", "location")
_ENGLISH = {
    "index_line": "Index line",
    "archived": "Archived",
    "reason": "Reason",
    "deleted": "Deleted",
    "deadline": "Recovery deadline",
    "after": "Line above",
    "before": "Line below",
    "location": "Location",
}
_CHINESE = {
    "index_line": "索引行",
    "archived": "归档日期",
    "reason": "原因",
    "deleted": "删除日期",
    "deadline": "恢复截止日期",
    "after": "上一行",
    "before": "下一行",
    "location": "归档位置",
}


def _value(key: str, value: object) -> str | None:
    """The text of a field's value (None: the field goes)."""
    if key in LINE_FIELDS:
        if value is None:
            return NOT_RECORDED
        return code_span(str(value)) if value else BLANK_LINE
    if value is None:
        return None
    if isinstance(value, dt.date):
        return value.isoformat()
    text = " ".join(str(value).split())
    return code_span(text) if key == "location" else text


def _same_fields(a: ArchiveRecord, b: ArchiveRecord) -> bool:
    return replace(a, start=0, end=0, layout="") == replace(b, start=0, end=0, layout="")


def update_in_place(
    text: str,
    found: ArchiveRecord,
    new: ArchiveRecord,
    parse: Callable[[str], list[ArchiveRecord]] = parse_records,
) -> str | None:
    """`text` with the record `found` (as parsed from `text`) changed into `new`, or None (module notes);
    `parse`: `parse_records`, or what reads the text the same way (`record_read.Reading`)."""
    if (found.path, found.more_lines) != (new.path, new.more_lines):
        return None
    changed = [k for k in _ORDER if getattr(found, k) != getattr(new, k)]
    if not changed:
        return text
    bom, body = split_bom(text)
    lines = split_lines(body)
    edit = _update_row if found.layout == "table" else _update_fields
    out = edit(lines, found, new, changed, dominant_eol(body))
    if out is None:
        return None
    result = bom + "".join(out)
    again = [r for r in parse(result) if r.start == found.start and r.path == found.path]
    return result if again and _same_fields(again[0], new) else None


def _update_fields(
    lines: list[str], found: ArchiveRecord, new: ArchiveRecord, changed: list[str], eol: str
) -> list[str] | None:
    fields: dict[str, tuple[int, re.Match[str], int]] = {}
    last: tuple[int, re.Match[str], int] | None = None
    for i in range(found.start, found.end):
        body = strip_ending(lines[i])
        item = ITEM.fullmatch(body)
        if item and item.group("text") is not None:
            text, offset = item.group("text"), item.start("text")
        else:
            text, offset = body.strip(), len(body) - len(body.lstrip())
        fm = field_match(text)
        if fm is None or "@" in fm[0]:
            continue
        key, m = fm
        if key in changed and key in LINE_FIELDS and not m.group("value").strip():
            return None  # its value is a block under it: not edited in place
        fields.setdefault(key, (i, m, offset))
        last = (i, m, offset)
    out = list(lines)
    gone: set[int] = set()
    added: list[str] = []
    for key in changed:
        value = _value(key, getattr(new, key))
        if key in fields:
            i, m, offset = fields[key]
            if value is None:
                gone.add(i)
            else:
                body = strip_ending(lines[i])
                out[i] = body[: offset + m.start("value")] + value + line_ending(lines[i])
        elif value is not None:
            added.append(_new_field(lines, found, last, key, value))
    if added:
        at = last[0] if last is not None else found.end - 1
        ending = line_ending(lines[at]) or line_ending(lines[found.start]) or eol
        block = [a + ending for a in added]
        if not line_ending(lines[at]):  # the last line of a file without final newline: it stays without
            out[at] += ending
            block[-1] = added[-1]
        out[at + 1 : at + 1] = block
        gone = {g if g <= at else g + len(block) for g in gone}
    return [x for i, x in enumerate(out) if i not in gone]


def _new_field(
    lines: list[str], found: ArchiveRecord, last: tuple[int, re.Match[str], int] | None, key: str, value: str
) -> str:
    """A new field line, written like the record's last field line (module notes)."""
    if last is None:
        first = strip_ending(lines[found.start])
        item = ITEM.fullmatch(first)
        indent = " " * item.start("text") if found.layout == "list" and item and item.group("text") else ""
        return f"{indent}- {_ENGLISH[key]}: {value}"
    i, m, offset = last
    body = strip_ending(lines[i])
    label = m.group("label").strip()
    word = (_CHINESE if not label.isascii() else _ENGLISH)[key]
    if label.islower():
        word = word.lower()
    start, end = offset + m.start("label"), offset + m.end("label")
    return body[:start] + word + body[end : offset + m.start("value")] + value


def _cell_spans(row: str) -> list[tuple[int, int]]:
    """Where each cell's text is in a table row (between its unescaped pipes)."""
    pipes = [m.start() for m in re.finditer(r"(?<!\\)\|", row)]
    lead = len(row) - len(row.lstrip())
    bounds = pipes if pipes and pipes[0] == lead else [lead - 1, *pipes]
    trail = len(row.rstrip())
    if not pipes or pipes[-1] != trail - 1:
        bounds.append(trail)
    return [(a + 1, b) for a, b in itertools.pairwise(bounds)]


def _set_cell(row: str, span: tuple[int, int], value: str) -> str:
    raw = row[span[0] : span[1]]
    if not raw.strip():
        return row[: span[0]] + (f" {value} " if value else raw) + row[span[1] :]
    lead, trail = len(raw) - len(raw.lstrip()), len(raw) - len(raw.rstrip())
    return row[: span[0]] + raw[:lead] + value + raw[len(raw) - trail :] + row[span[1] :]


def _append_cells(row: str, values: list[str]) -> str:
    """The row with cells added at its end, padded as its own cells are (``| a |`` or ``|a|``)."""
    body = row.rstrip()
    pad = "" if "| " not in body and " |" not in body else " "
    cells = "".join(f"{pad}{v}{pad}|" for v in values)
    if body.endswith("|") and not body.endswith("\\|"):
        return body + cells
    return body + pad + "|" + cells[: len(cells) - len(pad) - 1]


def _update_row(
    lines: list[str], found: ArchiveRecord, new: ArchiveRecord, changed: list[str], eol: str
) -> list[str] | None:
    top = found.start
    while top > 0 and "|" in lines[top - 1] and strip_ending(lines[top - 1]).strip():
        top -= 1
    bodies = [strip_ending(x) for x in lines]
    columns = table_columns(bodies, top)
    if columns is None or top + 2 > found.start:
        return None
    out = list(lines)
    row = bodies[found.start]
    width = len(_cell_spans(bodies[top]))
    new_columns: list[tuple[str, str]] = []
    for key in changed:
        value = (_value(key, getattr(new, key)) or "").replace("|", "\\|")
        if key in columns:
            spans = _cell_spans(row)
            at = columns.index(key)
            if at < len(spans):
                row = _set_cell(row, spans[at], value)
            else:
                row = _append_cells(row, [""] * (at - len(spans)) + [value])
        elif value:
            new_columns.append((_ENGLISH[key], value))
    if new_columns:
        header = _append_cells(bodies[top], [label for label, _ in new_columns])
        out[top] = header + line_ending(lines[top])
        out[top + 1] = _append_cells(bodies[top + 1], ["---"] * len(new_columns)) + line_ending(
            lines[top + 1]
        )
        have = len(_cell_spans(row))
        row = _append_cells(row, [""] * max(0, width - have) + [v for _, v in new_columns])
    out[found.start] = row + line_ending(lines[found.start])
    return out
