"""FTS5's bm25, computed here from one walk of the index per phrase.

FTS5's own `bm25()` walks the index once for the query's matches and then once more per phrase, over the
whole index, to count the files that hold it (its IDF): a pair of words was three walks of the trigram lists
(at 100,000 files, 25 + 22 + 21 ms for `ceackplu zeand`). Here each phrase is walked once: its files give
both its count and, intersected, the query's matches. The score is FTS5's `fts5Bm25Function` (fts5_aux.c)
with the same double operations in the same order, so it is the same number to the last bit (tested against
`rank`):

    score = sum over phrases i of  idf(i) * f(i) * (k1 + 1) / (f(i) + k1 * (1 - b + b * D / avgdl))

where idf(i) = log((N - n(i) + 0.5) / (n(i) + 0.5)) (1e-6 when not above 0), n(i) the files holding phrase i,
N the files indexed, f(i) phrase i's occurrences in the row weighted by column (`db.WEIGHTS`), D the row's
length in tokens (`docs_docsize`), avgdl the mean length (the averages record, `docs_data` id 1).

A phrase's occurrences are counted in the row's text folded by `str.lower` (overlapping ones each count, as
FTS5's instances do); FTS5 folds a few letters otherwise (`İ`, a final `Σ`): there the rank, never the
matches, may differ slightly.
"""

from __future__ import annotations

import json
import math
import sqlite3

from pmem_tui.core.search.db import WEIGHTS
from pmem_tui.core.search.query import fts_string

K1 = 1.2
B = 0.75
_COLUMNS = "d.title, d.summary, d.body, s.sz"


def varints(blob: bytes) -> list[int]:
    """The SQLite varints in `blob` (FTS5's record format: 7 bits a byte, high bit set but on the last;
    a ninth byte gives all 8 bits)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def occurrences(text: str, needle: str) -> int:
    """How many times `needle` occurs in `text`, overlapping ones included."""
    count, at = 0, text.find(needle)
    while at >= 0:
        count += 1
        at = text.find(needle, at + 1)
    return count


def ranked(
    conn: sqlite3.Connection, terms: tuple[str, ...], from_where: str, args: list[object], cap: int
) -> list[tuple[int, str, str, float]]:
    """(rowid, path, location, bm25) of the files holding every term (each an FTS5 phrase, in the query's
    order) that pass `from_where` (a `FROM ... WHERE ...` over `f` files, `d` docs and `s` their sizes, whose
    first parameter is the JSON list of candidate rowids), at most `cap` of them, in no order. Over `cap - 1`
    rows, their scores are not computed (0.0): the caller then ranks otherwise."""
    row = conn.execute("SELECT block FROM docs_data WHERE id = 1").fetchone()
    totals = varints(row[0]) if row and row[0] else []
    n_rows = totals[0] if totals else 0
    if not n_rows:  # nothing indexed yet
        return []
    avgdl = float(sum(totals[1:])) / float(n_rows)
    idfs: list[float] = []
    matches: set[int] | None = None
    for term in terms:
        walk = conn.execute("SELECT rowid FROM docs WHERE docs MATCH ?", [fts_string(term)])
        found = [rowid for (rowid,) in walk]
        idf = math.log((n_rows - len(found) + 0.5) / (len(found) + 0.5))
        idfs.append(idf if idf > 0.0 else 1e-6)
        matches = set(found) if matches is None else matches.intersection(found)
        if not matches:
            return []
    sql = f"SELECT d.rowid, f.path, f.location, {_COLUMNS} {from_where} LIMIT {cap}"
    rows = conn.execute(sql, [json.dumps(sorted(matches or ())), *args]).fetchall()
    if len(rows) >= cap:
        return [(r[0], r[1], r[2], 0.0) for r in rows]
    folded = [term.lower() for term in terms]
    out = []
    for rowid, path, where, title, summary, body, size in rows:
        texts = (title.lower(), summary.lower(), body.lower())
        length = float(sum(varints(size)))
        score = 0.0
        for needle, idf in zip(folded, idfs, strict=True):
            # FTS5 adds a column's weight per occurrence: whole numbers, so the product is the same sum
            freq = float(sum(w * occurrences(text, needle) for w, text in zip(WEIGHTS, texts, strict=True)))
            score += idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * length / avgdl)))
        out.append((rowid, path, where, score))
    return out
