"""Start-up: the first frame shows the head of the index and its preview, then the full scan replaces it."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle, until

from pmem_tui.core import tree
from pmem_tui.core.head import index_head
from pmem_tui.core.model import INDEX_FILE
from pmem_tui.tui.app import PmemApp
from pmem_tui.tui.panes import pane_id, rows_for
from pmem_tui.tui.rows import head_rows
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PreviewView


def index_list(app: RecordingApp) -> MemoryList:
    main = app.main_screen
    assert main is not None
    return main.view("index").list


def tab_label(app: RecordingApp) -> str:
    main = app.main_screen
    assert main is not None
    return str(main.tabs.label(pane_id("index")))


def _make_big_index(root: Path, extra: int) -> None:
    """Append `extra` entries (with their files) so the head is a strict prefix of the index."""
    lines = []
    for i in range(extra):
        rel = f"notes/bulk/n{i:04d}.md"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# Bulk {i}\n\n## Summary\n- number {i}\n")
        lines.append(f"- [Bulk {i}]({rel}) — number {i}\n")
    with open(root / INDEX_FILE, "a", encoding="utf-8") as fh:
        fh.writelines(lines)


@pytest.mark.rule("PM-LAYOUT-1", "PM-LOAD-3")
async def test_first_frame_shows_the_head_and_its_preview_before_the_full_scan(
    demo_root: Path, held_scan: threading.Event
) -> None:
    _make_big_index(demo_root, 300)
    head = index_head(demo_root)
    assert head is not None and 0 < len(head) < 300
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        index = index_list(app)
        main = app.main_screen
        assert main is not None
        first = head[0][0].route
        assert await until(pilot, lambda: first in main.preview.text, workers=False)
        assert app.scans_done == 0 and app.snapshot is None  # the full scan is still held
        assert [r.key for r in index.all_rows] == [r.key for r in head_rows(head)]
        assert "…" in tab_label(app)  # no count before the full list is known
        await pilot.press("down", "down")
        chosen = index.current_row
        assert chosen is not None

        held_scan.set()
        assert await until(pilot, lambda: app.scans_done == 1)
        await settle(pilot)
        full = rows_for("index", tree.scan(demo_root, deep=False))
        assert [r.key for r in index.all_rows] == [r.key for r in full]
        assert index.current_row is not None and index.current_row.key == chosen.key  # cursor kept
        assert str(len(full)) in tab_label(app)


@pytest.mark.rule("PM-CORE-5")
def test_head_rows_are_the_full_scans_rows(demo_root: Path) -> None:
    """Same keys, cells, kinds, sizes: the scan's rows replace the head's without a visible change."""
    (demo_root / "projects/linked.md").symlink_to(demo_root / "projects/atlas.md")
    with open(demo_root / INDEX_FILE, "a", encoding="utf-8") as fh:
        fh.write("- [Again](projects/atlas.md) — a duplicate route\n")
        fh.write("- [Link](projects/linked.md) — a symbolic link\n")
        fh.write("- [Out](projects/../../etc/passwd.md) — outside\n")
    head = index_head(demo_root)
    assert head is not None
    rows = head_rows(head)
    full = rows_for("index", tree.scan(demo_root, deep=False))
    assert rows == full[: len(rows)]
    assert {r.kind for r in rows} >= {"entry", "dead"}
    assert any(r.flag == "dup" for r in rows)


async def test_without_an_index_the_full_scan_starts_at_once(demo_root: Path) -> None:
    (demo_root / INDEX_FILE).unlink()
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done == 1)
        assert {r.kind for r in index_list(app).all_rows} == {"orphan"}


async def test_the_full_scan_starts_even_when_no_preview_comes(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PreviewView, "show_row_now", lambda self, row: None)
    monkeypatch.setattr(PreviewView, "show_row", lambda self, row: None)
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done == 1)  # after HEAD_GRACE_S
        assert isinstance(app.screen, MainScreen)
        assert len(index_list(app).all_rows) == len(rows_for("index", tree.scan(demo_root, deep=False)))


async def test_the_hidden_panes_mount_after_the_first_frame_and_a_key_shows_one_at_once(
    demo_root: Path, held_scan: threading.Event
) -> None:
    """The first frame composes only the Index's pane; a pane's key mounts the others (its rows come with the
    scan), and the full scan's rows reach every pane, its tab saying the count."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        main = app.main_screen
        assert main is not None
        assert await until(pilot, lambda: bool(index_list(app).all_rows), workers=False)
        assert not main.query("#view-core") and not main.query("#changes-view")  # not mounted yet
        await pilot.press("2")
        core = main.view("core")
        assert main.query_one("#view-core") is core
        assert main.current_pane() == "core" and main.focused is core.list

        held_scan.set()
        assert await until(pilot, lambda: app.scans_done == 1)
        await settle(pilot)
        snap = tree.scan(demo_root, deep=False)
        for name in ("core", "archive", "trash"):
            rows = rows_for(name, snap)
            assert list(main.view(name).list.all_rows) == rows
            assert f"{len(rows)}" in str(main.tabs.label(pane_id(name)))
        assert main.query("#changes-view")


