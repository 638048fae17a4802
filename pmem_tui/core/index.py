"""`_index.md`: find the routes in a hand-written index, and edit it one line at a time.

Reading
-------
A line names a route when it is a list item (``-``, ``*``, ``+``, ``1.`` or ``1)``, any leading
indentation, then at least one space or tab) whose text starts with the route part in one of these shapes::

    - [title](path) — summary          path may be <wrapped>, contain spaces, brackets, balanced or not
    - **[title](path)** — summary      parentheses, CJK; %XX escapes and backslash escapes are decoded
    - **title** (path) — summary       also __title__, and a plain `title (path) — summary`
    - `path` — summary                 a code span (any fence length)
    - <path> — summary
    - **path** — summary
    - path — summary                   a bare path: see below
    - path: summary

A task-list box (``- [ ] …``, ``- [x] …``) before the route part is skipped. The separator between the
route part and the summary is ``—`` (also ``——``), ``–``, `` - `` (a hyphen with whitespace before it),
``:`` or ``：``; the summary is optional. After a link a summary may also follow after plain whitespace. The
route is the relative ``.md`` path (case-sensitive ``.md``): a leading ``./`` and a
``~/.persistent-memory/`` (or ``…/.persistent-memory/``) prefix are removed; URLs (``https://…``) are not
routes.

A bare path stops at the first ``.md`` that is followed by the end of the line or by a separator. To never
mistake prose for a route, a bare path containing whitespace must contain a ``/`` and its first folder name
must not contain whitespace (``- projects/my plan [v2].md — …`` is a route, ``- See the README.md — …`` is
not).

Lines inside fenced code blocks, multi-line HTML comments and a leading ``---`` front-matter block are never
entries. Anything that is not recognised is kept verbatim and never touched.

Editing
-------
The functions below take and return the whole text and change exactly the line they are asked to. A byte-order
mark belongs to the file, not to the first line: `IndexEntry.raw`, `neighbours` and line equality never
include it, and it stays at the start of the file whatever line is removed or inserted. Line numbers are
0-based and count the lines of the text after the BOM.

A "no final newline" file keeps having no final newline: removing its last line also removes the ending of the
line before it (unless that line is blank, as it would vanish), and appending to it first gives the old last
line an ending (the file's dominant one) and writes the new line without one.

``insert_line(remove_line(t, n), line, *neighbours(t, n)) == t`` holds whenever the text uses one line-ending
style, the place is unambiguous (the pair of neighbours occurs once), the removal leaves some line ending
to learn the style from (otherwise LF is used: a one-line file, or a two-line CRLF file without final
newline), and the line is not the unterminated last line after a blank line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote

from pmem_tui.core import safeio, textio
from pmem_tui.core.model import IndexEntry
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
    "append_line",
    "find_entries",
    "insert_at",
    "insert_line",
    "make_line",
    "neighbours",
    "normalize_route",
    "parse_index",
    "parse_line",
    "read_index",
    "remove_line",
    "replace_line",
]

_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?P<rest>.*)", re.DOTALL)
_TASK = re.compile(r"^\[[ xX]\][ \t]+")  # a task-list box before the route part
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://|mailto:", re.IGNORECASE)
_LINK_TITLE = re.compile(r"(?P<dest>.*?\S)\s+(?:\"[^\"]*\"|'[^']*')\s*", re.DOTALL)
_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_FENCE = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})")
_PM_PREFIX = ".persistent-memory/"
_BOM_BYTES = textio.BOM.encode("utf-8")

# How many ")" or " (" positions are tried in one line: keeps pathological lines linear.
_MAX_TRIES = 32
# The result of looking at what follows a route part: a summary (maybe None), or no match.
_NO = (False, None)


def normalize_route(route: str) -> str | None:
    """The relative ``.md`` path a route part names, or None when it is not a memory route."""
    r = route.strip()
    while r.startswith("./"):
        r = r[2:]
    if r.startswith("~/" + _PM_PREFIX):
        r = r[len("~/" + _PM_PREFIX) :]
    else:
        at = r.find("/" + _PM_PREFIX)
        if at >= 0:
            r = r[at + 1 + len(_PM_PREFIX) :]
        elif r.startswith(_PM_PREFIX):
            r = r[len(_PM_PREFIX) :]
    while r.startswith("./"):
        r = r[2:]
    if not r.endswith(".md") or r.rsplit("/", 1)[-1] == ".md":
        return None
    if "\n" in r or _URL.match(r):
        return None
    return r


def _unescape(s: str) -> str:
    return _BACKSLASH_ESCAPE.sub(r"\1", s)


def _after_route(rem: str, loose: bool = False) -> tuple[bool, str | None]:
    """Does `rem` (what follows a route part) end the line or start a summary? Returns (ok, summary)."""
    s = rem.lstrip()
    if not s:
        return True, None
    spaced = len(s) != len(rem)
    summary: str | None
    if s[0] in "—–":
        summary = s.lstrip("—–").strip()
    elif s[0] in ":：" or (spaced and s[0] == "-" and (len(s) == 1 or s[1] in " \t")):
        summary = s[1:].strip()
    elif loose and (spaced or s[0] == ","):
        summary = s.lstrip(",").strip()
    else:
        return _NO
    return True, summary or None


def _matching_bracket(s: str, start: int) -> int:
    """Index of the `]` closing the `[` at `start` (nesting and backslash escapes honoured), or -1."""
    depth = 0
    i = start
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _dest_route(dest: str) -> str | None:
    """A link destination (without <>) -> route: drop a "title", decode escapes, drop a #fragment."""
    m = _LINK_TITLE.fullmatch(dest)
    if m and normalize_route(_decode_target(m.group("dest"))):
        dest = m.group("dest")
    route = normalize_route(_decode_target(dest))
    if route is None and "#" in dest:
        route = normalize_route(_decode_target(dest[: dest.rindex("#")]))
    return route


