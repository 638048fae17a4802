"""Summary-first loading (PM-SUM-1): does a memory file open with a valid ``## Summary`` / ``## 摘要``?

Where the summary must be
-------------------------
Lines end at ``\\n`` or ``\\r\\n``; a BOM and trailing whitespace are ignored. From the top of the file:

1. optional front matter: a first line ``---`` up to a closing ``---`` or ``...`` line;
2. the title: the first ATX ``# Title`` or setext (``Title`` over ``===``) level-1 heading. It is optional:
   a file that opens directly with its summary heading (after front matter) has a summary too;
3. optional introductory metadata, in any order:

   * blank lines, one-line HTML comments (``<!-- … -->``) and thematic breaks (``---``, ``***``, ``___``);
   * ``Key: value`` lines (``:`` or ``：``), optionally as a list item and with a bold key
     (``**Status:** x``): a key of at most 40 characters, a line of at most 200;
   * block-quote lines (``> …``);
   * one short introductory paragraph: at most 3 lines and 300 characters of plain text (no list item,
     heading, code fence or table row);

4. then the summary heading: level 2, ``## Summary`` (any letter case) or ``## 摘要``, optional closing
   ``#``s, or the setext form (``Summary`` over ``---``).

Anything else before it (another heading of any level, a list that is not metadata, a code block, a table, a
second or longer paragraph) means the file has no summary: ``MISSING``, with a detail that says whether a
summary heading exists further down.

What makes it valid
-------------------
The summary runs to the next heading (any level), thematic break or the end. It is ``VALID`` with 3 to 6
bullets: top-level list items (``-``, ``*``, ``+``, ``1.``, ``1)``) with some text. Lines indented under a
bullet, nested items and lazy continuation lines belong to that bullet; fenced code is skipped; other lines
are allowed and not counted. Otherwise ``INVALID`` with a detail such as
``"2 bullets; a summary needs 3 to 6"``. Nothing here ever writes or creates a summary (PM-SAVE-5).
"""

from __future__ import annotations

import re

from pmem_tui.core.md_lines import COMMENT, ITEM, Kind, atx, classify, fence_closes, fence_opens
from pmem_tui.core.model import SummaryInfo, SummaryState
from pmem_tui.core.textio import split_bom

__all__ = ["MAX_BULLETS", "MIN_BULLETS", "inspect", "inspect_summary", "title_of"]

MIN_BULLETS = 3
MAX_BULLETS = 6

_SETEXT_1 = re.compile(r" {0,3}=+[ \t]*")
_SETEXT_2 = re.compile(r" {0,3}-+[ \t]*")
_BREAK = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})")
_KEY_VALUE = re.compile(
    r"(?:[-*+][ \t]+)?(?P<b>\*\*|__)?[^\s:：#>|`*_\[!<][^:：]{0,39}?(?(b)(?:\*\*|__)?)[ \t]*"
    r"(?::(?(b)(?:\*\*|__)?)(?:[ \t].*)?|：.*)"
)
_SUMMARY_WORDS = ("summary", "摘要")

_MAX_INTRO_LINES = 3
_MAX_INTRO_CHARS = 300
_MAX_META_LINE = 200


def _bodies(text: str) -> list[str]:
    # Lines end at "\n" only (a lone "\r" is not an ending); rstrip drops the "\r" of a CRLF with the
    # trailing whitespace. A final newline leaves one empty last line, which no rule here counts.
    _, body = split_bom(text)
    return [x.rstrip() for x in body.split("\n")]


def _after_front_matter(lines: list[str]) -> int:
    if lines and lines[0] == "---":
        for j in range(1, len(lines)):
            if lines[j] in ("---", "..."):
                return j + 1
    return 0


def _fence_end(lines: list[str], i: int) -> int | None:
    """If line `i` opens a code fence: the index just past its closing line (or the end)."""
    run = fence_opens(lines[i])
    if run is None:
        return None
    return next((j + 1 for j in range(i + 1, len(lines)) if fence_closes(lines[j], run)), len(lines))


def _paragraph_line(line: str) -> bool:
    """Plain text: not blank, a heading, an item, a fence, a quote, a comment, a thematic break or a table."""
    return (
        classify(line).kind is Kind.TEXT
        and not _BREAK.fullmatch(line)
        and not line.lstrip().startswith(("|", "<"))
    )


def _heading_at(lines: list[str], i: int) -> tuple[int, str, int] | None:
    """A heading starting at line `i`: (level, text, lines it spans)."""
    heading = atx(lines[i])
    if heading:
        return heading[0], heading[1].strip(), 1
    if i + 1 < len(lines):
        # The underline first: a cheap test that most lines fail, before classifying this one.
        under = lines[i + 1]
        level = 1 if _SETEXT_1.fullmatch(under) else 2 if _SETEXT_2.fullmatch(under) else 0
        if level and _paragraph_line(lines[i]):
            return level, lines[i].strip(), 2
    return None


