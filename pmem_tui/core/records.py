"""`_archive/_index.md`: archive and trash records, read tolerantly, written in one documented format.

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

Reading
-------
`parse_records` never raises. A record starts at:

* a heading (any level) naming a ``.md`` path, after optional dates, weekdays and words such as ``Archived:``
  (``## projects/old.md``, ``### Archived: projects/old.md``, ``## 2026-11-30 — projects/old.md``), or any
  heading directly followed by a field line;
* a list item at the left margin naming a path at its start (``- **projects/old.md**``, ``- `projects/old.md`
  — archived 2026-11-30``), outside a heading record; its fields are the following indented lines;
* a field line with no record open, or a path field naming another path than the open record's path field
  (records written without headings);
* a row of a Markdown table whose header row names a path column (layout ``table``).

A heading record runs to the next heading or record start; a list or headless record ends at the next line
at the left margin that is not a field. `start`/`end` cover the record's first to last non-blank line. A
date in a record's heading or list line (or in a heading above a group of list records) is the archive
date, or the deletion date when the words there speak of deleting or the trash; fields win.

Field lines are ``Label: value`` with optional bullet and bold (``**Label:** value``, ``**Label**: value``),
``:`` or ``：``; labels are matched case-insensitively from `LABELS` (English and Chinese wordings). Values:

* dates: the first date found in ``2026-11-30``, ``2026/11/30``, ``2026年11月30日``, ``30 Nov 2026``,
  ``Nov 30, 2026`` forms, so weekdays around it (``2026-11-30 (Mon)``, ``Mon 2026-11-30``) do not matter;
* lines (index line, line above/below): a code span, a quoted ``"…"`` / ``“…”`` / ``「…」`` string, text after
  ``>``, a fenced code block or ``>`` quote on the lines right under an empty field, or the plain text;
  ``(not recorded)``, ``none``, ``n/a``, ``-``, ``无``… mean no line (a legacy record);
* paths: a code span, a link, bold or plain text; ``./``, ``~/.persistent-memory/``, ``_archive/`` and
  ``_archive/_trash/`` prefixes are dropped.

A deleted record with no deadline gets deletion date + 30 days. A record without a path is skipped.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from pmem_tui.core.model import RECOVERY_DAYS, ArchiveRecord
from pmem_tui.core.textio import (
    code_span,
    dominant_eol,
    line_ending,
    read_code_span,
    split_bom,
    split_lines,
    strip_ending,
)

__all__ = [
    "LABELS",
    "add_record",
    "empty_archive_index",
    "find_record",
    "format_record",
    "parse_date",
    "parse_records",
    "remove_record",
    "replace_record",
]

HEADER_TITLE = "# Archive index"
HEADER_TEXT = (
    "One section per archived or deleted memory file, written so that people and agents can read it; "
    "the index line is kept as inline code exactly as it stood in `_index.md`, so recovery can restore it."
)
NOT_RECORDED = "(not recorded)"
BLANK_LINE = "(blank line)"

# Field labels (normalised: lower case, single spaces) -> field.
LABELS: dict[str, str] = {}
for _key, _words in {
    "path": (
        "original path, path, original, original location, original file, source, source path, file, "
        "file path, active path, 原路径, 原始路径, 路径, 原位置, 原文件, 文件, 文件路径"
    ),
    "index_line": (
        "index line, index entry, active index line, exact index line, exact active index line, "
        "original index line, saved index line, line, entry, index, index route, route, "
        "索引行, 索引条目, 原索引行, 原索引条目, 索引, 索引项, 条目"
    ),
    "archived": (
        "archived, archive date, date archived, archived on, archived at, archived date, date, "
        "归档日期, 归档时间, 归档于, 归档"
    ),
    "reason": "reason, why, archive reason, reason for archiving, reason archived, 原因, 归档原因, 理由",
    "deleted": (
        "deleted, deletion date, date deleted, deleted on, deleted at, deleted date, trashed, trashed on, "
        "moved to trash, 删除日期, 删除时间, 删除于, 删除"
    ),
    "deadline": (
        "deadline, recovery deadline, recover by, recoverable until, restore by, recovery until, expires, "
        "expires on, expiry, purge after, 恢复截止, 恢复截止日期, 截止日期, 恢复期限, 截止"
    ),
    "after": "line above, after, previous line, index line above, line before, 上一行, 前一行",
    "before": "line below, before, next line, index line below, line after, 下一行, 后一行",
    "position": "index position, position, 位置, 索引位置",
}.items():
    for _w in _words.split(","):
        LABELS[_w.strip()] = _key

_LINE_FIELDS = ("index_line", "after", "before")
_PLACEHOLDERS = {
    "",
    "-",
    "—",
    "–",
    "none",
    "n/a",
    "na",
    "null",
    "unknown",
    "missing",
    "not recorded",
    "not saved",
    "无",
    "未记录",
    "缺失",
}

_HEADING = re.compile(r" {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<text>.*?))?[ \t]*")
_ITEM = re.compile(r"(?P<indent>[ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(?P<text>.*))?")
_FIELD = re.compile(
    r"(?P<b>\*\*|__)?(?P<label>[^:：*_`|\[\]]{1,40}?)(?(b)(?:\*\*|__)?)[ \t]*[:：][ \t]*"
    r"(?(b)(?:\*\*|__)?)[ \t]*(?P<value>.*)"
)
_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")
_DELIMITER_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_MONTH = r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATES = (
    re.compile(r"(?<!\d)(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
    re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日?"),
    re.compile(r"(?<!\d)(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>\d{4})(?!\d)", re.I),
    re.compile(_MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})(?!\d)", re.I),
)
_WEEKDAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|周[一二三四五六日天]|星期[一二三四五六日天]"
_LEAD_WORD = re.compile(
    r"\s*(?:archived|archive|deleted|trashed|trash|record|file|已归档|归档|已删除|删除|记录)"
    r"(?=[\s:：])\s*(?:on\s+|at\s+|于)?[:：]?\s*",
    re.I,
)
_LEAD_SEP = re.compile(r"\s*(?:[—–:：|,]+|-(?=\s))?\s*")
_DELETE_WORDS = re.compile(r"delet|trash|删除|回收", re.I)


def parse_date(value: str) -> dt.date | None:
    """The first valid date in `value` (see the module notes for the forms), or None."""
    best: tuple[int, dt.date] | None = None
    for pattern in _DATES:
        for m in pattern.finditer(value):
            try:
                month = int(m.group("m")) if "m" in m.groupdict() else _MONTHS[m.group("mon")[:3].lower()]
                date = dt.date(int(m.group("y")), month, int(m.group("d")))
            except (ValueError, KeyError, TypeError):
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), date)
            break
    return None if best is None else best[1]


def _strip_lead_date(text: str) -> str:
    """Drop one leading date (with weekday) when a separator, space or the end follows it."""
    for pattern in _DATES:
        m = re.match(
            r"\s*(?:(?:" + _WEEKDAY + r"),?\s+)?" + pattern.pattern + r"(?:\s*\((?:" + _WEEKDAY + r")\))?",
            text,
            re.I,
        )
        if m and (m.end() == len(text) or text[m.end()] in " \t—–:：|,()"):
            return text[m.end() :]
    return text


def _clean_path(path: str) -> str | None:
    p = path.strip()
    while p.startswith("./"):
        p = p[2:]
    for prefix in ("~/.persistent-memory/", ".persistent-memory/"):
        if p.startswith(prefix):
            p = p[len(prefix) :]
    at = p.find("/.persistent-memory/")
    if at >= 0:
        p = p[at + len("/.persistent-memory/") :]
    for prefix in ("_archive/_trash/", "_archive/"):
        if p.startswith(prefix):
            p = p[len(prefix) :]
            break
    return p or None


def _split_path(text: str, strict: bool) -> tuple[str, str] | None:
    """A path at the start of `text` (code span, link, bold or bare): (path, rest)."""
    s = text.lstrip()
    for mark in ("**", "__"):
        if s.startswith(mark):
            end = s.find(mark, len(mark))
            if end > 0:
                inner = _split_path(s[len(mark) : end], strict=False)
                if inner is not None and not inner[1].strip():
                    return inner[0], s[end + len(mark) :]
            return None
    if s.startswith("`"):
        span = read_code_span(s)
        if span is None:
            return None
        p = _clean_path(span[0])
        return (p, span[1]) if p and p.endswith(".md") else None
    if s.startswith("["):
        m = re.match(r"\[(?P<text>[^\]]*)\]\((?P<target><[^>]*>|[^)]*)\)", s)
        if m is None:
            return None
        label = m.group("text").strip().strip("`*")
        target = m.group("target").strip("<>").strip()
        for candidate in (label, target):
            p = _clean_path(candidate)
            if p and p.endswith(".md"):
                return p, s[m.end() :]
        return None
    # A bare path: up to the first ".md" followed by the end, whitespace or punctuation.
    m = re.search(r"\.md(?=$|[\s,;)|*—–:：])", s)
    if m is None:
        return None
    part = s[: m.end()]
    if any(c.isspace() for c in part):
        if strict:
            first, slash, _ = part.partition("/")
            if not slash or any(c.isspace() for c in first):
                return None
        elif s[m.end() :].strip():
            return None
    p = _clean_path(part)
    return (p, s[m.end() :]) if p else None


def _strip_prefix(text: str) -> str:
    """Drop leading dates (with weekdays), words such as "Archived:" and the separators after them."""
    s = text
    for _ in range(4):
        t = _strip_lead_date(s)
        m = _LEAD_WORD.match(t)
        if m:
            t = t[m.end() :]
        sep = _LEAD_SEP.match(t)
        if t != s and sep is not None:
            t = t[sep.end() :]
        if t == s:
            break
        s = t
    return s


def _path_in(text: str, strict: bool) -> tuple[str, str] | None:
    """Find a record's path in a heading or list line: (path, the other text)."""
    s = _strip_prefix(text)
    found = _split_path(s, strict)
    if found is None:
        return None
    return found[0], text[: len(text) - len(s)] + " " + found[1]


