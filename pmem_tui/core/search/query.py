"""A search query as a person types it -> its parts, and the SQL that finds them (FTS5, trigram).

    plain words          every word must occur (AND), anywhere in the text: parts of words too
    "a phrase"           the exact run of characters, spaces included (an unclosed quote runs to the end)
    path:GLOB            the file's path matches the glob (`*`, `?`, `[...]`), or contains the text
    in:active ...        only where the file lives: active, core, archive, trash (repeat for several)

Nothing a person types is an FTS5 operator: every word and phrase goes to FTS5 as one quoted string, so
`foo AND`, `-x`, `NEAR(`, `*` or a stray quote are searched for as text. Smart case, as ripgrep's `-S` and
fzf do: a word with no capital letter matches any case; one with a capital matches its case exactly.

A word of fewer than three characters (a two-character Chinese word, `ab`) is below the trigram tokenizer's
reach: it is matched by scanning the stored text (`instr`) instead, and ranked by where it occurs.
"""

from __future__ import annotations

from pmem_tui.core.errors import BadUsage

LOCATIONS = ("active", "core", "archive", "trash")
MIN_FTS = 3  # the trigram tokenizer's shortest searchable string


class BadQuery(BadUsage):
    """A query that cannot be searched for: one sentence saying why (the CLI exits 2)."""


class Query:
    """A parsed query (a plain class: `typing` and `dataclasses` stay off a search process's imports)."""

    __slots__ = ("locations", "paths", "terms")

    def __init__(
        self, terms: tuple[str, ...], paths: tuple[str, ...] = (), locations: tuple[str, ...] = ()
    ) -> None:
        self.terms = terms  # the words and phrases, each matched as a run of characters
        self.paths = paths  # `path:` values (a file must match one of them)
        self.locations = locations  # `in:` values (none given: the caller's default)

    def __repr__(self) -> str:
        return f"Query({self.terms!r}, {self.paths!r}, {self.locations!r})"

    @property
    def fts_terms(self) -> tuple[str, ...]:
        return tuple(t for t in self.terms if len(t) >= MIN_FTS)


def case_sensitive(term: str) -> bool:
    """Smart case: a term with a capital letter is matched in its case."""
    return term != term.lower()


def _split(text: str) -> list[tuple[str, bool]]:
    """Words and quoted phrases, each with whether it was quoted (quotes dropped; an unclosed quote runs to
    the end of the text)."""
    parts: list[tuple[str, bool]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text[i] == '"':
            end = text.find('"', i + 1)
            end = n if end < 0 else end
            parts.append((text[i + 1 : end], True))
            i = end + 1
        else:
            end = i
            while end < n and not text[end].isspace():
                end += 1
            parts.append((text[i:end], False))
            i = end
    return parts


def parse(text: str) -> Query:
    """The query `text` means; `BadQuery` when it has nothing to search for or an unknown `in:`."""
    text = text.replace("\x00", "")  # FTS5 strings end at a NUL; no indexed text holds one
    terms: list[str] = []
    paths: list[str] = []
    locations: list[str] = []
    for part, quoted in _split(text):
        key, colon, value = part.partition(":")
        if quoted or not colon:
            if part.strip():
                terms.append(part)
        elif key == "path" and value:
            paths.append(value)
        elif key == "in" and value:
            if value.lower() not in LOCATIONS:
                raise BadQuery(f"in:{value} is not a place; use in:active, in:core, in:archive or in:trash.")
            if value.lower() not in locations:
                locations.append(value.lower())
        else:
            terms.append(part)
    if not terms:
        raise BadQuery('Nothing to search for: type a word or a "phrase" (path: and in: only narrow it).')
    return Query(tuple(terms), tuple(paths), tuple(locations))


def fts_string(term: str) -> str:
    """`term` as one FTS5 string: quoted, its quotes doubled, so no operator in it is ever read as one."""
    return '"' + term.replace('"', '""') + '"'


def match_expression(query: Query, columns: str = "") -> str | None:
    """The FTS5 MATCH expression of the query's long terms (None: no such term), in `columns` only (an FTS5
    column filter, `"{title summary}"`; empty: every column). With the trigram tokenizer a quoted string
    matches that run of characters, in any case.

    Every column is searched without a column filter: `{title summary body} :` means the same on this table
    and made FTS5 check each position's column, for the match and for bm25's count of each term's files
    (measured at 100,000 files: 26 -> 42 ms to count a pair's matches, 72 -> 108 ms to rank them)."""
    long_terms = query.fts_terms
    if not long_terms:
        return None
    terms = " AND ".join(fts_string(t) for t in long_terms)
    return f"{columns} : ({terms})" if columns else terms


def is_glob(value: str) -> bool:
    return any(c in value for c in "*?[")