def _is_summary(heading: tuple[int, str, int]) -> bool:
    level, text, _ = heading
    return level == 2 and text.lower() in _SUMMARY_WORDS


def title_of(text: str) -> str | None:
    """The text of the file's first level-1 heading (``# Title`` or setext), outside front matter and code."""
    return _title(_bodies(text))


# The title and the summary are nearly always within a file's first lines: `inspect` splits only these first.
HEAD_LINES = 24


def inspect(text: str) -> tuple[str | None, SummaryInfo]:
    """`title_of` and `inspect_summary` together (the scan's hot path): worked out on the first `HEAD_LINES`
    lines when those decide both (then it is the whole text's answer), else on every line."""
    _, body = split_bom(text)
    common = _common_shape(body)
    if common is not None:
        return common
    parts = body.split("\n", HEAD_LINES)
    if len(parts) > HEAD_LINES:  # more lines than the head
        head = [x.rstrip() for x in parts[:HEAD_LINES]]
        title, at = _title_at(head)
        info = _summary(head, text) if title is not None and at < HEAD_LINES - 1 else None
        if info is not None:
            return title, info
    lines = _bodies(text)
    return _title(lines), _summary_of(lines)


def _title(lines: list[str]) -> str | None:
    return _title_at(lines)[0]


def _title_at(lines: list[str]) -> tuple[str | None, int]:
    """The title and the index of its line, or (None, the number of lines)."""
    i = _after_front_matter(lines)
    while i < len(lines):
        end = _fence_end(lines, i)
        if end is not None:
            i = end
            continue
        h = _heading_at(lines, i)
        if h is not None:
            if h[0] == 1 and h[1]:
                return h[1], i
            i += h[2]
            continue
        i += 1
    return None, len(lines)


def _bullets(lines: list[str]) -> list[str]:
    """The top-level bullets of a summary body (the lines after its heading, up to its end)."""
    bullets: list[list[str]] = []
    top: int | None = None  # indentation of the top-level items
    open_item = False  # may the next line continue the current bullet?
    i = 0
    while i < len(lines):
        line = lines[i]
        end = _fence_end(lines, i)
        if end is not None:
            i, open_item = end, False
            continue
        if not line.strip():
            open_item = False
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        m = ITEM.fullmatch(line)
        if m and (top is None or indent <= top + 1):
            if top is None:
                top = indent
            bullets.append([(m.group("text") or "").strip()])
            open_item = True
        elif bullets and (open_item or (top is not None and indent > top)):
            bullets[-1].append(line.strip())
            open_item = True
        i += 1
    return [" ".join(p for p in parts if p) for parts in bullets]


def _preamble_ok(lines: list[str], start: int) -> tuple[int | None, str, int]:
    """Walk the title and introductory metadata from `start`: (index of the summary heading or None, why
    not, the index of the line that decided it or the number of lines)."""
    i = start
    seen_title = False
    intro_runs = 0
    intro_lines = 0
    intro_chars = 0
    in_run = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            in_run = False
            i += 1
            continue
        h = _heading_at(lines, i)
        if h is not None:
            if _is_summary(h):
                return i, "", i
            if h[0] == 1 and not seen_title and intro_runs == 0:
                seen_title = True
                i += h[2]
                continue
            return None, f"a heading comes first ({line.strip()[:40]})", i
        if _BREAK.fullmatch(line) or COMMENT.fullmatch(line) or line.lstrip().startswith(">"):
            in_run = False
            i += 1
            continue
        if _KEY_VALUE.fullmatch(line) and len(line) <= _MAX_META_LINE:
            in_run = False
            i += 1
            continue
        if not _paragraph_line(line):
            return None, "other content comes first", i
        if not in_run:
            intro_runs += 1
            in_run = True
        intro_lines += 1
        intro_chars += len(line.strip())
        if intro_runs > 1 or intro_lines > _MAX_INTRO_LINES or intro_chars > _MAX_INTRO_CHARS:
            return None, "more than a short introduction comes first", i
        i += 1
    return None, "", len(lines)


def inspect_summary(text: str) -> SummaryInfo:
    """MISSING, INVALID (with the reason) or VALID with its bullets; see the module notes for the rules."""
    return _summary_of(_bodies(text))


def _may_name_summary(line: str) -> bool:
    low = line.lower()
    return "summary" in low or "摘要" in line


def _summary_of(lines: list[str]) -> SummaryInfo:
    info = _summary(lines)
    assert info is not None  # every line given: always decided
    return info