async def test_rows_set_before_a_pane_is_mounted_are_drawn_when_it_is(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done == 1)
        await settle(pilot)
        main = app.main_screen
        assert main is not None
        rows = rows_for("trash", tree.scan(demo_root, deep=False))
        assert rows and main.view("trash").is_mounted
        label = str(main.tabs.label(pane_id("trash")))
        assert label == f"4 Trash ({len(rows)})"
        await pilot.press("4")
        await settle(pilot)
        trash = main.view("trash").list
        assert main.focused is trash and trash.scrollable_content_region.height > 0
        assert rows[0].path in trash.render_line(0).text  # drawn


async def test_the_cycle_collector_is_off_only_until_the_first_preview(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    enabled_at_scan_start: list[bool] = []
    real = PmemApp._start_full_scan

    def start(self: PmemApp) -> None:
        enabled_at_scan_start.append(gc.isenabled())
        real(self)

    monkeypatch.setattr(PmemApp, "_start_full_scan", start)
    assert gc.isenabled()
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done == 1)
        assert enabled_at_scan_start[0] is False  # off for the first frame
        assert gc.isenabled()  # on again once the full scan started
    assert gc.isenabled()


async def test_the_active_tab_stays_in_view_when_the_labels_grow_at_80_columns(
    demo_root: Path, held_scan: threading.Event
) -> None:
    """At 80 columns the tab strip is too narrow for every whole label. A tab chosen before the scan's counts
    arrive (they widen every label) is still whole in view afterwards (before: its count was cut off at the
    strip's edge)."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main_screen
        assert main is not None
        assert await until(pilot, lambda: bool(index_list(app).all_rows), workers=False)
        await pilot.press("6")
        held_scan.set()
        assert await until(pilot, lambda: app.scans_done == 1)
        await settle(pilot)
        label = main.tabs.label(pane_id("changes")).plain
        assert label.startswith("6 Changes (") and label[-2].isdigit()
        assert f" {label} " in main.tabs.render_line(0).text  # drawn whole


async def test_rows_arriving_for_a_screen_being_torn_down_mount_nothing(
    demo_root: Path, held_scan: threading.Event
) -> None:
    """A scan's rows can arrive while the app quits during start-up (SIGTERM right after the first frame:
    `tests/tmux/test_real_terminal.py`, seen on a loaded machine). The panes not mounted yet must not be
    mounted into a screen that is gone: Textual raises, and the app exits 1 instead of the signal's status."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        main = app.main_screen
        assert main is not None
        assert await until(pilot, lambda: bool(index_list(app).all_rows), workers=False)
        assert not main.query("#view-core")  # not mounted yet
        await app.pop_screen()  # the main screen torn down, as on quitting
        held_scan.set()
        await pilot.pause()
        assert not main.is_attached
        snap = tree.scan(demo_root, deep=False)
        main.update_snapshot(snap, None)  # the scan's rows, late: before, Textual raised here
        assert not main.view("core").is_attached
        assert main.update_index_rows(rows_for("index", snap)[:1], snap, None)  # a late patch: no redraw
