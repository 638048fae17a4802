"""Fields written inline on a record's heading or list line, after its path.

Agents often write a whole record on one line::

    - **projects/a.md** — archived 2026-10-01 — reason: done — index line: `- [A](projects/a.md) — a`

The line is cut at each ``Label:`` that follows a separator (``—``, ``–``, ``|``, ``;``, ``,``, ``(``, `` - ``
or the start) and is not inside inline code; a label's value runs to the next such label. What comes
before the first label, and plain parts such as ``archived 2026-10-01`` after a value, are date hints (their
words say whether the date is the archive or the deletion date).
"""

from __future__ import annotations

import re

from pmem_tui.core.record_values import LABELS, LINE_FIELDS, WEEKDAY_NAMES
from pmem_tui.core.textio import read_code_span

__all__ = ["inline_fields"]

_LABEL_WORDS = "|".join(re.escape(w) for w in sorted(LABELS, key=len, reverse=True))
_LABEL = re.compile(
    r"(?:^|(?<=[—–|;,(（])|(?<=\s-\s))[ \t]*(?:\*\*|__)?(?P<label>" + _LABEL_WORDS + r")(?:\*\*|__)?"
    r"[ \t]*[:：](?:\*\*|__)?[ \t]*",
    re.I,
)
# A comma cuts the line too, unless it is inside a written date ("Feb 15, 2026", "Sun, 2026-02-15").
_SEPARATORS = re.compile(
    r"[—–|;()（）]|\s-\s|"
    + "".join(f"(?<!{re.escape(w)})" for d in WEEKDAY_NAMES for w in (d[:3], d[:3] + ".", d))
    + r",(?!\s*\d{4}(?!\d))",
    re.I,
)
_TRAIL = "—–|;,( \t"
# A plain part after a value that is a date hint, not more of the value ("— deleted 2026-11-01").
_HINT = re.compile(
    r"(?:\s+[—–|;]\s+|\s*[(（]\s*)(?=(?:archived|deleted|trashed|moved|已归档|已删除)\b[^:：]*\d)", re.I
)


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    i = 0
    while True:
        i = text.find("`", i)
        if i < 0:
            return spans
        found = read_code_span(text[i:])
        if found is None:
            i += len(text[i:]) - len(text[i:].lstrip("`"))
            continue
        end = len(text) - len(found[1])
        spans.append((i, end))
        i = end


def _label_matches(text: str) -> list[re.Match[str]]:
    spans = _code_spans(text)
    out: list[re.Match[str]] = []
    pos = 0
    while True:
        m = _LABEL.search(text, pos)
        if m is None:
            return out
        inside = next((e for s, e in spans if s <= m.start("label") < e), None)
        if inside is not None:
            pos = inside
            continue
        out.append(m)
        pos = m.end()


def inline_fields(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The ``(field, raw value)`` pairs written on the line, and the plain parts that may hold dates."""
    matches = _label_matches(text)
    hints = _SEPARATORS.split(text[: matches[0].start()] if matches else text)
    fields: list[tuple[str, str]] = []
    for k, m in enumerate(matches):
        key = LABELS[" ".join(m.group("label").lower().split())]
        value = text[m.end() : matches[k + 1].start() if k + 1 < len(matches) else len(text)]
        if key in LINE_FIELDS:
            span = read_code_span(value.strip())
            if span is not None:  # a code span: what follows it is more hints
                value = value.strip()[: len(value.strip()) - len(span[1])]
                hints += _SEPARATORS.split(span[1])
        else:
            parts = _HINT.split(value)
            value, hints = parts[0], hints + parts[1:]
        fields.append((key, value.rstrip(_TRAIL).rstrip(")）").strip()))
    return fields, hints