def _summary(lines: list[str], head_of: str | None = None) -> SummaryInfo | None:
    """The summary of a file's `lines`; with `head_of`, `lines` are only the first lines of that text: None
    when the answer may depend on a line past them (a lookahead, an open fence or front matter, a later
    summary heading)."""
    head = head_of is not None
    start = _after_front_matter(lines)
    if head and not start and lines and lines[0] == "---":
        return None  # front matter that may close further down
    at, why, stop = _preamble_ok(lines, start)
    if head and stop >= len(lines) - 1:
        return None  # decided by the last line (or none): its next line may make it a heading
    if at is None:
        if head and ("summary" in (head_of or "").lower() or "摘要" in (head_of or "")):
            return None  # a summary heading may come later: looked for in every line
        later = next(
            (
                n
                for n in range(len(lines))
                if _may_name_summary(lines[n]) and (h := _heading_at(lines, n)) is not None and _is_summary(h)
            ),
            None,
        )
        if later is None:
            return SummaryInfo(SummaryState.MISSING, detail="no ## Summary or ## 摘要 section")
        return SummaryInfo(
            SummaryState.MISSING,
            detail=f"the summary heading on line {later + 1} is not right after the title: {why}",
        )
    heading = _heading_at(lines, at)
    assert heading is not None
    first = at + heading[2]
    last = first
    while last < len(lines):
        end = _fence_end(lines, last)
        if end is not None:
            last = end
            continue
        if _heading_at(lines, last) is not None or _BREAK.fullmatch(lines[last]):
            break
        last += 1
    if head and last >= len(lines) - 1:
        return None  # the summary may run on past the head
    bullets = tuple(b for b in _bullets(lines[first:last]) if b)
    return _decided(lines[at].strip() if heading[2] == 1 else heading[1], bullets)


def _decided(written: str, bullets: tuple[str, ...]) -> SummaryInfo:
    """A summary found under the heading `written`: VALID or INVALID by its count of `bullets`."""
    count = len(bullets)
    if MIN_BULLETS <= count <= MAX_BULLETS:
        return SummaryInfo(SummaryState.VALID, heading=written, bullets=bullets)
    amount = "no bullets" if count == 0 else f"{count} bullet{'s' if count != 1 else ''}"
    return SummaryInfo(
        SummaryState.INVALID,
        heading=written,
        bullets=bullets,
        detail=f"{amount}; a summary needs {MIN_BULLETS} to {MAX_BULLETS}",
    )


# The shape most files have, recognized in one match (`_common_shape`): an ATX title, then either no
# summary word anywhere (MISSING, whatever the rest), or blank and `Key: value` lines, at most one short
# plain paragraph (a letter first, no colon: never metadata), blank and metadata lines, `## Summary` and
# plain `- ` bullets (blank lines between them) up to an ATX heading or the end. Else: the line walk.
_COMMON = re.compile(
    r"# (?P<title>[^\s#](?:[^#\n]*[^\s#])?)[ \t]*\r?\n"
    r"(?:(?:\r?\n|{meta})*(?P<intro>(?:[^\W\d_][^\n:：]*\n){{1,3}}(?:\r?\n|{meta})*)?"
    r"(?P<heading>## (?:[Ss][Uu][Mm][Mm][Aa][Rr][Yy]|摘要))[ \t]*\r?\n"
    r"(?P<bullets>(?:- [^\s\-][^\n]*\n(?:\r?\n)*)*)(?=#{{1,6}}[ \t]|\Z))?".format(
        meta=r"[A-Za-z][A-Za-z ]{0,30}:[ \t][^\n]{0,150}\n"  # `Key: value`, always metadata
    ),
)
_NO_SUMMARY = SummaryInfo(SummaryState.MISSING, detail="no ## Summary or ## 摘要 section")


def _common_shape(body: str) -> tuple[str | None, SummaryInfo] | None:
    """`inspect`'s answer for a text (BOM removed) of the common shape, in one match; None for any other
    text (then the line walk decides). A text that opens with its title and names no summary anywhere has
    none: no line can be a summary heading."""
    m = _COMMON.match(body)
    if m is None:
        return None
    title = m["title"]
    if m["heading"] is None:
        if "摘要" in body or "summary" in body.lower():
            return None
        return title, _NO_SUMMARY
    intro = m["intro"]
    if intro is not None and sum(len(line.strip()) for line in intro.split("\n")) > _MAX_INTRO_CHARS:
        return None  # a long introduction: no summary right after the title
    bullets = tuple(b for line in m["bullets"].split("\n") if (b := line[2:].strip()))
    return title, _decided(m["heading"], bullets)


_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")


def first_prose_line(text: str) -> str | None:
    """The first line of prose (a list item without its marker), for a proposed index line."""
    for n, raw in enumerate(text.splitlines()):
        if n > 200:
            break
        line = _LIST_MARKER.sub("", raw.strip()).strip()
        if line and not line.startswith(("#", "---", ">", "<!--")) and ":" not in line[:20]:
            return line[:100]
    return None
