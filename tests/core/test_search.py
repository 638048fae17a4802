"""Full-text search (`core/search`): what is indexed, ranking, snippets, CJK, freshness, damage, hostile
queries, links and FIFOs, files that are not text."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core import cache
from pmem_tui.core.search import BadQuery, SearchIndex, parse, search
from pmem_tui.core.search import db as search_db
from pmem_tui.core.search.find import SNIPPET_WIDTH
from pmem_tui.core.search.indexer import location
from tests.conftest import write

# Words no filler file holds: bm25 needs a term rarer than half the files to rank at all.
FILLER = "# Filler {n}\n\n## Summary\n- nothing to see\n\nplain words about the weather {n}\n"


def memory(root: Path, files: dict[str, str | bytes], fillers: int = 6) -> Path:
    for n in range(fillers):
        write(root, f"notes/filler-{n}.md", FILLER.format(n=n))
    for rel, text in files.items():
        write(root, rel, text)
    return root


def paths(root: Path, text: str, **kw: object) -> list[str]:
    return [h.path for h in search(root, text, **kw).hits]  # type: ignore[arg-type]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return memory(
        tmp_path / "mem",
        {
            "notes/body.md": "# Meeting\n\n## Summary\n- weekly\n\nWe talked about the zeppelin launch.\n",
            "notes/title.md": "# Zeppelin plans\n\n## Summary\n- airships\n\nNothing else here.\n",
            "notes/summary.md": "# Hangar\n\n## Summary\n- the zeppelin hangar\n\nDoors and roofs.\n",
            "_core/profile.md": "# Profile\n\nI like zeppelins and 记忆 systems.\n",
            "_archive/notes/old.md": "# Old zeppelin note\n",
            "_archive/_trash/notes/gone.md": "# Gone zeppelin note\n",
            "_index.md": "- [Zeppelin plans](notes/title.md) — zeppelin\n",
            "notes/.hidden.md": "zeppelin\n",
            "projects/readme.txt": "zeppelin in a file that is not Markdown\n",
        },
    )


def test_what_is_indexed_and_where_it_lives(root: Path) -> None:
    assert sorted(paths(root, "zeppelin")) == [
        "_core/profile.md",
        "notes/body.md",
        "notes/summary.md",
        "notes/title.md",
    ]
    found = {h.path: h.location for h in search(root, "zeppelin", archive=True).hits}
    assert found["_archive/notes/old.md"] == "archive"
    assert found["_archive/_trash/notes/gone.md"] == "trash"
    assert found["_core/profile.md"] == "core"
    assert found["notes/title.md"] == "active"
    assert "_index.md" not in found and "notes/.hidden.md" not in found
    assert location("projects/readme.txt") is None and location("_archive/_index.md") is None


def test_title_beats_summary_beats_body(root: Path) -> None:
    ranked = [p for p in paths(root, "zeppelin") if p.startswith("notes/")]
    assert ranked == ["notes/title.md", "notes/summary.md", "notes/body.md"]
    scores = [h.score for h in search(root, "zeppelin").hits]
    assert scores == sorted(scores, reverse=True)


def test_words_are_anded_and_phrases_are_exact(root: Path) -> None:
    assert paths(root, "zeppelin launch") == ["notes/body.md"]
    assert paths(root, '"zeppelin launch"') == ["notes/body.md"]
    assert paths(root, '"launch zeppelin"') == []
    assert paths(root, "zeppelin nosuchword") == []
    assert paths(root, "eppeli") != []  # part of a word


def test_filters(root: Path) -> None:
    assert paths(root, "zeppelin in:archive") == ["_archive/notes/old.md"]
    assert paths(root, "zeppelin in:trash in:core") == sorted(
        ["_core/profile.md", "_archive/_trash/notes/gone.md"],
        key=paths(root, "zeppelin in:trash in:core").index,
    )
    assert sorted(paths(root, "zeppelin path:notes/")) == [
        "notes/body.md",
        "notes/summary.md",
        "notes/title.md",
    ]
    assert paths(root, "zeppelin path:title") == ["notes/title.md"]
    assert paths(root, "zeppelin path:t*.md") == ["notes/title.md"]  # a glob without a slash: the name
    assert paths(root, "zeppelin path:notes/b*") == ["notes/body.md"]
    assert paths(root, '"path:x"') == []  # quoted: searched for as text


def test_smart_case(root: Path) -> None:
    assert "notes/body.md" in paths(root, "zeppelin")
    assert paths(root, "Zeppelin") == ["notes/title.md"]  # a capital: that case only
    assert paths(root, "ZEPPELIN") == []


def test_snippet_line_and_spans(root: Path) -> None:
    hit = next(h for h in search(root, "launch").hits)
    assert (hit.path, hit.line) == ("notes/body.md", 6)
    assert hit.snippet == "We talked about the zeppelin launch."
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["launch"]
    both = search(root, "zeppelin launch").hits[0]
    assert [both.snippet[a:b] for a, b in both.spans] == ["zeppelin", "launch"]


def test_long_line_is_trimmed_around_the_match(tmp_path: Path) -> None:
    line = "x" * 500 + " needle " + "y" * 500
    root = memory(tmp_path / "m", {"notes/long.md": f"# Long\n\n{line}\n"})
    hit = search(root, "needle").hits[0]
    assert hit.line == 3
    assert len(hit.snippet) <= SNIPPET_WIDTH + 2
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["needle"]


def test_control_characters_are_blanked_one_for_one(tmp_path: Path) -> None:
    root = memory(tmp_path / "m", {"notes/esc.md": "# E\n\n\x1b[31mred\ttabbed needle\n"})
    hit = search(root, "needle").hits[0]
    assert "\x1b" not in hit.snippet and "\t" not in hit.snippet
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["needle"]


@pytest.mark.parametrize(
    ("text", "query", "line"),
    [
        ("# 笔记\n\n我们的记忆系统很好用。\n", "记忆", 3),  # Chinese, two characters: below the trigram
        ("# 笔记\n\n我们的记忆系统很好用。\n", "记忆系统", 3),
        ("# メモ\n\n東京で会議がありました。\n", "会議", 3),  # Japanese
        ("# メモ\n\n東京で会議がありました。\n", "会議があり", 3),
        ("# Short\n\nan qx test\n", "qx", 3),
    ],
)
def test_cjk_and_short_words(tmp_path: Path, text: str, query: str, line: int) -> None:
    root = memory(tmp_path / "m", {"notes/cjk.md": text})
    hits = search(root, query).hits
    assert [h.path for h in hits] == ["notes/cjk.md"]
    assert hits[0].line == line
    assert [hits[0].snippet[a:b] for a, b in hits[0].spans] == [query]


def test_short_words_rank_title_first(tmp_path: Path) -> None:
    root = memory(
        tmp_path / "m",
        {"notes/a-body.md": "# 其他\n\n这里提到记忆一次。\n", "notes/b-title.md": "# 记忆\n\n正文。\n"},
    )
    assert paths(root, "记忆") == ["notes/b-title.md", "notes/a-body.md"]
    assert paths(root, "记忆 正文") == ["notes/b-title.md"]


def test_not_text_files_are_counted_not_indexed(tmp_path: Path) -> None:
    root = memory(
        tmp_path / "m",
        {
            "notes/bad.md": b"# Bad \xff\xfe needle\n",
            "_core/nul.md": b"needle\0binary",
            "notes/ok.md": "needle",
        },
    )
    results = search(root, "needle")
    assert [h.path for h in results.hits] == ["notes/ok.md"]
    assert results.counts.not_text == 2
    assert results.note == "2 files not indexed: 2 not text (not UTF-8, or holding a NUL byte)."


def test_a_file_name_that_is_not_utf8_is_left_out_not_a_crash(tmp_path: Path) -> None:
    root = memory(tmp_path / "m", {"notes/ok.md": "needle\n"})
    (root / os.fsdecode(b"notes/\xff.md")).write_text("needle too\n", encoding="utf-8")
    with SearchIndex.open(root) as idx:
        idx.refresh()
        assert [h.path for h in idx.search("needle").hits] == ["notes/ok.md"]
        assert idx.update_paths(frozenset({os.fsdecode(b"notes/\xff.md")})) == 1  # the watcher names it
        assert [h.path for h in idx.search("needle").hits] == ["notes/ok.md"]


def test_links_and_fifos_are_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.md", "needle outside\n")
    root = memory(tmp_path / "m", {"notes/ok.md": "needle\n"})
    (root / "notes/link.md").symlink_to(outside / "secret.md")
    (root / "_core").mkdir(exist_ok=True)
    (root / "_core/linked").symlink_to(outside, target_is_directory=True)
    os.mkfifo(root / "notes/pipe.md")  # reading it would block the test forever
    with SearchIndex.open(root) as idx:
        idx.refresh()
        assert [h.path for h in idx.search("needle").hits] == ["notes/ok.md"]
        # the watcher names them: still never read
        idx.update_paths(frozenset({"notes/link.md", "notes/pipe.md", "_core/linked/secret.md"}))
        assert [h.path for h in idx.search("needle").hits] == ["notes/ok.md"]


@pytest.mark.rule("PM-AGENT-3")
def test_the_index_lives_outside_the_root(root: Path) -> None:
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    search(root, "zeppelin")
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    where = search_db.location_of(root)
    assert where is not None and Path(where).is_file() and not Path(where).is_relative_to(root)


def test_fresh_after_external_edits(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10**10)  # no file is racy: no sleep
    with SearchIndex.open(root) as idx:
        idx.refresh()
        assert idx.search("walrus").hits == ()
        write(root, "notes/body.md", "# Meeting\n\nThe walrus came.\n")  # modify
        write(root, "notes/new.md", "# New\n\nAnother walrus.\n")  # add
        (root / "notes/summary.md").unlink()  # delete
        (root / "notes/title.md").rename(root / "notes/renamed.md")  # rename
    with SearchIndex.open(root) as idx:
        assert idx.refresh() == 5
        assert sorted(h.path for h in idx.search("walrus").hits) == ["notes/body.md", "notes/new.md"]
        assert [h.path for h in idx.search("airships").hits] == ["notes/renamed.md"]
        assert idx.search("hangar").hits == ()
        assert idx.search("zeppelin launch").hits == ()


def test_nothing_changed_reads_nothing(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SearchIndex.open(root) as idx:
        idx.refresh()
    monkeypatch.setattr(cache, "clock", lambda: 2**62)  # long after every write: nothing is racy
    with SearchIndex.open(root) as idx:
        idx.refresh()
        assert idx.refresh() == 0


def test_racy_files_are_read_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read within `cache.RACY_NS` of its last change is read again by the next refresh (its stamp
    could hide a second write), and only once it was read long after its change is it trusted."""
    monkeypatch.setattr(cache, "clock", lambda: 0)  # every read is "just after" each file's change: racy
    with SearchIndex.open(root) as idx:
        read = idx.refresh()
        assert read > 0 and idx.refresh() == read
        monkeypatch.setattr(cache, "clock", lambda: 2**62)  # long after every write
        assert idx.refresh() == read
        assert idx.refresh() == 0


