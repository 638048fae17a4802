"""Every record shape an agent writes by hand, in every file variant, through every action: bytes only change
where the action is about (PM-AGENT-1, PM-AGENT-2)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from pmem_tui.core.records import find_record, parse_records
from tests.agents.agent_roots import (
    ACTIVE_INDEX,
    OLD_LINE,
    SHAPE_REASON,
    SHAPES,
    VARIANTS,
    X_LINE,
    Built,
    Pm,
    Variant,
    build,
    changes_outside,
    read,
    shape,
)
from tests.conftest import tree_bytes

D = dt.date
CASES = [pytest.param(s, v, id=f"{s}-{v}") for s in SHAPES for v in VARIANTS]


def _others(text: str) -> list[tuple[str, str | None]]:
    return [(r.path, r.index_line) for r in parse_records(text) if r.path != "projects/old.md"]


def _built(tmp_path: Path, name: str, variant: str) -> tuple[Built, Variant]:
    v = VARIANTS[variant]
    return build(tmp_path, name, v), v


@pytest.mark.rule("PM-AGENT-1")
@pytest.mark.parametrize(("name", "variant"), CASES)
def test_status_reads_the_record_and_finds_the_file(tmp_path: Path, pm: Pm, name: str, variant: str) -> None:
    b, v = _built(tmp_path, name, variant)
    before = tree_bytes(b.root)
    got = pm(b.root, "status", "--json", "--no-cache")
    assert got.code == 0, got.err
    status = json.loads(got.out)
    [old] = [a for a in status["archived"] if a["path"] == "projects/old.md"]
    assert old["location"] == v.location
    assert old["index_line"] == OLD_LINE
    assert old["archived"] == "2026-11-01"
    assert old["reason"] == SHAPE_REASON.get(name, "shipped")
    assert not [p for p in status["problems"] if "old.md" in p["path"]], status["problems"]
    if v.final_newline:  # the agent's list record under it is read too
        assert ("notes/x.md", X_LINE) in _others(b.archive)
    assert tree_bytes(b.root) == before


@pytest.mark.rule("PM-AGENT-1", "PM-AGENT-2", "PM-DEL-3", "PM-REC-5")
@pytest.mark.parametrize(("name", "variant"), CASES)
def test_delete_then_recover_change_only_the_record(tmp_path: Path, pm: Pm, name: str, variant: str) -> None:
    b, v = _built(tmp_path, name, variant)
    got = pm(b.root, "delete", "projects/old.md", "--yes")
    assert got.code == 0, got.err
    assert not (b.root / v.location).exists()
    assert (b.root / "_archive/_trash/projects/old.md").is_file()
    deleted = read(b.root, "_archive/_index.md")
    assert changes_outside(b.archive, deleted, b.lo, b.hi) == []
    rec, was = (find_record(parse_records(t), "projects/old.md") for t in (deleted, b.archive))
    assert rec is not None and was is not None and rec.layout == was.layout  # updated in its own shape
    assert (rec.index_line, rec.deleted, rec.deadline) == (OLD_LINE, D(2026, 11, 30), D(2026, 12, 30))
    assert _others(deleted) == _others(b.archive)
    assert read(b.root, "_index.md") == b.index

    got = pm(b.root, "recover", "projects/old.md", "--yes")
    assert got.code == 0, got.err
    assert (b.root / "projects/old.md").read_bytes() == b"# Old\n\nThe old importer.\n"
    # A hand-written record has no neighbours: the line goes at the end, byte for byte; nothing else moves.
    assert read(b.root, "_index.md") == shape(ACTIVE_INDEX + OLD_LINE + "\n", v)
    recovered = read(b.root, "_archive/_index.md")
    assert changes_outside(b.archive, recovered, b.lo, b.hi) == []
    assert find_record(parse_records(recovered), "projects/old.md") is None
    assert _others(recovered) == _others(b.archive)


@pytest.mark.rule("PM-AGENT-1", "PM-AGENT-2", "PM-REC-5")
@pytest.mark.parametrize(("name", "variant"), CASES)
def test_recover_from_the_archive_removes_only_the_record(
    tmp_path: Path, pm: Pm, name: str, variant: str
) -> None:
    b, v = _built(tmp_path, name, variant)
    preview = pm(b.root, "recover", "projects/old.md")
    assert preview.code == 0 and f"move    {v.location} -> projects/old.md" in preview.out
    got = pm(b.root, "recover", "projects/old.md", "--yes")
    assert got.code == 0, got.err
    assert not (b.root / v.location).exists()
    assert read(b.root, "_index.md") == shape(ACTIVE_INDEX + OLD_LINE + "\n", v)
    after = read(b.root, "_archive/_index.md")
    assert changes_outside(b.archive, after, b.lo, b.hi) == []
    assert _others(after) == _others(b.archive)


@pytest.mark.rule("PM-AGENT-2", "PM-DEL-4")
@pytest.mark.parametrize(("name", "variant"), CASES)
def test_purge_removes_only_the_expired_record(
    tmp_path: Path, pm: Pm, monkeypatch: pytest.MonkeyPatch, name: str, variant: str
) -> None:
    b, _v = _built(tmp_path, name, variant)
    assert pm(b.root, "delete", "projects/old.md", "--yes").code == 0
    monkeypatch.setenv("PMEM_TUI_TODAY", "2027-01-15")
    got = pm(b.root, "purge", "--yes")
    assert got.code == 0, got.err
    assert not (b.root / "_archive/_trash/projects/old.md").exists()
    after = read(b.root, "_archive/_index.md")
    assert changes_outside(b.archive, after, b.lo, b.hi) == []
    assert find_record(parse_records(after), "projects/old.md") is None
    assert _others(after) == _others(b.archive)


@pytest.mark.rule("PM-AGENT-2", "PM-ARC-5")
@pytest.mark.parametrize(("name", "variant"), CASES)
def test_archive_appends_without_touching_the_agent_text(
    tmp_path: Path, pm: Pm, name: str, variant: str
) -> None:
    b, v = _built(tmp_path, name, variant)
    got = pm(b.root, "archive", "projects/keep.md", "--reason", "done", "--yes")
    assert got.code == 0, got.err
    after = read(b.root, "_archive/_index.md")
    assert after.startswith(b.archive if v.final_newline else b.archive + v.eol)
    assert read(b.root, "_index.md") == b.index.replace("- [Keep](projects/keep.md) — kept" + v.eol, "")
    assert [r.path for r in parse_records(after)][-1] == "projects/keep.md"
