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