def _decode_target(dest: str) -> str:
    return unquote(_unescape(dest.strip()), errors="surrogateescape")


_ANGLE_TAIL = re.compile(r"\s*(?:\"[^\"]*\"|'[^']*')?\s*\)")


def _paren_target(s: str, open_at: int, balanced_only: bool = False) -> tuple[str, str, bool] | None:
    """`s[open_at]` is "(": the route inside and what follows. Returns (route, rest,
    rest_is_separator_or_end).

    A ``<…>`` path ends at the first unescaped ``>``. Otherwise the path ends at the ``)`` that balances the
    parentheses (as CommonMark reads it, though spaces are allowed); when that does not give a ``.md`` path
    and `balanced_only` is false, every later ``)`` is tried, preferring one followed by a separator or the
    end.
    """
    body_start = open_at + 1
    if s.startswith("<", body_start):
        i = body_start + 1
        while i < len(s) and s[i] != ">":
            i += 2 if s[i] == "\\" else 1
        tail = _ANGLE_TAIL.match(s, i + 1) if i < len(s) else None
        if tail is None:
            return None
        route = normalize_route(_decode_target(s[body_start + 1 : i]))
        if route is None:
            return None
        rest = s[tail.end() :]
        return route, rest, _after_route(rest)[0]
    depth = 0
    i = body_start
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                route = _dest_route(s[body_start:i])
                if route is not None:
                    rest = s[i + 1 :]
                    return route, rest, _after_route(rest)[0]
                break
            depth -= 1
        i += 1
    if balanced_only:
        return None
    loose: tuple[str, str, bool] | None = None
    close = s.find(")", body_start)
    for _ in range(_MAX_TRIES):
        if close < 0:
            break
        route = _dest_route(s[body_start:close])
        if route is not None:
            rest = s[close + 1 :]
            if _after_route(rest)[0]:
                return route, rest, True
            if loose is None and _after_route(rest, loose=True)[0]:
                loose = (route, rest, False)
        close = s.find(")", close + 1)
    return loose


# The shape pmem-tui and most agents write: a plain title and a plain path. Matched by one regex, it gives
# exactly what the general walk below would give, at a fraction of the cost (large indexes).
_SIMPLE_LINK = re.compile(r"\[(?P<title>[^\[\]\\`]*)\]\((?P<dest>[^\s()<>\\%\"']+\.md)\)")


