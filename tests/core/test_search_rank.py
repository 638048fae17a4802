"""The search's ranking passes (`core/search/find.py`) give the order their SQL definition gives: bm25 over
every match in one pass, the same as `ORDER BY rank, path`; a broad query orders its likeliest matches
without bm25; an index of the previous schema is upgraded in place, not rebuilt."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.core import cache
from pmem_tui.core.search import Results, SearchIndex, find, parse
from pmem_tui.core.search import db as search_db
from pmem_tui.core.search.query import LOCATIONS, match_expression
from tests.conftest import write

NOTES = {
    # ties on purpose: the same text under several paths (bm25 equal: the path orders them)
    "notes/c-same.md": "# Log\n\nthe kestrel flew over the kestrel hill\n",
    "notes/a-same.md": "# Log\n\nthe kestrel flew over the kestrel hill\n",
    "notes/b-same.md": "# Log\n\nthe kestrel flew over the kestrel hill\n",
    "notes/title.md": "# Kestrel sightings\n\n## Summary\n- birds\n\nA list.\n",
    "notes/summary.md": "# Birds\n\n## Summary\n- a kestrel nest\n\nNothing more.\n",
    "notes/pair.md": "# Walk\n\nkestrel and heron by the river\n",
    "_core/profile.md": "# Profile\n\nI watch a kestrel and a heron.\n",
    "_archive/notes/old.md": "# Old\n\nkestrel kestrel kestrel heron\n",
}
FILLERS = 8  # files without the words: bm25 ranks only terms rarer than half the files


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    for n in range(FILLERS):
        write(root, f"notes/filler-{n}.md", f"# Filler {n}\n\nplain words about the weather {n}\n")
    for rel, text in NOTES.items():
        write(root, rel, text)
    return root


def _by_sql(conn: sqlite3.Connection, text: str, locations: tuple[str, ...]) -> list[tuple[object, ...]]:
    """The definition: every match ranked by SQLite, `ORDER BY rank, path`."""
    query = parse(text)
    tests, args = find._where(query, locations)
    sql = (
        f"SELECT d.rowid, f.path, f.location, -d.rank {find._FROM} "
        f"WHERE docs MATCH ? AND {' AND '.join(tests)} ORDER BY d.rank, f.path"
    )
    return conn.execute(sql, [match_expression(query), *args]).fetchall()


@pytest.mark.parametrize(
    ("text", "locations"),
    [
        ("kestrel", LOCATIONS),
        ("kestrel heron", LOCATIONS),
        ("kestrel", ("active",)),
        ("kestrel path:notes/*-same.md", LOCATIONS),
        ('"the kestrel"', ("active", "core")),
    ],
)
def test_one_pass_gives_the_order_of_rank_then_path(
    root: Path, text: str, locations: tuple[str, ...]
) -> None:
    with SearchIndex.open(root) as idx:
        idx.refresh()
        expected = _by_sql(idx.conn, text, locations)
        for limit in (1, 3, 50):
            got, broad = find.rows(idx.conn, parse(text), locations, limit)
            assert not broad
            assert got == expected[:limit]
    if text == "kestrel":  # the ties are ordered by path
        paths = [row[1] for row in expected]
        assert (
            paths.index("notes/a-same.md") < paths.index("notes/b-same.md") < paths.index("notes/c-same.md")
        )


def test_every_column_without_a_column_filter_is_the_same_search(root: Path) -> None:
    """The MATCH names no columns (`{title summary body}:` made FTS5 slower and means the same): guard
    against a column added to `docs` that a query must not search."""
    with SearchIndex.open(root) as idx:
        idx.refresh()
        columns = [row[1] for row in idx.conn.execute("PRAGMA table_info(docs)")]
        assert columns == ["title", "summary", "body"]
        for text in ("kestrel", "kestrel heron", "weather 3", '"the kestrel"'):
            expression = match_expression(parse(text))
            assert expression is not None and "{" not in expression
            sql = "SELECT rowid, rank FROM docs WHERE docs MATCH ? ORDER BY rowid"
            plain = idx.conn.execute(sql, [expression]).fetchall()
            every = idx.conn.execute(sql, ["{title summary body} : (" + expression + ")"]).fetchall()
            assert plain == every and plain


def _statements(idx: SearchIndex, text: str) -> tuple[Results, list[str]]:
    """The results of `text` and the statements of the search that touch the text index."""
    statements: list[str] = []
    idx.conn.set_trace_callback(statements.append)
    try:
        results = idx.search(text, limit=20)
    finally:
        idx.conn.set_trace_callback(None)
    return results, [s for s in statements if "MATCH" in s or "IN (" in s]


def test_a_broad_query_is_ordered_without_bm25(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over `RANKED` matches: the title and summary matches first, then the body's by how often the word
    occurs. One word is counted first, and bm25 (which counts each term's files first) is never asked
    for; several words are ranked in one pass, and nothing after it asks for bm25."""
    monkeypatch.setattr(find, "RANKED", 2)
    with SearchIndex.open(root) as idx:
        idx.refresh()
        results, statements = _statements(idx, "kestrel")
        assert results.broad
        assert not any("rank" in s or "bm25" in s for s in statements)
        hits = [h.path for h in results.hits]
        assert hits[:2] == ["notes/title.md", "notes/summary.md"]
        # the same text under three paths: the path orders them; twice the word in a short line beats once
        assert hits.index("notes/a-same.md") < hits.index("notes/b-same.md") < hits.index("notes/c-same.md")
        assert hits.index("notes/c-same.md") < hits.index("notes/pair.md")

        monkeypatch.setattr(find, "RANKED", 1)
        results, statements = _statements(idx, "kestrel heron")
        assert results.broad and sorted(h.path for h in results.hits) == ["_core/profile.md", "notes/pair.md"]
        assert "rank" in statements[0] and "count(" not in statements[0]
        assert not any("rank" in s or "bm25" in s for s in statements[1:])