def test_same_size_same_mtime_edit_is_seen(root: Path) -> None:
    """An edit that keeps the size and puts the mtime back still moves the ctime (the cache's rule)."""
    target = root / "notes/body.md"
    with SearchIndex.open(root) as idx:
        idx.refresh()
        st = target.stat()
        text = target.read_text().replace("launch", "LAUNCH")
        target.write_text(text)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        idx.refresh()
        assert [h.path for h in idx.search("LAUNCH").hits] == ["notes/body.md"]


def test_watcher_updates_single_files(root: Path) -> None:
    with SearchIndex.open(root) as idx:
        idx.refresh()
        write(root, "notes/body.md", "# Meeting\n\nThe walrus came.\n")
        write(root, "notes/new.md", "walrus too\n")
        (root / "notes/summary.md").unlink()
        assert idx.update_paths(frozenset({"notes/body.md", "notes/new.md", "notes/summary.md"})) == 3
        assert sorted(h.path for h in idx.search("walrus").hits) == ["notes/body.md", "notes/new.md"]
        assert idx.search("hangar").hits == ()
        # a folder named: its files are found by a refresh
        write(root, "projects/deep/x.md", "walrus deep\n")
        idx.update_paths(frozenset({"projects/deep"}))
        assert "projects/deep/x.md" in {h.path for h in idx.search("walrus").hits}
        # a whole folder gone
        for p in (root / "projects/deep").iterdir():
            p.unlink()
        (root / "projects/deep").rmdir()
        idx.update_paths(frozenset({"projects/deep"}))
        assert "projects/deep/x.md" not in {h.path for h in idx.search("walrus").hits}