def _normal_label(label: str) -> str:
    return " ".join(label.replace("_", " ").strip().strip("*").lower().split())


def _field(text: str) -> tuple[str, str] | None:
    m = _FIELD.fullmatch(text)
    if m is None:
        return None
    key = LABELS.get(_normal_label(m.group("label")))
    if key is None:
        return None
    return key, m.group("value")


def _unquote_line(value: str) -> str | None:
    """A line value as written on the field line itself (see the module notes)."""
    v = value.strip()
    if v.startswith("`"):
        span = read_code_span(v)
        if span is not None:
            return span[0]
    for left, right in (('"', '"'), ("“", "”"), ("「", "」"), ("『", "』")):
        if len(v) >= 2 and v.startswith(left) and v.endswith(right):
            return v[len(left) : len(v) - len(right)]
    if v.startswith(">"):
        v = v[1:]
        return v[1:] if v.startswith(" ") else v
    if v.lower() == BLANK_LINE:
        return ""
    if v.lower().strip("()（）[]") in _PLACEHOLDERS or (v.startswith("(") and v.endswith(")")):
        return None
    return v


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

    def set(self, key: str, value: object) -> None:
        if key == "path":
            if isinstance(value, str) and value:
                self.path = value
                self.path_field = True
        elif (value is not None or key in _LINE_FIELDS) and self.values.get(key) is None:
            self.values[key] = value

    def date_hint(self, text: str) -> None:
        date = parse_date(text)
        if date is not None:
            self.defaults.setdefault("deleted" if _DELETE_WORDS.search(text) else "archived", date)

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
        )


