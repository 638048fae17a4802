"""External edits patch the shown rows (no rescan, no rebuild) unless they change the structure."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from tui_helpers import RecordingApp, fix_mtimes, settle, until
from watchdog.events import DirModifiedEvent, DirMovedEvent, FileCreatedEvent, FileMovedEvent

from pmem_tui.core import report, tree
from pmem_tui.tui import patch
from pmem_tui.tui.panes import ROW_PANES as PANES
from pmem_tui.tui.panes import rows_for
from pmem_tui.tui.widgets.memory_list import MemoryList

ATLAS = "- [Atlas routing service](projects/atlas.md) — Go rewrite live, p95 180 ms; PostGIS"


def index_list(app: RecordingApp) -> MemoryList:
    main = app.main_screen
    assert main is not None
    return main.view("index").list


def _save_index(root: Path, text: str) -> None:
    """An agent's atomic save of `_index.md` (temp file, rename), as the observer reports it."""
    temp = root / "._index.md.tmp"
    temp.write_text(text, encoding="utf-8")
    temp.replace(root / "_index.md")


def _renamed(app: RecordingApp, root: Path) -> None:
    app.watcher.handler.dispatch(FileMovedEvent(str(root / "._index.md.tmp"), str(root / "_index.md")))


def _rows_equal_disk(app: RecordingApp, root: Path) -> bool:
    main = app.main_screen
    assert main is not None
    snap = tree.scan(root, deep=False)
    return all(list(main.view(name).list.all_rows) == rows_for(name, snap) for name in PANES)


async def test_an_index_line_edited_in_place_patches_its_row_only(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        rows = index_list(app)
        scans = app.scans_done
        passed: list[int] = []
        set_rows = rows.set_rows
        rows.set_rows = lambda new: (passed.append(len(new)), set_rows(new))  # type: ignore[method-assign]
        text = (demo_root / "_index.md").read_text(encoding="utf-8")
        _save_index(demo_root, text.replace(ATLAS, ATLAS.replace("PostGIS", "PostGIS 16")))
        _renamed(app, demo_root)
        app.watcher.handler.dispatch(DirModifiedEvent(str(demo_root)))
        row = lambda: next(r for r in rows.all_rows if r.key == "projects/atlas.md")  # noqa: E731
        assert await until(pilot, lambda: row().cells[2].endswith("PostGIS 16"))
        await settle(pilot)
        assert app.scans_done == scans and not passed  # no rescan, the list not rebuilt
        assert app.rows_updated_in_place == 1
        assert row().index_line == ATLAS.replace("PostGIS", "PostGIS 16")
        assert _rows_equal_disk(app, demo_root)
        snap = app.snapshot
        assert snap is not None and snap.active_file("projects/atlas.md") is not None
        assert app.baseline == report.baseline(tree.scan(demo_root, deep=False))


async def test_a_structural_index_edit_rescans_and_updates_only_changed_rows(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        scans = app.scans_done
        text = (demo_root / "_index.md").read_text(encoding="utf-8")
        # A heading renamed: not an entry, so which lines are entries may have changed: rescan.
        _save_index(demo_root, text.replace("## Notes\n", "## Notes and habits\n"))
        _renamed(app, demo_root)
        assert await until(pilot, lambda: app.scans_done > scans)
        await settle(pilot)
        assert _rows_equal_disk(app, demo_root)
        # A line added: rescan, and the new entry shows.
        scans = app.scans_done
        _save_index(demo_root, text.replace(ATLAS + "\n", ATLAS + "\n- [Ghost](projects/ghost.md) — gone\n"))
        _renamed(app, demo_root)
        assert await until(pilot, lambda: app.scans_done > scans)
        await settle(pilot)
        assert "projects/ghost.md" in {r.key for r in index_list(app).all_rows}
        assert _rows_equal_disk(app, demo_root)


def test_patch_refuses_what_only_a_rescan_can_tell(demo_root: Path) -> None:
    snap = tree.scan(demo_root, deep=False)
    sig = patch.index_signature(demo_root, snap)
    assert patch.patch(demo_root, snap, None, sig, frozenset({"_core/profile.md"})) is None
    gone = patch.patch(demo_root, snap, None, sig, frozenset({"notes/brand-new.md"}))
    assert gone is not None and gone.rows == []  # an unknown path already gone: a temp file, nothing to do
    # a name in '.MD': a problem only the scan says (found in review: the patch skipped it, so the problem
    # of one removed, or of one new, went stale until a rescan)
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/GONE.MD"})) is None
    (demo_root / "projects/beacon.md").unlink()
    assert patch.patch(demo_root, snap, None, sig, frozenset({"projects/beacon.md"})) is None  # deleted
    (demo_root / "notes/brand-new.md").write_text("# New\n", encoding="utf-8")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/brand-new.md"})) is None  # a new file
    text = (demo_root / "_index.md").read_text(encoding="utf-8")
    (demo_root / "_index.md").write_text(text.replace("(projects/atlas.md)", "(projects/beacon.md)"), "utf-8")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"_index.md"})) is None  # another route
    (demo_root / "_index.md").write_text(text, encoding="utf-8")
    same = patch.patch(demo_root, snap, None, sig, frozenset({"_index.md", ""}))
    assert same is not None and same.rows == [] and same.snapshot is snap  # nothing changed


