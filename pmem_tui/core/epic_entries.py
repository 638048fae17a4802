"""The typed entries of one epic section, for display only (PL-16): never part of the agent's block.

The epic-summarizer writes each entry as a list item with a type tag and a confidence::

    ### Architectural decisions
    - [decision] Keyset pagination over OFFSET (confidence: 0.91)
    ### Tentative (low confidence — review)
    - [gotcha] suspected N+1 on author hydration (confidence: 0.61)

Read here: ``-``, ``*`` or ``+`` items whose text starts with ``[tag]`` (any word; the producer's are
decision, gotcha, antipattern, conflict), outside code blocks, each with the ``###`` subsection it stands
under. The confidence is a trailing ``(confidence: 0.91)``, ``(confidence=0.91)`` or ``(conf 91%)``, or a word
(low, medium, high, tentative); an entry without one has none. Nothing here feeds the loader.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pmem_tui.core.loader_parse import Fence, clean, parse_confidence

_ENTRY = re.compile(r" {0,3}[-*+][ \t]+\[(?P<tag>[A-Za-z][\w -]{0,30})\][ \t]*(?P<text>.*)")
_CONFIDENCE = re.compile(
    r"[ \t]*\((?:confidence|conf)\b[ \t]*[:=]?[ \t]*(?P<value>[\w.%]+)[ \t]*\)[ \t]*$", re.IGNORECASE
)
_SUBSECTION = re.compile(r"#{3,6}[ \t]+(?P<title>.*)")


@dataclass(frozen=True)
class Entry:
    line_no: int  # 1-based, in the file
    subsection: str  # the ### heading it stands under ("" before any)
    tag: str  # lowered: decision, gotcha, antipattern, conflict...
    text: str
    confidence: str | None  # as written
    confidence_value: float | None
    tentative: bool  # its confidence is under 0.7 (or low/tentative), or it stands under "Tentative"


def typed_entries(section: Sequence[str], first_line_no: int) -> tuple[Entry, ...]:
    """The typed entries in `section` (an epic's lines, its heading first, numbered from `first_line_no`)."""
    entries: list[Entry] = []
    fence = Fence()
    subsection = ""
    for offset, line in enumerate(section):
        line_no = first_line_no + offset
        if fence.feed(line_no, line):
            continue
        heading = _SUBSECTION.fullmatch(line)
        if heading is not None:
            subsection = clean(heading["title"])
            continue
        m = _ENTRY.fullmatch(line)
        if m is None:
            continue
        text = m["text"]
        raw: str | None = None
        value: float | None = None
        tentative = subsection.lower().startswith("tentative")
        conf = _CONFIDENCE.search(text)
        if conf is not None:
            raw = conf["value"]
            value, low, _problem = parse_confidence(raw)
            tentative = tentative or low
            text = text[: conf.start()]
        tag = m["tag"].strip().lower()
        entries.append(Entry(line_no, subsection, tag, clean(text), raw, value, tentative))
    return tuple(entries)
