"""The state that drives the display is reactive (issue 15, item 6): a pane's row count, its marks and its
problems-only view are set as values and the tab follows; the watcher's mode is set and the header follows.
No refresh call by hand."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static
from tui_helpers import RecordingApp, settle

SIZE = (160, 48)


def tab(app: RecordingApp, pane: str) -> str:
    assert app.main_screen is not None
    return str(app.main_screen.tabs.label(f"pane-{pane}"))


async def test_the_tab_follows_the_panes_count_marks_and_problems(demo_root: Path) -> None:
    app = RecordingApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        view = app.main_screen.view("core")
        assert tab(app, "core") == "2 Core (2)" and view.count == 2
        view.count = 7
        await pilot.pause()
        assert tab(app, "core") == "2 Core (7)"
        view.count = None  # before the scan's rows
        await pilot.pause()
        assert tab(app, "core") == "2 Core (…)"
        view.list.marks = 3
        await pilot.pause()
        assert tab(app, "core") == "2 Core (…) ●3 marked"
        index = app.main_screen.view("index")
        await pilot.press("space")  # a mark on the Index: the list's state, then its tab
        await pilot.pause()
        assert index.list.marks == 1 and tab(app, "index").endswith("●1 marked")
        await pilot.press("exclamation_mark")  # only the rows with a problem
        await pilot.pause()
        assert index.problem_paths is not None and " !" in tab(app, "index")
        assert tab(app, "index").startswith(f"1 Index ({len(index.list.all_rows)}) !")
        index.problem_paths = None
        await pilot.pause()
        assert " !" not in tab(app, "index")
        assert "Only the rows with a problem" not in str(index.titles.render())


async def test_the_header_follows_the_watcher_mode(demo_root: Path) -> None:
    app = RecordingApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        header = app.main_screen.query_one("#header", Static)
        assert "not watching" in str(header.render())
        app.main_screen.watcher_mode = "polling"
        await pilot.pause()
        assert "not watching" not in str(header.render()) and "polling" in str(header.render())
