"""A preview taller than its dialog is read to its end with the keys (at 80x24 the paths an action creates
for pmem-tui itself come last, below the fold), whatever has the focus: a button, or the input."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.modals.plan_modal import PlanModal


@pytest.mark.rule("PM-AGENT-3")
async def test_the_keys_scroll_a_long_preview_to_the_paths_it_creates(demo_root: Path) -> None:
    assert not (demo_root / ".pmem").exists()  # so the archive creates pmem-tui's own folder
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PlanModal) and isinstance(app.focused, Input)
        await pilot.press("j", "k", "down")  # in the input: the letters are typed, the arrow scrolls
        assert app.focused.value.endswith("jk")
        await pilot.press("enter")
        await settle(pilot)
        assert modal.plan is not None and ".pmem/journal" in modal.preview_text
        body = modal.query_one("#plan-body", VerticalScroll)
        assert body.max_scroll_y > 0, "the preview fits at 80x24: this test no longer tests a long one"
        assert app.focused is not None and app.focused.id == "plan-confirm"
        start = body.scroll_y
        await pilot.press("down", "j")
        assert body.scroll_y == start + 2
        await pilot.press("k")
        assert body.scroll_y == start + 1
        await pilot.press("end")
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("home")
        assert body.scroll_y == 0
        await pilot.press("pagedown")
        assert body.scroll_y > 1
        await pilot.press("G")
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, PlanModal) and not (demo_root / ".pmem").exists()