# A whole canonical line: `- [title](plain/path.md) — summary`, ``- `plain/path.md` — summary`` or
# `- plain/path.md — summary` (or `: summary`, or no summary): what `parse_line` gives for it, at a fraction
# of the cost (checked against it in the tests). Anything else (a BOM, a URL-like, escaped or spaced path,
# other separators, trailing non-tab whitespace...) does not match and goes through `parse_line`.
_PLAIN_PATH = r"[A-Za-z0-9][A-Za-z0-9_\-/.]*?\.md"
_FAST_ENTRY = re.compile(
    r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+"
    r"(?:\[(?P<title>[^\[\]\\`]*)\]\((?P<dest>[^\s()<>\\%\"':]+\.md)\)"
    rf"|`(?P<code>{_PLAIN_PATH})`|(?P<bare>{_PLAIN_PATH}))"
    r"(?:[ \t]*[—–][ \t]*(?P<summary>[^—–\s](?:.*\S)?)?|[ \t]*[:：][ \t]*(?P<colon>\S(?:.*\S)?)?)?[ \t]*"
)
_FAST_GROUPS = ("dest", "code", "bare", "title", "summary", "colon")


def _link(s: str) -> tuple[str, str | None, str] | None:
    """`s` starts with [title](path): (route, title, rest)."""
    simple = _SIMPLE_LINK.match(s)
    if simple is not None:
        route = normalize_route(simple.group("dest"))
        if route is not None:
            rest = s[simple.end() :]
            if _after_route(rest)[0]:
                return route, simple.group("title").strip() or None, rest
    close = _matching_bracket(s, 0)
    if close < 0 or not s.startswith("(", close + 1):
        return None
    found = _paren_target(s, close + 1)
    if found is None:
        return None
    route, rest, _ = found
    title = _unescape(s[1:close]).strip()
    return route, title or None, rest


def _bare_ok(route_part: str) -> bool:
    if not route_part or route_part[0] in "[`<*_(!>#|\"'":
        return False
    if "](" in route_part or "`" in route_part or "**" in route_part:
        return False
    if any(c.isspace() for c in route_part):
        first, slash, _ = route_part.partition("/")
        if not slash or any(c.isspace() for c in first):
            return False
    return True


def _parse_rest(s: str) -> tuple[str, str | None, str | None] | None:
    # Emphasis around the route part: **[title](path)**, **title** (path), **path**.
    for mark in ("**", "__"):
        if s.startswith(mark):
            end = s.find(mark, len(mark))
            if end < 0:
                return None
            inner, rest = s[len(mark) : end], s[end + len(mark) :]
            if inner.startswith("["):
                link = _link(inner)
                if link and not link[2].strip():
                    ok, summary = _after_route(rest, loose=True)
                    return (link[0], link[1], summary) if ok else None
            if rest.lstrip().startswith("("):
                found = _paren_target(rest, rest.index("("), balanced_only=True)
                if found and found[2]:
                    title = inner.strip()
                    return found[0], title or None, _after_route(found[1])[1]
                return None
            route = normalize_route(_unescape(inner))
            if route is not None:
                ok, summary = _after_route(rest)
                if ok:
                    return route, None, summary
            return None
    if s.startswith("["):
        link = _link(s)
        if link is None:
            return None
        ok, summary = _after_route(link[2], loose=True)
        return (link[0], link[1], summary) if ok else None
    if s.startswith("`"):
        span = read_code_span(s)
        if span is None:
            return None
        route = normalize_route(span[0])
        ok, summary = _after_route(span[1], loose=True)
        return (route, None, summary) if route is not None and ok else None
    if s.startswith("<"):
        end = s.find(">")
        if end < 0:
            return None
        route = normalize_route(_decode_target(s[1:end]))
        ok, summary = _after_route(s[end + 1 :])
        return (route, None, summary) if route is not None and ok else None
    # A bare path: the first ".md" followed by the end or a separator.
    at = s.find(".md")
    while at >= 0:
        part = s[: at + 3]
        ok, summary = _after_route(s[at + 3 :])
        if ok:
            route = normalize_route(part)
            if route is not None and _bare_ok(part):
                return route, None, summary
            break
        at = s.find(".md", at + 1)
    # `title (path) — summary`: a plain title, then the path in parentheses, then a separator or the end.
    open_at = s.find(" (")
    for _ in range(_MAX_TRIES):
        if open_at <= 0:
            break
        title = s[:open_at].strip()
        if title and "[" not in title and "`" not in title:
            found = _paren_target(s, open_at + 1, balanced_only=True)
            if found and found[2]:
                return found[0], title, _after_route(found[1])[1]
        open_at = s.find(" (", open_at + 1)
    return None


