"""The main screen's tab strip (`widgets/pane_tabs.py`): one widget that draws a label per pane and the bar
under the active one; a click on a label shows its pane."""

from __future__ import annotations

import threading
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from tui_helpers import RecordingApp, settle, until

from pmem_tui.tui.panes import pane_id
from pmem_tui.tui.widgets.pane_tabs import PaneTabs

TITLES = [("pane-a", "1 Index"), ("pane-b", "2 Core"), ("pane-c", "3 Archive"), ("pane-d", "6 Changes")]


class Strip(App[None]):
    def __init__(self, active: str) -> None:
        super().__init__()
        self.active = active
        self.clicked: list[str] = []

    def compose(self) -> ComposeResult:
        tabs = PaneTabs(self.active, id="tabs")
        for pane, title in TITLES:
            tabs.add(pane, title, Text(f"{title} 12"))
        yield tabs

    def on_pane_tabs_clicked(self, message: PaneTabs.Clicked) -> None:
        self.clicked.append(message.pane)


def drawn(app: App[None]) -> tuple[str, str]:
    tabs = app.query_one(PaneTabs)
    return tabs.render_line(0).text, tabs.render_line(1).text


async def test_the_labels_and_the_bar_under_the_active_one() -> None:
    app = Strip("pane-b")
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        labels, bar = drawn(app)
        assert labels.rstrip() == " 1 Index 12  2 Core 12  3 Archive 12  6 Changes 12"
        start = labels.index("2 Core 12")
        assert bar[start - 1] == "╸" and bar[start : start + 9] == "━" * 9 and bar[start + 9] == "╺"


async def test_a_strip_too_narrow_even_for_the_keys_slides_to_the_active_tab() -> None:
    app = Strip("pane-d")
    async with app.run_test(size=(14, 5)) as pilot:
        await pilot.pause()
        labels, _bar = drawn(app)
        assert labels.endswith(" 6 Changes 12 "), labels  # whole, at the right edge
        app.query_one(PaneTabs).active = "pane-a"
        await pilot.pause()
        assert drawn(app)[0].startswith(" 1 Index 12 ")


async def test_a_click_on_a_label_names_its_pane_and_between_labels_nothing() -> None:
    app = Strip("pane-a")
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        labels, _bar = drawn(app)
        await pilot.click("#tabs", offset=(labels.index("3 Archive"), 0))
        await pilot.click("#tabs", offset=(len(labels.rstrip()) + 5, 0))  # past the last tab
        await pilot.pause()
        assert app.clicked == ["pane-c"]


async def test_a_click_on_a_tab_shows_its_pane_even_before_the_app_mounted_it_and_the_strip_is_one_widget(
    demo_root: Path, held_scan: threading.Event
) -> None:
    """The panes but the Index mount after the first frame; a click on one's tab mounts and shows it."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        assert main is not None
        assert await until(pilot, lambda: bool(main.view("index").list.all_rows), workers=False)
        assert not main.query("#view-trash")  # not mounted yet
        labels = main.tabs.render_line(0).text
        await pilot.click("#tabs", offset=(labels.index("4 Trash"), 0))
        await pilot.pause()
        assert main.current_pane() == "trash" and main.current_pane_id() == pane_id("trash")
        assert main.focused is main.view("trash").list
        assert main.tabs.active == pane_id("trash")
        held_scan.set()
        await settle(pilot)
        assert "4 Trash (2)" in main.tabs.render_line(0).text  # its count, once the scan's rows came
        assert not main.tabs.children  # the strip is one widget
        assert len(main.query("#switcher > *")) == len(main.pane_ids)  # a holder per pane, no more


def style_at(app: App[None], x: int) -> object:
    """The style of the strip's label row at cell `x`."""
    cell = 0
    for segment in app.query_one(PaneTabs).render_line(0):
        if cell <= x < cell + len(segment.text):
            return segment.style
        cell += len(segment.text)
    raise AssertionError(f"no cell {x}")


async def test_the_tab_under_the_mouse_is_drawn_brighter_until_it_leaves() -> None:
    app = Strip("pane-a")
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        labels, _bar = drawn(app)
        core, archive = labels.index("2 Core"), labels.index("3 Archive")
        assert style_at(app, core) == style_at(app, archive)
        await pilot.hover("#tabs", offset=(archive, 0))
        await pilot.pause()
        assert app.query_one(PaneTabs).hovered == "pane-c"
        assert style_at(app, archive) != style_at(app, core)
        await pilot.hover("#tabs", offset=(len(labels.rstrip()) + 5, 0))  # past the last tab
        await pilot.pause()
        assert app.query_one(PaneTabs).hovered == ""
        assert style_at(app, core) == style_at(app, archive)
        await pilot.hover("#tabs", offset=(archive, 0))
        await pilot.hover(None, offset=(archive, 4))  # below the strip: the mouse left it
        await pilot.pause()
        assert app.query_one(PaneTabs).hovered == ""
