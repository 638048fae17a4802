"""Running a query against the index: ranked hits, each with the line of its first match and a snippet.

Ranking: FTS5's bm25 with the title and the summary weighted above the body (`db.WEIGHTS`); a query made
only of words shorter than the trigram (`query.MIN_FTS`), and a query with over `RANKED` matches (its first
title or summary matches and first body matches: `_likeliest`), are ranked by where they occur (title, then
summary, then the body, by how often). The score is shown higher-is-better.

A hit's snippet is the line of the first match (1-based; of several terms, the first line holding them
all, when one does), trimmed to `SNIPPET_WIDTH` characters around the match, with every match in it as
(start, end) offsets; control characters in it are blanked, one for one, so the offsets hold for any front
(the CLI brackets or colours them, the app highlights them).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from pmem_tui.core.search.query import MIN_FTS, Query, case_sensitive, is_glob, match_expression

SNIPPET_WIDTH = 120
_LEAD = 30  # characters kept before the first match when a line is trimmed
_ELLIPSIS = "…"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT_WEIGHTS = (("title", 10.0), ("summary", 5.0))  # where a short word counts most (as bm25's)
RANKED = 1000  # matches ranked with bm25 at most: a broader query orders its likeliest ones (`_likeliest`)
SCANNED = 300  # a scan for short words stops after this many matches, which it then ranks
LINES_TRIED = 10_000  # lines holding the longest term tried for one holding every term (a snippet's bound)


class Hit:
    """One result (a plain class: `typing` and `dataclasses` stay off a search process's imports)."""

    __slots__ = ("line", "location", "path", "score", "snippet", "spans")

    def __init__(
        self,
        path: str,
        location: str,
        line: int,
        snippet: str,
        spans: tuple[tuple[int, int], ...],
        score: float,
    ) -> None:
        self.path = path
        self.location = location  # active, core, archive or trash
        self.line = line  # 1-based line of the first match
        self.snippet = snippet
        self.spans = spans  # the matches in `snippet`, (start, end) offsets
        self.score = score  # higher is better

    def __repr__(self) -> str:
        fields = (self.path, self.location, self.line, self.snippet, self.spans, self.score)
        return f"Hit{fields!r}"


def _contains(column: str, term: str) -> tuple[str, str]:
    """An SQL test that `column` holds `term`, in smart case. SQLite's `lower` folds ASCII only: a caseless
    term with other cased letters (é, Ж) is checked by Python (`db.contains_casefolded`)."""
    if case_sensitive(term) or term.upper() == term:  # a capital, or no cased letter at all (CJK, digits)
        return f"instr({column}, ?) > 0", term
    if term.isascii():
        return f"instr(lower({column}), ?) > 0", term
    return f"pmem_contains({column}, ?)", term


# Place and path are tested on `files` (f), the terms FTS5 cannot test on `docs` (d). With a MATCH, `docs`
# leads, always (CROSS JOIN): with an index on `files(location, ...)` SQLite chose to lead with `files` for
# `in:archive` and ran the MATCH once per file (6 s instead of 60 ms at 100,000 files).
_FROM = "FROM docs d CROSS JOIN files f ON f.docid = d.rowid"
_SCAN_FROM = "FROM files f CROSS JOIN docs d ON d.rowid = f.docid"  # no MATCH: the files lead (a scan)


def _where(query: Query, locations: tuple[str, ...]) -> tuple[list[str], list[object]]:
    tests = [f"f.location IN ({', '.join('?' for _ in locations)})"]
    args: list[object] = list(locations)
    for term in query.terms:  # the trigram index matches 3 characters and more, in any case: the rest here
        if len(term) < MIN_FTS or case_sensitive(term):
            test, arg = _contains("d.body", term)
            tests.append(test)
            args.append(arg)
    if query.paths:
        alternatives = []
        for value in query.paths:
            if is_glob(value):
                alternatives.append("f.path GLOB ?")
                args.append(value)
                if "/" not in value:  # like ripgrep's -g: a glob without a slash matches the file's name
                    alternatives.append("f.path GLOB ?")
                    args.append("*/" + value)
            else:
                test, arg = _contains("f.path", value)
                alternatives.append(test)
                args.append(arg)
        tests.append("(" + " OR ".join(alternatives) + ")")
    return tests, args


def _more_than(conn: sqlite3.Connection, match: str, args: list[object]) -> bool:
    """Whether the query has over `RANKED` matches, counted up to `RANKED + 1` only.

    Asked first of a query of one word with no `in:` only: a word being typed has thousands of matches, the
    count stops early, and bm25 (which first counts the word's files over the whole index: 4-30 ms at
    100,000 files) is never run for it. A query of several words, or narrowed to a place, is usually
    narrower: it is ranked in one pass (counting it first would walk its matches twice)."""
    row = conn.execute(f"SELECT count(*) FROM (SELECT 1 {match} LIMIT {RANKED + 1})", args).fetchone()
    return int(row[0]) > RANKED


def _score(query: Query) -> tuple[str, list[object]]:
    """A score without bm25, by where each term occurs: title, then summary, then how often in the body
    (for a query of short words, and to order a broad query's likeliest matches)."""
    parts: list[str] = []
    args: list[object] = []
    for term in query.terms:
        for column, weight in _SHORT_WEIGHTS:
            test, arg = _contains(column, term)
            parts.append(f"({test}) * {weight}")
            args.append(arg)
        # how often it occurs in the body, per kilobyte (a dense mention beats a passing one)
        hay = "body" if case_sensitive(term) else "lower(body)"  # ASCII folded only: a rank, not a test
        count = f"(length({hay}) - length(replace({hay}, ?, ''))) / {len(term)}"
        parts.append(f"{count} * 1000.0 / (length(body) + 1000)")
        args.append(term)
    return " + ".join(parts), args


def _likeliest(
    conn: sqlite3.Connection, query: Query, where: str, args: list[object], limit: int
) -> list[tuple[int, str, str, float]]:
    """A broad query's best: its first `limit` title or summary matches and its first `limit` body matches,
    ordered by where the terms occur (`_score`). No bm25: bm25 counts the files of each term over the whole
    index before its first row (at 100,000 files, 20-110 ms for a common word), which a broad query's
    keystroke must not wait for."""
    candidates: dict[int, None] = {}
    for columns in ("{title summary}", "{body}"):
        expression = match_expression(query, columns)
        sql = f"SELECT d.rowid {_FROM} WHERE docs MATCH ? AND {where} LIMIT ?"
        for (rowid,) in conn.execute(sql, [expression, *args, limit]):
            candidates.setdefault(rowid, None)
    if not candidates:
        return []
    score, score_args = _score(query)
    sql = (
        f"SELECT d.rowid, f.path, f.location, {score} AS score {_FROM} "
        f"WHERE d.rowid IN ({', '.join('?' for _ in candidates)}) ORDER BY score DESC, f.path LIMIT ?"
    )
    return conn.execute(sql, [*score_args, *candidates, limit]).fetchall()


def rows(
    conn: sqlite3.Connection, query: Query, locations: tuple[str, ...], limit: int
) -> tuple[list[tuple[int, str, str, float]], bool]:
    """(rowid, path, location, score) of the best `limit` documents, best first; and whether the query was
    too broad to rank every match (over `RANKED` of them: then its likeliest matches are ordered by
    `_likeliest`, so that a keystroke never waits for a whole-memory sort)."""
    tests, args = _where(query, locations)
    where = " AND ".join(tests)
    expression = match_expression(query)
    if expression is not None:
        match = f"{_FROM} WHERE docs MATCH ? AND {where}"
        if len(query.fts_terms) == 1 and not query.locations and _more_than(conn, match, [expression, *args]):
            return _likeliest(conn, query, where, args, limit), True
        # One pass: bm25 for at most RANKED + 1 matches, sorted here (the same order as `ORDER BY rank,
        # path`). Counting the matches first, then ranking them, walks FTS5's lists of every match twice.
        sql = f"SELECT d.rowid, f.path, f.location, -d.rank {match} LIMIT ?"
        found = conn.execute(sql, [expression, *args, RANKED + 1]).fetchall()
        if len(found) <= RANKED:
            found.sort(key=lambda r: (-r[3], r[1]))
            return found[:limit], False
        return _likeliest(conn, query, where, args, limit), True
    # A scan: it stops after SCANNED matches (a common short word), which are then ranked. The files
    # lead, in docid order (`files_docid_place`): a file of another place is passed over without its text
    # being read (the archive's files come first in docid order: at 100,000 files, 7 -> 1.5 ms).
    score, score_args = _score(query)
    columns = "d.rowid, f.path, f.location, d.body, d.title, d.summary"
    scan = f"SELECT {columns} {_SCAN_FROM} WHERE {where} ORDER BY f.docid LIMIT {SCANNED + 1}"
    sql = (
        f"SELECT rowid, path, location, {score} AS score, count(*) OVER () FROM ({scan}) "
        "ORDER BY score DESC, path LIMIT ?"
    )
    found_rows = conn.execute(sql, [*score_args, *args, limit]).fetchall()
    broad = bool(found_rows) and found_rows[0][4] > SCANNED
    return [row[:4] for row in found_rows], broad


def _term(term: str) -> str:
    return re.escape(term) if case_sensitive(term) else f"(?i:{re.escape(term)})"


def matcher(query: Query) -> re.Pattern[str]:
    """Every term of the query, each in its own case rule (smart case), longest first."""
    return re.compile("|".join(_term(t) for t in sorted(set(query.terms), key=len, reverse=True)))


def _first_line_with_all(text: str, terms: Sequence[str], pattern: re.Pattern[str]) -> re.Match[str] | None:
    """The first match of `pattern` on the first line holding every term (found in trial: `lorem 4999` in
    a long log showed the first line with `lorem`); None: no line does within `LINES_TRIED` lines."""
    if len(set(terms)) < 2:
        return None
    lead, *rest = (re.compile(_term(t)) for t in sorted(set(terms), key=len, reverse=True))
    end, tried = -1, 0
    for m in lead.finditer(text):
        if m.start() <= end:  # a line already tried
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        end = len(text) if end < 0 else end
        if all(r.search(text, start, end) for r in rest):
            return pattern.search(text, start, end)
        tried += 1
        if tried >= LINES_TRIED:
            return None
    return None


def snippet(
    text: str, pattern: re.Pattern[str], terms: Sequence[str] = ()
) -> tuple[int, str, tuple[tuple[int, int], ...]]:
    """(line number, snippet, spans) of the first match of `pattern` in `text` (line 1 when none), on the
    first line holding every one of `terms` when there is one."""
    first = _first_line_with_all(text, terms, pattern) or pattern.search(text)
    at = first.start() if first else 0
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    line_no = text.count("\n", 0, line_start) + 1
    cut_start = line_start
    if first and at - line_start > _LEAD and line_end - line_start > SNIPPET_WIDTH:
        cut_start = max(line_start, min(at - _LEAD, line_end - SNIPPET_WIDTH))
    cut_end = min(line_end, cut_start + SNIPPET_WIDTH)
    before = _ELLIPSIS if cut_start > line_start else ""
    after = _ELLIPSIS if cut_end < line_end else ""
    body = _CONTROL.sub(" ", text[cut_start:cut_end].rstrip("\r"))
    spans = tuple(
        (m.start() - cut_start + len(before), m.end() - cut_start + len(before))
        for m in pattern.finditer(text, cut_start, cut_start + len(body))
        if m.end() > m.start()
    )
    return line_no, before + body + after, spans


def hits(
    conn: sqlite3.Connection, query: Query, locations: tuple[str, ...], limit: int
) -> tuple[list[Hit], bool]:
    """The best hits, and whether the query was too broad to rank every match (`rows`)."""
    pattern = matcher(query)
    found = []
    ranked, broad = rows(conn, query, locations, limit)
    for rowid, path, where, score in ranked:
        body = conn.execute("SELECT body FROM docs WHERE rowid = ?", (rowid,)).fetchone()
        line, text, spans = snippet(body[0] if body else "", pattern, query.terms)
        found.append(Hit(path, where, line, text, spans, float(f"{float(score or 0.0):.4g}")))
    return found, broad