def parse_line(line: str) -> tuple[str, str | None, str | None] | None:
    """(route, title, summary) when the line names a route, else None. Never raises.

    The line may still carry its ending and (first line) a BOM; both are ignored.
    """
    text = strip_ending(line).lstrip("\ufeff")
    m = _ITEM.fullmatch(text)
    if m is None:
        return None
    rest = _TASK.sub("", m.group("rest").strip(), count=1)
    if not rest:
        return None
    try:
        return _parse_rest(rest)
    except (ValueError, IndexError):  # pragma: no cover - defensive: parsing must never fail
        return None


def _lines(text: str) -> tuple[str, list[str]]:
    bom, body = split_bom(text)
    return bom, split_lines(body)


def _bodies(body: str) -> list[str]:
    """`[strip_ending(line) for line in split_lines(body)]`, without a Python call per line."""
    bodies = body.split("\n")
    if not bodies[-1]:
        bodies.pop()  # the text ends with a line ending (or is empty): no unterminated last line
        last = None
    else:
        last = bodies.pop()  # unterminated: a final lone "\r" is content and stays
    if "\r" in body:
        bodies = [b[:-1] if b.endswith("\r") else b for b in bodies]
    if last is not None:
        bodies.append(last)
    return bodies


def _entry_bodies(bodies: list[str]) -> list[bool]:
    ok = [True] * len(bodies)
    i = 0
    if bodies and bodies[0].rstrip() == "---":
        for j in range(1, len(bodies)):
            if bodies[j].rstrip() in ("---", "..."):
                for k in range(j + 1):
                    ok[k] = False
                i = j + 1
                break
    _mark_blocks(bodies, ok, i, None, False)
    return ok


def _mark_blocks(
    bodies: list[str], ok: list[bool], i: int, fence: str | None, in_comment: bool
) -> tuple[str | None, bool]:
    """Mark the lines from `i` on that are in fenced code or a multi-line comment, starting in the state
    (`fence`, `in_comment`) that the lines before left; returns the state the last line leaves."""
    while i < len(bodies):
        b = bodies[i]
        if fence is not None:
            ok[i] = False
            s = b.strip()
            if s and set(s) == {fence[0]} and len(s) >= len(fence):
                fence = None
        elif in_comment:
            ok[i] = False
            if "-->" in b:
                in_comment = False
        else:
            m = _FENCE.match(b)
            if m:
                ok[i] = False
                fence = m.group("fence")
                if fence[0] == "`" and "`" in b[m.end() :]:
                    fence = None  # not a fence: an inline code span
                    ok[i] = True
            elif b.lstrip().startswith("<!--") and "-->" not in b.split("<!--", 1)[1]:
                ok[i] = False
                in_comment = True
        i += 1
    return fence, in_comment


def _may_hide_lines(body: str) -> bool:
    """Whether some line of `body` may open a fence or a comment (without one, every line may be an entry)."""
    return "```" in body or "~~~" in body or "<!--" in body


def parse_index(text: str) -> list[IndexEntry]:
    """Every entry of the index, in file order. `raw` is the line without its ending (and without a BOM)."""
    body = split_bom(text)[1]
    bodies = _bodies(body)
    oks = _entry_bodies(bodies) if _may_hide_lines(body) or body.startswith("---") else None
    entries: list[IndexEntry] = []
    _parse_bodies(bodies, oks, 0, entries.append)
    return entries


# Bytes read at a time by `read_index` (whole lines are parsed per block).
READ_BLOCK = 1 << 18


