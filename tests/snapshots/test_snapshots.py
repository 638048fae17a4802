"""SVG snapshots of every screen and of the preview modal for each action (120x36, frozen clock, no watcher).

Update with `pytest tests/snapshots --snapshot-update` after an intended change, and look at the SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input
from tui_helpers import RecordingApp, fill, make_demo, settle

SIZE = (120, 36)
Steps = Callable[[Pilot[Any]], Awaitable[None]]


def shot(
    snap_compare: Any, app: RecordingApp, steps: Steps | None = None, size: tuple[int, int] = SIZE
) -> bool:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        if steps is not None:
            await steps(pilot)
            await settle(pilot)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    return bool(snap_compare(app, terminal_size=size, run_before=run_before))


def keys(*names: str) -> Steps:
    async def run(pilot: Pilot[Any]) -> None:
        await pilot.press(*names)

    return run


def select(pane_key: str, path: str) -> Steps:
    async def run(pilot: Pilot[Any]) -> None:
        await pilot.press(pane_key)
        app = pilot.app
        assert isinstance(app, RecordingApp) and app.main_screen is not None
        pane = ["index", "core", "archive", "trash"][int(pane_key) - 1]
        memory_list = app.main_screen.view(pane).list
        memory_list.select_key(next(r.key for r in memory_list.all_rows if r.path == path))
        await settle(pilot)

    return run


def then(*steps: Steps) -> Steps:
    async def run(pilot: Pilot[Any]) -> None:
        for step in steps:
            await step(pilot)

    return run


def typed(text: str, *after: str) -> Steps:
    async def run(pilot: Pilot[Any]) -> None:
        await fill(pilot, text)
        if after:
            await pilot.press(*after)

    return run


# -- the main screen on each pane ------------------------------------------------------------------


@pytest.mark.rule("PM-LAYOUT-1", "PM-LOAD-1")
@pytest.mark.parametrize("pane_key", ["1", "2", "3", "4"])
def test_main_screen_each_pane(snap_compare: Any, demo_root: Path, pane_key: str) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), keys(pane_key))


def test_main_screen_filtered(snap_compare: Any, demo_root: Path) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), then(keys("slash"), typed("reading")))


# -- the preview modal for each action -------------------------------------------------------------


@pytest.mark.rule("PM-SAFE-6", "PM-ARC-5")
def test_modal_archive(snap_compare: Any, demo_root: Path) -> None:
    steps = then(select("1", "projects/cobalt-migration.md"), keys("a"), typed("migration finished", "enter"))
    assert shot(snap_compare, RecordingApp(demo_root), steps)


@pytest.mark.rule("PM-DEL-1")
def test_modal_delete_on_active_file(snap_compare: Any, demo_root: Path) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), keys("d"))


@pytest.mark.rule("PM-DEL-3", "PM-DEL-4")
def test_modal_delete(snap_compare: Any, demo_root: Path) -> None:
    steps = then(select("3", "projects/legacy-api.md"), keys("d"))
    assert shot(snap_compare, RecordingApp(demo_root), steps)


@pytest.mark.rule("PM-REC-4", "PM-REC-5")
def test_modal_recover(snap_compare: Any, demo_root: Path) -> None:
    steps = then(select("4", "projects/temp-benchmarks.md"), keys("r"))
    assert shot(snap_compare, RecordingApp(demo_root), steps)


@pytest.mark.rule("PM-REC-2")
def test_modal_recover_legacy_record(snap_compare: Any, demo_root: Path) -> None:
    steps = then(select("3", "notes/q3-planning.md"), keys("r"))
    assert shot(snap_compare, RecordingApp(demo_root), steps)


@pytest.mark.rule("PM-SAVE-2", "PM-SAVE-4")
def test_modal_save_after_edit(snap_compare: Any, demo_root: Path) -> None:
    def editor(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("180 ms after", "150 ms after"), encoding="utf-8")

    assert shot(snap_compare, RecordingApp(demo_root, editor=editor), keys("e"))


def test_modal_new_file(snap_compare: Any, demo_root: Path) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), then(keys("n"), typed("notes/coffee.md")))


@pytest.mark.rule("PM-DEL-5", "PM-HEALTH-6")
def test_modal_purge(snap_compare: Any, demo_root: Path) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), keys("P"))


def test_modal_undo(snap_compare: Any, demo_root: Path) -> None:
    async def quiet(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.clear_notifications()

    steps = then(keys("a"), typed("done", "enter", "y"), quiet, keys("ctrl+z"))
    assert shot(snap_compare, RecordingApp(demo_root), steps)


def test_modal_changed_since_preview(snap_compare: Any, demo_root: Path) -> None:
    from watchdog.events import FileModifiedEvent

    async def change(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, RecordingApp)
        target = demo_root / "projects/atlas.md"
        target.write_text("# Atlas\n\nchanged by an agent\n", encoding="utf-8")
        app.watcher.handler.dispatch(FileModifiedEvent(str(target)))
        main = app.main_screen
        assert main is not None
        # Wait for both effects of the change: the modal turns stale, and the preview behind it shows the
        # new (short) content, so the frame does not depend on which of the two lands first.
        for _ in range(200):
            await pilot.pause()
            preview = main.preview
            if (
                getattr(app.screen, "stale", None)
                and "changed by an agent" in preview.text
                and preview.max_scroll_y == 0  # the short new content no longer needs a scrollbar
                and not preview.show_vertical_scrollbar
            ):
                break
        # The refusal line shrinks the preview box: wait until two frames in a row are the same, so the
        # relayout and the scrollbar it redraws have settled before the snapshot is taken.
        previous = ""
        for _ in range(50):
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            frame = app.export_screenshot()
            if frame == previous:
                break
            previous = frame

    steps = then(keys("a"), typed("old", "enter"), change)
    # Taller than the others: the whole plan fits, so no scrollbar (whose thumb the refusal line's relayout
    # left in one of two places from run to run) is part of the picture.
    assert shot(snap_compare, RecordingApp(demo_root), steps, size=(120, 60))


# -- lifecycle structure: banner and upgrade -------------------------------------------------------


def _pre_lifecycle_root(tmp_path: Path) -> Path:
    root = make_demo(tmp_path)
    import shutil

    shutil.rmtree(root / "_archive")
    return root


@pytest.mark.rule("PM-UPG-1")
def test_upgrade_banner(snap_compare: Any, tmp_path: Path) -> None:
    assert shot(snap_compare, RecordingApp(_pre_lifecycle_root(tmp_path)))


@pytest.mark.rule("PM-UPG-2")
def test_modal_upgrade(snap_compare: Any, tmp_path: Path) -> None:
    assert shot(snap_compare, RecordingApp(_pre_lifecycle_root(tmp_path)), keys("U"))


# -- other screens ---------------------------------------------------------------------------------


@pytest.mark.rule("PM-HEALTH-3", "PM-HEALTH-4", "PM-HEALTH-6")
def test_health_screen(snap_compare: Any, demo_root: Path) -> None:
    import os

    # One inactive file (last changed 2025-01-05; today is 2026-03-10): every category shows.
    os.utime(demo_root / "projects/cobalt-migration.md", (1736078400, 1736078400))
    assert shot(snap_compare, RecordingApp(demo_root), keys("H"))


@pytest.mark.rule("PM-UPG-4")
def test_health_screen_without_lifecycle(snap_compare: Any, tmp_path: Path) -> None:
    assert shot(snap_compare, RecordingApp(_pre_lifecycle_root(tmp_path)), keys("H"))


def test_help_screen(snap_compare: Any, demo_root: Path) -> None:
    assert shot(snap_compare, RecordingApp(demo_root), keys("question_mark"))


@pytest.mark.rule("PM-FIRST-1")
def test_welcome_screen(snap_compare: Any, tmp_path: Path) -> None:
    assert shot(snap_compare, RecordingApp(tmp_path / "no-memory-yet"))