def _damage_garbage(db: Path) -> None:
    db.write_bytes(b"this is not a database at all" * 100)


def _damage_truncate(db: Path) -> None:
    with open(db, "r+b") as f:
        f.truncate(db.stat().st_size // 2)


def _damage_folder(db: Path) -> None:
    db.unlink()
    (db / "inside").mkdir(parents=True)


def _damage_pages(db: Path) -> None:
    data = bytearray(db.read_bytes())
    for at in range(4096, len(data), 997):  # every page but the header's, scribbled on
        data[at : at + 64] = b"\xa5" * 64
    db.write_bytes(bytes(data))


def _damage_schema(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "damage", [_damage_garbage, _damage_truncate, _damage_folder, _damage_pages, _damage_schema]
)
def test_a_damaged_index_is_rebuilt(root: Path, damage: object) -> None:
    search(root, "zeppelin")
    where = search_db.location_of(root)
    assert where is not None
    for side in ("-wal", "-shm"):
        assert not Path(where + side).exists()  # closed cleanly: all of it in the one file
    damage(Path(where))  # type: ignore[operator]
    seen: list[tuple[int, int]] = []
    with SearchIndex.open(root, progress=lambda done, total: seen.append((done, total))) as idx:
        idx.refresh()
        found = sorted(h.path for h in idx.search("zeppelin").hits)
    assert found == ["_core/profile.md", "notes/body.md", "notes/summary.md", "notes/title.md"]
    assert seen and seen[-1][0] == seen[-1][1]  # the rebuild reported its progress to the end


def test_progress_of_a_first_build(tmp_path: Path) -> None:
    root = memory(tmp_path / "m", {}, fillers=3)
    seen: list[tuple[int, int]] = []
    with SearchIndex.open(root, progress=lambda d, t: seen.append((d, t))) as idx:
        assert idx.rebuilt
        idx.refresh()
    assert seen == [(3, 3)]


def test_a_root_that_is_not_a_folder_searches_nothing(tmp_path: Path) -> None:
    assert search(tmp_path / "missing", "anything").hits == ()


@pytest.mark.parametrize(
    "text",
    ["foo AND", "-x", '"unbalanced', "*", "NEAR(", "a OR b", "^start", "col:value", "{title}: x", "\0"],
)
def test_fts5_operators_are_text(root: Path, text: str) -> None:
    try:
        search(root, text)
    except BadQuery as err:
        assert str(err).endswith(".") and "\n" not in str(err)


def test_bad_queries_are_one_sentence(root: Path) -> None:
    for text, words in (("", "Nothing to search for"), ("in:archive", "Nothing"), ("in:bogus x", "in:bogus")):
        with pytest.raises(BadQuery, match=words):
            search(root, text)
    assert parse('x "unclosed phrase').terms == ("x", "unclosed phrase")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=40))
