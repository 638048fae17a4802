"""The values inside archive records: field labels, dates, paths, quoted lines, table cells.

What `record_read` recognises in one line or cell; see `records` for the whole list of shapes.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from operator import itemgetter

from pmem_tui.core.md_lines import FENCE, Blocks, fence_closes
from pmem_tui.core.record_format import BLANK_LINE
from pmem_tui.core.textio import read_code_span

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
    "location": (
        "location, archived to, moved to, archive location, archive path, archived file, archived as, "
        "now at, current location, current path, stored at, trash location, trash path, new path, "
        "new location, "
        "归档位置, 当前位置, 现位置, 存放位置"
    ),
}.items():
    for _w in _words.split(","):
        LABELS[_w.strip()] = _key

LINE_FIELDS = ("index_line", "after", "before")
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

_FIELD = re.compile(
    r"(?P<b>\*\*|__)?(?P<label>[^:：*_`|\[\]]{1,40}?)(?(b)(?:\*\*|__)?)[ \t]*[:：][ \t]*"
    r"(?(b)(?:\*\*|__)?)[ \t]*(?P<value>.*)"
)
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
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = (
    r"(?:" + "|".join(d[:3] for d in WEEKDAY_NAMES) + r")[a-z]*\.?"
    r"|周[一二三四五六日天]|星期[一二三四五六日天]"
)
_LEAD_WORD = re.compile(
    r"\s*(?:archived|archive|deleted|trashed|trash|record|file|已归档|归档|已删除|删除|记录)"
    r"(?=[\s:：])\s*(?:on\s+|at\s+|于)?[:：]?\s*",
    re.I,
)
_LEAD_SEP = re.compile(r"\s*(?:[—–:：|,]+|-(?=\s))?\s*")
DELETE_WORDS = re.compile(r"delet|trash|删除|回收", re.I)
# Words that make the next date in the same clause the recovery deadline ("recoverable until 2026-12-20",
# "expires on 2026-12-20", "recoverable until `2026-12-20`", "expires in 30 days: 2026-12-20",
# "恢复截止：2026-12-20", "到期：2026-12-20", "可恢复至 2026-12-20"), and the Chinese words that do so right
# after it ("2026-12-20 截止"). Only a date they govern: "2026-01-01 (keep until Q3)" and "keep until Q3,
# archived 2026-01-01" are archive dates (a clause break, a bracket or an archive or delete word between
# them ends what the words govern).
_BREAKS = r",;，；。、|()（）\[\]—–"  # what ends a clause of a heading or list line
_CLAUSE_BREAK = re.compile(f"[{_BREAKS}]")
_DEADLINE_WORD = re.compile(
    r"until|recover(?:y|able)?\s+by|restore\s+by|deadline|expir|purge\s+after|截止|期限|到期|恢复至|保留至",
    re.I,
)
# What may stand between them and the date: no clause break, no archive or delete word; a weekday's comma;
# a bracket or marks (`, **) right before the date. Possessive: no backtracking (an agent's long line).
_GOVERNED = re.compile(
    r"(?:(?:" + _WEEKDAY + r"),|(?!archiv|delet|trash|归档|删除|回收)[^" + _BREAKS + r"])*+[(（\[]?[\s`*_]*$",
    re.I,
)
_DEADLINE_AFTER = re.compile(r"\s*(?:截止|到期)")
_ARCHIVE_WORDS = re.compile(r"archiv|归档", re.I)


def _first_date(pattern: re.Pattern[str], value: str, pos: int) -> tuple[int, int, dt.date] | None:
    """The first valid date of one form in `value` from `pos` on: (start, end, date)."""
    for m in pattern.finditer(value, pos):
        try:
            month = int(m.group("m")) if "m" in m.groupdict() else _MONTHS[m.group("mon")[:3].lower()]
            return m.start(), m.end(), dt.date(int(m.group("y")), month, int(m.group("d")))
        except (ValueError, KeyError, TypeError):
            continue
    return None


def _dates(value: str) -> Iterator[tuple[int, int, dt.date]]:
    """Each valid date in `value` (see the module notes for the forms), in order, each found from the end of
    the one before: (start, end, date). A form's next date is looked for again only once the one it found
    is passed (a line of many dates is read once per form, not once per date)."""
    ahead: list[tuple[int, int, dt.date] | None] = [(-1, -1, dt.date.min)] * len(_DATES)  # not looked yet
    pos = 0
    while True:
        for k, pattern in enumerate(_DATES):
            seen = ahead[k]
            if seen is not None and seen[0] < pos:
                ahead[k] = _first_date(pattern, value, pos)
        found = [a for a in ahead if a is not None]
        if not found:
            return
        best = min(found, key=itemgetter(0))  # the first form wins a tie
        yield best
        pos = best[1]


def parse_date(value: str) -> dt.date | None:
    """The first valid date in `value` (see the module notes for the forms), or None."""
    found = next(_dates(value), None)
    return None if found is None else found[2]


def _governed(text: str, pos: int, start: int) -> bool:
    """Whether deadline words between `pos` and `start` govern the date at `start`: the last of them does when
    any does (what stands between it and the date stands between the others and the date too)."""
    ends = [m.end() for m in _DEADLINE_WORD.finditer(text, pos, start)]
    return bool(ends) and _GOVERNED.match(text, ends[-1], start) is not None


def date_hints(text: str) -> list[tuple[str, dt.date]]:
    """Each date in a record's heading or list line (a part without a label), with what it is: the
    ``deadline`` when deadline words govern it, else the ``archived`` date when its own clause speaks of
    archiving and not of deleting, else the ``deleted`` date when the words speak of deleting or the trash,
    else the ``archived`` date."""
    spans = list(_dates(text))
    deleting = DELETE_WORDS.search(text) is not None
    out: list[tuple[str, dt.date]] = []
    for i, (start, end, date) in enumerate(spans):
        pos = spans[i - 1][1] if i else 0
        if _governed(text, pos, start) or _DEADLINE_AFTER.match(text, end):
            out.append(("deadline", date))
            continue
        # Its own clause's words first ("archived 2026-01-01, deleted 2026-01-05", "归档 …，删除 …").
        nxt = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        left = max([pos, *(m.end() for m in _CLAUSE_BREAK.finditer(text, pos, start))])
        after = _CLAUSE_BREAK.search(text, end, nxt)
        clause = text[left : after.start() if after else nxt]
        key = "deleted" if deleting else "archived"
        if _ARCHIVE_WORDS.search(clause) and not DELETE_WORDS.search(clause):
            key = "archived"
        out.append((key, date))
    return out


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


def path_in(text: str, strict: bool) -> tuple[str, str] | None:
    """Find a record's path in a heading or list line: (path, the other text)."""
    s = _strip_prefix(text)
    found = _split_path(s, strict)
    if found is None:
        return None
    return found[0], text[: len(text) - len(s)] + " " + found[1]


