"""The ranges and edges of every value a person gives outside a path: numbers, one-line texts, the date.

One place for each limit, shared by the CLI (a usage error, exit 2, for an option or environment value out of
range; a refusal, exit 1, for text an action would write) and the app (the same refusals):

- `--inactive-days N`: ASCII digits only, 1 to `MAX_INACTIVE_DAYS` (100 years).
- `PMEM_TUI_TODAY`: `YYYY-MM-DD`, from `MIN_TODAY` to `MAX_TODAY`, so every date computed from it (a cut-off
  100 years back, a deadline 30 days ahead) is a real date.
- `--reason` and `--index-line`: one line of at most `MAX_LINE_CHARS` characters, without control or
  invisible characters (NUL, line and paragraph separators, ...) or undecodable bytes: they are written into
  `_index.md` and `_archive/_index.md`, where each would break or hide a line; and at least one visible
  character (joiners, combining marks or fillers alone would make the record look empty).
Paths have their own contract (`paths.py`).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from pmem_tui.core.errors import BadUsage, Refused

MAX_INACTIVE_DAYS = 36_500
MIN_TODAY = dt.date(1970, 1, 1)
MAX_TODAY = dt.date(9000, 12, 31)
MAX_LINE_CHARS = 1_000

_DIGITS = re.compile(r"[0-9]+")
_MAX_DIGITS = 12
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# Controls, format characters (bidi overrides, zero-width spaces, BOM), lone surrogates, line and paragraph
# separators. Tab, and the joiners that emoji and several scripts need, are plain text.
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_ALLOWED = frozenset("\t\u200c\u200d")
# Letters and symbols that draw as blank: the Hangul fillers and the blank Braille pattern.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def shown(value: str, limit: int = 40) -> str:
    """A value quoted for a sentence, cut to `limit` characters (the CLI escapes what is not printable)."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def parse_days(text: str) -> int:
    """`--inactive-days`: a whole number of days in range, else BadUsage."""
    if not _DIGITS.fullmatch(text):
        raise BadUsage(f"not a whole number of days: {shown(text)}")
    n = int(text) if len(text) <= _MAX_DIGITS else MAX_INACTIVE_DAYS + 1  # never a huge conversion
    if not 1 <= n <= MAX_INACTIVE_DAYS:
        raise BadUsage(f"must be from 1 to {MAX_INACTIVE_DAYS:,} days, not {shown(text)}")
    return n


def check_days(n: int) -> None:
    """The same range for a caller that already has a number (the health engine)."""
    if not 1 <= n <= MAX_INACTIVE_DAYS:
        raise Refused(f"The inactivity period must be from 1 to {MAX_INACTIVE_DAYS:,} days, not {n:,}.")


def parse_today(text: str, name: str) -> dt.date:
    """The frozen date from the environment variable `name`, in range, else BadUsage."""
    day = None
    if _ISO_DAY.fullmatch(text):
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            day = None
    if day is None or not MIN_TODAY <= day <= MAX_TODAY:
        raise BadUsage(
            f"{name} must be a date YYYY-MM-DD from {MIN_TODAY.isoformat()} to {MAX_TODAY.isoformat()}, "
            f"not {shown(text)}."
        )
    return day


def one_line(value: str, what: str) -> str:
    """A one-line text an action writes (`what`: "reason for archiving", "index line"), stripped."""
    value = value.strip()
    if not value:
        raise Refused(f"{_article(what)} {what} is required.")
    if "\n" in value or "\r" in value or "\u2028" in value or "\u2029" in value or "\x85" in value:
        raise Refused(f"The {what} must be a single line.")
    if len(value) > MAX_LINE_CHARS:
        raise Refused(f"The {what} has {len(value):,} characters; at most {MAX_LINE_CHARS:,} are allowed.")
    for ch in value:
        if ch not in _ALLOWED and unicodedata.category(ch) in _BAD_CATEGORIES:
            raise Refused(f"The {what} contains {_describe(ch)}; type it as plain text on one line.")
    if not any(unicodedata.category(ch)[0] in "LNPS" and ch not in _BLANK for ch in value):
        # Joiners, combining marks and fillers alone draw nothing: the record would look empty.
        raise Refused(f"The {what} has no visible character; type it as plain text on one line.")
    return value


def _describe(ch: str) -> str:
    if ch == "\0":
        return "a NUL character"
    if "\ud800" <= ch <= "\udfff":
        return "bytes that are not valid text"
    return f"the invisible or control character U+{ord(ch):04X}"


def _article(what: str) -> str:
    return "An" if what[:1].lower() in "aeiou" else "A"
