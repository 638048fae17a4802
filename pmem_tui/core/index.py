"""`_index.md`: find the routes in a hand-written index, and edit it one line at a time.

Which lines name a route, and how, is `index_line`'s (one line at a time); this module reads whole files.
Lines inside fenced code blocks, multi-line HTML comments and a leading ``---`` front-matter block are never
entries (`md_lines.Blocks`). Anything that is not recognised is kept verbatim and never touched.

Editing: the functions below take and return the whole text and change exactly the line they are asked
to. A byte-order mark belongs to the file, not to the first line: `IndexEntry.raw`, `neighbours` and line
equality never include it, and it stays at the start of the file whatever line is removed or inserted. Line
numbers are 0-based and count the lines of the text after the BOM.

A "no final newline" file keeps having no final newline: removing its last line also removes the ending of the
line before it (unless that line is blank, as it would vanish), and appending to it first gives the old last
line an ending (the file's dominant one) and writes the new line without one.

``insert_line(remove_line(t, n), line, *neighbours(t, n)) == t`` holds whenever the text uses one line-ending
style, the place is unambiguous (the pair of neighbours occurs once), the removal leaves some line ending
to learn the style from (otherwise LF is used: a one-line file, or a two-line CRLF file without final
newline), and the line is not the unterminated last line after a blank line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from pmem_tui.core import safeio, textio
from pmem_tui.core.index_line import (
    PM_PREFIX,
    make_line,
    normalize_route,
    parse_line,
    reroute_line,
    slashed_route,
)
from pmem_tui.core.md_lines import ITEM, Blocks
from pmem_tui.core.model import INDEX_FILE, IndexEntry, Problem
from pmem_tui.core.textio import dominant_eol, line_bodies, line_ending, split_bom, split_lines, strip_ending

__all__ = [
    "append_line",
    "drop_line",
    "entry_lines",
    "find_entries",
    "insert_at",
    "insert_in",
    "insert_line",
    "make_line",
    "named_without_bullet",
    "neighbours",
    "neighbours_in",
    "normalize_route",
    "orphan_detail",
    "orphan_problems",
    "orphan_said",
    "parse_index",
    "parse_line",
    "parse_rows",
    "read_index",
    "remove_line",
    "replace_line",
    "reroute_line",
    "slashed_route",
    "unbulleted_in",
    "unbulleted_routes",
]

_BOM_BYTES = textio.BOM.encode("utf-8")

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


def _lines(text: str) -> tuple[str, list[str]]:
    bom, body = split_bom(text)
    return bom, split_lines(body)


def _entry_bodies(bodies: list[str]) -> list[bool]:
    """Which lines may hold an entry: not front matter, fenced code or a multi-line comment."""
    start = 0
    if bodies and bodies[0].rstrip() == "---":
        for j in range(1, len(bodies)):
            if bodies[j].rstrip() in ("---", "..."):
                start = j + 1
                break
    return [False] * start + _visible(bodies[start:], Blocks(comments=True))


def entry_lines(text: str) -> tuple[list[str], list[bool]]:
    """The text's lines without their endings (after the BOM), and which may hold an entry (`parse_rows`)."""
    bodies = line_bodies(split_bom(text)[1])
    return bodies, _entry_bodies(bodies)


def _visible(bodies: list[str], blocks: Blocks) -> list[bool]:
    """Which of `bodies` are outside fences and comments, `blocks` carrying the state across calls."""
    hidden = blocks.hidden
    return [not hidden(b) for b in bodies]


def _may_hide_lines(body: str) -> bool:
    """Whether some line of `body` may open a fence or a comment (without one, every line may be an entry)."""
    return "```" in body or "~~~" in body or "<!--" in body


# An entry as the plain tuple of `IndexEntry`'s fields: (line_no, raw, route, title, summary).
EntryRow = tuple[int, str, str, str | None, str | None]


def parse_index(text: str) -> list[IndexEntry]:
    """Every entry of the index, in file order. `raw` is the line without its ending (and without a BOM)."""
    return [IndexEntry(*row) for row in parse_rows(text)]