def test_hostile_queries_never_raise_but_bad_query(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    root = _HOSTILE.get("root")
    if root is None:
        root = _HOSTILE["root"] = memory(
            tmp_path_factory.mktemp("hostile") / "m", {"notes/x.md": "# X\n\nabc\n"}
        )
    try:
        results = search(root, text)
    except BadQuery as err:
        assert str(err) and "\n" not in str(err)
    else:
        for hit in results.hits:
            assert all(0 <= a < b <= len(hit.snippet) for a, b in hit.spans)


_HOSTILE: dict[str, Path] = {}


def test_caseless_beyond_ascii(tmp_path: Path) -> None:
    root = memory(tmp_path / "m", {"notes/ru.md": "# Заметки\n\nПривет, мир. Élan vital.\n"})
    assert paths(root, "привет") == ["notes/ru.md"]
    assert paths(root, "élan") == ["notes/ru.md"]
    assert paths(root, "Привет") == ["notes/ru.md"] and paths(root, "ПРИВЕТ") == []


def test_a_broad_query_ranks_the_likeliest(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over `RANKED` matches, the title and summary matches and the first body ones are ranked, and the
    note says the query is broad (a keystroke never waits for a whole-memory sort)."""
    from pmem_tui.core.search import find

    monkeypatch.setattr(find, "RANKED", 2)
    monkeypatch.setattr(find, "SCANNED", 2)
    results = search(root, "zeppelin")
    assert results.broad and results.note is not None and results.note.startswith("Many matches")
    assert [h.path for h in results.hits][:2] == ["notes/title.md", "notes/summary.md"]
    short = search(root, "e")
    assert short.broad and len(short.hits) <= 3


def test_an_index_another_process_holds_is_one_sentence(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pmem_tui.core.errors import Refused

    search(root, "zeppelin")
    write(root, "notes/new.md", "zeppelin again\n")  # this search has a file to write
    monkeypatch.setattr(search_db, "BUSY_MS", 50)
    where = search_db.location_of(root)
    assert where is not None
    holder = sqlite3.connect(where, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(Refused, match="being updated by another pmem-tui"):
            search(root, "zeppelin")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "notes/new.md" in paths(root, "zeppelin")


def test_a_cache_folder_that_cannot_hold_it_searches_in_memory(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_db, "location_of", lambda root, create=True: "/proc/no/such/folder/x.sqlite")
    assert "notes/title.md" in paths(root, "zeppelin")


def test_the_snippet_is_the_first_line_holding_every_word(tmp_path: Path) -> None:
    """Found in trial: `lorem 4999` in a 5,000-line log showed its line 6 ("line 0 lorem ipsum"), and enter
    opened the preview there; the line holding both words is the one a person looks for."""
    lines = [f"line {n} lorem ipsum dolor sit amet" for n in range(5000)]
    write(tmp_path, "notes/big.md", "# Big\n\n" + "\n".join(lines) + "\n")
    hit = search(tmp_path, "lorem 4999").hits[0]
    assert (hit.line, hit.snippet) == (5002, "line 4999 lorem ipsum dolor sit amet")
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["4999", "lorem"]
    one = search(tmp_path, "lorem").hits[0]  # one word: its first line, as before
    assert one.line == 3
    apart = search(tmp_path, "Big 4999").hits[0]  # no line holds both: the first match
    assert apart.line == 1