def read_index(path: Path) -> list[IndexEntry] | None:
    """`parse_index` of the file at `path` decoded with `textio.decode` (None when there is no such file),
    read and parsed block by block: a large index is never held whole, neither as text (twice its size in
    bytes when a line holds a `—`) nor as one list of 10^5 lines. Other read errors are raised."""
    try:
        f = safeio.open_file(path)  # never a link, a FIFO or a device; over the cap: refused
    except FileNotFoundError:
        return None
    entries: list[IndexEntry] = []
    with f:
        head = f.read(max(READ_BLOCK, len(_BOM_BYTES) + 3))  # enough to see a BOM and front matter's "---"
        if head.removeprefix(_BOM_BYTES).startswith(b"---"):
            # Front matter: where it ends (if it does) decides what the first lines are; read it whole.
            return parse_index(textio.decode(head + f.read()))
        state: tuple[str | None, bool] = (None, False)
        line_no = 0
        for block in _line_blocks(f, head):
            text = textio.decode(block)  # each block ends after a "\n": no sequence spans two blocks
            if not line_no:
                text = split_bom(text)[1]
            bodies = _bodies(text)
            oks = None
            if state != (None, False) or _may_hide_lines(text):
                oks = [True] * len(bodies)
                state = _mark_blocks(bodies, oks, 0, *state)
            _parse_bodies(bodies, oks, line_no, entries.append)
            line_no += len(bodies)
    return entries


def _line_blocks(f: BinaryIO, head: bytes) -> Iterator[bytes]:
    """The rest of `f`, after `head`, in blocks of whole lines (a block ends after a "\n", the last one
    at the end of the file)."""
    parts = [head]
    while True:
        more = f.read(READ_BLOCK)
        if not more:
            break
        cut = more.rfind(b"\n") + 1
        if not cut:
            parts.append(more)  # a line longer than a block
            continue
        parts.append(more[:cut])
        yield b"".join(parts)
        parts = [more[cut:]]
    tail = b"".join(parts)
    if tail:
        yield tail


def _parse_bodies(
    bodies: list[str], oks: list[bool] | None, first: int, append: Callable[[IndexEntry], None]
) -> None:
    """The entries of `bodies` (lines `first`, `first` + 1, ...; `oks`: which may hold one, None: all)."""
    fast = _FAST_ENTRY.fullmatch
    for n, raw in enumerate(bodies, first):
        if oks is not None and not oks[n - first]:
            continue
        m = fast(raw)
        if m is not None:
            dest, code, bare, title, summary, colon = m.group(*_FAST_GROUPS)
            path: str = dest or code or bare
            plain = not (path.startswith("./") or path.endswith("/.md") or _PM_PREFIX in path)
            if plain:
                # The parts' places are known: the entry keeps the text around them (a shape many lines
                # share), not a copy of the line.
                spans = m.regs
                t0, t1 = spans[1]
                r0, r1 = spans[2] if dest else spans[3] if code else spans[4]
                s0, s1 = spans[5] if summary else spans[6]
                stripped = title and title.strip()
                if title is None or stripped is title:
                    head = (raw[:t0], raw[t1:r0]) if title else (raw[:r0],)
                    pieces = (*head, raw[r1:s0], raw[s1:]) if s0 >= 0 else (*head, raw[r1:])
                    entry = IndexEntry.shaped(n, path, title or None, summary or colon, pieces)
                    if entry is not None:
                        append(entry)
                        continue
            route = path if plain else normalize_route(path)
            if route is not None:
                append(IndexEntry(n, raw, route, (title and title.strip()) or None, summary or colon))
                continue
        parsed = parse_line(raw)
        if parsed is not None:
            append(IndexEntry(n, raw, *parsed))


def find_entries(text: str, route: str) -> list[IndexEntry]:
    """The entries naming `route` (more than one means a duplicate route)."""
    return [e for e in parse_index(text) if e.route == route]


def _check(lines: list[str], line_no: int) -> None:
    if not 0 <= line_no < len(lines):
        raise IndexError(f"line {line_no} is outside the file ({len(lines)} lines)")


def remove_line(text: str, line_no: int) -> str:
    """Remove line `line_no` and its ending; nothing else changes, except that removing the last line of a
    file without final newline also removes the ending of the line before it, so the file keeps no final
    newline (unless that line is blank: without its ending it would vanish)."""
    bom, lines = _lines(text)
    _check(lines, line_no)
    removed = lines.pop(line_no)
    if line_no == len(lines) and lines and not line_ending(removed) and strip_ending(lines[-1]):
        lines[-1] = strip_ending(lines[-1])
    return bom + "".join(lines)