def parse_rows(text: str) -> list[EntryRow]:
    """`parse_index` as plain rows: for a reader that wants the fields, not entries (no line is packed by
    `IndexEntry` only to be joined again: ~2 us an entry)."""
    body = split_bom(text)[1]
    bodies = line_bodies(body)
    oks = _entry_bodies(bodies) if _may_hide_lines(body) or body.startswith("---") else None
    rows: list[EntryRow] = []
    _parse_bodies(bodies, oks, 0, rows.append)
    return rows


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
        blocks = Blocks(comments=True)
        line_no = 0
        for block in _line_blocks(f, head):
            text = textio.decode(block)  # each block ends after a "\n": no sequence spans two blocks
            if not line_no:
                text = split_bom(text)[1]
            bodies = line_bodies(text)
            oks = None
            if blocks.fence is not None or blocks.in_comment or _may_hide_lines(text):
                oks = _visible(bodies, blocks)
            _parse_bodies(bodies, oks, line_no, lambda row: entries.append(IndexEntry(*row)))
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
    bodies: list[str], oks: list[bool] | None, first: int, append: Callable[[EntryRow], None]
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
            plain = not (path.startswith("./") or path.endswith("/.md") or PM_PREFIX in path)
            route = path if plain else normalize_route(path)
            if route is not None:
                append((n, raw, route, (title and title.strip()) or None, summary or colon))
                continue
        parsed = parse_line(raw)
        if parsed is not None:
            append((n, raw, *parsed))


def find_entries(text: str, route: str) -> list[IndexEntry]:
    """The entries naming `route` (more than one means a duplicate route)."""
    return [e for e in parse_index(text) if e.route == route]


# A line naming a ``.md`` path that is not a list item (`md_lines.ITEM`): where `unbulleted_routes` looks.
_UNBULLETED = re.compile(r"^(?![ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)).*\.md", re.M)
_UNBULLETED_BYTES = re.compile(_UNBULLETED.pattern.encode(), re.M)  # the same lines, on the file's bytes


def unbulleted_routes(text: str) -> dict[str, int]:
    """Each route a line names without being an entry, but would name as a list item: a line without a
    bullet that `parse_line` does not read as a route (``notes/my plan.md — …``, ``**notes/x.md**``), which an
    agent may still read as one; -> its first such line (0-based)."""
    body = split_bom(text)[1]
    if _UNBULLETED.search(body) is None:  # (one scan in C: an index of list items has none)
        return {}
    bodies = line_bodies(body)
    oks = _entry_bodies(bodies)
    found: dict[str, int] = {}
    for n, body in enumerate(bodies):
        if oks[n] and ".md" in body and ITEM.fullmatch(body) is None and parse_line(body) is None:
            parsed = parse_line("- " + body.strip())
            if parsed is not None:
                found.setdefault(parsed[0], n)
    return found


def named_without_bullet(text: str, route: str) -> int | None:
    """The first line (0-based) that names `route` without a list bullet (`unbulleted_routes`), or None."""
    return unbulleted_routes(text).get(route)


def orphan_detail(unbulleted: int | None = None) -> str:
    """What is wrong with an active file no entry lists, in one sentence (the scan's problem, the app's row,
    the health check's signal): `unbulleted` is the line (0-based) naming it without a list bullet, if any."""
    if unbulleted is None:
        return f"on disk but not in {INDEX_FILE}"
    return (
        f"named in {INDEX_FILE} only by line {unbulleted + 1}, which is not a list item (`- `); "
        "fix: make that line a list item"
    )


def orphan_said(unbulleted: int | None) -> tuple[str, int | None]:
    """An orphan's sentence (`orphan_detail`) and the line naming it without a list bullet, 1-based (the
    scan's `Problem.unbulleted`, the health signal's), from that line 0-based (`unbulleted_routes`)."""
    return orphan_detail(unbulleted), None if unbulleted is None else unbulleted + 1


