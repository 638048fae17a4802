"""`_index.md` lines without a list bullet (found in trial: an agent wrote `notes/bare.md — …` without
a bullet; pmem-tui called the file an orphan and the health fix `f` listed it a second time, so an agent
reading the index saw the file twice). Such a line is not read as a route: without a bullet it may be prose
(a heading over its underline, a table row, a sentence, a template: found in review when they were read as
routes, and archive or a health fix removed them). The file stays an orphan, told so; no fix lists it
again."""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from pathlib import Path

import pytest

from pmem_tui.core import cache, tree
from pmem_tui.core.errors import Refused
from pmem_tui.core.fix_planner import plan_fix
from pmem_tui.core.health.check import check_health
from tests.conftest import tree_bytes, write

TOLD = "named in _index.md only by line 7, which is not a list item (`- `); fix: make that line a list item"


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
    stale = next(  # a proposal made before the agent wrote the line
        p for p in check_health(memory, use_cache=False).proposals if p.path == "notes/my-plan.md"
    )
    assert stale.fix_action == "add"
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write(f"\n{line}\n")
    for deep in (True, False):
        problems = {(p.kind, p.path): p.detail for p in tree.scan(memory, deep=deep).problems}
        assert problems[("orphan", "notes/my-plan.md")] == TOLD
    # Found in review: the health check and the app said "not in _index.md", which is false; no fix is
    # offered (a second line would name the file twice), the sentence says what to do by hand.
    proposal = next(
        p for p in check_health(memory, use_cache=False).proposals if p.path == "notes/my-plan.md"
    )
    assert [(s.kind, s.detail) for s in proposal.signals] == [("orphan", TOLD)]
    assert proposal.fix is None and proposal.fix_action is None
    before = tree_bytes(memory)
    with pytest.raises(Refused) as refused:
        plan_fix(memory, stale)
    assert str(refused.value) == f"notes/my-plan.md is {TOLD}."
    assert tree_bytes(memory) == before


def test_the_app_rows_say_the_line_is_not_a_list_item(memory: Path) -> None:
    from pmem_tui.tui.health_review import proposal_row
    from pmem_tui.tui.index_rows import IndexRows

    write(memory, "notes/my-plan.md", "# My plan\n\nText.\n")
    write(memory, "notes/lost.md", "# Lost\n\nText.\n")
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("\nnotes/my-plan.md — no bullet\n")
    rows = {r.path: r for r in IndexRows(tree.scan(memory, deep=False)) if r.kind == "orphan"}
    told, lost = rows["notes/my-plan.md"], rows["notes/lost.md"]
    assert (told.cells[2], told.note, told.in_index) == (
        "not a list item",
        f"{TOLD[0].upper()}{TOLD[1:]}.",
        None,
    )
    assert (lost.cells[2], lost.in_index) == ("not in _index.md", False)
    proposals = {p.path: p for p in check_health(memory, use_cache=False).proposals}
    assert proposal_row(proposals["notes/my-plan.md"], memory).in_index is None
    assert proposal_row(proposals["notes/lost.md"], memory).in_index is False


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


@pytest.mark.parametrize("orphan_first", [True, False])
def test_the_health_cache_keeps_what_the_line_is(memory: Path, orphan_first: bool) -> None:
    """The index's lines without a bullet are cached with its entries (the index is not read again on a
    warm run), and looked for when a file appears after a run that had no orphan."""
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("\nnotes/my-plan.md — no bullet\n")
    if orphan_first:
        write(memory, "notes/my-plan.md", "# My plan\n\nText.\n")
    check_health(memory)
    if not orphan_first:
        write(memory, "notes/my-plan.md", "# My plan\n\nText.\n")
    proposals = {p.path: p for p in check_health(memory, today=dt.date(2030, 1, 1)).proposals}
    assert [s.detail for s in proposals["notes/my-plan.md"].signals if s.kind == "orphan"] == [TOLD]


@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_an_index_of_list_items_is_not_decoded_again_and_a_bom_changes_nothing(
    memory: Path, bom: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in a benchmark: the scan read and decoded `_index.md` a second time whenever a file was an
    orphan, to find lines without a bullet (+3.7 MB at the scan's peak on 10,000 notes). The app's scan hands
    over the bytes it keeps, and they are decoded only when a line without a bullet names a `.md`."""
    from pmem_tui.core import index, safeio

    write(memory, "notes/lost.md", "# Lost\n\nText.\n")
    text = (memory / "_index.md").read_text(encoding="utf-8")
    (memory / "_index.md").write_text(bom + text, encoding="utf-8")
    reads: list[str] = []
    decoded: list[str] = []
    real_read, real_routes = safeio.read_under, index.unbulleted_routes
    monkeypatch.setattr(
        safeio, "read_under", lambda root, rel, *a: reads.append(rel) or real_read(root, rel, *a)
    )
    monkeypatch.setattr(index, "unbulleted_routes", lambda t: decoded.append(t) or real_routes(t))
    (lost,) = [p for p in tree.scan(memory, deep=False).problems if p.kind == "orphan"]
    assert lost.detail == "on disk but not in _index.md"
    assert "_index.md" not in reads and not decoded
    # A deep scan (`status`) finds them in the text it read once (found reading the change: read twice).
    reads.clear()
    (deep,) = [p for p in tree.scan(memory, deep=True, cache=True).problems if p.kind == "orphan"]
    assert deep.detail == lost.detail and reads.count("_index.md") == 1  # the scan's own read only
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("\nnotes/lost.md — no bullet\n")
    (told,) = [p for p in tree.scan(memory, deep=False).problems if p.kind == "orphan"]
    assert told.detail.startswith("named in _index.md only by line")


@pytest.mark.rule("PM-CORE-5")
def test_the_problem_and_the_signal_say_the_line_the_rows_are_told_by_it(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app told "not a list item" from "not in _index.md" by comparing the sentence with the plain one
    (in the Index rows and the health review): the scan's problem and the health signal now carry the line
    (`Problem.unbulleted`, `Signal.unbulleted`), and a reworded sentence changes nothing."""
    from pmem_tui.tui.health_review import proposal_row
    from pmem_tui.tui.rows import orphan_details

    write(memory, "notes/my-plan.md", "# My plan\n\nText.\n")
    write(memory, "notes/lost.md", "# Lost\n\nText.\n")
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("\nnotes/my-plan.md — no bullet\n")
    for deep in (True, False):
        problems = [p for p in tree.scan(memory, deep=deep).problems if p.kind == "orphan"]
        assert {p.path: p.unbulleted for p in problems} == {"notes/my-plan.md": 7, "notes/lost.md": None}
        reworded = [dataclasses.replace(p, detail="reworded") for p in problems]
        assert orphan_details(reworded) == {"notes/my-plan.md": "reworded"}
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)  # out of the racy window
    for reused in (False, True):  # the health cache keeps the line
        report = check_health(memory)
        assert (report.stats.cache == "report") is reused
        proposals = {p.path: p for p in report.proposals}
        assert [s.unbulleted for s in proposals["notes/my-plan.md"].signals] == [7]
        assert [s.unbulleted for s in proposals["notes/lost.md"].signals] == [None]
    for path, in_index in (("notes/my-plan.md", None), ("notes/lost.md", False)):
        signals = tuple(dataclasses.replace(s, detail="reworded") for s in proposals[path].signals)
        assert proposal_row(dataclasses.replace(proposals[path], signals=signals)).in_index is in_index
