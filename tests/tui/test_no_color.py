"""`NO_COLOR=1` (set in many people's dotfiles) draws every screen; a crash never exits 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.app import PmemApp, run_app
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen


@pytest.mark.rule("PM-SAFE-6")
async def test_no_color_draws_every_screen_without_a_crash(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = RecordingApp(demo_root)
    assert app.no_color  # the monochrome filter is on
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)  # the preview of the first row is drawn (it crashed here)
        main = app.main_screen
        assert main is not None and "projects/atlas.md" in main.preview.text
        for key in ("j", "2", "3", "4", "1"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("H")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


def test_a_crash_exits_non_zero_and_removes_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any crash (here: in the first frame) ends the process with status 1, not 0."""
    made: list[Path] = []
    real_run = PmemApp.run

    def headless_run(self: PmemApp, **kwargs: object) -> int | None:
        made.append(self.root)
        return real_run(self, headless=True)

    def crash(self: PmemApp) -> bool:
        raise RuntimeError("a bug in the first frame")

    monkeypatch.setattr(PmemApp, "run", headless_run)
    monkeypatch.setattr(PmemApp, "_show_head", crash)
    assert run_app(Path("unused"), demo=True) == 1
    assert made and not made[0].exists()  # the demo folder is gone too
