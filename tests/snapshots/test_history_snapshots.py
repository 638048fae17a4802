"""SVG snapshots of the Changes pane (key 6) and the History view (`v`): 120x36, frozen clock, no watcher, the
history's records made at fixed times (so their ids are fixed too).

Update with `pytest tests/snapshots --snapshot-update` after an intended change, and look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from history_helpers import EDITED, memory_with_history
from textual.pilot import Pilot
from tui_helpers import RecordingApp, settle

SIZE = (120, 36)  # the size of every other snapshot


def shot(snap_compare: Any, app: RecordingApp, *press: str, select: str | None = None) -> bool:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        if select is not None:
            assert app.main_screen is not None
            memory_list = app.main_screen.view("index").list
            assert memory_list.select_key(next(r.key for r in memory_list.all_rows if r.path == select))
            await settle(pilot)
        await pilot.press(*press)
        await settle(pilot)
        await pilot.pause()

    return bool(snap_compare(app, terminal_size=SIZE, run_before=run_before))


def test_changes_pane(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = memory_with_history(tmp_path, monkeypatch)
    assert shot(snap_compare, RecordingApp(root), "6")


def test_history_view_with_a_marked_version(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = memory_with_history(tmp_path, monkeypatch)
    assert shot(snap_compare, RecordingApp(root), "v", "down", "space", select=EDITED)
