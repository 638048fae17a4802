"""Read every record in `_archive/_index.md`, whatever shape an agent wrote it in (see `records`)."""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_left
from dataclasses import dataclass, field, replace

from pmem_tui.core.md_lines import ITEM, atx
from pmem_tui.core.model import ARCHIVE_INDEX, RECOVERY_DAYS, ArchiveRecord, IndexPlace
from pmem_tui.core.record_inline import inline_fields
from pmem_tui.core.record_values import (
    LINE_FIELDS,
    block_value,
    cells,
    date_hints,
    fence_state,
    field_of,
    location_value,
    parse_date,
    path_in,
    path_value,
    table_columns,
    unquote_line,
)
from pmem_tui.core.textio import line_bodies, read_code_span, split_bom


@dataclass
class _Draft:
    start: int
    kind: str  # "heading", "list", "headless", "table"
    end: int = 0
    level: int = 0
    path: str | None = None
    path_field: bool = False
    values: dict[str, object] = field(default_factory=dict)
    defaults: dict[str, dt.date] = field(default_factory=dict)  # dates from a heading or list line
    weak: dict[str, object] = field(default_factory=dict)  # fields from a heading or list line

    def __post_init__(self) -> None:
        self.end = self.start + 1

    extra: dict[int, dict[str, str | None]] = field(default_factory=dict)  # index lines 2, 3…
    last_line: int = 1  # the index line that a "Line above/below" without a number belongs to

    def set_line(self, key: str, value: str | None, number: int | None) -> None:
        """A line field; a second index line (or "Index line 2") opens the next place of a duplicate route."""
        if number is None:
            if key == "index_line" and isinstance(self.values.get("index_line"), str) and value is not None:
                seen = [self.values["index_line"], *(p.get("index_line") for p in self.extra.values())]
                if value in seen:  # the same line under a second label ("Index line", "Entry"): one line
                    return
                number = max(self.extra, default=1) + 1
            else:
                number = self.last_line if key != "index_line" else 1
        if number == 1:
            self.set(key, value)
            return
        place = self.extra.setdefault(number, {})
        if place.get(key) is None:
            place[key] = value
        if key == "index_line":
            self.last_line = number

    def set(self, key: str, value: object) -> None:
        if key == "path":
            if isinstance(value, str) and value:
                self.path = value
                self.path_field = True
        elif (value is not None or key in LINE_FIELDS) and self.values.get(key) is None:
            self.values[key] = value

    def date_hint(self, text: str) -> None:
        for key, date in date_hints(text):
            self.defaults.setdefault(key, date)

    def build(self) -> ArchiveRecord | None:
        if not self.path:
            return None

        def date(key: str) -> dt.date | None:
            for v in (self.values.get(key), self.weak.get(key), self.defaults.get(key)):
                if isinstance(v, dt.date):
                    return v
            return None

        def text(key: str) -> str | None:
            for v in (self.values.get(key), self.weak.get(key)):
                if isinstance(v, str):
                    return v
            return None

        deleted, deadline = date("deleted"), date("deadline")
        if deleted is not None and deadline is None:
            deadline = deleted + dt.timedelta(days=RECOVERY_DAYS)
        layout = {"heading": "section", "table": "table"}.get(self.kind, "list")
        return ArchiveRecord(
            path=self.path,
            index_line=text("index_line"),
            archived=date("archived"),
            reason=text("reason"),
            deleted=deleted,
            deadline=deadline,
            after=text("after"),
            before=text("before"),
            start=self.start,
            end=self.end,
            layout=layout,
            location=text("location"),
            more_lines=tuple(
                IndexPlace(line, place.get("after"), place.get("before"))
                for _, place in sorted(self.extra.items())
                if isinstance(line := place.get("index_line"), str)
            ),
        )


