"""`H`: the health review screen (problems of the scan until the health service lands)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from tui_helpers import TODAY, RecordingApp, fill, settle

from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthReport, HealthScreen, Proposal, report_from_snapshot
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.memory_list import MemoryList


def health_list(app: RecordingApp) -> MemoryList:
    return app.screen.query_one("#health-list", MemoryList)


@pytest.mark.rule("PM-HEALTH-1", "PM-HEALTH-4", "PM-HEALTH-5", "PM-HEALTH-6", "PM-ARC-2", "PM-DEL-5")
async def test_health_lists_numbered_problems_keeps_archives_and_deletes(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HealthScreen)
        rows = health_list(app).all_rows
        # Numbered, one line of reason each, about active memory only (never _core/ or control files).
        assert [r.cells[0] for r in rows] == [f"{n}." for n in range(1, len(rows) + 1)]
        paths = [r.path for r in rows]
        assert "projects/beacon.md" in paths  # invalid summary (2 bullets), from the deep scan
        assert "projects/outage-scratch.md" in paths and "notes/ideas.md" in paths
        assert not any(p.startswith("_") for p in paths)
        # Expired trash in its own section, purged only with P.
        expired = str(screen.query_one("#health-expired").render())
        assert "Expired trash (1)" in expired and "notes/offsite-ideas.md" in expired
        assert (demo_root / "_archive/_trash/notes/offsite-ideas.md").exists()
        # The preview of the selected file is beside the table.
        await settle(pilot)
        assert "projects/" in screen.query_one("#health-preview").text or rows[0].location is None
        # k: keep (dismiss) a proposal.
        dead = next(r for r in rows if r.path == "notes/ideas.md")
        health_list(app).select_key(dead.key)
        await pilot.press("k")
        await settle(pilot)
        assert "notes/ideas.md" not in [r.path for r in health_list(app).all_rows]
        assert "Kept notes/ideas.md" in app.notes_text()
        # a: archive the orphan, through its preview, reason prefilled from the proposal.
        orphan = next(r for r in health_list(app).all_rows if r.path == "projects/outage-scratch.md")
        health_list(app).select_key(orphan.key)
        await pilot.press("a")
        assert isinstance(app.screen, PlanModal)
        await fill(pilot, "raw notes, summarised elsewhere")
        await pilot.press("enter", "y")
        await settle(pilot)
        assert (demo_root / "_archive/projects/outage-scratch.md").exists()
        assert isinstance(app.screen, HealthScreen)
        # d: archive, then delete, each through its own preview.
        beacon = next(r for r in health_list(app).all_rows if r.path == "projects/beacon.md")
        health_list(app).select_key(beacon.key)
        await pilot.press("d")
        assert isinstance(app.screen, PlanModal) and "Delete means archive first" in str(
            app.screen.query_one("#plan-explanation").render()
        )
        await fill(pilot, "superseded")
        await pilot.press("enter", "y")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal) and app.screen.plan is not None
        assert app.screen.plan.action == "delete"
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/_trash/projects/beacon.md").exists()
        # Nothing else ran on its own; escape goes back.
        assert (demo_root / "_archive/_trash/notes/offsite-ideas.md").exists()
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.rule("PM-UPG-4")
async def test_health_without_lifecycle_points_to_upgrade(tmp_path: Path, make_app) -> None:
    root = tmp_path / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes/a.md").write_text("# A\n", encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        status = str(app.screen.query_one("#health-status").render())
        assert "Press U to preview the upgrade" in status
        assert health_list(app).all_rows == []


async def test_health_source_is_pluggable(demo_root: Path, make_app) -> None:
    """The health service replaces the default source without touching the screen."""

    def source(root: Path, today: dt.date) -> HealthReport:
        return HealthReport(
            (
                Proposal(
                    1,
                    "archive",
                    "projects/cobalt-migration.md",
                    ("inactive 420 days",),
                    "finished in 2024",
                    "projects/cobalt-migration.md",
                    True,
                ),
            ),
            (),
            today,
        )

    app = make_app(demo_root, health_source=source)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        row = health_list(app).all_rows[0]
        assert row.cells == (
            "1.",
            "archive",
            "projects/cobalt-migration.md",
            "inactive 420 days",
            "finished in 2024",
        )


def test_report_from_snapshot_never_proposes_core_or_control_files(demo_root: Path) -> None:
    from pmem_tui.core import tree

    (demo_root / "_core/stray.md").write_bytes(b"\xff\xfe not utf-8")
    report = report_from_snapshot(tree.scan(demo_root, deep=True, today=TODAY))
    assert report.blocked is None
    assert all(p.path.split("/")[0] in ("projects", "notes") for p in report.proposals)
