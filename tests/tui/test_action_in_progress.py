"""The app opened while another process is inside an action: the banner says it is in progress, not that it
was interrupted, and the panes follow once it is done."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import settle

from pmem_tui.core import journal, lifecycle
from tests.faults.harness import Stepper


@pytest.mark.rule("PM-STATUS-1")
async def test_an_action_in_progress_is_shown_as_such(demo_root: Path, make_app) -> None:
    stepper = Stepper(demo_root, lifecycle.plan_archive(demo_root, "projects/atlas.md", "elsewhere"))
    try:
        while not (demo_root / journal.INTENT).exists():
            stepper.advance(1)
        stepper.advance(8)  # part-way through the move and the index edit
        app = make_app(demo_root)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert app.snapshot is not None and app.snapshot.action_running
            banner = str(app.main_screen.query_one("#banner").render())
            assert "is being applied" in banner and "interrupted" not in banner
            stepper.finish()
            app.request_rescan()
            await settle(pilot)
            assert app.snapshot is not None and app.snapshot.unfinished_action is None
            assert "is being applied" not in str(app.main_screen.query_one("#banner").render())
    finally:
        stepper.finish()