def test_entry_rows_build_their_note_when_shown(tmp_path: Path) -> None:
    (tmp_path / "projects").mkdir()
    (tmp_path / "projects" / "a.md").write_text("# A\n")
    (tmp_path / "projects" / "b.md").write_text("# B\n")
    (tmp_path / "_index.md").write_text(
        "# Index\n- [A](projects/a.md) — a\n- [A again](projects/a.md)\n- [Gone](projects/gone.md)\n"
    )
    snap = tree.scan(tmp_path, deep=False)
    notes = {row.key: row.facts_note for row in rows_for("index", snap)}
    assert notes == {
        "projects/a.md": "Listed in _index.md (line 2).",
        "projects/a.md\n2": "Listed in _index.md (line 3), copy 2.",
        "projects/gone.md": "In _index.md (line 4), a dead route: no such file.",
        "projects/b.md": "On disk but not in _index.md: agents cannot find it by its route.",
    }


def _with_alpha(root: Path) -> Path:
    """The demo memory with a folder of two listed memory files, `projects/alpha/`."""
    alpha = root / "projects/alpha"
    alpha.mkdir()
    (alpha / "plan.md").write_text("# Alpha plan\n", encoding="utf-8")
    (alpha / "decisions.md").write_text("# Decisions\n", encoding="utf-8")
    with (root / "_index.md").open("a", encoding="utf-8") as index:
        index.write("- [Alpha plan](projects/alpha/plan.md) — plan\n")
        index.write("- [Decisions](projects/alpha/decisions.md) — log\n")
    fix_mtimes(root)
    return root


# What takes the folder's place: a file, a link, a FIFO (found in trial: the view kept its files as live).
REPLACEMENTS: dict[str, Callable[[Path, Path], object]] = {
    "file": lambda at, away: at.write_bytes(b"x"),
    "symlink": lambda at, away: at.symlink_to(away),
    "fifo": lambda at, away: os.mkfifo(at),
}


@pytest.mark.parametrize("kind", sorted(REPLACEMENTS))
def test_patch_gives_up_when_a_folder_of_memory_files_is_replaced(
    demo_root: Path, tmp_path: Path, kind: str
) -> None:
    root = _with_alpha(demo_root)
    snap = tree.scan(root, deep=False)
    sig = patch.index_signature(root, snap)
    assert patch.patch(root, snap, None, sig, frozenset({"projects/alpha"})) is not None  # a known folder
    shutil.move(root / "projects/alpha", tmp_path / "away")
    REPLACEMENTS[kind](root / "projects/alpha", tmp_path / "away")
    assert patch.patch(root, snap, None, sig, frozenset({"projects/alpha"})) is None