def replace_line(text: str, line_no: int, new_line: str) -> str:
    """Replace the content of line `line_no`; its own ending is kept."""
    bom, lines = _lines(text)
    _check(lines, line_no)
    lines[line_no] = new_line + line_ending(lines[line_no])
    return bom + "".join(lines)


def neighbours(text: str, line_no: int) -> tuple[str | None, str | None]:
    """The previous and next lines of `line_no` (without endings), None at the edges of the file."""
    _, lines = _lines(text)
    _check(lines, line_no)
    prev = strip_ending(lines[line_no - 1]) if line_no > 0 else None
    nxt = strip_ending(lines[line_no + 1]) if line_no + 1 < len(lines) else None
    return prev, nxt


def _insert(lines: list[str], pos: int, line: str, eol: str) -> str:
    if pos >= len(lines):
        if lines and not line_ending(lines[-1]):
            lines[-1] += eol
            lines.append(line)
        else:
            lines.append(line + eol)
    else:
        lines.insert(pos, line + eol)
    return "".join(lines)


def insert_at(text: str, line_no: int, line: str) -> str:
    """Insert `line` so that it becomes line `line_no` (clamped to the end), with the file's dominant
    ending."""
    bom, lines = _lines(text)
    eol = dominant_eol("".join(lines))
    return bom + _insert(lines, max(0, line_no), line, eol)


def append_line(text: str, line: str) -> str:
    """Add `line` at the end of the file (see the module notes on a missing final newline)."""
    return insert_at(text, len(text) + 1, line)


def _position(bodies: list[str], after: str | None, before: str | None) -> int:
    n = len(bodies)
    if after is None:
        if before is None:
            return n
        if n and bodies[0] == before:
            return 0
    else:
        for i, body in enumerate(bodies):
            if body == after and (
                (before is None and i == n - 1)
                or (before is not None and i + 1 < n and bodies[i + 1] == before)
            ):
                return i + 1
    # The neighbourhood changed: the old place no longer exists, so the line goes at the end.
    return n


def insert_line(text: str, line: str, after: str | None, before: str | None) -> str:
    """Put `line` back at its old place, known by the lines that stood before (`after`) and after
    (`before`) it.

    Between the first line equal to `after` that is directly followed by `before` (`before` None: the
    last line; `after` None: at the top when the first line is `before`): the old place, when both
    neighbours are still there; else at the end. The new line gets the file's dominant line
    ending; see the module notes for the end of a file without final newline and for the empty file (LF).
    """
    bom, lines = _lines(text)
    bodies = [strip_ending(x) for x in lines]
    eol = dominant_eol("".join(lines))
    return bom + _insert(lines, _position(bodies, after, before), line, eol)


def _escape_title(title: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", title)


def _link_target(route: str) -> str:
    target = route
    if unquote(target, errors="surrogateescape") != target:
        target = target.replace("%", "%25")
    if any(c.isspace() or c in "()<>\\" for c in target):
        return "<" + re.sub(r"([\\<>])", r"\\\1", target) + ">"
    return target


def make_line(route: str, title: str | None = None, summary: str | None = None) -> str:
    """The line pmem-tui writes for a new entry.

    ``- [title](route) — summary`` (the route in ``<…>`` when it has whitespace, parentheses, ``<``, ``>``
    or a backslash), or ``- route — summary`` without a title (``- `route` — summary`` when a bare path
    would not read back). Newlines in the title or summary become spaces. Raises ValueError for a route
    that no shape can carry (one that `normalize_route` does not accept as-is).
    """

    def one_line(s: str | None) -> str | None:
        if s is None:
            return None
        s = s.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").strip()
        return s or None

    title, summary = one_line(title), one_line(summary)
    if normalize_route(route) != route or route.startswith(("/", "\\")) or ".." in route.split("/"):
        raise ValueError(f"{route!r} is not a relative .md path")
    tail = f" — {summary}" if summary is not None else ""
    candidates = []
    if title is not None:
        candidates.append(f"- [{_escape_title(title)}]({_link_target(route)}){tail}")
    candidates += [f"- {route}{tail}", f"- {code_span(route)}{tail}"]
    for line in candidates:
        if parse_line(line) == (route, title, summary):
            return line
    raise ValueError(f"{route!r} cannot be written as an index line")