def normal_label(label: str) -> str:
    return " ".join(label.replace("_", " ").strip().strip("*").lower().split())


def field_match(text: str) -> tuple[str, re.Match[str]] | None:
    """A field line's field (``index_line@2`` for "Index line 2") and its match (label and value spans)."""
    m = _FIELD.fullmatch(text)
    if m is None:
        return None
    label = normal_label(m.group("label"))
    key = LABELS.get(label)
    if key is None:
        # "Index line 2", "Line above 2": the second line of a route listed twice (see record_format).
        base, _, number = label.rpartition(" ")
        if LABELS.get(base) in LINE_FIELDS and number.isdigit() and 1 < int(number) < 1000:
            return f"{LABELS[base]}@{int(number)}", m
        return None
    return key, m


def field_of(text: str) -> tuple[str, str] | None:
    found = field_match(text)
    return None if found is None else (found[0], found[1].group("value"))


def unquote_line(value: str) -> str | None:
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


def block_value(bodies: list[str], i: int) -> tuple[str | None, int]:
    """The value under an empty field at line `i`: a fenced block or a ``>`` quote. (value, lines used)."""
    j = i + 1
    if j < len(bodies) and not bodies[j].strip():
        j += 1  # one blank line may separate them
    if j >= len(bodies):
        return None, 0
    m = FENCE.match(bodies[j])
    if m:
        indent, fence = len(m.group("indent")), m.group("fence")
        content: list[str] = []
        k = j + 1
        while k < len(bodies):
            if fence_closes(bodies[k], fence):
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


def path_value(value: str) -> str | None:
    v = value.strip()
    found = _split_path(v, strict=False)
    return found[0] if found else _clean_path(v.strip("`*\"'"))


def location_value(value: str) -> str | None:
    """Where a record says its file stands: a path inside `_archive/` (the prefix is added when missing)."""
    v = value.strip()
    span = read_code_span(v) if v.startswith("`") else None
    v = (span[0] if span else v.strip("*\"'")).strip()
    m = re.fullmatch(r"\[[^\]]*\]\((?P<target>[^)]*)\)", v)
    if m:
        v = m.group("target").strip("<> ")
    while v.startswith("./"):
        v = v[2:]
    for prefix in ("~/.persistent-memory/", ".persistent-memory/"):
        if v.startswith(prefix):
            v = v[len(prefix) :]
    if not v.endswith(".md") or ".." in v.split("/") or v.startswith("/"):
        return None
    return v if v.startswith("_archive/") else f"_archive/{v}"


def cells(row: str) -> list[str]:
    s = row.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells = re.split(r"(?<!\\)\|", s)
    return [c.replace("\\|", "|") for c in cells]


def table_columns(bodies: list[str], i: int) -> list[str | None] | None:
    """If a table header starts at line `i`: the field of each column (None: unknown column)."""
    if "|" not in bodies[i] or i + 1 >= len(bodies) or "-" not in bodies[i + 1]:
        return None
    if "|" not in bodies[i + 1] or not _DELIMITER_ROW.fullmatch(bodies[i + 1]):
        return None
    return [LABELS.get(normal_label(c.strip().strip("`"))) for c in cells(bodies[i])]


def fence_state(bodies: list[str]) -> tuple[list[bool], str | None]:
    """Which lines are inside (or open/close) a fenced code block at the top level, and the fence still open
    after the last line (None: all closed)."""
    blocks = Blocks()
    inside = [blocks.hidden(b) for b in bodies]
    return inside, blocks.fence
