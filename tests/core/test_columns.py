"""A shallow scan's entries and files as columns (`core/columns.py`): the same entries and files, in the same
order, as the objects a deep scan holds, whatever the index's lines; replaced items; comparisons and reads
that make no item."""

from __future__ import annotations

import tempfile
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core import columns, index, tree
from pmem_tui.core.model import ActiveFile, IndexEntry

# Lines an agent or a person writes: canonical, escaped, spaced, other separators, code and comments,
# headings, blank lines, em dashes, CJK, a trailing CR, bytes that are not UTF-8.
LINES = [
    "- [Alpha](projects/a.md) — the first",
    "- [ Spaced title ](projects/b.md) — summary — with dashes",
    "- [](notes/c.md)",
    "* `notes/c.md`: colon summary",
    "1. notes/d/e.md – en dash",
    "- [Esc\\]aped](projects/a.md) — again",
    "- [Pct](projects/%66.md) — decoded route",
    "- <projects/sp ace.md> — angle",
    "- [中文](notes/中文.md) — 摘要：是",
    "- notes/x.md —",
    "- [T](projects/a.md) —   trailing   ",
    "# Heading",
    "",
    "```",
    "- [In fence](projects/fenced.md)",
    "<!--",
    "- [In comment](projects/commented.md) -->",
    "- [Bad \udcff byte](notes/bad.md) — \udcfe",
    "- [CR](notes/cr.md) — ends in CR\r",
]
FILES = ["projects/a.md", "projects/b.md", "notes/c.md", "notes/d/e.md", "notes/x.md", "notes/orphan.md"]


def _write(root: Path, lines: list[str], ending: str, bom: bool) -> None:
    text = ("\ufeff" if bom else "") + ending.join(lines)
    (root / "_index.md").write_bytes(text.encode("utf-8", "surrogateescape"))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(LINES), max_size=14),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.sampled_from([64, 1 << 18]),
)
def test_the_columns_hold_the_entries_the_objects_do(
    lines: list[str], ending: str, bom: bool, block: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(index, "READ_BLOCK", block)  # small blocks: lines on both sides of a block's end
        root = Path(tmp)
        _write(root, lines, ending, bom)
        objects = index.read_index(root / "_index.md")
        cols = columns.read_index(root / "_index.md")
    assert objects is not None and cols is not None
    assert list(cols) == objects and cols == objects and len(cols) == len(objects)
    assert cols.routes == [e.route for e in objects]
    assert list(cols.fields()) == [(e.route, e.title, e.summary) for e in objects]
    assert [e.raw for e in cols] == [e.raw for e in objects]  # the lines, byte for byte
    if objects:
        assert cols[-1] == objects[-1] and cols[1:] == tuple(objects[1:])


@pytest.mark.parametrize("tail", [b"", b"\r\n", b"\n"])
def test_carriage_returns_stay_in_the_line_or_out_of_it_as_the_objects_say(
    tmp_path: Path, tail: bytes
) -> None:
    # A CR before a CRLF ending is the line's; a lone CR at the end of an unterminated last line too.
    data = "- [A](projects/a.md) — one\r\r\n- [B](projects/b.md) — two\r\n- notes/c.md — three\r".encode()
    (tmp_path / "_index.md").write_bytes(data + tail)
    objects = index.read_index(tmp_path / "_index.md")
    cols = columns.read_index(tmp_path / "_index.md")
    assert objects is not None and cols is not None
    assert [e.raw for e in cols] == [e.raw for e in objects] and list(cols) == objects


def test_front_matter_and_a_missing_index(tmp_path: Path) -> None:
    assert columns.read_index(tmp_path / "_index.md") is None
    (tmp_path / "_index.md").write_text("---\ntitle: x\n---\n- [A](projects/a.md) — s\n", encoding="utf-8")
    cols = columns.read_index(tmp_path / "_index.md")
    assert cols is not None and list(cols) == index.read_index(tmp_path / "_index.md")
    assert [e.line_no for e in cols] == [3]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(LINES[:11]), max_size=10), st.sets(st.sampled_from(FILES)))
