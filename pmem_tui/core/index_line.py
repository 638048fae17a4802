"""One line of `_index.md`: the route it names (`parse_line`), and the line pmem-tui writes (`make_line`).

A line names a route when it is a list item (``-``, ``*``, ``+``, ``1.`` or ``1)``, any leading

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
``:``, ``：`` or ``|``; the summary is optional. After a link a summary may also follow after plain
whitespace. The route is the relative ``.md`` path (case-sensitive ``.md``): a leading ``./`` and a
``~/.persistent-memory/`` (or ``…/.persistent-memory/``) prefix are removed; URLs (``https://…``) are not
routes.

A bare path stops at the first ``.md`` that is followed by the end of the line or by a separator. To never
mistake prose for a route, a bare path containing whitespace must contain a ``/`` and its first folder name
must not contain whitespace (``- projects/my plan [v2].md — …`` is a route, ``- See the README.md — …`` is
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from pmem_tui.core.md_lines import ITEM
from pmem_tui.core.textio import code_span, read_code_span, strip_ending

__all__ = ["PM_PREFIX", "make_line", "normalize_route", "parse_line", "reroute_line", "slashed_route"]

_TASK = re.compile(r"^\[[ xX]\][ \t]+")  # a task-list box before the route part
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://|mailto:", re.IGNORECASE)
_LINK_TITLE = re.compile(r"(?P<dest>.*?\S)\s+(?:\"[^\"]*\"|'[^']*')\s*", re.DOTALL)
_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
PM_PREFIX = ".persistent-memory/"

# How many ")" or " (" positions are tried in one line: keeps pathological lines linear.
_MAX_TRIES = 32
# The result of looking at what follows a route part: a summary (maybe None), or no match.
_NO = (False, None)


def normalize_route(route: str) -> str | None:
    """The relative ``.md`` path a route part names, or None when it is not a memory route."""
    r = route.strip()
    while r.startswith("./"):
        r = r[2:]
    if r.startswith("~/" + PM_PREFIX):
        r = r[len("~/" + PM_PREFIX) :]
    else:
        at = r.find("/" + PM_PREFIX)
        if at >= 0:
            r = r[at + 1 + len(PM_PREFIX) :]
        elif r.startswith(PM_PREFIX):
            r = r[len(PM_PREFIX) :]
    while r.startswith("./"):
        r = r[2:]
    if not r.endswith(".md") or r.rsplit("/", 1)[-1] == ".md":
        return None
    if "\n" in r or _URL.match(r):
        return None
    return r


def slashed_route(route: str) -> str | None:
    """The route a spelling with backslashes for slashes means (None without a backslash)."""
    return normalize_route(route.replace("\\", "/")) if "\\" in route else None


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
    elif s[0] in ":：|" or (spaced and s[0] == "-" and (len(s) == 1 or s[1] in " \t")):
        summary = s[1:].strip()
    elif loose and (spaced or s[0] == ","):
        summary = s.lstrip(",").strip()
    else:
        return _NO
    return True, summary or None


def _matching(s: str, start: int, opener: str = "[", closer: str = "]") -> int:
    """Index of the `closer` closing the `opener` at `start` (nesting and backslash escapes honoured), or
    -1."""
    depth = 0
    i = start
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == opener:
            depth += 1
        elif c == closer:
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
    close = _matching(s, open_at, "(", ")")
    if close >= 0:
        route = _dest_route(s[body_start:close])
        if route is not None:
            rest = s[close + 1 :]
            return route, rest, _after_route(rest)[0]
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


def _link(s: str) -> tuple[str, str | None, str] | None:
    """`s` starts with [title](path): (route, title, rest)."""
    simple = _SIMPLE_LINK.match(s)
    if simple is not None:
        route = normalize_route(simple.group("dest"))
        if route is not None:
            rest = s[simple.end() :]
            if _after_route(rest)[0]:
                return route, simple.group("title").strip() or None, rest
    close = _matching(s, 0)
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
    m = ITEM.fullmatch(text)
    if m is None or m.group("text") is None:
        return None
    rest = _TASK.sub("", m.group("text").strip(), count=1)
    if not rest:
        return None
    try:
        return _parse_rest(rest)
    except (ValueError, IndexError):  # pragma: no cover - defensive: parsing must never fail
        return None


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


def reroute_line(line: str, old: str, new: str) -> str:
    """`line`, which names the route `old`, naming `new` instead, every other byte kept: the route's text
    replaced where the line spells it, and in a link text that is the route itself (``[notes/a.md](…)``).

    The place is the one where the replacement makes `parse_line` read `new` with the same title and summary
    (a summary mentioning the route keeps it). ValueError, one sentence, when the line does not spell `old`
    as it is (an escaped or ``%XX`` spelling), when more than one place could be the route, or when the line
    would not read back as `new` (a route the line's shape cannot carry).
    """
    parsed = parse_line(line)
    if parsed is None or parsed[0] != old:
        raise ValueError(f"the line does not name {old}")
    _, title, summary = parsed
    line = _swap_once(line, old, new, (new, title, summary))
    if title == old:  # a link text repeating the route: it follows the route
        line = _swap_once(line, old, new, (new, new, summary))
    return line


def _swap_once(line: str, old: str, new: str, want: tuple[str, str | None, str | None]) -> str:
    """`line` with the one occurrence of `old` replaced by `new` that makes it read as `want`."""
    found: list[str] = []
    at = line.find(old)
    for _ in range(_MAX_TRIES):
        if at < 0:
            break
        swapped = line[:at] + new + line[at + len(old) :]
        if parse_line(swapped) == want:
            found.append(swapped)
        at = line.find(old, at + 1)
    if len(found) == 1:
        return found[0]
    if found:
        raise ValueError(f"the line spells {old} in more than one place that could be its route")
    if old not in line:
        raise ValueError(f"the line spells {old} another way (escaped)")
    raise ValueError(f"{new} cannot be written in place of {old} in this line")
