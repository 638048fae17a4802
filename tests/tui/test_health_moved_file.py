"""`f` on a file an agent moved after listing it (found in a user trial): the review showed two fixes, drop
the dead line and add a new one, and lost the agent's title and summary. It is one proposal on the file, whose
fix rewrites only that line's route, through its preview."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_health_screen import health_list, open_health, previewed, select, shown
from tui_helpers import settle

from pmem_tui.tui.screens.health import HealthScreen
from tests.conftest import write

LINE = "- [Standup](notes/standup.md) — daily standup notes"
MOVED = "notes/2026/standup.md"


@pytest.mark.rule("PM-HEALTH-4", "PM-HEALTH-5", "PM-SAFE-6", "PM-AGENT-2")
async def test_f_rewrites_the_route_of_a_moved_file_s_line(memory: Path, make_app) -> None:  # type: ignore[no-untyped-def]
    write(memory, MOVED, (memory / "notes/standup.md").read_text(encoding="utf-8"))
    (memory / "notes/standup.md").unlink()  # an agent moved it; its line still names the old place
    index = (memory / "_index.md").read_text(encoding="utf-8")
    index_before = index.replace("- notes/standup.md — daily standup notes", LINE)  # a title too
    assert LINE in index_before
    write(memory, "_index.md", index_before)
    app = make_app(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        rows = health_list(app).all_rows
        assert [r.path for r in rows] == [MOVED]  # one proposal, on the file: not a drop and an add
        select(app, MOVED)
        await settle(pilot)
        detail = shown(app, "#health-detail")
        assert "f: rewrite the route notes/standup.md in its _index.md line to " + MOVED in detail
        assert "does not exist" not in detail  # the file is there: archiving it is offered as usual
        await pilot.press("f")
        m = await previewed(pilot, app)
        assert m.plan is not None and m.plan.title == f"Fix _index.md: reroute notes/standup.md to {MOVED}"
        new_line = LINE.replace("notes/standup.md", MOVED)
        assert m.plan.preview.index_removed == (LINE,) and m.plan.preview.index_added == (new_line,)
        assert (memory / "_index.md").read_text(encoding="utf-8") == index_before  # nothing before `y`
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, HealthScreen)
        assert (memory / "_index.md").read_text(encoding="utf-8") == index_before.replace(LINE, new_line)
        assert MOVED not in [r.path for r in health_list(app).all_rows]