def _block_value(bodies: list[str], i: int) -> tuple[str | None, int]:
    """The value under an empty field at line `i`: a fenced block or a ``>`` quote. (value, lines used)."""
    j = i + 1
    if j < len(bodies) and not bodies[j].strip():
        j += 1  # one blank line may separate them
    if j >= len(bodies):
        return None, 0
    m = _FENCE.match(bodies[j])
    if m:
        indent, fence = len(m.group("indent")), m.group("fence")
        content: list[str] = []
        k = j + 1
        while k < len(bodies):
            s = bodies[k].strip()
            if s and set(s) == {fence[0]} and len(s) >= len(fence):
                break
            line = bodies[k]
            cut = len(line) - len(line.lstrip(" "))
            content.append(line[min(cut, indent) :])
            k += 1
        value = next((c for c in content if c.strip()), content[0] if content else None)
        return value, min(k, len(bodies) - 1) - i
    stripped = bodies[j].lstrip()
    if stripped.startswith(">"):
        v = stripped[1:]
        return (v[1:] if v.startswith(" ") else v), j - i
    if stripped.startswith("`"):
        span = read_code_span(stripped)
        if span is not None and not span[1].strip():
            return span[0], j - i
    return None, 0


def _path_value(value: str) -> str | None:
    v = value.strip()
    found = _split_path(v, strict=False)
    return found[0] if found else _clean_path(v.strip("`*\"'"))


