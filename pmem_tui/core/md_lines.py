"""Markdown lines, classified in one place: fences, headings, list items, quotes, comments, blanks, text.

Every reader of memory files (the index, the archive records, summaries, health, the loader) asks this
module what a line is instead of keeping its own regexes. It classifies, it never rewrites: a line is given
without its ending and every fact is a slice of it (bytes stay as `textio` decoded them).

Two fence rules exist, on purpose:

* the *loose* rule (index, records, summaries, health): a fence line is any indentation of spaces and tabs
  and a run of 3+ backticks or tildes; a backtick run with a backtick after it on the line is inline code,
  not a fence. It closes at a line that is, once stripped, only the same character, at least as many.
* the *CommonMark* rule (the loader's PL rules): at most three spaces of indentation, and the closing line is
  the run (same character, at least as long) and spaces or tabs only.

`Blocks` tracks the loose rule (and, when asked, multi-line HTML comments) across lines fed in order, once:
a reader asks it, line by line, whether the line is inside a block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

# Indentation (spaces and tabs) and a run of 3+ backticks or tildes (`match`: what follows is the rest).
FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")
_CM_OPEN = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_CM_CLOSE = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})[ \t]*")
# A list item (fullmatch): indentation, the marker, then text after a space or tab (text None: no space).
ITEM = re.compile(r"(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,9}[.)])(?:[ \t]+(?P<text>.*))?", re.DOTALL)
# An ATX heading's marks, then a space, a tab or the end (`match`).
ATX_MARKS = re.compile(r" {0,3}(?P<marks>#{1,6})(?![^ \t])")
# A whole line that is one HTML comment (fullmatch).
COMMENT = re.compile(r"[ \t]*<!--.*-->[ \t]*")


def fence_opens(line: str) -> str | None:
    """The run (e.g. "```") when `line` opens a fenced block by the loose rule, else None."""
    m = FENCE.match(line)
    if m is None:
        return None
    run = m.group("fence")
    if run[0] == "`" and "`" in line[m.end() :]:
        return None  # ```x``` on one line is inline code
    return run


def fence_closes(line: str, run: str) -> bool:
    """Whether `line` closes the block opened by `run` (loose rule)."""
    s = line.strip()
    return bool(s) and set(s) == {run[0]} and len(s) >= len(run)


def commonmark_opens(line: str) -> str | None:
    """The run when `line` opens a fenced block by the CommonMark rule (at most 3 spaces), else None."""
    m = _CM_OPEN.fullmatch(line)
    if m is None or (m["fence"][0] == "`" and "`" in m["info"]):
        return None
    return m["fence"]


def commonmark_closes(line: str, run: str) -> bool:
    """Whether `line` closes the block opened by `run` (CommonMark rule)."""
    m = _CM_CLOSE.fullmatch(line)
    return m is not None and m["fence"][0] == run[0] and len(m["fence"]) >= len(run)


def comment_stays_open(line: str) -> bool:
    """Whether `line` starts an HTML comment that it does not close (so the next lines are inside)."""
    return line.lstrip().startswith("<!--") and "-->" not in line.split("<!--", 1)[1]


def atx(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line; the text without the closing `#` run (one that follows a space
    or a tab) or the spaces and tabs around it. (Str methods, not a regex with a lazy `.*?`: that one takes
    seconds on a 50 MB line.)"""
    m = ATX_MARKS.match(line)
    if m is None:
        return None
    text = line[m.end() :].strip(" \t")
    body = text.rstrip("#")
    if body != text and body[-1:] in (" ", "\t"):
        text = body.rstrip(" \t")
    return len(m.group("marks")), text


class Kind(StrEnum):
    FENCE = "fence"  # a line that opens or closes a fenced block
    CODE = "code"  # a line inside a fenced block
    COMMENT = "comment"  # an HTML comment line, or a line inside a multi-line comment
    HEADING = "heading"
    ITEM = "item"
    QUOTE = "quote"
    BLANK = "blank"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Line:
    """What one line is. `level` and `text` for a heading; `marker` and `text` for an item."""

    kind: Kind
    level: int = 0
    marker: str = ""
    text: str = ""


def classify(line: str) -> Line:
    """What `line` is on its own (outside any block; `Blocks` knows about fences and comments)."""
    if not line.strip():
        return Line(Kind.BLANK)
    if FENCE.match(line):
        return Line(Kind.FENCE)
    heading = atx(line)
    if heading is not None:
        return Line(Kind.HEADING, level=heading[0], text=heading[1])
    item = ITEM.fullmatch(line)
    if item is not None:
        return Line(Kind.ITEM, marker=item.group("marker"), text=item.group("text") or "")
    stripped = line.lstrip()
    if stripped.startswith(">"):
        return Line(Kind.QUOTE, text=stripped[1:].removeprefix(" "))
    if stripped.startswith("<!--"):
        return Line(Kind.COMMENT)
    return Line(Kind.TEXT)


@dataclass
class Blocks:
    """Fenced blocks (loose rule) and, with `comments`, multi-line HTML comments, tracked across lines fed
    in order. `fence` is the open run (None: outside), `in_comment` whether a comment is open."""

    comments: bool = False
    fence: str | None = None
    in_comment: bool = False

    def hidden(self, line: str) -> bool:
        """Feed the next line: True when it opens, closes or is inside a block (not Markdown to read)."""
        if self.fence is not None:
            if fence_closes(line, self.fence):
                self.fence = None
            return True
        if self.in_comment:
            if "-->" in line:
                self.in_comment = False
            return True
        run = fence_opens(line)
        if run is not None:
            self.fence = run
            return True
        if self.comments and comment_stays_open(line):
            self.in_comment = True
            return True
        return False
