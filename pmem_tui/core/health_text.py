"""What the health check learns from one memory file's text: stated dates, status, checklist, summary state,
and the normalized bytes its near-duplicate sketch is made from. Pure functions, no file-system access.

Stated dates
------------
The newest date among: a line ``Updated: …``, ``Last updated: …``, ``Last modified: …``, ``Modified: …`` (also as a
list item, bold, quoted, with ``：``; Chinese ``更新``, ``最后更新``, ``更新时间``, ``更新日期``…), and front-matter keys
``updated``, ``last_updated``, ``last-updated``, ``lastmod``, ``modified``, ``date``. Dates are read by
`records.parse_date` (``2026-11-20``, ``2026/11/20``, ``2026年11月20日``, ``20 Nov 2026``, ``Nov 20, 2026``).

Status
------
The first status line (``Status: …``, ``State: …``, ``状态：…``, as a list item or bold; or front matter
``status:``) whose value starts with a concluded word: done, concluded, complete(d), finished, shipped, closed,
abandoned, superseded, cancel(l)ed, obsolete, deprecated, and 已完成, 完成, 已结束, 结束, 已关闭, 已放弃, 已取代,
已废弃, 已终止, 已取消, 已上线, 已发布, 已交付 (traditional forms too), 完了, 終了, 済み. A value starting with an
active word (active, in progress, ongoing, open, WIP, 进行中, 未完成) is kept as the file's *open* status: it is
why an old file may still be kept. A checklist counts as concluded when it has at least two items (``- [x]``,
``* [ ]``, ``1. [X]``) outside code fences and every one is ticked.

Normalization (for duplicates and near duplicates)
----------------------------------------------------
ASCII letters are lower-cased; ASCII punctuation, symbols and whitespace, Unicode general punctuation
(U+2000–U+206F: dashes, curly quotes…), CJK symbols and punctuation (U+3000–U+303F), fullwidth punctuation and
Latin-1 symbols all separate words. Every CJK, kana or Hangul character is a word of its own, so the word
3-grams of CJK text are character 3-grams. Other letters are kept as written (no Unicode case folding).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from pmem_tui.core import summary as summary_mod
from pmem_tui.core import textio
from pmem_tui.core.model import SummaryState
from pmem_tui.core.records import parse_date

__all__ = ["Facts", "extract_facts", "normalize_bytes", "normalized_text"]

# -- normalization ------------------------------------------------------------------------------------------


def _table() -> bytes:
    table = bytearray(range(256))
    for c in range(128):
        ch = chr(c)
        if "A" <= ch <= "Z":
            table[c] = c + 32
        elif not ("a" <= ch <= "z" or "0" <= ch <= "9"):
            table[c] = 32
    return bytes(table)


TABLE = _table()
_UNICODE_SEPARATORS = re.compile(
    rb"\xe2[\x80-\x81][\x80-\xbf]"  # U+2000-U+207F general punctuation (dashes, quotes, spaces)
    rb"|\xe3\x80[\x80-\xbf]"  # U+3000-U+303F CJK symbols and punctuation
    rb"|\xef\xbc[\x80-\x8f\x9a-\xa0\xbb-\xbf]|\xef\xbd[\x80\x9b-\xa5]"  # fullwidth punctuation
    rb"|\xef\xb8[\x90-\x99\xb0-\xbf]|\xef\xb9[\x80-\xaf]"  # vertical and small form variants
    rb"|\xc2[\xa0-\xbf]|\xc3[\x97\xb7]"  # Latin-1 symbols, NBSP, multiplication and division signs
)
_CJK_CHAR = re.compile(
    rb"[\xe3-\xed][\x80-\xbf][\x80-\xbf]"  # U+3000-U+DFFF: kana, CJK ideographs, Hangul
    rb"|\xef[\xa4-\xab][\x80-\xbf]"  # U+F900-U+FAFF compatibility ideographs
    rb"|\xf0[\xa0-\xaf][\x80-\xbf][\x80-\xbf]"  # U+20000-U+2FFFF supplementary ideographs
)


def normalize_bytes(data: bytes) -> bytes:
    """`data` with words separated by spaces (before case folding; see `TABLE`), CJK characters split apart."""
    if data.isascii():
        return data
    data = _UNICODE_SEPARATORS.sub(b" ", data)
    return _CJK_CHAR.sub(rb" \g<0> ", data)


def normalized_text(data: bytes) -> bytes:
    """The words of `data`, lower-cased, one space apart: what similarity is measured on."""
    return b" ".join(normalize_bytes(data).translate(TABLE).split())


# -- facts --------------------------------------------------------------------------------------------------

_BOM = b"\xef\xbb\xbf"
_LEAD = r"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?(?:\*\*|__)?[ \t]*"
_DATE_KEYS = (
    r"last[ _-]?updated(?:[ _-]?(?:at|on))?|updated(?:[ _-]?(?:at|on))?|last[ _-]?modified|modified"
    r"|最后更新(?:时间|日期)?|最後更新(?:時間|日期)?|更新(?:时间|時間|日期|于|於)?"
)
# The key, then a colon, or a date right after it ("Updated 2026-11-20"), so prose ("updated the API") is no date.
_DATE_LINE = re.compile(
    _LEAD + r"(?P<key>" + _DATE_KEYS + r")(?![\w])(?:\*\*|__)?[ \t]*"
    r"(?:[:：](?:\*\*|__)?|(?=[ \t]*\d{4}[-/.年]))[ \t]*(?P<value>[^\r\n]*)",
    re.I | re.M,
)
_STATUS_LINE = re.compile(
    _LEAD + r"(?P<key>status|state|状态|狀態|状態|进度|進度)(?![\w])"
    r"(?:\*\*|__)?[ \t]*[:：](?:\*\*|__)?[ \t]*(?P<value>[^\r\n]*)",
    re.I | re.M,
)
_CONCLUDED = re.compile(
    r"(?:done|concluded|completed?|finished|shipped|closed|abandoned|superseded|cancell?ed|obsolete|deprecated"
    r"|已完成|已结束|已結束|已关闭|已關閉|已放弃|已放棄|已被?取代|已废弃|已廢棄|已终止|已終止|已取消|已上线|已上線"
    r"|已发布|已發布|已交付|完成|结束|結束|完了|終了|済み)(?![a-z0-9])",
    re.I,
)
_OPEN = re.compile(
    r"(?:active|in[ _-]?progress|ongoing|open|wip|进行中|進行中|未完成)(?![a-z0-9])",
    re.I,
)
_VALUE_LEAD = re.compile(r"[\s`*_~\[\](){}<>\"'“”‘’「」『』:：\-–—•·✅✔✓☑️🟢🔴🟡⏳🚧]*")
_CHECK = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[(?P<mark>[ xX✓✔])\]", re.M)
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?P<body>.*?)^(?:---|\.\.\.)[ \t]*$", re.M | re.S)
_FRONT_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:[ \t]*(?P<value>[^\r\n]*)$", re.M)
_FRONT_DATE_KEYS = frozenset({"updated", "last_updated", "last-updated", "lastupdated", "lastmod", "modified",
                              "last_modified", "last-modified", "date"})
# Words that must appear on a line for each pattern to be tried there (lower case).
_DATE_WORDS = ("updated", "modified", "更新")
_STATUS_WORDS = ("status", "state", "状态", "狀態", "状態", "进度", "進度")
_CHECK_WORDS = ("[x]", "[ ]", "[✓]", "[✔]")
_SUMMARY_HEADING = re.compile(r"^ {0,3}##[ \t]+(?:summary|摘要)[ \t]*#*[ \t]*\r?$", re.M)
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|\r?$)", re.M)


@dataclass(frozen=True)
class Facts:
    """What one file says about itself. Dates are ISO strings so the facts can be cached as JSON."""

    stated: str | None = None  # the newest date the file states
    stated_from: str | None = None  # where: "Updated: 2026-11-20" or "front matter updated: 2026-11-20"
    status: str | None = None  # the concluded status as written ("done", "已完成"...)
    status_from: str | None = None  # the line it was read from
    open_status: str | None = None  # an active status ("in progress"...)
    ticked: int = 0
    checklist: int = 0
    summary_state: str = SummaryState.MISSING.value
    summary_detail: str = ""

    def to_list(self) -> list[object]:
        return [self.stated, self.stated_from, self.status, self.status_from, self.open_status, self.ticked,
                self.checklist, self.summary_state, self.summary_detail]

    @classmethod
    def from_list(cls, raw: list[object]) -> Facts:
        s, sf, st, stf, op, tk, cl, ss, sd = raw
        return cls(
            stated=None if s is None else str(s),
            stated_from=None if sf is None else str(sf),
            status=None if st is None else str(st),
            status_from=None if stf is None else str(stf),
            open_status=None if op is None else str(op),
            ticked=int(str(tk)),
            checklist=int(str(cl)),
            summary_state=str(ss),
            summary_detail=str(sd),
        )

    @property
    def checklist_done(self) -> bool:
        return self.checklist >= 2 and self.ticked == self.checklist


def _clip(line: str, limit: int = 80) -> str:
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _status_value(value: str) -> tuple[str | None, str | None]:
    """(concluded word, open word) at the start of a status value."""
    rest = value[_VALUE_LEAD.match(value).end() :]  # type: ignore[union-attr]  # the pattern always matches
    m = _CONCLUDED.match(rest)
    if m:
        return m.group(0), None
    m = _OPEN.match(rest)
    if m:
        return None, m.group(0)
    return None, None


def _line_starts(low: str, words: tuple[str, ...]) -> list[int]:
    """The start offsets of the lines of `low` that contain one of `words`, in order."""
    starts: set[int] = set()
    for w in words:
        i = low.find(w)
        while i >= 0:
            starts.add(low.rfind("\n", 0, i) + 1)
            i = low.find(w, i + 1)
    return sorted(starts)


def _summary_info(text: str, low: str) -> tuple[str, str]:
    """`summary.inspect_summary`'s state and detail, computed on the shortest prefix that decides them.

    A valid or invalid summary is decided by the lines up to the end of its section; the section ends at the next
    ATX heading at the latest, so the text is cut just before it when no code fence opens before the cut. (When
    the cut text has no summary, the file has none either: the result is the same MISSING state, with a
    possibly different detail, which the health check does not report.)
    """
    m = _SUMMARY_HEADING.search(low)
    cut = len(text)
    if m is not None:
        nxt = _ATX_HEADING.search(low, m.end() + 1)
        if nxt is not None and "```" not in low[: nxt.start()] and "~~~" not in low[: nxt.start()]:
            cut = nxt.start()
    info = summary_mod.inspect_summary(text[:cut] if cut < len(text) else text)
    return info.state.value, info.detail


def extract_facts(data: bytes, hints: int | None = None) -> Facts:
    """The facts of one file (see the module notes).

    `hints` (`health_sketch.HINT_*` bits, from the words the sketch saw) tells which patterns can match at all;
    without it, cheap byte searches decide.
    """
    has_front = data.startswith((b"---", _BOM + b"---"))
    if hints is None:
        low_b = data.lower()
        want_dates = b"updated" in low_b or b"modified" in low_b or b"\xe6\x9b\xb4" in data  # 更
        want_status = b"status" in low_b or b"state" in low_b or not data.isascii()
        want_checks = b"[x]" in low_b or b"\xe2\x9c" in data  # [x], or a check mark U+2713/U+2714
        want_summary = b"summary" in low_b or b"\xe6\x91\x98" in data  # 摘
    else:
        want_dates, want_status, want_checks, want_summary = (bool(hints & b) for b in (1, 2, 4, 8))
    want_dates = want_dates or has_front
    want_status = want_status or has_front
    if not (want_dates or want_status or want_checks or want_summary):
        return Facts()
    text = textio.decode(data)
    low = text.lower()
    body_at = 0
    front: dict[str, str] = {}
    if has_front:
        fm = _FRONT.match(text)
        if fm:
            front = {m.group("key").lower(): m.group("value").strip() for m in _FRONT_KEY.finditer(fm.group("body"))}
            body_at = fm.end()
    stated: str | None = None
    stated_from: str | None = None
    if want_dates:
        best: tuple[dt.date, str] | None = None
        for key, value in front.items():
            if key in _FRONT_DATE_KEYS:
                date = parse_date(value)
                if date is not None and (best is None or date > best[0]):
                    best = (date, f"front matter {key}: {_clip(value, 40)}")
        for pos in _line_starts(low, _DATE_WORDS):
            m = _DATE_LINE.match(text, pos) if pos >= body_at else None
            date = parse_date(m.group("value")) if m else None
            if m is not None and date is not None and (best is None or date > best[0]):
                best = (date, _clip(m.group(0).strip(" \t>-*+")))
        if best is not None:
            stated, stated_from = best[0].isoformat(), best[1]
    status = status_from = open_status = None
    if want_status:
        candidates: list[tuple[str, str]] = []
        if "status" in front:
            candidates.append((front["status"], f"front matter status: {_clip(front['status'], 40)}"))
        for pos in _line_starts(low, _STATUS_WORDS):
            m = _STATUS_LINE.match(text, pos) if pos >= body_at else None
            if m is not None:
                candidates.append((m.group("value"), _clip(m.group(0).strip(" \t>-*+"))))
                break
        for value, source in candidates:
            done, active = _status_value(value)
            if done:
                status, status_from = done, source
                break
            if active:
                open_status = active
                break
    ticked = total = 0
    if want_checks:
        fenced = "```" in text or "~~~" in text
        unfenced = _FENCED.sub("", text[body_at:]) if fenced else text[body_at:]
        for pos in _line_starts(unfenced.lower(), _CHECK_WORDS):
            m = _CHECK.match(unfenced, pos)
            if m is not None:
                total += 1
                ticked += m.group("mark") != " "
    summary_state, summary_detail = SummaryState.MISSING.value, ""
    if want_summary:
        summary_state, summary_detail = _summary_info(text, low)
    return Facts(stated, stated_from, status, status_from, open_status, ticked, total, summary_state, summary_detail)
