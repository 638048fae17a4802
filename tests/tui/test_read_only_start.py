"""PM-AGENT-3 in the app: starting, scanning, browsing and the health check change nothing under the root."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle, until

from pmem_tui.core import executor, lifecycle
from pmem_tui.core.health_cache import REPORT_FILE
from pmem_tui.tui.screens.health import HealthScreen
from tests.conftest import cache_file, tree_state


@pytest.mark.rule("PM-AGENT-3")
@pytest.mark.parametrize("own", ["no-pmem", "pmem-there"])
async def test_starting_and_scanning_change_nothing_under_the_root(demo_root: Path, own: str) -> None:
    if own == "pmem-there":
        executor.apply(lifecycle.plan_save(demo_root, "notes/earlier.md", b"# Earlier\n"), demo_root)
    before = tree_state(demo_root)
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done >= 1)
        await pilot.press("j", "j", "2", "3")  # browse: the preview reads files
        await pilot.press("H")  # the health check (with its cache)
        assert await until(pilot, lambda: isinstance(app.screen, HealthScreen))
        await settle(pilot)
        assert cache_file(demo_root, REPORT_FILE).is_file()  # it did write its cache: elsewhere
        app.request_rescan()
        assert await until(pilot, lambda: app.scans_done >= 2)
        await settle(pilot)
    assert app.errors() == []
    assert tree_state(demo_root) == before
