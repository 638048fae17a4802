"""Browsing: the first frame, panes, movement, filter, preview, help, palette, quit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.command import CommandPalette
from tui_helpers import RecordingApp, fill, settle

from pmem_tui.tui.panes import ROW_PANES as PANES
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PREVIEW_CAP


def lst(app: RecordingApp, pane: str) -> MemoryList:
    main = app.main_screen
    assert main is not None
    return main.view(pane).list


def preview_text(app: RecordingApp) -> str:
    main = app.main_screen
    assert main is not None
    return " ".join(main.preview.text.split())  # wrapping undone


def row_text(memory_list: MemoryList, y: int) -> str:
    return memory_list.render_line(y).text


@pytest.mark.rule("PM-LAYOUT-1", "PM-LOAD-1", "PM-CORE-4", "PM-CORE-5")
async def test_first_frame_shows_every_pane_header_and_baseline(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        index = lst(app, "index")
        kinds = {r.path: r.kind for r in index.all_rows}
        assert kinds["projects/atlas.md"] == "entry"
        assert kinds["notes/ideas.md"] == "dead"  # dead route flagged
        assert kinds["projects/outage-scratch.md"] == "orphan"  # orphan flagged
        assert [r.path for r in lst(app, "core").all_rows] == ["_core/preferences.md", "_core/profile.md"]
        archive = {r.path: r.cells for r in lst(app, "archive").all_rows}
        assert archive["projects/legacy-api.md"][1:] == ("2026-01-29", "all clients moved to the v2 API")
        trash = lst(app, "trash").all_rows
        # Sorted by deadline, with the countdown.
        assert [r.path for r in trash] == ["notes/offsite-ideas.md", "projects/temp-benchmarks.md"]
        assert trash[0].cells[2] == "expired: P purges it" and trash[0].flag == "expired"
        assert trash[1].cells[2] == "recoverable 25 more days"
        header = str(app.main_screen.query_one("#header").render())
        assert "~/.persistent-memory" in header
        assert "8 active" in header and "2 core" in header and "2 archived" in header
        assert "1 expired" in header and "lifecycle ready" in header and "problems" in header
        # Baseline cost: every _core/ file plus _index.md, in tokens (PM-LOAD-1).
        assert app.baseline is not None and app.baseline.files == 3
        assert f"≈{app.baseline.tokens:,} tokens" in header


@pytest.mark.rule("PM-CORE-4")
async def test_header_warns_when_core_grows_past_the_documented_size(demo_root: Path, make_app) -> None:
    (demo_root / "_core/big.md").write_text("# Big\n\n" + "word " * 3000, encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        header = str(app.main_screen.query_one("#header").render())
        assert "⚠ _core/" in header
        assert app.baseline is not None and app.baseline.core_too_big


async def test_movement_keys_and_the_preview_follows(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        index = lst(app, "index")
        assert index.has_focus and index.cursor == 0
        assert "projects/atlas.md" in preview_text(app)
        await pilot.press("j", "down")
        assert index.cursor == 2
        await pilot.press("k")
        assert index.cursor == 1
        await pilot.press("up")
        assert index.cursor == 0
        await pilot.press("G")
        assert index.cursor == len(index.rows) - 1
        await pilot.press("g")
        assert index.cursor == 0
        await pilot.press("pagedown")
        assert index.cursor == len(index.rows) - 1  # fewer rows than a page
        await pilot.press("pageup")
        assert index.cursor == 0
        await pilot.press("j")
        await settle(pilot)
        assert "projects/beacon.md" in preview_text(app)
        assert "Summary invalid" in preview_text(app)  # 2 bullets: the badge says invalid


async def test_pane_keys_and_tab_cycle(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        main = app.main_screen
        assert main is not None
        for key, pane in zip("1234", PANES, strict=True):
            await pilot.press(key)
            assert main.current_pane() == pane
            assert lst(app, pane).has_focus
        await pilot.press("tab")
        assert main.current_pane() == "changes"  # the sixth pane, always there (issue 16)
        await pilot.press("tab")
        assert main.current_pane() == "index"
        await pilot.press("shift+tab", "shift+tab")
        assert main.current_pane() == "trash"
        await settle(pilot)
        assert "notes/offsite-ideas.md" in preview_text(app)
        assert "expired" in preview_text(app)
        await pilot.press("5")  # no fifth pane yet: nothing happens
        assert main.current_pane() == "trash"


async def test_filter_fuzzy_enter_and_escape(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        index = lst(app, "index")
        await pilot.press("slash")
        view = app.main_screen.view("index")
        assert view.filter_input.has_focus
        await pilot.press(*"readli")  # by word starts: "read" begins reading, "li" begins list
        assert [r.path for r in index.rows] == ["notes/reading-list.md", "notes/reading-list-2.md"]
        await pilot.press("enter")
        assert index.has_focus and index.cursor == 0
        await pilot.press("escape")
        assert index.filter_query == "" and len(index.rows) == len(index.all_rows)
        # Summary and title are searched too; contiguous matches come first.
        await pilot.press("slash")
        await fill(pilot, "postgis")
        assert [r.path for r in index.rows] == ["projects/atlas.md"]
        await fill(pilot, "list")  # contiguous matches only: l-i-s-t scattered in a summary is too weak
        assert [r.path for r in index.rows] == ["notes/reading-list.md", "notes/reading-list-2.md"]
        await fill(pilot, "postgis")
        await fill(pilot, "postgis 180")  # a second term narrows: both terms must match
        assert [r.path for r in index.rows] == ["projects/atlas.md"]
        await pilot.press("escape")
        assert not view.filter_input.display and index.has_focus
        await pilot.press("slash")
        await fill(pilot, "zzzz")
        assert index.rows == [] and "No row matches" in row_text(index, 0)


async def test_user_text_is_shown_literally(tmp_path: Path, make_app) -> None:
    root = tmp_path / "memory"
    for folder in ("_core", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    name = "notes/[red]x[/red].md"  # a folder "[red]x[" holding "red].md"
    (root / name).parent.mkdir(parents=True)
    (root / name).write_text(
        "# [bold]Title[/bold]\n\n## Summary\n- [red]one[/red]\n- two [link=x]\n- three\n", encoding="utf-8"
    )
    (root / "_index.md").write_text(f"- `{name}` — [blink]summary[/blink]\n", encoding="utf-8")
    with open(os.fsencode(root / "notes") + b"/caf\xe9-latin1.md", "wb") as fh:  # not a UTF-8 name
        fh.write(b"# Cafe\n")
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        index = lst(app, "index")
        assert "[red]x[/red].md" in row_text(index, 0)
        assert "[blink]summary[/blink]" in row_text(index, 0)
        text = preview_text(app)
        assert "[red]x[/red].md" in text and "[red]one[/red]" in text and "[link=x]" in text
        assert "caf\ufffd-latin1.md" in row_text(index, 1)  # shown with a replacement character
        await pilot.press("j")
        await settle(pilot)
        assert "caf\ufffd-latin1.md" in preview_text(app)


async def test_preview_warns_for_non_utf8_and_caps_large_files(demo_root: Path, make_app) -> None:
    (demo_root / "projects/atlas.md").write_bytes(b"# Atlas \xff\xfe broken\n\nbody\n")
    (demo_root / "projects/beacon.md").write_bytes(b"# Big\n\n" + b"x" * (PREVIEW_CAP * 3) + b"\n")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        text = preview_text(app)
        assert "Not valid UTF-8" in text and "\ufffd" in text
        await pilot.press("j")
        await settle(pilot)
        assert "Large file: the preview shows the first 64.0 KB" in preview_text(app)


async def test_preview_of_a_dead_route_and_focus_key(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        index = lst(app, "index")
        assert index.select_key("notes/ideas.md")
        await settle(pilot)
        assert "dead route" in preview_text(app)
        await pilot.press("p")
        assert app.main_screen.preview.has_focus
        await pilot.press("tab")
        assert index.has_focus


async def test_help_screen_lists_every_key(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_command_palette_has_every_action(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for wanted in (
            "Archive selected",
            "Delete selected",
            "Recover selected",
            "Edit selected",
            "New memory file",
            "Health review",
            "Purge expired trash",
            "Upgrade lifecycle structure",
            "Undo last action",
            "Filter pane",
            "Help: keys",
            "Show Trash pane",
        ):
            assert wanted in titles
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await fill(pilot, "purge expired")
        await pilot.press("enter")
        await settle(pilot)
        # The palette ran the purge action: its preview modal is open.
        assert type(app.screen).__name__ == "PlanModal"


async def test_q_quits(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_a_file_name_with_a_line_break_or_an_escape_stays_one_visible_line(
    demo_root: Path, make_app
) -> None:
    """An agent can write any name: the row and the preview's head show its control characters as `\\xNN`
    (before: the row stopped at the line break, "notes/new", and an escape vanished, so two names could look
    alike)."""
    (demo_root / "notes" / "new\nline.md").write_text("# Odd\n", encoding="utf-8")
    (demo_root / "notes" / "esc\x1b[31mred.md").write_text("# Odd\n", encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        index = lst(app, "index")
        rows = [row_text(index, y) for y in range(len(index.all_rows))]
        assert any("notes/new\\x0aline.md" in row for row in rows), rows
        assert any("notes/esc\\x1b[31mred.md" in row for row in rows), rows
        assert index.select_key("notes/new\nline.md")
        await settle(pilot)
        assert "notes/new\\x0aline.md" in preview_text(app)
