"""Marks (issue 14, item 5): the tab says how many rows are marked; escape clears the filter, then the
marks; a batch includes the marked rows the filter hides, and its preview names every one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import RecordingApp, fill, settle

from pmem_tui.tui.modals.plan_modal import PlanModal

MARKED = ("projects/atlas.md", "projects/beacon.md", "notes/reading-list.md")


async def mark(pilot: Pilot[Any], app: RecordingApp, paths: tuple[str, ...]) -> None:
    assert app.main_screen is not None
    lst = app.main_screen.view("index").list
    for path in paths:
        assert lst.select_key(next(r.key for r in lst.all_rows if r.path == path))
        await pilot.press("space")


def tab_label(app: RecordingApp) -> str:
    assert app.main_screen is not None
    return str(app.main_screen.tabs.label("pane-index"))


async def test_the_tab_counts_marks_and_escape_clears_them(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await mark(pilot, app, MARKED)
        await pilot.pause()
        assert "3 marked" in tab_label(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.main_screen is not None and not app.main_screen.view("index").list.marked_keys
        assert "marked" not in tab_label(app)
        assert "3 marks cleared" in app.notes_text()


@pytest.mark.rule("PM-SAFE-6", "PM-CORE-3")
async def test_a_batch_names_every_marked_row_the_filter_hides(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await mark(pilot, app, MARKED)
        await pilot.press("slash")
        await fill(pilot, "atlas")
        await pilot.press("enter")  # to the list; the filter stays
        await settle(pilot)
        await pilot.press("a")
        modal = app.screen
        assert isinstance(modal, PlanModal)
        explanation = str(modal.query_one("#plan-explanation").render())
        assert "hidden by the filter 'atlas'" in explanation
        assert "projects/beacon.md" in explanation and "notes/reading-list.md" in explanation
        assert "projects/atlas.md" not in explanation  # shown: not listed as hidden
        await pilot.press("escape")  # cancels the preview: the marks stay
        await pilot.pause()
        assert app.main_screen is not None and len(app.main_screen.view("index").list.marked_keys) == 3
        await pilot.press("slash", "escape")  # escape clears the filter first ...
        await pilot.pause()
        assert len(app.main_screen.view("index").list.marked_keys) == 3
        await pilot.press("escape")  # ... then the marks
        await pilot.pause()
        assert not app.main_screen.view("index").list.marked_keys