def test_a_shallow_scan_holds_the_files_and_entries_a_deep_one_does(
    lines: list[str], on_disk: set[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write(root, lines, "\n", False)
        for rel in on_disk:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("# t\n", encoding="utf-8")
        shallow, deep = tree.scan(root, deep=False), tree.scan(root, deep=True)
    assert isinstance(shallow.active, columns.ActiveColumns)
    assert isinstance(shallow.index_entries, columns.IndexColumns)
    assert shallow.index_entries == deep.index_entries
    assert [(a.path, a.size, a.mtime_ns, a.entry) for a in shallow.active] == [
        (a.path, a.size, a.mtime_ns, a.entry) for a in deep.active
    ]
    assert [a.title for a in shallow.active] == [a.entry.title if a.entry else None for a in deep.active]
    assert columns.paths_of(shallow.active) == [a.path for a in deep.active]
    assert columns.orphans_of(shallow.active) == columns.orphans_of(deep.active)
    stamp = columns.stamper(shallow.active)
    assert [stamp(i) for i in range(len(deep.active))] == [(a.size, a.mtime_ns) for a in deep.active]
    assert [p.kind for p in shallow.problems if p.kind != "invalid-summary"] == [
        p.kind for p in deep.problems if p.kind not in ("invalid-summary", "unreadable")
    ]


def test_without_an_index_the_files_read_the_snapshots_own_entries(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# a\n", encoding="utf-8")
    snap = tree.scan(tmp_path, deep=False)
    assert snap.index_entries == () and isinstance(snap.active, columns.ActiveColumns)
    assert snap.active._entries is snap.index_entries  # `files_of` then needs no table of every path
    assert list(columns.files_of(snap.index_entries, snap.active, {})) == []
    assert columns.orphans_of(snap.active) == [0]


def test_repeated_routes_from_a_scan_are_those_counting_finds(tmp_path: Path) -> None:
    routes = ["a.md", "b.md", "a.md", "c.md", "b.md", "a.md"]
    counted = columns.repeated(routes)
    assert counted == {"a.md": [0, 2, 5], "b.md": [1, 4]}
    assert columns.repeated(routes, {"a.md", "b.md"}) == counted  # the scan's problems name them
    assert columns.repeated(routes, set()) == {}
    (tmp_path / "_index.md").write_text("".join(f"- notes/{r}\n" for r in routes), encoding="utf-8")
    snap = tree.scan(tmp_path, deep=False)
    assert snap.routes_listed_again() == {"notes/a.md", "notes/b.md"}


def _columns(tmp: Path, lines: list[str]) -> columns.IndexColumns:
    (tmp / "_index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cols = columns.read_index(tmp / "_index.md")
    assert cols is not None
    return cols


def test_replaced_items_and_differing_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["- [A](projects/a.md) — one", "- [B](projects/b.md) — two", "- notes/c.md"]
    old = _columns(tmp_path, lines)
    new = _columns(tmp_path, [lines[0], "- [B](projects/b.md) — two, longer", lines[2]])
    made: list[int] = []
    real = IndexEntry.__init__

    def counting(self: IndexEntry, *args: object) -> None:
        made.append(1)
        real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(IndexEntry, "__init__", counting)
    assert set(columns.differing(new, old)) == {1}
    assert set(columns.differing(old, old)) == set()
    assert made == []  # lines compared as bytes: no entry made
    monkeypatch.undo()

    edited = IndexEntry(1, "- [B2](projects/b.md) — two", "projects/b.md", "B2", "two")
    patched = columns.replaced_entries(old, {1: edited})
    assert patched[1] is edited and old[1] != edited and patched[0] == old[0]
    assert set(columns.differing(patched, old)) == {1}
    assert list(columns.fields_of(patched))[1] == ("projects/b.md", "B2", "two")
    assert columns.replaced_entries(old, {}) is old

    paths, sizes, times, entry_at = ["projects/a.md", "projects/orphan.md"], [10, 5], [100, 50], [0, -1]
    files = columns.ActiveColumns(old, paths, array("q", sizes), array("q", times), array("i", entry_at))
    assert files[0] == ActiveFile("projects/a.md", 10, 100, entry=old[0], title="A")
    assert files.orphans() == [1] and files.stamp(1) == (5, 50)
    grown = columns.replaced_files(files, {1: ActiveFile("projects/orphan.md", 6, 60)}, old)
    assert grown[1].size == 6 and files[1].size == 5 and columns.stamper(grown)(1) == (6, 60)
    assert columns.orphans_of(grown) == [1]
    relisted = columns.replaced_files(files, {}, patched)
    assert relisted[0].entry == old[0] and relisted is not files
    assert columns.replaced_files(files, {}, old) is files
    with pytest.raises(IndexError):
        files[2]
