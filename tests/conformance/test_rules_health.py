"""Memory health (PM-HEALTH-1..5) and the lifecycle categories (PM-ARC-2), through `health.check_health`.

These check what the spec asks of a health check, not how the engine scores: which files it looks at, where
candidates come from, the three categories, a numbered proposal with one-line reasons, and that nothing runs
until each item is confirmed on its own (through the lifecycle services, each with its own preview).
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from pmem_tui.cli import health as cli_health
from pmem_tui.core import health, records
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.health import HealthReport, check_health
from pmem_tui.core.lifecycle import plan_archive, plan_delete
from pmem_tui.core.model import ACTIVE_DIRS
from tests.conftest import FROZEN_TODAY, tree_bytes, write

NOW = dt.datetime.combine(FROZEN_TODAY, dt.time(12)).timestamp()
LONG_AGO = dt.datetime.combine(FROZEN_TODAY - dt.timedelta(days=200), dt.time(12)).timestamp()
SOUP = "# Recipes\n\nA long list of soup recipes: tomato, leek, pea and mint, lentil with cumin and lemon.\n"

ACTIVE = {
    "projects/fresh.md": "# Fresh\n\nWorking on the parser for the billing export this week.\n",
    "projects/old.md": "# Vendor\n\nNotes about a vendor evaluation from spring, with thoughts on pricing.\n",
    "projects/wip.md": "# Bench\n\nStatus: in progress\n\nA slow side project about woodworking benches.\n",
    "notes/launch.md": "# Launch\n\nStatus: done\n\nThe launch checklist and what came out of it.\n",
    "notes/soup.md": SOUP,
    "notes/soup-copy.md": SOUP,
}
OLD = ("projects/old.md", "projects/wip.md")
# Everything here would be a candidate if it were active memory: old, duplicated, concluded, broken summaries.
NOT_ACTIVE = {
    "_core/profile.md": "# Profile\n\nStatus: done\n\n## Summary\n- one\n",
    "_core/profile-copy.md": "# Profile\n\nStatus: done\n\n## Summary\n- one\n",
    "_archive/notes/soup-old.md": SOUP,
    "_archive/projects/finished.md": "# Finished\n\nStatus: done\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    write(root, "_index.md", "# Index\n\n" + "".join(f"- {p} — {p}\n" for p in ACTIVE))
    for path, text in {**ACTIVE, **NOT_ACTIVE}.items():
        write(root, path, text)
    (root / "_archive/_trash").mkdir(parents=True)
    write(root, "_archive/_index.md", records.empty_archive_index())
    for file in root.rglob("*"):
        if file.is_file():
            os.utime(file, (NOW, NOW))
    for rel in (*OLD, "_core/profile.md", "_archive/projects/finished.md", "_index.md"):
        os.utime(root / rel, (LONG_AGO, LONG_AGO))
    return root


def _check(root: Path) -> HealthReport:
    return check_health(root, use_cache=False)


@pytest.mark.rule("PM-HEALTH-1")
def test_only_active_on_demand_memory_is_proposed(root: Path) -> None:
    report = _check(root)
    assert report.proposals
    for p in report.proposals:
        assert p.path.split("/", 1)[0] in ACTIVE_DIRS and p.path in ACTIVE, p
        assert all(s.other is None or not s.other.startswith("_archive") for s in p.signals), p
    # _core/, the indexes and the archive are never candidates, however old, duplicated or concluded.
    assert not [p for p in report.proposals if p.path in NOT_ACTIVE or p.path.endswith("_index.md")]
    # The archived copy of the soup does not make the active one a duplicate: only the active pair counts.
    soup = [p for p in report.proposals if "duplicate" in p.kinds]
    assert [(p.path, p.signals[0].other) for p in soup] in (
        [("notes/soup-copy.md", "notes/soup.md")],
        [("notes/soup.md", "notes/soup-copy.md")],
    )


@pytest.mark.rule("PM-HEALTH-2")
def test_candidates_come_from_inactivity_duplication_or_concluded_status(root: Path) -> None:
    report = _check(root)
    kinds = {p.path: set(p.kinds) for p in report.proposals}
    assert "inactive" in kinds["projects/old.md"]
    assert "concluded" in kinds["notes/launch.md"]
    assert any("duplicate" in kinds.get(p, set()) for p in ("notes/soup.md", "notes/soup-copy.md"))
    assert "projects/fresh.md" not in kinds  # current, unique, open: no candidate
    lifecycle = {"inactive", "duplicate", "near-duplicate", "concluded", "overlaps-core"}
    for p in report.proposals:
        if p.category in ("archive", "delete"):
            assert set(p.kinds) & lifecycle, p


@pytest.mark.rule("PM-HEALTH-3", "PM-ARC-2")
def test_each_candidate_is_classified_keep_archive_or_delete(root: Path) -> None:
    report = _check(root)
    assert {p.category for p in report.proposals} <= {"keep", "archive", "delete"} == set(health.CATEGORIES)
    category = {p.path: p.category for p in report.proposals}
    assert category["projects/old.md"] == "archive"  # low-frequency material
    assert category["notes/launch.md"] == "archive"  # concluded
    assert category["projects/wip.md"] == "keep"  # old, but says it is current work
    duplicate = next(p for p in report.proposals if "duplicate" in p.kinds)
    assert duplicate.category == "delete"  # duplicate material with no further value


@pytest.mark.rule("PM-HEALTH-4")
def test_a_numbered_proposal_with_a_one_line_reason_per_item(root: Path) -> None:
    report = _check(root)
    assert [p.n for p in report.proposals] == list(range(1, len(report.proposals) + 1))
    for p in report.proposals:
        assert p.reason.strip() and "\n" not in p.reason and "\r" not in p.reason
    text = cli_health.health_lines(report)
    for p in report.proposals:
        [line] = [x for x in text if x.lstrip().startswith(f"{p.n}. ")]
        assert p.path in line and p.reason in line
    data = cli_health.health_dict(report)
    assert [(d["n"], d["path"], d["category"], d["reason"]) for d in data["proposals"]] == [
        (p.n, p.path, p.category, p.reason) for p in report.proposals
    ]


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-2", "PM-CORE-3", "PM-ARC-2")
def test_nothing_runs_until_each_item_is_confirmed_on_its_own(root: Path, today: dt.date) -> None:
    before = tree_bytes(root)
    first = check_health(root)  # with its cache (in the hidden .pmem/ folder): still no memory file changes
    again = check_health(root)
    assert tree_bytes(root) == before
    assert [(p.path, p.category) for p in again.proposals] == [(p.path, p.category) for p in first.proposals]

    # "delete" means archive first: deleting the active duplicate is refused until it is archived.
    dup = next(p for p in first.proposals if p.category == "delete")
    with pytest.raises(Refused, match="archive it first"):
        plan_delete(root, dup.path)
    assert tree_bytes(root) == before
    apply(plan_archive(root, dup.path, dup.reason), root)
    apply(plan_delete(root, dup.path), root)
    after = tree_bytes(root)
    assert after[f"_archive/_trash/{dup.path}"] == before[dup.path]
    [rec] = [r for r in records.parse_records(after["_archive/_index.md"].decode()) if r.path == dup.path]
    assert (rec.reason, rec.deleted) == (dup.reason, today)
    # Only that item changed; every other proposal is still there, waiting for its own confirmation.
    unchanged = {k: v for k, v in before.items() if k not in (dup.path, "_index.md", "_archive/_index.md")}
    assert {k: v for k, v in after.items() if k in unchanged} == unchanged
    rest = _check(root)
    assert {p.path for p in rest.proposals} == {p.path for p in first.proposals} - {dup.path}
