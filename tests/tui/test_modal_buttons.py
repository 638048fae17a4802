"""The modals' buttons run the same actions as their keys (a click, for those who use a mouse)."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import RecordingApp, settle

from pmem_tui.tui.modals.new_file import NewFileModal
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.main import MainScreen

SIZE = (160, 48)
EXPIRED = "_archive/_trash/notes/offsite-ideas.md"


async def test_cancel_and_confirm_buttons(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (demo_root / EXPIRED).exists()
        await pilot.press("4", "P")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        await pilot.click("#plan-cancel")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and (demo_root / EXPIRED).exists()
        await pilot.press("P")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        await pilot.click("#plan-confirm")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and not (demo_root / EXPIRED).exists()
        await pilot.press("n")  # the new-file modal's Cancel
        await settle(pilot)
        assert isinstance(app.screen, NewFileModal)
        await pilot.click("#new-cancel")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_confirm_is_not_shown_before_there_is_a_preview_to_confirm(demo_root: Path) -> None:
    """Found in trial: the archive dialog showed `Confirm (y)` before any preview; disabled, it was only
    dimmed, and without colour (NO_COLOR) it looked live. It shows once a preview is built, and goes
    again when a new one is refused."""
    from tui_helpers import fill

    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PlanModal) and modal.plan is None
        assert not modal.query_one("#plan-confirm").display
        await fill(pilot, "done")
        await pilot.press("enter")
        await settle(pilot)
        assert modal.plan is not None and modal.query_one("#plan-confirm").display
        modal.build("")  # an empty reason: refused
        await settle(pilot)
        assert modal.plan is None and not modal.query_one("#plan-confirm").display


async def test_at_80x24_the_preview_has_the_rows_and_notifications_leave_the_buttons_seen(
    demo_root: Path,
) -> None:
    """Found in trial at 80x24: a notification (the last action's outcome) stood over Confirm and Cancel,
    and the preview's box was 4 to 6 lines tall. The dialog takes every row above the key bar but one, a
    short terminal drops its blank lines, and notifications stand above the buttons."""
    from textual.widgets import Button
    from textual.widgets._toast import Toast
    from tui_helpers import fill, until

    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # tests have none by default
        await settle(pilot)
        await pilot.press("a")
        await fill(pilot, "done")
        await pilot.press("enter")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PlanModal) and modal.plan is not None
        assert modal.query_one("#plan-body").region.height >= 13  # 9 before: 7 lines of preview
        app.notify("Archived notes/a-long-name.md to _archive/notes/a-long-name.md, and a second line of it.")
        app.notify("A second notification, stacked on the first.")
        assert await until(pilot, lambda: len(modal.query(Toast)) == 2)
        toasts = list(modal.query(Toast))
        for button in modal.query(Button).results():
            if button.display:
                assert not any(t.region.overlaps(button.region) for t in toasts), button.id
