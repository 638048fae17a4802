"""Keys that arrive together (typed fast, pasted, sent by tmux in one write) reach the widget that the first
of them gave the focus to, not the one that had it before."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.preview import PreviewView


def _key(app: RecordingApp, key: str, character: str | None) -> events.Key:
    event = events.Key(key, character)
    event.set_sender(app)
    return event


def burst(app: RecordingApp, *keys: tuple[str, str | None]) -> None:
    """Queue the keys as the driver does (as `Pilot.press`, without waiting between them)."""
    driver = app._driver
    assert driver is not None
    for key, character in keys:
        driver.send_message(_key(app, key, character))


@contextlib.asynccontextmanager
async def started(root: Path) -> AsyncIterator[tuple[RecordingApp, Pilot[Any], MainScreen]]:
    """The app on `root`, settled on its main screen."""
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        main = app.main_screen
        assert main is not None
        yield app, pilot, main


async def test_letters_right_after_slash_go_to_the_filter(demo_root: Path) -> None:
    async with started(demo_root) as (app, pilot, main):
        burst(app, ("slash", "/"), ("a", "a"), ("t", "t"))
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)  # `a` did not open the archive preview
        assert main.view("index").filter_input.value == "at"
        assert main.view("index").list.filter_query == "at"


async def test_keys_right_after_escape_go_back_to_the_list(demo_root: Path) -> None:
    async with started(demo_root) as (app, pilot, main):
        view = main.view("index")
        await pilot.press("slash")
        await settle(pilot)
        burst(app, ("escape", None), ("j", "j"), ("j", "j"))
        await settle(pilot)
        assert view.filter_input.value == ""  # the j's were not typed into the hidden filter
        assert view.list.cursor == 2


async def test_keys_right_after_a_pane_switch_go_to_the_new_pane(demo_root: Path) -> None:
    async with started(demo_root) as (app, pilot, main):
        burst(app, ("2", "2"), ("j", "j"))
        await settle(pilot)
        assert main.current_pane() == "core"
        assert main.view("core").list.cursor == 1
        assert main.view("index").list.cursor == 0


async def test_keys_right_after_p_scroll_the_preview(demo_root: Path) -> None:
    async with started(demo_root) as (app, pilot, main):
        burst(app, ("p", "p"), ("j", "j"))
        await settle(pilot)
        assert isinstance(app.focused, PreviewView)
        assert main.view("index").list.cursor == 0


async def test_keys_right_after_enter_in_the_filter_move_among_the_matches(demo_root: Path) -> None:
    async with started(demo_root) as (app, pilot, main):
        view = main.view("index")
        burst(app, ("slash", "/"), ("m", "m"), ("d", "d"), ("enter", None), ("j", "j"))
        await settle(pilot)
        assert view.filter_input.value == "md"  # the j was not typed into the filter
        assert app.focused is view.list
        assert view.list.cursor == 1


async def test_a_key_read_while_a_burst_is_handled_keeps_its_place(demo_root: Path) -> None:
    """Found in review: with the pane switch run only when its key bubbled back, a key read meanwhile (here
    space, read while `j` was on its way) overtook the keys before it and marked the wrong row."""
    async with started(demo_root) as (app, pilot, main):
        real = main.on_event
        sent: list[int] = []

        async def on_event(event: events.Event) -> None:
            if isinstance(event, events.Key) and event.key == "j" and not sent:
                sent.append(1)
                app.post_message(_key(app, "space", " "))  # the next key read, a moment later
            await real(event)

        main.on_event = on_event  # type: ignore[method-assign]
        for key, character in (("2", "2"), ("j", "j")):  # read together
            app.post_message(_key(app, key, character))
        await settle(pilot)
        core = main.view("core").list
        assert core.marked_keys == {core.all_rows[1].key}  # 2 (Core), j (second row), space (mark it)


async def test_keys_right_before_slash_move_the_list_and_stay_out_of_the_filter(demo_root: Path) -> None:
    """Found in trial: `j j /` typed fast opened the filter with "jj" in it (a priority `/` ran before the
    j's had bubbled back, and the j's were then read again into the filter)."""
    async with started(demo_root) as (app, pilot, main):
        view = main.view("index")
        burst(app, ("j", "j"), ("j", "j"), ("slash", "/"), ("o", "o"))
        await settle(pilot)
        assert view.filter_input.value == "o"
        assert app.focused is view.filter_input


async def test_keys_right_before_a_pane_switch_move_the_old_pane(demo_root: Path) -> None:
    async with started(demo_root) as (app, pilot, main):
        burst(app, ("j", "j"), ("2", "2"), ("j", "j"))
        await settle(pilot)
        assert main.current_pane() == "core"
        assert main.view("index").list.cursor == 1
        assert main.view("core").list.cursor == 1


async def test_letters_typed_right_before_escape_leave_no_hidden_filter(demo_root: Path) -> None:
    """Found in trial: `a t escape` typed fast left "at" in the hidden filter (the priority escape cleared it
    before the input had typed the letters)."""
    async with started(demo_root) as (app, pilot, main):
        view = main.view("index")
        await pilot.press("slash")
        await settle(pilot)
        burst(app, ("a", "a"), ("t", "t"), ("escape", None), ("j", "j"))
        await settle(pilot)
        assert view.filter_input.value == ""
        assert view.list.filter_query == ""
        assert view.list.cursor == 1