def _apply(draft: _Draft, key: str, value: str, bodies: list[str], i: int) -> int:
    """Set one field on the draft; returns how many following lines the value used."""
    used = 0
    key, _, number = key.partition("@")
    if key in LINE_FIELDS:
        if value.strip():
            line: str | None = unquote_line(value)
        else:
            line, used = block_value(bodies, i)
        draft.set_line(key, line, int(number) if number else None)
    elif key == "location":
        draft.set("location", location_value(value))
    elif key == "position":
        for word, target in (
            ("after", "after"),
            ("before", "before"),
            ("above", "after"),
            ("below", "before"),
        ):
            m = re.search(word + r"\s*[:：]?\s*(`+)", value, re.I)
            if m:
                span = read_code_span(value[m.start(1) :])
                if span is not None:
                    draft.set(target, span[0])
    elif key == "path":
        draft.set("path", path_value(value))
    elif key == "reason":
        v = value.strip()
        draft.set("reason", v or None)
    else:
        draft.set(key, parse_date(value))
    return used


def _inline(draft: _Draft, text: str) -> None:
    """Fields and dates written on a record's heading or list line, after its path: fields below win."""
    found = _Draft(start=draft.start, kind="inline")
    fields, hints = inline_fields(text)
    for key, value in fields:
        if key != "path":
            _apply(found, key, value, [], 0)
    for part in hints:
        draft.date_hint(part)
    draft.weak.update(found.values)


def _own_record(text: str) -> bool:
    """A bullet naming a heading record's path after the heading's field lines: more of the heading record
    only when it adds a deletion date or deadline and nothing of a record's own ("- notes/a.md — deleted
    2026-11-20, recoverable until 2026-12-20"); else a record of its own, an agent's, kept when pmem-tui's
    is removed (found in review: a prose bullet, "- notes/a.md — Ana asked to keep this one", was taken
    into pmem-tui's record and removed with it)."""
    probe = _Draft(start=0, kind="list")
    _inline(probe, text)
    said = set(probe.weak) | set(probe.defaults)
    return bool(said & {"archived", "reason", "index_line"}) or not said & {"deleted", "deadline"}


def parse_records(text: str) -> list[ArchiveRecord]:
    """Every record with a path, in file order. Never raises (see the module notes for what is read)."""
    try:
        return _parse(text)
    except Exception:  # pragma: no cover - defensive: a broken archive index must not break the app
        return []


def _parse(text: str) -> list[ArchiveRecord]:
    return _read_lines(line_bodies(split_bom(text)[1]))[0]


