"""`_index.md` lines without a list bullet (found in trial: an agent wrote `notes/bare.md — …` without
a bullet; pmem-tui called the file an orphan and the health fix `f` listed it a second time, so an agent
reading the index saw the file twice). Such a line is not read as a route: without a bullet it may be prose
(a heading over its underline, a table row, a sentence, a template: found in review when they were read as
routes, and archive or a health fix removed them). The file stays an orphan; its fix refuses to list it
again."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.core import tree
from pmem_tui.core.errors import Refused
from pmem_tui.core.fix_planner import plan_fix
from pmem_tui.core.health.check import check_health
from tests.conftest import tree_bytes, write


@pytest.mark.rule("PM-CORE-5", "PM-HEALTH-5")
@pytest.mark.parametrize(
    "line",
    [
        "notes/my-plan.md",
        "notes/my-plan.md — listed without a bullet",
        "`notes/my-plan.md`: a code span without a bullet",
        "[Plan](notes/my-plan.md) | a link without a bullet",
        "**notes/my-plan.md** — bold",
        "<notes/my-plan.md>",
    ],
)
def test_the_fix_adds_no_second_line_for_a_file_a_line_without_a_bullet_names(
    memory: Path, line: str
) -> None:
    write(memory, "notes/my-plan.md", "# My plan\n\nText.\n")
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write(f"\n{line}\n")
    problems = {(p.kind, p.path) for p in tree.scan(memory, deep=True).problems}
    assert ("orphan", "notes/my-plan.md") in problems
    proposal = next(
        p for p in check_health(memory, use_cache=False).proposals if p.path == "notes/my-plan.md"
    )
    assert proposal.fix_action == "add"
    before = tree_bytes(memory)
    with pytest.raises(Refused) as refused:
        plan_fix(memory, proposal)
    assert str(refused.value) == (
        "notes/my-plan.md is named by line 7 of _index.md without a list bullet; agents may not read it as a "
        "route: make it a list item."
    )
    assert tree_bytes(memory) == before


@pytest.mark.parametrize(
    "text",
    [
        "notes/a.md\n----------\n",  # a heading with its underline
        "File | Purpose\n---- | -------\nnotes/a.md | removed last week\n",  # a table without a leading pipe
        "notes/a.md: moved to projects/alpha/plan.md\n",  # a sentence
        "notes/YYYY-MM-DD.md — daily notes\n",  # a template
    ],
)
def test_prose_without_a_bullet_is_never_a_route(memory: Path, text: str) -> None:
    """Found in review: read as routes, these became dead routes whose fix dropped the agent's lines."""
    before = {(p.kind, p.path) for p in tree.scan(memory, deep=True).problems}
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("\n" + text)
    after = {(p.kind, p.path) for p in tree.scan(memory, deep=True).problems}
    assert after == before
