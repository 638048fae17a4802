"""Below the minimum size: one notice, no toasts over it; gone once the terminal is large enough (issue
14, item 8)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.screens.too_small import TooSmallScreen


async def test_a_tiny_terminal_shows_the_notice_then_the_app_when_it_grows(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(20, 6)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        notice = str(app.screen.query_one("#too-small", Static).content)
        assert "Terminal too small (20x6)" in notice and "q to quit" in notice
        app.notify("something happened")
        await pilot.pause()
        assert not app.screen.query("Toast")  # no toast over the notice
        await pilot.press("question_mark")
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.resize_terminal(40, 24)
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
