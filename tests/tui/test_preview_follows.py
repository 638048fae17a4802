"""The preview, a modal's header and the action are always about the highlighted row, however it moved."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.widgets.memory_list import MemoryList


def index_list(app: RecordingApp) -> MemoryList:
    main = app.main_screen
    assert main is not None
    return main.view("index").list


async def assert_follows(pilot: Pilot[RecordingApp], app: RecordingApp) -> str:
    """The preview shows the highlighted row; `a` opens the archive of that same row. Returns its path."""
    await settle(pilot)
    main = app.main_screen
    assert main is not None
    row = index_list(app).current_row
    assert row is not None
    assert main.preview.text.splitlines()[0] == row.path
    await pilot.press("a")
    await settle(pilot)
    assert isinstance(app.screen, PlanModal)
    assert app.screen.heading == f"Archive {row.path}"
    await pilot.press("escape")
    await settle(pilot)
    return row.path


@pytest.mark.rule("PM-CORE-2", "PM-SAFE-6")
async def test_the_preview_follows_the_highlight_through_the_filter(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j")
        assert await assert_follows(pilot, app) == "projects/cobalt-migration.md"
        # The filter moves the highlight to its first match: the preview goes with it (it stayed behind).
        await pilot.press("slash", "o")
        await settle(pilot)
        row, main = index_list(app).current_row, app.main_screen
        assert row is not None and main is not None
        assert main.preview.text.splitlines()[0] == row.path
        await pilot.press("enter")
        assert await assert_follows(pilot, app) == "projects/atlas.md"
        # A single match, then escape (the filter is cleared from the pane itself).
        await pilot.press("slash", *"standup")
        await pilot.press("enter")
        assert await assert_follows(pilot, app) == "notes/standup-habits.md"
        await pilot.press("escape", "j")
        assert await assert_follows(pilot, app) == "notes/reading-list.md"


@pytest.mark.rule("PM-CORE-2")
async def test_the_preview_follows_a_click_and_an_external_reorder(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.click(MemoryList, offset=(4, 1))
        assert await assert_follows(pilot, app) == "projects/beacon.md"
        # Another program reverses the index and removes beacon: the highlight lands on another row.
        index = demo_root / "_index.md"
        lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
        entries = [ln for ln in lines if ln.startswith("- ")]
        kept = [ln for ln in lines if not ln.startswith("- ")] + [
            ln for ln in reversed(entries) if "beacon" not in ln
        ]
        index.write_text("".join(kept), encoding="utf-8")
        (demo_root / "projects/beacon.md").unlink()
        app.request_rescan()
        await settle(pilot)
        assert "projects/beacon.md" not in {r.path for r in index_list(app).all_rows}
        await assert_follows(pilot, app)


def test_a_very_long_index_line_is_cut_in_the_facts() -> None:
    """Found in trial: an agent's 12.5 KB index line filled ~200 lines of the preview before the summary."""
    from pmem_tui.tui.rows import Row
    from pmem_tui.tui.widgets.preview import INDEX_LINE_SHOWN, facts_block

    line = "- [Long](notes/long.md) — " + "word " * 2500
    row = Row(
        "notes/long.md",
        "entry",
        "notes/long.md",
        "notes/long.md",
        ("notes/long.md", "Long", "w"),
        index_line=line,
    )
    shown = facts_block(row).plain
    assert line[:INDEX_LINE_SHOWN] in shown and line not in shown
    assert f"({len(line):,} characters in all)" in shown
    short = Row(
        "notes/a.md",
        "entry",
        "notes/a.md",
        "notes/a.md",
        ("notes/a.md", "A", "a"),
        index_line="- notes/a.md — a",
    )
    assert facts_block(short).plain.endswith("index line: - notes/a.md — a")
