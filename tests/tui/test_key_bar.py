"""The key bar: the focused widget's bindings, redrawn when they change; a click presses the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import RecordingApp, bare_root, settle

from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.widgets.key_bar import KeyBar


def bar_text(app: RecordingApp) -> str:
    bar = app.screen.query_one(KeyBar)
    return bar.render().plain


async def test_the_bar_shows_the_main_screens_keys_and_the_palette(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        for hint in (
            "a Archive",
            "d Delete",
            "/ Filter",
            "e Edit",
            "^z Undo",
            "p Preview",
            "? Help",
            "q Quit",
        ):
            assert hint in text
        assert text.rstrip().endswith("? Help  q Quit  ^p palette")
        assert "U Upgrade" not in text and "D Doctor" not in text  # not needed here: not offered


async def on_pane(pilot: Pilot[Any], key: str) -> str:
    await pilot.press(key)
    await pilot.pause()
    app = pilot.app
    assert isinstance(app, RecordingApp)
    return bar_text(app)


async def test_the_bar_offers_what_works_on_the_pane_in_view(demo_root: Path) -> None:
    """Issue 14, item 6: on Core no archive / delete / recover (they always refuse there); `P` on the
    Trash; each pane's own keys."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        index = bar_text(app)
        assert "a Archive" in index and "r Recover" not in index and "P Purge" not in index
        core = await on_pane(pilot, "2")
        assert "e Edit" in core and "n New" in core
        assert not [h for h in ("a Archive", "d Delete", "r Recover") if h in core]
        archive = await on_pane(pilot, "3")
        assert "d Delete" in archive and "r Recover" in archive and "a Archive" not in archive
        trash = await on_pane(pilot, "4")
        assert "r Recover" in trash and "P Purge" in trash and "e Edit" not in trash
        for text in (index, core, archive, trash):
            assert "? Help" in text and "q Quit" in text


async def test_help_and_quit_stay_at_80_columns(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        assert "? Help" in text and "q Quit" in text and len(text) <= 80
        assert "/ Filter" in text  # the pane's first keys still fit


@pytest.mark.rule("PM-UPG-4")
async def test_upgrade_is_offered_while_the_lifecycle_is_incomplete(tmp_path: Path) -> None:
    root = bare_root(tmp_path)
    app = RecordingApp(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "U Upgrade" in bar_text(app)


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


async def test_the_health_bar_offers_keep_on_K_and_keeps_help_and_quit(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        core = await on_pane(pilot, "2")
        assert "space Mark" not in core  # no action takes marked rows on Core
        await pilot.press("H")
        await settle(pilot)
        text = bar_text(app)
        assert "K Keep" in text and "k Keep" not in text
        assert text.rstrip().endswith("? Help  q Quit  ^p palette")


async def test_the_help_screen_has_its_own_bar(demo_root: Path) -> None:
    """Found in trial: over the help screen the main screen's bar still offered `a Archive` (which did
    nothing there) and `q Quit` (which closes the help)."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = bar_text(app)
        assert "esc Close" in text
        assert "Archive" not in text and "Quit" not in text