def unbulleted_in(root: Path, data: bytes) -> dict[str, int]:
    """`unbulleted_routes` of the index's bytes `data` (none held: read again, never through a link),
    decoded only when a line without a bullet names a ``.md`` (a decoded copy of a 10^4-line index raised
    the app's peak)."""
    with contextlib.suppress(OSError):
        raw = data or safeio.read_under(root, INDEX_FILE)
        if _UNBULLETED_BYTES.search(raw) is not None:  # a BOM makes it look again: decoded, then exact
            return unbulleted_routes(textio.decode(raw))
    return {}


def orphan_problems(paths: list[str], unbulleted: dict[str, int]) -> list[Problem]:
    """The `orphan` problems of these active files, each with its sentence and the line naming it without a
    bullet, if any (`orphan_said`): `unbulleted`, the index's lines (0-based) naming a route without a bullet
    (`unbulleted_routes`)."""
    problems = []
    for path in paths:
        problems.append(Problem("orphan", path, *orphan_said(unbulleted.get(path))))
    return problems


def _check(lines: list[str], line_no: int) -> None:
    if not 0 <= line_no < len(lines):
        raise IndexError(f"line {line_no} is outside the file ({len(lines)} lines)")


def remove_line(text: str, line_no: int) -> str:
    """Remove line `line_no` and its ending; nothing else changes, except that removing the last line of a
    file without final newline also removes the ending of the line before it, so the file keeps no final
    newline (unless that line is blank: without its ending it would vanish)."""
    bom, lines = _lines(text)
    drop_line(lines, line_no)
    return bom + "".join(lines)


def drop_line(lines: list[str], line_no: int) -> None:
    """`remove_line` on the text's lines (`textio.split_lines`, after the BOM), in place."""
    _check(lines, line_no)
    removed = lines.pop(line_no)
    if line_no == len(lines) and lines and not line_ending(removed) and strip_ending(lines[-1]):
        lines[-1] = strip_ending(lines[-1])


def replace_line(text: str, line_no: int, new_line: str) -> str:
    """Replace the content of line `line_no`; its own ending is kept."""
    bom, lines = _lines(text)
    _check(lines, line_no)
    lines[line_no] = new_line + line_ending(lines[line_no])
    return bom + "".join(lines)


def neighbours(text: str, line_no: int) -> tuple[str | None, str | None]:
    """The previous and next lines of `line_no` (without endings), None at the edges of the file."""
    return neighbours_in(_lines(text)[1], line_no)


def neighbours_in(lines: list[str], line_no: int) -> tuple[str | None, str | None]:
    """`neighbours` on the text's lines (`textio.split_lines`, after the BOM)."""
    _check(lines, line_no)
    prev = strip_ending(lines[line_no - 1]) if line_no > 0 else None
    nxt = strip_ending(lines[line_no + 1]) if line_no + 1 < len(lines) else None
    return prev, nxt


def _insert(lines: list[str], pos: int, line: str, eol: str) -> None:
    if pos >= len(lines):
        if lines and not line_ending(lines[-1]):
            lines[-1] += eol
            lines.append(line)
        else:
            lines.append(line + eol)
    else:
        lines.insert(pos, line + eol)


def insert_in(
    lines: list[str], bodies: list[str], line: str, after: str | None, before: str | None, eol: str
) -> int:
    """`insert_line` on the text's lines (`textio.split_lines`, after the BOM), their bodies (left as they
    are) and its dominant ending: `line` goes into `lines`, in place; its line number."""
    pos = _position(bodies, after, before)
    _insert(lines, pos, line, eol)
    return min(pos, len(lines) - 1)


def insert_at(text: str, line_no: int, line: str) -> str:
    """Insert `line` so that it becomes line `line_no` (clamped to the end), with the file's dominant
    ending."""
    bom, lines = _lines(text)
    _insert(lines, max(0, line_no), line, dominant_eol("".join(lines)))
    return bom + "".join(lines)


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
    insert_in(lines, [strip_ending(x) for x in lines], line, after, before, dominant_eol("".join(lines)))
    return bom + "".join(lines)
