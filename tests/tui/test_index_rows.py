"""The Index pane's rows made when asked (`IndexRows`): the same rows, keys, flags and search texts as rows
built one by one, rows replaced by a patch, and a rescan compared without building rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle

from pmem_tui.core import tree
from pmem_tui.core.model import Snapshot
from pmem_tui.tui import rows as rows_mod
from pmem_tui.tui.index_rows import (
    IndexRows,
    at_location,
    carry_keys,
    changed_rows,
    flags_of,
    keys_of,
    paths_of,
    search_texts,
    with_paths,
)
from pmem_tui.tui.rows import DEAD, ENTRY, ORPHAN, Row, entry_row_copy, orphan_row, search_text
from pmem_tui.tui.widgets.list_filter import FilteredRows, positions, shown_keys

INDEX = """# Index

- [Alpha](projects/alpha.md) — the first
- [Ghost](projects/ghost.md) — no such file
- `notes/b.md`: colon summary
- [Alpha again](projects/alpha.md) — listed twice
- notes/c.md
- [Alpha thrice](projects/alpha.md)
"""


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _memory(root: Path) -> Path:
    write(root, "_index.md", INDEX)
    for rel in ("projects/alpha.md", "notes/b.md", "notes/c.md", "notes/orphan.md", "projects/z/deep.md"):
        write(root, rel, f"# {rel}\n")
    return root


def _one_by_one(snap: Snapshot) -> list[Row]:
    """The Index rows as the pane built them before `IndexRows`: one per entry, then one per orphan."""
    active = {a.path: a for a in snap.active}
    seen: dict[str, int] = {}
    rows = []
    for entry in snap.index_entries:
        seen[entry.route] = copy = seen.get(entry.route, 0) + 1
        file = active.get(entry.route)
        rows.append(entry_row_copy(entry, (file.size, file.mtime_ns) if file else None, copy))
    return rows + [orphan_row(a) for a in snap.active if a.entry is None]


def test_the_rows_keys_flags_and_texts_are_those_of_rows_built_one_by_one(tmp_path: Path) -> None:
    snap = tree.scan(_memory(tmp_path), deep=False)
    rows, reference = IndexRows(snap), _one_by_one(snap)
    assert list(rows) == reference and rows == reference and len(rows) == 8
    assert [r.kind for r in rows] == [ENTRY, DEAD, ENTRY, ENTRY, ENTRY, ENTRY, ORPHAN, ORPHAN]
    assert [r.key for r in rows][3:6:2] == ["projects/alpha.md\n2", "projects/alpha.md\n3"]
    assert rows[-1] == reference[-1] and rows[2:7:2] == reference[2:7:2]
    assert list(keys_of(rows)) == [r.key for r in reference]
    assert flags_of(rows) == flags_of(reference) == {"dead", "dup", "orphan"}
    assert search_texts(rows) == [search_text(r) for r in reference]
    with pytest.raises(IndexError):
        rows[len(reference)]
    assert paths_of(rows) == paths_of(reference) == [r.path for r in reference]
    wanted = {"projects/alpha.md", "notes/orphan.md", "projects/ghost.md"}
    assert (
        with_paths(rows, wanted)
        == with_paths(reference, wanted)
        == [r for r in reference if r.path in wanted]
    )
    for location in ("projects/alpha.md", "notes/orphan.md", "projects/ghost.md", "nowhere.md"):
        assert at_location(rows, location) == at_location(reference, location)
    assert at_location(rows, "projects/alpha.md") == reference[0]  # its first line
    assert at_location(rows, "projects/ghost.md") is None  # a dead route shows no file


def test_the_keys_shown_through_a_filter_are_read_without_rows(tmp_path: Path) -> None:
    rows = IndexRows(tree.scan(_memory(tmp_path), deep=False))
    shown = FilteredRows(rows, positions([6, 0, 3]))
    assert shown_keys(shown) == [r.key for r in shown] == [rows.keys[i] for i in (6, 0, 3)]
    assert shown_keys(rows) == [r.key for r in rows]


def test_a_replaced_row_is_kept_and_must_keep_its_key(tmp_path: Path) -> None:
    snap = tree.scan(_memory(tmp_path), deep=False)
    rows = IndexRows(snap)
    old = rows[0]
    new = entry_row_copy(snap.index_entries[0], None, 1)  # the same key, now a dead route
    rows[0] = new
    assert rows[0] is new and rows[0] != old
    assert search_texts(rows)[0] == search_text(new)
    with pytest.raises(ValueError, match="not"):
        rows[1] = new


def test_a_rescan_is_compared_without_building_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _memory(tmp_path)
    (root / "projects/z/deep.md").unlink()  # one orphan left: notes/orphan.md
    before = IndexRows(tree.scan(root, deep=False))
    same = IndexRows(tree.scan(root, deep=False))
    write(root, "notes/b.md", "# b, longer now\n")
    grown = IndexRows(tree.scan(root, deep=False))
    built: list[str] = []
    make = rows_mod.entry_row_copy
    monkeypatch.setattr(
        "pmem_tui.tui.index_rows.entry_row_copy", lambda *a: built.append(a[0].route) or make(*a)
    )
    assert changed_rows(before, same) == []
    assert changed_rows(before, grown) == [2]  # notes/b.md's size: its row only
    assert built == []  # entries and files compared, no row made
    # An orphan listed at the end of the index keeps every key in place; its row is another kind.
    with (root / "_index.md").open("a", encoding="utf-8") as f:
        f.write("- notes/orphan.md\n")
    listed = tree.scan(root, deep=False)
    assert IndexRows(listed).keys == grown.keys
    assert changed_rows(grown, IndexRows(listed)) is None


async def test_a_rescan_hands_the_list_the_new_rows_and_redraws_only_changed_ones(tmp_path: Path) -> None:
    root = _memory(tmp_path)
    app = RecordingApp(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        lst = app.main_screen.view("index").list
        shown = lst.all_rows
        assert isinstance(shown, IndexRows)
        write(root, "notes/b.md", "# b, longer now\n")
        lines: list[int] = []
        lst.refresh_line = lines.append  # type: ignore[method-assign]
        lst.apply_rows(IndexRows(tree.scan(root, deep=False)))
        assert lst.all_rows is not shown  # the old rows, and their snapshot, are let go
        assert lines == [2]
        assert lst.all_rows[2].size == len("# b, longer now\n")


def _hand_written(root: Path, lines: list[str]) -> Path:
    """A memory whose `_index.md` is `lines` (each "- ROUTE - ...", every route's file there)."""
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for line in lines:
        write(root, line.split()[1], "# note\n")
    write(root, "_index.md", "".join(lines))
    return root


def _listing(tmp_path: Path, lines: list[str]) -> IndexRows:
    """The Index rows of a memory whose `_index.md` is `lines` (every route's file exists)."""
    return IndexRows(tree.scan(_hand_written(tmp_path / "memory", lines), deep=False))


A1, A2, A3, B = "- a.md - one\n", "- a.md - two\n", "- a.md - three\n", "- b.md - bee\n"


@pytest.mark.parametrize(
    ("before", "after", "nearest", "carried"),
    [
        # the first of three lines removed: copies 2 and 3 are now the route and copy 2
        ([A1, B, A2, A3], [B, A2, A3], False, {"a.md": None, "a.md\n2": "a.md", "a.md\n3": "a.md\n2"}),
        # a middle copy removed: a cursor goes to the copy before it, a mark is dropped
        ([A1, A2, A3], [A1, A3], True, {"a.md\n2": "a.md", "a.md\n3": "a.md\n2"}),
        ([A1, A2, A3], [A1, A3], False, {"a.md\n2": None, "a.md\n3": "a.md\n2"}),
        # a line added above: every copy moves one down
        ([A2, B, A3], [A1, A2, B, A3], False, {"a.md": "a.md\n2", "a.md\n2": "a.md\n3"}),
        # one line edited in place: it keeps its place among the route's lines
        ([A1, A2, A3], [A1, "- a.md - TWO\n", A3], False, {}),
        # a line added between two copies
        ([A1, A3], [A1, A2, A3], False, {"a.md\n2": "a.md\n3"}),
        # which of two lines became one edited line is not known: a mark on either is dropped, a cursor
        # goes to the route's first line
        ([A1, A2, A3], ["- a.md - TWO\n", A3], False, {"a.md": None, "a.md\n2": None, "a.md\n3": "a.md\n2"}),
        ([A1, A2, A3], ["- a.md - TWO\n", A3], True, {"a.md\n2": "a.md", "a.md\n3": "a.md\n2"}),
        # nothing renumbered: nothing carried
        ([A1, B, A2], [A1, B, A2, "- c.md\n"], True, {}),
        # every line of the route gone: a cursor goes to the route (its file, an orphan now); a mark goes
        ([A1, A2, B], [B], True, {"a.md\n2": "a.md"}),
        ([A1, A2, B], [B], False, {"a.md": None, "a.md\n2": None}),
        # the keys stay the same (the pane is only patched), but the lines move among the route's copies
        ([A1, A2, B], [A2, A3, B], False, {"a.md": None, "a.md\n2": "a.md"}),
    ],
)
def test_a_routes_lines_keep_their_keys_by_text_when_renumbered(
    tmp_path: Path, before: list[str], after: list[str], nearest: bool, carried: dict[str, str | None]
) -> None:
    old = _listing(tmp_path / "old", before)
    new = _listing(tmp_path / "new", after)
    keys = [key for key in old.keys if key.startswith("a.md")]
    assert carry_keys(old, new, keys, nearest) == carried
    assert carry_keys(list(old), list(new), keys, nearest) == carried  # any pane's rows, not only IndexRows


ONE, BEE, TWO = "- notes/a.md - one\n", "- notes/b.md - bee\n", "- notes/a.md - two\n"


@pytest.mark.parametrize(
    ("lines", "edited"),
    [
        ([ONE, BEE, TWO, "- notes/c.md - see\n"], [BEE, TWO, "- notes/c.md - see\n"]),
        ([ONE, BEE, TWO, "- notes/a.md - three\n"], [BEE, TWO, "- notes/a.md - three\n"]),
        ([ONE, TWO, BEE], [TWO, "- notes/a.md - three\n", BEE]),  # the same keys: the pane is patched
    ],
)
async def test_the_cursor_and_a_mark_stay_on_their_line_when_an_agent_removes_an_earlier_copy(
    tmp_path: Path, lines: list[str], edited: list[str]
) -> None:
    """Found in trial: on a route's second line, an agent's removal of the first moved the preview to
    another file (the key, route and copy number, was gone). Then, on a route listed three times, the key
    of the second line ("copy 2") named the third line: the cursor and a mark moved to another line; and
    so they did, found in review, when the keys stayed the same and only the lines moved."""
    root = _hand_written(tmp_path / "memory", lines)
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        lst = app.main_screen.view("index").list
        assert lst.select_key("notes/a.md\n2")
        await pilot.press("space")  # mark "two"; the cursor moves on
        assert lst.select_key("notes/a.md\n2")
        (root / "_index.md").write_text("".join(edited), encoding="utf-8")  # the agent drops line 1
        app.request_rescan(frozenset({"_index.md"}))
        await settle(pilot)
        row = lst.current_row
        assert row is not None and row.path == "notes/a.md" and row.line_no == edited.index(TWO)
        assert "two" in "".join(row.cells)
        assert [r.index_line for r in lst.marked_rows()] == ["- notes/a.md - two"]