def test_patch_gives_up_when_a_memory_file_or_a_memory_folder_changes_kind(
    demo_root: Path, tmp_path: Path
) -> None:
    snap = tree.scan(demo_root, deep=False)
    sig = patch.index_signature(demo_root, snap)
    # A memory file replaced by a folder (of memory files).
    (demo_root / "projects/atlas.md").unlink()
    (demo_root / "projects/atlas.md").mkdir()
    (demo_root / "projects/atlas.md/inner.md").write_text("# Inner\n", encoding="utf-8")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"projects/atlas.md"})) is None
    # A whole folder of memory, `notes/`, replaced by a file (only its own event comes).
    shutil.move(demo_root / "notes", tmp_path / "notes")
    (demo_root / "notes").write_bytes(b"x")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes"})) is None


def test_patch_gives_up_when_a_link_or_special_file_the_scan_said_changes(demo_root: Path) -> None:
    os.mkfifo(demo_root / "notes/pipe")
    (demo_root / "notes/linked").symlink_to(demo_root / "projects")
    (demo_root / "notes/inner").mkdir()
    os.mkfifo(demo_root / "notes/inner/pipe.md")
    snap = tree.scan(demo_root, deep=False)
    assert {"notes/pipe", "notes/linked", "notes/inner/pipe.md"} <= {p.path for p in snap.problems}
    sig = patch.index_signature(demo_root, snap)
    # A new link or special file, whatever its name: a problem only the scan says.
    os.mkfifo(demo_root / "notes/new-pipe")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/new-pipe"})) is None
    (demo_root / "notes/atlas.md.tmp1").write_bytes(b"x")  # an editor's temporary file: nothing to do
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/atlas.md.tmp1"})) is not None
    # A link, a FIFO, or the folder holding one, removed or replaced by a regular file: its problem goes.
    (demo_root / "notes/linked").unlink()
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/linked"})) is None
    (demo_root / "notes/pipe").unlink()
    (demo_root / "notes/pipe").write_bytes(b"x")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/pipe"})) is None
    shutil.rmtree(demo_root / "notes/inner")
    assert patch.patch(demo_root, snap, None, sig, frozenset({"notes/inner"})) is None


@pytest.mark.parametrize("kind", ["file", "symlink"])
async def test_a_folder_of_memory_files_replaced_while_watched_shows_its_files_gone(
    demo_root: Path, tmp_path: Path, kind: str
) -> None:
    root = _with_alpha(demo_root)
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        snap = app.snapshot
        assert snap is not None and snap.active_file("projects/alpha/plan.md") is not None
        scans, generation = app.scans_done, app._generation
        # `mv projects/alpha /tmp/away; printf x > projects/alpha`, as the observer reports it.
        shutil.move(root / "projects/alpha", tmp_path / "away")
        REPLACEMENTS[kind](root / "projects/alpha", tmp_path / "away")
        app.watcher.handler.dispatch(DirMovedEvent(str(root / "projects/alpha"), str(tmp_path / "away")))
        app.watcher.handler.dispatch(FileCreatedEvent(str(root / "projects/alpha")))
        app.watcher.handler.dispatch(DirModifiedEvent(str(root / "projects")))
        assert await until(pilot, lambda: app._shown_generation == app._generation > generation)
        await settle(pilot)
        assert app.scans_done > scans  # rescanned, not patched
        snap = app.snapshot
        assert snap is not None and snap.active_file("projects/alpha/plan.md") is None
        dead = {p.path for p in snap.problems if p.kind == "dead-route"}
        assert {"projects/alpha/plan.md", "projects/alpha/decisions.md"} <= dead
        assert _rows_equal_disk(app, root)
