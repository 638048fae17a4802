"""SVG snapshot of the search screen (`ctrl+f`) with a query's results, at the suite's usual size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_snapshots import shot
from textual.pilot import Pilot
from tui_helpers import RecordingApp, fill, search_caught_up, settle, until

from pmem_tui.tui.screens.search import SearchScreen


async def _search(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, RecordingApp)
    await settle(pilot)
    await pilot.press("ctrl+f")  # the first search screen builds the index
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await search_caught_up(pilot)
    await fill(pilot, "the on-call")
    assert await until(pilot, lambda: screen.shown_generation == screen.generation and bool(screen.hits))


def test_search_screen(snap_compare: Any, demo_root: Path) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), _search)