def _apply(draft: _Draft, key: str, value: str, bodies: list[str], i: int) -> int:
    """Set one field on the draft; returns how many following lines the value used."""
    used = 0
    if key in _LINE_FIELDS:
        if value.strip():
            draft.set(key, _unquote_line(value))
        else:
            line, used = _block_value(bodies, i)
            draft.set(key, line)
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
        draft.set("path", _path_value(value))
    elif key == "reason":
        v = value.strip()
        draft.set("reason", v or None)
    else:
        draft.set(key, parse_date(value))
    return used


_INLINE_REASON = re.compile(r"(?:^|[\s(（,;—–|])(?:reason|why|原因|理由)\s*[:：]\s*(?P<reason>.*)$", re.I)


def _inline(draft: _Draft, text: str) -> None:
    """Fields and dates written on a record's heading or list line, after its path: fields below win."""
    found = _Draft(start=draft.start, kind="inline")
    m = _INLINE_REASON.search(text)
    if m:
        found.set("reason", m.group("reason").strip().rstrip(")）").strip() or None)
        text = text[: m.start()]
    for part in re.split(r"[—–|;,()（）]|\s-\s", text):
        inline = _field(part.strip())
        if inline is not None and inline[0] != "path":
            _apply(found, inline[0], inline[1], [], 0)
        else:
            draft.date_hint(part)
    draft.weak.update(found.values)


def _cells(row: str) -> list[str]:
    s = row.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells = re.split(r"(?<!\\)\|", s)
    return [c.replace("\\|", "|") for c in cells]


def _table_columns(bodies: list[str], i: int) -> list[str | None] | None:
    """If a table header starts at line `i`: the field of each column (None: unknown column)."""
    if "|" not in bodies[i] or i + 1 >= len(bodies) or "-" not in bodies[i + 1]:
        return None
    if "|" not in bodies[i + 1] or not _DELIMITER_ROW.fullmatch(bodies[i + 1]):
        return None
    return [LABELS.get(_normal_label(c.strip().strip("`"))) for c in _cells(bodies[i])]


def _fences(bodies: list[str]) -> list[bool]:
    """Which lines are inside (or open/close) a fenced code block at the top level."""
    inside = [False] * len(bodies)
    fence: str | None = None
    for i, b in enumerate(bodies):
        if fence is not None:
            inside[i] = True
            s = b.strip()
            if s and set(s) == {fence[0]} and len(s) >= len(fence):
                fence = None
            continue
        m = _FENCE.match(b)
        if m and not (m.group("fence")[0] == "`" and "`" in b[m.end() :]):
            inside[i] = True
            fence = m.group("fence")
    return inside


def parse_records(text: str) -> list[ArchiveRecord]:
    """Every record with a path, in file order. Never raises (see the module notes for what is read)."""
    try:
        return _parse(text)
    except Exception:  # pragma: no cover - defensive: a broken archive index must not break the app
        return []


def _parse(text: str) -> list[ArchiveRecord]:
    _, body = split_bom(text)
    bodies = [strip_ending(line) for line in split_lines(body)]
    in_fence = _fences(bodies)
    out: list[ArchiveRecord] = []
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
        if in_fence[i]:  # a top-level fenced block: part of the open record, never parsed
            if cur is not None:
                cur.end = i + 1
            i += 1
            continue
        h = _HEADING.fullmatch(b)
        if h:
            level = len(h.group("marks"))
            htext = re.sub(r"[ \t]+#+$", "", h.group("text") or "")
            found = _path_in(htext, strict=False)
            nxt = next((x for x in bodies[i + 1 :] if x.strip()), "")
            nxt_item = _ITEM.fullmatch(nxt)
            if found is not None or _field((nxt_item.group("text") or "") if nxt_item else nxt.strip()):
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
        columns = _table_columns(bodies, i)
        if columns is not None:
            finish()
            j = i + 2
            while j < n and "|" in bodies[j] and bodies[j].strip():
                if "path" in columns:
                    row = _Draft(start=j, kind="table")
                    row.defaults.update(group.defaults)
                    for column, cell in zip(columns, _cells(bodies[j]), strict=False):
                        if column is not None:
                            _apply(row, column, cell, [], 0)
                    rec = row.build()
                    if rec is not None:
                        out.append(rec)
                j += 1
            i = j
            continue
        item = _ITEM.fullmatch(b)
        item_text = (item.group("text") or "") if item else b.strip()
        fld = _field(item_text)
        if fld is not None:
            key, value = fld
            # A second, different path starts the next record (records written without headings).
            if cur is None or (key == "path" and cur.path_field and _path_value(value) != cur.path):
                cur = begin(i, "headless")
            used = _apply(cur, key, value, bodies, i)
            cur.end = i + 1 + used
            i += 1 + used
            continue
        if item and len(item.group("indent").expandtabs(4)) <= 1 and (cur is None or cur.kind != "heading"):
            found = _path_in(item_text, strict=True)
            if found is not None:
                draft = begin(i, "list")
                draft.path = found[0]
                draft.defaults.clear()
                _inline(draft, found[1])
                for key, date in group.defaults.items():
                    draft.defaults.setdefault(key, date)
                i += 1
                continue
        if cur is not None:
            if cur.kind == "heading" or b[:1] in (" ", "\t"):
                cur.end = i + 1
            else:
                finish()
        i += 1
    finish()
    return out


