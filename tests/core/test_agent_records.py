"""Records an agent wrote beside pmem-tui's own: two deletion records for one trashed file."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pmem_tui.core import lifecycle, tree
from pmem_tui.core.records import parse_records
from tests.conftest import tree_bytes, write

NEWEST_FIRST = """# Archive index

## notes/a.md
- Original path: notes/a.md
- Deleted: 2026-12-01
- Recovery deadline: 2026-12-31

## notes/a.md
- Original path: notes/a.md
- Deleted: 2026-09-01
- Recovery deadline: 2026-10-01
"""


def test_a_trashed_file_a_newer_record_keeps_recoverable_is_never_purged(memory: Path) -> None:
    """Found in trial: with the newer record first (as agents often write them), the older, expired one
    won; purge removed the file for good while a record said it was recoverable until 2026-12-31."""
    write(memory, "_archive/_trash/notes/a.md", "# A\nimportant\n")
    write(memory, "_archive/_index.md", NEWEST_FIRST)
    today = dt.date(2026, 12, 3)
    (item,) = tree.scan(memory, today=today).trash
    assert not item.expired and item.deadline == dt.date(2026, 12, 31)
    before = tree_bytes(memory)
    plan = lifecycle.plan_purge(memory, today=today)
    assert plan.is_empty
    assert tree_bytes(memory) == before
    recs = parse_records(NEWEST_FIRST)
    matching, files, _ = tree.locate_archived(memory, recs, lambda _: False, None, today)
    assert tree.expired_trash(matching, files, recs, today) == ()


def test_a_health_fix_is_refused_when_the_file_it_rests_on_came_or_went(memory: Path) -> None:
    """Found in trial: `f` on a dead route, then an agent wrote the file, then `y`: the fix dropped the line
    of a file that now existed (an orphan made); likewise adding the line of an orphan the agent removed."""
    from pmem_tui.core.errors import StalePlan
    from pmem_tui.core.executor import apply
    from pmem_tui.core.fix_planner import plan_fix
    from pmem_tui.core.health.check import check_health

    with (memory / "_index.md").open("a", encoding="utf-8") as index:
        index.write("- notes/later.md — the agent writes it soon\n")
    write(memory, "notes/stray.md", "# Stray\n")
    proposals = {p.path: p for p in check_health(memory, use_cache=False).proposals}
    drop = plan_fix(memory, proposals["notes/later.md"])
    add = plan_fix(memory, proposals["notes/stray.md"])
    write(memory, "notes/later.md", "# Later\n")  # the agent writes the dead route's file
    (memory / "notes/stray.md").unlink()  # and removes the orphan
    before = tree_bytes(memory)
    for plan in (drop, add):
        try:
            apply(plan, memory)
        except StalePlan:
            pass
        else:
            raise AssertionError(f"{plan.title} was applied on a changed state")
    assert tree_bytes(memory) == before
