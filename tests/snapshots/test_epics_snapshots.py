"""SVG snapshots of the Epics pane (key 5): 120x36, frozen clock, no watcher, fixed root and project labels.

Update with `pytest tests/snapshots --snapshot-update` after an intended change, and look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from epics_helpers import PROJECT_LABEL, WITHIN, over_budget, write_project
from textual.pilot import Pilot
from tui_helpers import TODAY, RecordingApp, settle

from pmem_tui.demo.epics import build_epics_demo, sample_permanent_memory
from pmem_tui.tui.widgets.epics import EpicsPane

SIZE = (120, 36)  # the size of every other snapshot


def epics_app(demo_root: Path, project_parent: Path, content: str) -> RecordingApp:
    project = write_project(project_parent, content)
    return RecordingApp(demo_root, extra_panes=[EpicsPane(project, label=PROJECT_LABEL)])


def shot(snap_compare: Any, app: RecordingApp, *press: str) -> bool:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("5", *press)
        await settle(pilot)
        await pilot.pause()

    return bool(snap_compare(app, terminal_size=SIZE, run_before=run_before))


@pytest.mark.rule("PL-5", "PL-6", "PL-7", "PL-11")
def test_epics_within_budget(snap_compare: Any, demo_root: Path, tmp_path: Path) -> None:
    assert shot(snap_compare, epics_app(demo_root, tmp_path, WITHIN))


@pytest.mark.rule("PL-8")
def test_epics_over_budget_sample(snap_compare: Any, demo_root: Path, tmp_path: Path) -> None:
    """The `--demo` sample: one rung (the tentative epic dropped) brings it within the target."""
    assert shot(snap_compare, epics_app(demo_root, tmp_path, sample_permanent_memory(TODAY)))


@pytest.mark.rule("PL-8")
def test_epics_over_budget_ids_only(snap_compare: Any, demo_root: Path, tmp_path: Path) -> None:
    assert shot(snap_compare, epics_app(demo_root, tmp_path, over_budget()))


@pytest.mark.rule("PL-2", "PL-10")
def test_epics_expanded_body(snap_compare: Any, demo_root: Path, tmp_path: Path) -> None:
    """`enter` on the stale v1 epic: its full body in the preview, the lines the loader reads marked."""
    assert shot(snap_compare, epics_app(demo_root, tmp_path, sample_permanent_memory(TODAY)), "down", "enter")


@pytest.mark.rule("PL-13", "PL-16")
def test_epics_demo_entries_archive_history(snap_compare: Any, demo_root: Path, tmp_path: Path) -> None:
    """The `--demo` project at 160x48: each age's source, the over-cap OPS-4, FEAT-112's typed entries
    (`enter`), the archived epics and the history events below the block."""
    project = build_epics_demo(tmp_path / "shop", TODAY)
    app = RecordingApp(demo_root, extra_panes=[EpicsPane(project, label=PROJECT_LABEL)])

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("5", "enter")
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)
