"""`bm25.ranked`: FTS5's bm25 computed from one walk a phrase gives FTS5's own `rank`, to the last bit, for
every match: words, pairs, phrases, parts of words, overlapping occurrences, every column, any case, CJK."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.core.search import SearchIndex, bm25, find, parse
from pmem_tui.core.search.query import match_expression
from tests.conftest import write

NOTES = {
    "notes/a.md": "# Kestrel log\n\n## Summary\n- a kestrel nest\n\nthe kestrel flew over the kestrel hill\n",
    "notes/b.md": "# Walk\n\nkestrel and heron by the river, Heron again, HERON\n",
    "notes/c.md": "# Aaaa\n\naaaaaa baaaab aaaa\n" + "filler line\n" * 40,
    "notes/d.md": "# 会议记录\n\n会议记录：季度计划。会议结束。\n",
    "_core/e.md": "# Profile\n\nI watch a kestrel and a heron; kestrels, kestrelling.\n",
    "_archive/notes/f.md": "# Old\n\nkestrel kestrel kestrel heron\n",
}
QUERIES = (
    "kestrel",
    "kestrel heron",
    "HERON",
    "aaaa",
    "aaa baa",
    '"the kestrel"',
    "strel",
    "会议记录",
    "会议记录 季度计划",
    "eron",
)


@pytest.fixture
def index(tmp_path: Path) -> SearchIndex:
    root = tmp_path / "mem"
    for n in range(12):
        write(root, f"notes/filler-{n}.md", f"# Filler {n}\n\nplain words about the weather {n}\n")
    for rel, text in NOTES.items():
        write(root, rel, text)
    idx = SearchIndex.open(root)
    idx.refresh()
    return idx


@pytest.mark.parametrize("text", QUERIES)
def test_the_same_score_as_fts5s_rank(index: SearchIndex, text: str) -> None:
    query = parse(text)
    with index:
        fts5 = dict(
            index.conn.execute("SELECT rowid, -rank FROM docs WHERE docs MATCH ?", [match_expression(query)])
        )
        ours = bm25.ranked(index.conn, query.fts_terms, f"{find._RANK_FROM} AND 1", [], 1000)
    assert fts5 and {rowid: score for rowid, _path, _where, score in ours} == fts5


def test_a_filter_and_the_cap(index: SearchIndex) -> None:
    query = parse("kestrel")
    with index:
        active = bm25.ranked(
            index.conn, query.fts_terms, f"{find._RANK_FROM} AND f.location = ?", ["active"], 99
        )
        capped = bm25.ranked(index.conn, query.fts_terms, f"{find._RANK_FROM} AND 1", [], 2)
        none = bm25.ranked(index.conn, parse("kestrel zzzqqq").fts_terms, f"{find._RANK_FROM} AND 1", [], 9)
    assert sorted(path for _rowid, path, _where, _score in active) == ["notes/a.md", "notes/b.md"]
    assert len(capped) == 2 and none == []


def test_varints() -> None:
    assert bm25.varints(bytes([0x05, 0x81, 0x00, 0xFF, 0x7F])) == [5, 128, 0x3FFF]
    assert bm25.varints(bytes([0x81] * 8 + [0x01])) == [sum(1 << (8 + 7 * k) for k in range(8)) + 1]
    assert bm25.occurrences("aaaaaa", "aaaa") == 3 and bm25.occurrences("abc", "x") == 0
