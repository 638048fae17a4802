"""`f` on a proposal whose problem only the person can mend (found in review, as a user): an orphan named by
an `_index.md` line that is not a list item, a record in `_archive/_index.md` of a file active again.
The refusal said "has no index fix: nothing in the index to change", false for both: it now says what is
wrong and what to do by hand, in the signal's own sentence."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_health_screen import open_health, select

from pmem_tui.core import lifecycle
from pmem_tui.core.executor import apply
from pmem_tui.core.health import check_health
from pmem_tui.tui.screens.health import HealthScreen
from tests.conftest import tree_bytes, write


@pytest.mark.rule("PM-HEALTH-5", "PM-REC-4")
async def test_f_on_a_problem_mended_by_hand_says_what_to_do(memory: Path, make_app) -> None:  # type: ignore[no-untyped-def]
    write(memory, "notes/my-plan.md", "# My plan\n\nText.\n")
    apply(lifecycle.plan_archive(memory, "notes/standup.md", "done"), memory)
    (memory / "_archive/notes/standup.md").rename(memory / "notes/standup.md")  # moved back by hand
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("- notes/standup.md — daily standup notes\nnotes/my-plan.md — no bullet\n")
    report = check_health(memory, use_cache=False)
    said = {}
    for path, kind in (("notes/my-plan.md", "orphan"), ("notes/standup.md", "stale-record")):
        proposal = report.proposal(path)
        assert proposal is not None and proposal.fix is None and proposal.kinds == (kind,)
        said[path] = f"Proposal {proposal.n} ({path}) has no automatic fix: {proposal.signals[0].detail}."
    before = tree_bytes(memory)
    app = make_app(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        for path, sentence in said.items():
            select(app, path)
            await pilot.press("f")
            assert isinstance(app.screen, HealthScreen)
            assert app.errors()[-1] == sentence
    assert "make that line a list item" in said["notes/my-plan.md"]
    assert "remove it by hand" in said["notes/standup.md"]
    assert tree_bytes(memory) == before
