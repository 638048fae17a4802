"""The key bar: the focused widget's bindings, redrawn when they change; a click presses the key."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import RecordingApp, settle

from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.widgets.key_bar import KeyBar


def bar_text(app: RecordingApp) -> str:
    bar = app.screen.query_one(KeyBar)
    return bar.render().plain


async def test_the_bar_shows_the_main_screens_keys_and_the_palette(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        for hint in ("a Archive", "d Delete", "r Recover", "/ Filter", "? Help", "q Quit"):
            assert hint in text
        assert text.rstrip().endswith("^p palette")
        assert "P Purge" not in text  # a binding with show=False stays out


async def test_the_bar_follows_the_focus(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash")  # the filter input takes the focus: letters type, they are no keys
        await pilot.pause()
        assert "a Archive" not in bar_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert "a Archive" in bar_text(app)


async def test_a_click_on_a_hint_presses_its_key(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        x = bar_text(app).index("? Help") + 1
        await pilot.click(KeyBar, offset=(x, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_a_click_between_hints_does_nothing(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        gap = text.index("▕") - 2  # the blank run before the palette hint
        screen = app.screen
        await pilot.click(KeyBar, offset=(gap, 0))
        await pilot.pause()
        assert app.screen is screen