def test_an_index_of_the_previous_schema_is_upgraded_not_rebuilt(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "clock", lambda: 2**62)  # long after every write: nothing is racy
    with SearchIndex.open(root) as idx:
        idx.refresh()
    where = search_db.location_of(root)
    assert where is not None
    conn = sqlite3.connect(where)  # as schema 4 left it: an index on docid alone
    conn.execute("DROP INDEX files_docid_place")
    conn.execute("CREATE INDEX files_docid ON files(docid)")
    conn.execute(f"PRAGMA user_version = {search_db.SCHEMA - 1}")
    conn.commit()
    conn.close()
    assert SearchIndex.reader(root) is None  # a reader never changes it
    with SearchIndex.open(root) as idx:
        assert not idx.rebuilt
        assert idx.refresh() == 0  # nothing read again
        indexes = {row[0] for row in idx.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "files_docid_place" in indexes and "files_docid" not in indexes
        assert idx.conn.execute("PRAGMA user_version").fetchone()[0] == search_db.SCHEMA
        assert "notes/title.md" in [h.path for h in idx.search("kestrel").hits]


def test_a_refresh_loads_no_query_code(root: Path, tmp_path: Path) -> None:
    """Bringing the index up to date with nothing changed (the stamps only) imports neither the query code
    (`find`: its regex) nor `textio` (only a file read needs it): part of the refresh's process time."""
    code = (
        "import sys; from pathlib import Path; from pmem_tui.core.search import SearchIndex\n"
        "from pmem_tui.core import cache; cache.clock = lambda: 2**62  # long after every write: none racy\n"
        "with SearchIndex.open(Path(sys.argv[1])) as idx: idx.refresh(); idx.refresh()\n"
        "print(sorted(m for m in sys.modules if m.endswith(('search.find', 'core.textio'))))"
    )
    env = {**os.environ, "PMEM_TUI_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code, str(root)], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "['pmem_tui.core.textio']"  # the first build reads every file
    again = subprocess.run([sys.executable, "-c", code, str(root)], env=env, capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout.strip() == "[]", again.stderr


def test_a_match_leads_with_the_text_index(root: Path) -> None:
    """With a MATCH, FTS5 walks its lists once and each match looks up its file: never a MATCH per file
    (what SQLite chose for `in:archive` once `files` had an index starting with its place)."""
    with SearchIndex.open(root) as idx:
        idx.refresh()
        idx.conn.execute("CREATE INDEX files_place_first ON files(location, docid)")  # the tempting one
        for text in ("kestrel in:archive", "kestrel path:notes/*", "kestrel heron"):
            query = parse(text)
            tests, args = find._where(query, query.locations or LOCATIONS)
            sql = f"SELECT d.rowid {find._FROM} WHERE docs MATCH ? AND {' AND '.join(tests)}"
            plan = idx.conn.execute(f"EXPLAIN QUERY PLAN {sql}", [match_expression(query), *args]).fetchall()
            assert "VIRTUAL TABLE" in plan[0][3] and "M" in plan[0][3].split(":")[-1], plan
            assert [h.path for h in idx.search(text, archive=True).hits]  # and it still finds them
