"""The filter's matching: which rows a term matches, and which characters to highlight.

A term matches a field when it is a substring of it (exact), or when its characters come in chunks that
each begin a word, in order (`rl` and `readlist` match `reading-list`; `read` does not match
`routing service` by scattered letters: such weak subsequence matches are dropped). The regular
expressions stay linear: the chunk search is greedy (atomic groups), from the first word start where
the term's first character appears.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import contains

Test = Callable[[Sequence[str]], Iterable[object]]

_WORD_START = r"(?<![^\W_])"  # not right after a letter or a digit (a line start, `/`, `-`, `_`, space...)


def term_source(term: str) -> str | None:
    """Regex source for "the term, exact or by word-start chunks" inside one line."""
    chars = [c for c in term.lower() if not c.isspace()]
    if not chars:
        return None
    exact = "[^\\n]*?" + re.escape("".join(chars))
    first, rest = re.escape(chars[0]), [re.escape(c) for c in chars[1:]]
    chunks = f"(?>[^\\n]*?{_WORD_START}{first})" + "".join(f"(?>{c}|[^\\n]*?{_WORD_START}{c})" for c in rest)
    return f"(?:{exact}|{chunks})"


def _subsequence_source(chars: list[str]) -> str:
    """ "The characters in order" inside one line, linear time (possessive): cheap, and true of every
    strong match, so it screens the rows first."""
    return "".join(f"[^{re.escape(c)}\\n]*+{re.escape(c)}" for c in chars)


def term_tests(term: str) -> list[Test]:
    """The tests a row must pass for `term`, cheapest first: each runs only on the rows the ones before
    it kept (the subsequence screen is 5-8x cheaper than the word-start test and drops most rows)."""
    chars = [c for c in term.lower() if not c.isspace()]
    if len(chars) < 2:
        return [term_test(term)]
    screen = re.compile(r"(?:[^\n]*+\n)*?" + _subsequence_source(chars)).match
    return [lambda texts: map(screen, texts), term_test(term)]


def term_test(term: str) -> Test:
    """For a lowercase term, a function of texts -> per text, whether the term matches one of its lines."""
    if len(term) == 1 and term.lower() == term:
        # One character: exact when it is in the text (it is never "\n"); a substring test is ~8x cheaper
        # than the regular expression.
        return lambda texts: map(contains, texts, repeat(term))
    source = term_source(term)
    if source is None:
        return lambda texts: repeat(True, len(texts))
    match = re.compile(r"(?:[^\n]*+\n)*?" + source).match
    return lambda texts: map(match, texts)


def _word_start(text: str, i: int) -> bool:
    return i == 0 or not text[i - 1].isalnum()


def term_positions(text: str, term: str) -> list[int]:
    """Where `term` matches the lowercase `text` (the same rule as `term_test`); [] when it does not."""
    if not term:
        return []
    at = text.find(term)
    if at >= 0:
        return list(range(at, at + len(term)))
    start = next((i for i, ch in enumerate(text) if ch == term[0] and _word_start(text, i)), -1)
    if start < 0:
        return []
    found = [start]
    pos = start + 1
    for ch in term[1:]:
        if pos < len(text) and text[pos] == ch:
            found.append(pos)
            pos += 1
            continue
        nxt = next((i for i in range(pos, len(text)) if text[i] == ch and _word_start(text, i)), -1)
        if nxt < 0:
            return []
        found.append(nxt)
        pos = nxt + 1
    return found


def highlights(text: str, query: str) -> list[int]:
    """The characters of `text` (as shown) to highlight for `query`: the query as typed where it appears,
    else each term's match. Case-insensitive; nothing when lowercasing changes the text's length."""
    lower = text.lower()
    needle = " ".join(query.lower().split())
    if not needle or len(lower) != len(text):
        return []
    at = lower.find(needle)
    if at >= 0:
        return list(range(at, at + len(needle)))
    marked: set[int] = set()
    for term in needle.split():
        marked.update(term_positions(lower, term))
    return sorted(marked)