def _read_lines(bodies: list[str]) -> tuple[list[ArchiveRecord], list[int]]:
    """The records, and the cuts: the lines where the reading starts afresh (`Reading`)."""
    in_fence = fence_state(bodies)[0]
    out: list[ArchiveRecord] = []
    cuts: list[int] = []
    cur: _Draft | None = None
    # A heading without a path (e.g. "## 2026-11-30" or "## Trash") may carry a date for the records under it.
    group = _Draft(start=0, kind="group", level=7)

    def finish() -> None:
        nonlocal cur
        if cur is not None:
            rec = cur.build()
            if rec is not None:
                out.append(rec)
        cur = None

    def begin(start: int, kind: str, level: int = 0) -> _Draft:
        nonlocal cur, group
        finish()
        if kind == "heading" and level <= group.level:
            group = _Draft(start=0, kind="group", level=7)
        cur = _Draft(start=start, kind=kind, level=level)
        cur.defaults.update(group.defaults)
        return cur

    i = 0
    n = len(bodies)
    while i < n:
        b = bodies[i]
        if not b.strip():
            i += 1
            continue
        if in_fence[i]:  # a top-level fenced block: never parsed; part of a record it directly follows
            if cur is not None and i == cur.end:
                cur.end = i + 1
            i += 1
            continue
        h = atx(b)
        if h:
            if not group.defaults:  # (no fence open, `cur` ends here, no date from a heading above)
                cuts.append(i)
            level, htext = h
            found = path_in(htext, strict=False)
            j = i + 1  # the next line that is not blank (an index, not a copy of the rest: 10^3 headings)
            while j < n and not bodies[j].strip():
                j += 1
            nxt = bodies[j] if j < n else ""
            nxt_item = ITEM.fullmatch(nxt)
            if found is not None or field_of((nxt_item.group("text") or "") if nxt_item else nxt.strip()):
                draft = begin(i, "heading", level)
                draft.defaults.clear()
                if found is not None:
                    draft.path = found[0]
                _inline(draft, found[1] if found is not None else htext)
                for key, date in group.defaults.items():
                    draft.defaults.setdefault(key, date)
            else:
                finish()
                group = _Draft(start=i, kind="group", level=level)
                group.date_hint(htext)
            i += 1
            continue
        columns = table_columns(bodies, i)
        if columns is not None:
            finish()
            j = i + 2
            while j < n and "|" in bodies[j] and bodies[j].strip():
                if "path" in columns:
                    row = _Draft(start=j, kind="table")
                    row.defaults.update(group.defaults)
                    for column, cell in zip(columns, cells(bodies[j]), strict=False):
                        if column is not None:
                            _apply(row, column, cell, [], 0)
                    rec = row.build()
                    if rec is not None:
                        out.append(rec)
                j += 1
            i = j
            continue
        item = ITEM.fullmatch(b)
        item_text = (item.group("text") or "") if item else b.strip()
        fld = field_of(item_text)
        if fld is not None:
            key, value = fld
            # A second, different path starts the next record (records written without headings), unless it is
            # the first field under a heading (the heading is for people; the field wins).
            starts = cur is not None and (cur.path_field or bool(cur.values) or cur.kind != "heading")
            if cur is None or (key == "path" and starts and path_value(value) != cur.path):
                cur = begin(i, "headless")
            used = _apply(cur, key, value, bodies, i)
            cur.end = i + 1 + used
            i += 1 + used
            continue
        if item and len(item.group("indent").expandtabs(4)) <= 1:
            found = path_in(item_text, strict=True)
            if (
                found is not None
                and cur is not None
                and cur.kind == "heading"
                and found[0] == cur.path
                and not ((cur.values or cur.path_field) and _own_record(found[1]))
            ):
                _inline(cur, found[1])  # "## projects/a.md" then "- projects/a.md — archived …"
                cur.end = i + 1
                i += 1
                continue
            if found is not None:  # another path: an agent's list record, even under a heading record
                draft = begin(i, "list")
                draft.path = found[0]
                draft.defaults.clear()
                _inline(draft, found[1])
                for key, date in group.defaults.items():
                    draft.defaults.setdefault(key, date)
                i += 1
                continue
        if cur is not None:
            # Text right under a record's lines is part of it; other prose in a heading's section is the
            # agent's own (kept when the record is removed), unless a field of the record follows it.
            if i == cur.end or (cur.kind != "heading" and b[:1] in (" ", "\t")):
                cur.end = i + 1
            elif cur.kind != "heading":
                finish()
        i += 1
    finish()
    return out, cuts


