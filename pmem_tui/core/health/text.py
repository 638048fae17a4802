"""What the health check learns from one memory file's text: stated dates, status, checklist, summary state,
and the normalized bytes its near-duplicate sketch is made from. Pure functions, no file-system access.

Stated dates
------------
The newest date among: a line ``Updated: …``, ``Last updated: …``, ``Last modified: …``, ``Modified: …``
(also as a list item, bold, quoted, with ``：``; Chinese ``更新``, ``最后更新``, ``更新时间``, ``更新日期``…),
and front-matter keys ``updated``, ``last_updated``, ``last-updated``, ``lastmod``, ``modified``, ``date``.
Dates are read by `records.parse_date` (``2026-11-20``, ``2026/11/20``, ``2026年11月20日``, ``20 Nov 2026``,
``Nov 20, 2026``).

Status
------
The first status line (``Status: …``, ``State: …``, ``状态：…``, as a list item or bold; or front matter
``status:``) whose value starts with a concluded word: done, concluded, complete(d), finished, shipped,
closed, abandoned, superseded, cancel(l)ed, obsolete, deprecated, and 已完成, 完成, 已结束, 结束, 已关闭,
已放弃, 已取代, 已废弃, 已终止, 已取消, 已上线, 已发布, 已交付 (traditional forms too), 完了, 終了,
済み. A value starting with an active word (active, in progress, ongoing, open, WIP, 进行中, 未完成) is
kept as the file's *open* status: it is why an old file may still be kept. A checklist counts as concluded
when it has at least two items (``- [x]``, ``* [ ]``, ``1. [X]``) outside code fences and every one is
ticked.

Normalization (for duplicates and near duplicates)
----------------------------------------------------
ASCII letters are lower-cased; ASCII punctuation, symbols and whitespace, Unicode general punctuation
(U+2000–U+206F: dashes, curly quotes…), CJK symbols and punctuation (U+3000–U+303F), fullwidth punctuation and
Latin-1 symbols all separate words. Every CJK, kana or Hangul character is a word of its own, so the word
3-grams of CJK text are character 3-grams. Other letters are kept as written (no Unicode case folding).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import NamedTuple

from pmem_tui.core import summary as summary_mod
from pmem_tui.core import textio
from pmem_tui.core.md_lines import ATX_MARKS, FENCE, fence_closes, fence_opens
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


# The separators most often met in otherwise ASCII text (dashes, curly quotes, ellipsis, bullet, NBSP, middle
# dot): replaced first with plain byte replacement, which is much faster than the patterns below.
_COMMON_SEPARATORS = tuple(
    c.encode()
    for c in (
        "\u2014",
        "\u2013",
        "\u2019",
        "\u2018",
        "\u201c",
        "\u201d",
        "\u2026",
        "\u2022",
        "\u00a0",
        "\u00b7",
    )
)


def normalize_bytes(data: bytes) -> bytes:
    """`data` with words separated by spaces (before case folding, see `TABLE`), CJK characters apart."""
    if data.isascii():
        return data
    for sep in _COMMON_SEPARATORS:
        if sep in data:
            data = data.replace(sep, b" ")
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
# The key, then a colon or a date right after it ("Updated 2026-11-20"): prose ("updated the API") is no date.
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
_LINE = re.compile(r"[^\r\n]*")  # a line as the fence rule reads it here: up to its first "\r" or "\n"
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?P<body>.*?)^(?:---|\.\.\.)[ \t]*$", re.M | re.S)
_FRONT_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:[ \t]*(?P<value>[^\r\n]*)$", re.M)
_FRONT_DATE_KEYS = frozenset(
    {
        "updated",
        "last_updated",
        "last-updated",
        "lastupdated",
        "lastmod",
        "modified",
        "last_modified",
        "last-modified",
        "date",
    }
)
# Words that must appear on a line for each pattern to be tried there (lower case).
# Hint bits: which key words a file contains. The sketch sees every word of every file (`sketch`
# sets these bits from its word hashes), so a file is searched only for the words it has.
H_UPDATED, H_MODIFIED, H_CJK_DATE = 1, 2, 4
H_STATUS, H_STATE, H_CJK_STATUS = 8, 16, 32
H_X, H_MARK = 64, 128
H_SUMMARY, H_CJK_SUMMARY = 256, 512
H_DATES, H_STATUSES, H_CHECKS, H_SUMMARIES = 7, 56, 192, 768
H_FACTS = 1023  # every bit above; `extract_facts` reads only these
H_SECRET = 1024  # a secret-sounding word or a token-long word: the secret detector reads this file
# bit -> what to look for, in lower case, on a candidate line
_SEARCH: dict[int, tuple[str, ...]] = {
    H_UPDATED: ("updated",),
    H_MODIFIED: ("modified",),
    H_CJK_DATE: ("更新",),
    H_STATUS: ("status",),
    H_STATE: ("state",),
    H_CJK_STATUS: ("状态", "狀態", "状態", "进度", "進度"),
    H_X: ("[x]", "[ ]"),
    H_MARK: ("[✓]", "[✔]", "[ ]"),
    H_SUMMARY: ("summary",),
    H_CJK_SUMMARY: ("摘要",),
}
# bit -> bytes whose presence sets it when no hints are given (the same words, searched in the raw bytes)
_PRESENT: dict[int, tuple[bytes, ...]] = {
    H_UPDATED: (b"updated",),
    H_MODIFIED: (b"modified",),
    H_CJK_DATE: ("更新".encode(),),
    H_STATUS: (b"status",),
    H_STATE: (b"state",),
    H_CJK_STATUS: tuple(w.encode() for w in _SEARCH[H_CJK_STATUS]),
    H_X: (b"[x]",),
    H_MARK: ("[✓]".encode(), "[✔]".encode()),
    H_SUMMARY: (b"summary",),
    H_CJK_SUMMARY: ("摘要".encode(),),
}


def _words_for(hints: int, group: int) -> tuple[str, ...]:
    return _words_of(hints & group)


@functools.lru_cache(maxsize=1024)
def _words_of(bits: int) -> tuple[str, ...]:
    words: dict[str, None] = {}
    for bit, found in _SEARCH.items():
        if bit & bits:
            words.update(dict.fromkeys(found))
    return tuple(words)


def hints_of(data: bytes) -> int:
    """The hint bits of a file, from its bytes (what the sketch computes from its words, for one file)."""
    low = data.lower()
    return sum(bit for bit, needles in _PRESENT.items() if any(n in low for n in needles))


_SUMMARY_HEADING = re.compile(r"^ {0,3}##[ \t]+(?:summary|摘要)[ \t]*#*[ \t]*\r?$", re.M)
# The plainest summary: a title, blank and `Key: value` lines, the heading, simple bullets, blank lines. For
# text of this exact shape `summary.inspect_summary` says VALID with 3 to 6 bullets, else INVALID with its
# count (a test checks both), so it is not needed.
_PLAIN_SUMMARY = re.compile(
    r"\A# [^\r\n]*\r?\n(?:(?:[ \t]*|[A-Za-z][A-Za-z0-9 _-]{0,38}: [^\r\n]{0,150})\r?\n)*"
    r"## (?:summary|Summary|SUMMARY|摘要)\r?\n(?:[ \t]*\r?\n)*"
    r"(?P<bullets>(?:- [^\s\-*_#=+>|`<\d][^\r\n]*(?:\r?\n|\Z))*)(?:[ \t]*(?:\r?\n|\Z))*\Z"
)


class Facts(NamedTuple):
    """What one file says about itself. Dates are ISO strings so the facts can be cached as JSON (`codec`).

    A named tuple: made for most files of a memory, and much cheaper to create than a frozen dataclass.
    """

    stated: str | None = None  # the newest date the file states
    stated_from: str | None = None  # where: "Updated: 2026-11-20" or "front matter updated: 2026-11-20"
    status: str | None = None  # the concluded status as written ("done", "已完成"...)
    status_from: str | None = None  # the line it was read from
    open_status: str | None = None  # an active status ("in progress"...)
    ticked: int = 0  # ticked items and all items of the checklist, counted only when every item is ticked
    checklist: int = 0
    summary_state: str = SummaryState.MISSING.value
    summary_detail: str = ""

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
    if len(words) == 1:
        out: list[int] = []
        w = words[0]
        i = low.find(w)
        while i >= 0:
            line = low.rfind("\n", 0, i) + 1
            if not out or out[-1] != line:
                out.append(line)
            i = low.find(w, i + 1)
        return out
    starts: set[int] = set()
    for w in words:
        i = low.find(w)
        while i >= 0:
            starts.add(low.rfind("\n", 0, i) + 1)
            i = low.find(w, i + 1)
    return sorted(starts)


def _fence_spans(text: str, start: int) -> list[tuple[int, int]]:
    """(start, end) of each fenced code block from `start` on.

    A block opens at a line of 3+ backticks or tildes and closes at a line of at least as many of the same
    character and nothing else (or at the end of the text).
    """
    spans: list[tuple[int, int]] = []
    opening: tuple[int, str] | None = None
    lines = _line_starts(text, ("```",))
    if text.find("~~~", start) >= 0:
        lines = sorted(set(lines) | set(_line_starts(text, ("~~~",))))
    for pos in lines:
        m = _LINE.match(text, pos) if pos >= start else None
        line = m.group() if m else ""
        if FENCE.match(line) is None:
            continue
        if opening is None:
            run = fence_opens(line)
            if run is not None:
                opening = (pos, run)
        elif fence_closes(line, opening[1]):
            spans.append((opening[0], pos + len(line)))
            opening = None
    if opening is not None:
        spans.append((opening[0], len(text)))
    return spans


@functools.lru_cache(maxsize=4096)
def _parse_date(value: str) -> dt.date | None:
    return parse_date(value)


def _all_ticked(text: str, low: str, start: int, words: tuple[str, ...]) -> int:
    """The number of checklist items when every one is ticked (outside code fences, from `start`), else 0.

    One unticked item settles it, so the search stops at the first one.
    """
    spans: list[tuple[int, int]] | None = None

    def real(pos: int) -> re.Match[str] | None:
        nonlocal spans
        m = _CHECK.match(text, pos) if pos >= start else None
        if m is None:
            return m
        if spans is None:
            fenced = low.find("```", start) >= 0 or low.find("~~~", start) >= 0
            spans = _fence_spans(text, start) if fenced else []
        return None if any(a <= pos < b for a, b in spans) else m

    i = low.find("[ ]", start)
    while i >= 0:
        m = real(low.rfind("\n", 0, i) + 1)
        if m is not None and m.group("mark") == " ":
            return 0
        i = low.find("[ ]", i + 3)
    lines = {pos for pos in _line_starts(low, tuple(w for w in words if w != "[ ]")) if pos >= start}
    count = sum(1 for pos in lines if (m := real(pos)) is not None and m.group("mark") != " ")
    return count if count >= 2 else 0


def _atx_line(low: str, pos: int) -> bool:
    """Whether the line at `pos` is an ATX heading (a CRLF's "\r" is its ending, not its text)."""
    end = low.find("\n", pos)
    return ATX_MARKS.match(low[pos : end if end >= 0 else len(low)].removesuffix("\r")) is not None


def _summary_info(text: str, low: str, words: tuple[str, ...]) -> tuple[str, str]:
    """`summary.inspect_summary`'s state and detail, computed on the shortest prefix that decides them.

    A valid or invalid summary is decided by the lines up to the end of its section; the section ends at the
    next ATX heading at the latest, so the text is cut just before it when no code fence opens before. (When
    the cut text has no summary, the file has none either: the result is the same MISSING state, with a
    possibly different detail, which the health check does not report.)
    """
    m = None
    for pos in _line_starts(low, words):
        m = _SUMMARY_HEADING.match(low, pos)
        if m is not None:
            break
    cut = len(text)
    if m is not None:
        # The next ATX heading, or a later one: cutting there still keeps the whole section.
        at = low.find("\n#", m.end())
        while at >= 0 and not _atx_line(low, at + 1):
            at = low.find("\n#", at + 2)
        if at >= 0 and low.find("```", 0, at) < 0 and low.find("~~~", 0, at) < 0:
            cut = at + 1
    plain = _PLAIN_SUMMARY.match(text, 0, cut)
    if plain is not None:
        bullets = plain.group("bullets")
        count = bullets.count("\n") + (1 if bullets and not bullets.endswith("\n") else 0)
        if summary_mod.MIN_BULLETS <= count <= summary_mod.MAX_BULLETS:
            return SummaryState.VALID.value, ""
        amount = "no bullets" if count == 0 else f"{count} bullet{'s' if count != 1 else ''}"
        return SummaryState.INVALID.value, (
            f"{amount}; a summary needs {summary_mod.MIN_BULLETS} to {summary_mod.MAX_BULLETS}"
        )
    info = summary_mod.inspect_summary(text[:cut] if cut < len(text) else text)
    return info.state.value, info.detail


def extract_facts(data: bytes, hints: int | None = None) -> Facts:
    """The facts of one file (see the module notes).

    `hints` (the `H_*` bits, from the words the sketch saw) tells which words to look for; without it,
    `hints_of` finds them in the bytes.
    """
    has_front = data.startswith((b"---", _BOM + b"---"))
    if hints is None:
        hints = hints_of(data)
    want_dates = bool(hints & H_DATES) or has_front
    want_status = bool(hints & H_STATUSES) or has_front
    want_checks = bool(hints & H_CHECKS)
    want_summary = bool(hints & H_SUMMARIES)
    if not (want_dates or want_status or want_checks or want_summary):
        return Facts()
    text = textio.decode(data)
    low = text.lower()
    body_at = 0
    front: dict[str, str] = {}
    if has_front:
        fm = _FRONT.match(text)
        if fm:
            front = {
                m.group("key").lower(): m.group("value").strip()
                for m in _FRONT_KEY.finditer(fm.group("body"))
            }
            body_at = fm.end()
    stated: str | None = None
    stated_from: str | None = None
    if want_dates:
        best: tuple[dt.date, str] | None = None
        for key, value in front.items():
            if key in _FRONT_DATE_KEYS:
                date = _parse_date(value)
                if date is not None and (best is None or date > best[0]):
                    best = (date, f"front matter {key}: {_clip(value, 40)}")
        for pos in _line_starts(low, _words_for(hints, H_DATES)):
            m = _DATE_LINE.match(text, pos) if pos >= body_at else None
            date = _parse_date(m.group("value")) if m else None
            if m is not None and date is not None and (best is None or date > best[0]):
                best = (date, _clip(m.group(0).strip(" \t>-*+")))
        if best is not None:
            stated, stated_from = best[0].isoformat(), best[1]
    status = status_from = open_status = None
    if want_status:
        candidates: list[tuple[str, str]] = []
        if "status" in front:
            candidates.append((front["status"], f"front matter status: {_clip(front['status'], 40)}"))
        for pos in _line_starts(low, _words_for(hints, H_STATUSES)):
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
        ticked = total = _all_ticked(text, low, body_at, _words_for(hints, H_CHECKS))
    summary_state, summary_detail = SummaryState.MISSING.value, ""
    if want_summary:
        summary_state, summary_detail = _summary_info(text, low, _words_for(hints, H_SUMMARIES))
    return Facts(
        stated, stated_from, status, status_from, open_status, ticked, total, summary_state, summary_detail
    )
