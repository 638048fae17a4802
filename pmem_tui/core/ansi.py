"""Colour for the CLI's previews, as ANSI codes written by hand: no Rich on any CLI path (`status` must
stay quick), and only on a terminal with `NO_COLOR` unset (https://no-color.org)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` only for mypy: the search and status processes do not import it
if TYPE_CHECKING:
    from typing import TextIO

RESET = "\x1b[0m"
STYLES = {
    "title": "\x1b[1m",
    "add": "\x1b[32m",
    "remove": "\x1b[31m",
    "move": "\x1b[33m",
    "hunk": "\x1b[36m",
    "head": "\x1b[1m",
    "note": "\x1b[2m",
    "": "",
}


def wanted(stream: TextIO) -> bool:
    """Colour when `stream` is a terminal and `NO_COLOR` is unset or empty (and the terminal is not dumb)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(kind: str, line: str) -> str:
    """`line` (already made printable: no control characters of its own) in the colour of `kind`."""
    style = STYLES.get(kind, "")
    return f"{style}{line}{RESET}" if style and line else line


def diff_kind(line: str) -> str:
    """The colour of one unified-diff line."""
    if line.startswith(("+++", "---")):
        return "head"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "remove"
    return ""