def find_record(records: Iterable[ArchiveRecord], path: str) -> ArchiveRecord | None:
    """The last (newest) record for that original path."""
    found = None
    for rec in records:
        if rec.path == path:
            found = rec
    return found


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
    if rec.after is not None:
        out.append(f"- Line above: {_line_value(rec.after)}")
    if rec.before is not None:
        out.append(f"- Line below: {_line_value(rec.before)}")
    return eol.join(out) + eol


def _same(a: ArchiveRecord, b: ArchiveRecord) -> bool:
    return replace(a, start=0, end=0) == replace(b, start=0, end=0)


def _locate(text: str, rec: ArchiveRecord) -> ArchiveRecord:
    """The record as it stands in `text` now; ValueError when it is no longer there."""
    records = parse_records(text)
    for r in records:
        if (r.start, r.end, r.path, r.layout) == (rec.start, rec.end, rec.path, rec.layout):
            return r
    for r in reversed(records):
        if _same(r, rec):
            return r
    raise ValueError(f"the archive record for {rec.path} is no longer in the archive index")


def _open_fence(lines: list[str]) -> str | None:
    bodies = [strip_ending(x) for x in lines]
    fence: str | None = None
    for b in bodies:
        if fence is not None:
            s = b.strip()
            if s and set(s) == {fence[0]} and len(s) >= len(fence):
                fence = None
            continue
        m = _FENCE.match(b)
        if m and not (m.group("fence")[0] == "`" and "`" in b[m.end() :]):
            fence = m.group("fence")
    return fence


def add_record(text: str, rec: ArchiveRecord) -> str:
    """Append `rec` in our format after a blank line, with the file's dominant line ending.

    Existing bytes are never changed: a missing final newline is added, an unclosed code fence is closed and a
    blank line separates the record. A file without any content first gets the header.
    """
    bom, body = split_bom(text)
    eol = dominant_eol(body)
    if not body.strip():
        return bom + body + empty_archive_index(eol) + eol + format_record(rec, eol)
    if not body.endswith("\n"):
        body += eol
    fence = _open_fence(split_lines(body))
    if fence is not None:
        body += fence + eol
    if split_lines(body)[-1].strip():
        body += eol
    return bom + body + format_record(rec, eol)


def replace_record(text: str, old: ArchiveRecord, new: ArchiveRecord) -> str:
    """Replace `old` by `new`.

    A heading record (layout ``section``) is replaced in place by `new` in our format (its heading keeps the
    old heading's level); a table row or a list/headless record is removed and `new` is appended.
    Raises ValueError when `old` is no longer in the text.
    """
    found = _locate(text, old)
    if found.layout != "section":
        return add_record(remove_record(text, found), new)
    bom, body = split_bom(text)
    lines = split_lines(body)
    eol = dominant_eol(body)
    block = split_lines(format_record(new, eol))
    h = _HEADING.fullmatch(strip_ending(lines[found.start]))
    if h and len(h.group("marks")) != 2:
        block[0] = "#" * len(h.group("marks")) + block[0][2:]
    if not line_ending(lines[found.end - 1]):
        block[-1] = strip_ending(block[-1])
    lines[found.start : found.end] = block
    return bom + "".join(lines)


def remove_record(text: str, rec: ArchiveRecord) -> str:
    """Remove the record's lines, and one blank line next to them when it would otherwise leave two blank
    lines together, a blank line at the top or one at the end.

    Nothing else changes; a file without final newline keeps having none. Raises ValueError when `rec` is no
    longer in the text.
    """
    found = _locate(text, rec)
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