class Reading:
    """`parse_records` of one text after another, each a small edit of the one before (a batch adding,
    changing or removing records one at a time): the whole text is read once, then only the part around what
    changed (0.1 s a parse at 2,500 records).

    Why the records outside that part stay right: at a cut (a heading line that `_read_lines` reaches as the
    start of a line, outside a fence, with no date from a heading above it to pass on) no record is open, no
    fence is open and nothing above has a say in how the lines below read, so the records from there on are
    those of the text from there on, read alone. The lines from the last cut before the change up to the
    first cut after it are read again, alone, together with that cut's line: when the reading reaches it as a
    cut again, the records below are the ones found before, moved by the lines added or removed; when not,
    the reading goes on to the next cut (or to the end). What changed is found on the texts (their common
    start and end, compared in C), so a small edit costs no Python step per line of the file.
    """

    def __init__(self) -> None:
        self.text: str | None = None  # the text read last
        self._bom = ""
        self._body = ""
        self._bodies: list[str] = []
        self._records: list[ArchiveRecord] = []
        self._cuts: list[int] = []

    def records(self, text: str) -> list[ArchiveRecord]:
        """`parse_records(text)` (a list of its own: the caller may keep it)."""
        self._see(text)
        return list(self._records)

    def open_fence(self, text: str) -> str | None:
        """`fence_state` of the text's lines: the fence still open after the last one (None: all closed),
        read from the last cut (no fence is open at one)."""
        self._see(text)
        last = self._cuts[-1] if self._cuts else 0
        return fence_state(self._bodies[last:])[1]

    def _see(self, text: str) -> None:
        if text is not self.text:
            try:
                self._read(text)
            except Exception:  # pragma: no cover - defensive, as `parse_records`
                self.text, self._body, self._bodies, self._records, self._cuts = None, "", [], [], []

    def _read(self, text: str) -> None:
        bom, body = split_bom(text)
        if self.text is None or bom != self._bom:
            bodies = line_bodies(body)
            self._records, self._cuts = _read_lines(bodies)
        else:
            bodies, a, b = _changed(self._body, body, self._bodies)
            self._reread(bodies, a, b)
        self.text, self._bom, self._body, self._bodies = text, bom, body, bodies

    def _reread(self, bodies: list[str], a: int, b: int) -> None:
        """Read again from the last cut before line `a` to the first cut reached at or after line `b` (the
        old text's lines before `a` and from `b` on are the new text's, the latter moved by `delta`)."""
        cuts, n = self._cuts, len(self._bodies)
        delta = len(bodies) - n
        start = bisect_left(cuts, a) - 1  # the last cut before `a` (0: the top)
        top = cuts[start] if start >= 0 else 0
        below = bisect_left(cuts, b)  # the cuts at or after `b`, not reached by the change
        while True:
            end = cuts[below] if below < len(cuts) else n
            window = bodies[top : end + delta + 1]  # with the cut's line, to see it reached as a cut
            found, found_cuts = _read_lines(window)
            if end == n:
                break
            if end + delta - top in found_cuts:
                found_cuts = [c for c in found_cuts if c < end + delta - top]
                found = [r for r in found if r.start < end + delta - top]
                break
            below += 1
        self._records = [
            *(r for r in self._records if r.start < top),
            *(replace(r, start=r.start + top, end=r.end + top) for r in found),
            *(
                replace(r, start=r.start + delta, end=r.end + delta) if delta else r
                for r in self._records
                if r.start >= end
            ),
        ]
        kept = cuts[: max(start, 0)]  # (the window says again whether `top` is one)
        self._cuts = [*kept, *(c + top for c in found_cuts), *(c + delta for c in cuts[below:])]


def _changed(old: str, new: str, old_bodies: list[str]) -> tuple[list[str], int, int]:
    """The bodies of `new`, an edit of `old` (whose bodies are `old_bodies`), and `a`, `b`: `old`'s lines
    before `a` are `new`'s first lines, and its lines from `b` on are `new`'s last lines (the same text,
    endings included, so the same bodies). Only the lines between are split again."""
    p = _common_prefix(old, new)
    s = _common_suffix(old, new, min(len(old), len(new)) - p)
    a = old.count("\n", 0, p)  # the lines ending before the first difference
    first = old.rfind("\n", 0, p) + 1  # where line `a` starts (in both texts)
    nl = old.find("\n", len(old) - s)  # the lines after it are in the common end
    if nl < 0:
        b, stop = len(old_bodies), len(new)
    else:
        b, stop = old.count("\n", 0, nl + 1), nl + 1 + len(new) - len(old)
    return [*old_bodies[:a], *line_bodies(new[first:stop]), *old_bodies[b:]], a, b


def _common_prefix(x: str, y: str) -> int:
    """The length of the longest common start of `x` and `y` (slices compared in C, halving)."""
    lo, hi = 0, min(len(x), len(y))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if x[lo:mid] == y[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(x: str, y: str, limit: int) -> int:
    """The length of the longest common end of `x` and `y`, at most `limit`."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if x[len(x) - mid : len(x) - lo] == y[len(y) - mid : len(y) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def lines_of(rec: ArchiveRecord) -> str:
    """Where a record stands: "line 5", "lines 5-9" (1-based)."""
    return f"line {rec.start + 1}" if rec.end - rec.start <= 1 else f"lines {rec.start + 1}-{rec.end}"


def line_span(rec: ArchiveRecord) -> str:
    """Where a record stands, for a preview: "line 5 of _archive/_index.md", "lines 5-9 of …" (1-based)."""
    return f"{lines_of(rec)} of {ARCHIVE_INDEX}"
