"""`_index.md` lines without a list bullet (found in trial: an agent wrote `notes/bare.md` alone on a line;
pmem-tui called the file an orphan and the health fix `f` listed it a second time, so an agent reading the
index saw the file twice). A bullet-less line that cannot be prose names a route everywhere: the scan
(orphans, dead and duplicate routes), `status`, health and its fixes, archive and recover (byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmem_tui.core import records, tree
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.fix_planner import plan_fix
from pmem_tui.core.health.check import check_health
from pmem_tui.core.lifecycle import plan_archive, plan_delete, plan_recover, plan_save
from tests.conftest import command_output, tree_bytes, write

BARE = "notes/bare.md — listed without a bullet"
SPAN = "`notes/span.md`: a code span without a bullet"
LINK = "[Linked](projects/linked.md) | a link without a bullet"
PROSE = "notes/prose.md is stale and should be merged"


def _with_bulletless_lines(root: Path, eol: str = "\n", final: bool = True) -> Path:
    for rel in ("notes/bare.md", "notes/span.md", "projects/linked.md", "notes/prose.md"):
        write(root, rel, f"# {rel}\n\nText.\n")
    index = (root / "_index.md").read_text(encoding="utf-8")
    lines = [*index.splitlines(), BARE, SPAN, LINK, PROSE]
    write(root, "_index.md", eol.join(lines) + (eol if final else ""))
    return root


def _problems(root: Path, deep: bool) -> set[tuple[str, str]]:
    return {(p.kind, p.path) for p in tree.scan(root, deep=deep).problems if p.kind != "invalid-summary"}


@pytest.mark.rule("PM-CORE-5")
@pytest.mark.parametrize("deep", [False, True])
def test_a_file_listed_without_a_bullet_is_not_an_orphan(memory: Path, deep: bool) -> None:
    _with_bulletless_lines(memory)
    snap = tree.scan(memory, deep=deep)
    lines = {a.path: a.entry.raw if a.entry else None for a in snap.active}
    assert (lines["notes/bare.md"], lines["notes/span.md"], lines["projects/linked.md"]) == (BARE, SPAN, LINK)
    assert lines["notes/prose.md"] is None  # prose that names a file is not a route
    assert _problems(memory, deep) == {("orphan", "notes/prose.md")}


@pytest.mark.rule("PM-CORE-5", "PM-HEALTH-5")
def test_health_proposes_no_second_line_for_a_file_listed_without_a_bullet(memory: Path) -> None:
    _with_bulletless_lines(memory)
    report = check_health(memory, use_cache=False)
    adds = {p.path: p.fix for p in report.proposals if p.fix_action == "add"}
    assert set(adds) == {"notes/prose.md"}


@pytest.mark.rule("PM-CORE-5", "PM-HEALTH-5")
def test_dead_and_duplicate_routes_without_a_bullet_are_fixed_by_dropping_that_line(memory: Path) -> None:
    index = (memory / "_index.md").read_text(encoding="utf-8")
    write(memory, "_index.md", index + "notes/gone.md — its file is gone\nnotes/standup.md\n")
    assert {("dead-route", "notes/gone.md"), ("duplicate-route", "notes/standup.md")} <= _problems(
        memory, True
    )
    props = {p.path: p for p in check_health(memory, use_cache=False).proposals}
    assert (props["notes/gone.md"].fix_action, props["notes/gone.md"].fix) == (
        "drop",
        "notes/gone.md — its file is gone",
    )
    assert (props["notes/standup.md"].fix_action, props["notes/standup.md"].fix) == (
        "drop",
        "notes/standup.md",
    )
    apply(plan_fix(memory, props["notes/gone.md"]), memory)
    apply(plan_fix(memory, props["notes/standup.md"]), memory)
    assert (memory / "_index.md").read_text(encoding="utf-8") == index  # the first, bulleted line stays


@pytest.mark.rule("PM-ARC-4", "PM-ARC-5", "PM-REC-4", "PM-AGENT-2")
@pytest.mark.parametrize(("eol", "final"), [("\n", True), ("\r\n", True), ("\r\n", False)])
@pytest.mark.parametrize("via_trash", [False, True])
def test_archive_and_recover_a_file_listed_without_a_bullet_byte_for_byte(
    memory: Path, eol: str, final: bool, via_trash: bool
) -> None:
    _with_bulletless_lines(memory, eol, final)
    before = tree_bytes(memory)
    for rel, line in (("notes/bare.md", BARE), ("projects/linked.md", LINK)):
        plan = plan_archive(memory, rel, "parked")
        assert plan.preview.index_removed == (line,)
        apply(plan, memory)
        if via_trash:
            apply(plan_delete(memory, rel), memory)
        rec = records.parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))[-1]
        assert (rec.path, rec.index_line) == (rel, line)
        assert line not in (memory / "_index.md").read_text(encoding="utf-8")
    for rel in ("projects/linked.md", "notes/bare.md"):
        apply(plan_recover(memory, rel), memory)
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-SAVE-3", "PM-AGENT-2")
def test_saving_a_file_listed_without_a_bullet_keeps_its_line(memory: Path) -> None:
    _with_bulletless_lines(memory)
    index = (memory / "_index.md").read_bytes()
    plan = plan_save(memory, "notes/bare.md", b"# Bare\n\nNew text.\n")
    assert plan.preview.index_added == () and plan.preview.index_removed == ()
    apply(plan, memory)
    assert (memory / "_index.md").read_bytes() == index


@pytest.mark.rule("PM-STATUS-1")
def test_status_names_the_line_without_a_bullet(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _with_bulletless_lines(memory)
    data = json.loads(command_output(capsys, "status")(memory, "--json", "--no-cache"))
    lines = {a["path"]: a["index_line"] for a in data["active"]}
    assert (lines["notes/bare.md"], lines["notes/span.md"], lines["notes/prose.md"]) == (BARE, SPAN, None)
    assert {p["path"] for p in data["problems"] if p["kind"] == "orphan"} == {"notes/prose.md"}
    text = command_output(capsys, "status")(memory, "--no-cache")
    assert "notes/bare.md" in text and "listed without a bullet" in text


@pytest.mark.rule("PM-CORE-5", "PM-HEALTH-5")
@pytest.mark.parametrize(
    "line",
    ["notes/my plan.md — whitespace in a bare path", "**notes/my plan.md** — bold", "<notes/my plan.md>"],
)
def test_the_fix_adds_no_second_line_for_a_file_a_line_without_a_bullet_names_ambiguously(
    memory: Path, line: str
) -> None:
    """Shapes not read without a bullet (they may be prose): the file stays an orphan, but its fix refuses
    to list it again, since an agent may read that line as its route."""
    write(memory, "notes/my plan.md", "# My plan\n\nText.\n")
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write(f"\n{line}\n")
    assert ("orphan", "notes/my plan.md") in _problems(memory, True)
    proposal = next(
        p for p in check_health(memory, use_cache=False).proposals if p.path == "notes/my plan.md"
    )
    assert proposal.fix_action == "add"
    before = tree_bytes(memory)
    with pytest.raises(Refused) as refused:
        plan_fix(memory, proposal)
    assert str(refused.value) == (
        "notes/my plan.md is named by line 7 of _index.md without a list bullet; agents may not read it as a "
        "route: make it a list item."
    )
    assert tree_bytes(memory) == before
