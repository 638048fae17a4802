"""A smoke run of the benchmark (`benchmarks/run.py`, its probes and measures) on 200 files.

It never asserts a time. It checks that the generator is deterministic and writes what it says, that the
runner produces every row of the table with a finite figure and a finite ratio to its floor, and the
structural properties that guard the targets against regressions without timing: the first frame does not
read every memory file, the rows are virtual (the widgets in the DOM do not grow with the files), and
`status --json` does not import Textual.
"""

from __future__ import annotations

import datetime as dt
import functools
import importlib.util
import math
import os
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pmem_tui.core import records, tree
from pmem_tui.core.index import parse_index
from pmem_tui.core.model import SummaryState

# One xdist worker runs this whole module: one smoke run (its module fixture) serves every test.
pytestmark = pytest.mark.xdist_group("benchmarks-smoke")

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
FILES = 200
BIG = 300
VERSIONS = 30


def _load(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _tree(root: Path) -> list[tuple[str, bytes, int]]:
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            out.append((path.relative_to(root).as_posix(), path.read_bytes(), path.stat().st_mtime_ns))
    return sorted(out)


def test_generator_is_deterministic_and_writes_what_it_says(tmp_path: Path) -> None:
    gen = _load("generate")
    mem = gen.generate(tmp_path / "a", FILES, seed=3)
    again = gen.generate(tmp_path / "b", FILES, seed=3)
    assert _tree(mem.root) == _tree(again.root)
    assert len(mem.active) == FILES
    assert mem.near_pairs and mem.exact_pairs and mem.old and mem.orphans and mem.dead_routes
    assert mem.expired_trash and len(mem.expired_trash) < len(mem.trash)

    snap = tree.scan(mem.root, today=gen.TODAY)
    problems = Counter(p.kind for p in snap.problems)
    assert {a.path for a in snap.active} == set(mem.active)
    assert {p.path for p in snap.problems if p.kind == "orphan"} == set(mem.orphans)
    assert {p.path for p in snap.problems if p.kind == "dead-route"} == set(mem.dead_routes)
    assert {p.path for p in snap.problems if p.kind == "duplicate-route"} == set(mem.duplicate_routes)
    assert problems["no-record"] == problems["stale-record"] == problems["unreadable"] == 0
    assert {a.path for a in snap.archived} == set(mem.archived)
    assert {t.path for t in snap.trash if t.expired} == set(mem.expired_trash)
    states = Counter(a.summary.state for a in snap.active)
    assert states[SummaryState.VALID] and states[SummaryState.INVALID] and states[SummaryState.MISSING]

    index_text = (mem.root / "_index.md").read_text(encoding="utf-8")
    assert len(parse_index(index_text)) == mem.index_lines
    assert {e.route for e in parse_index(index_text)} == set(mem.indexed) | set(mem.dead_routes)
    shapes = {line.split(" ", 1)[0] for line in index_text.splitlines() if line[:2] in ("- ", "* ", "1.")}
    assert {"-", "*", "1."} <= shapes

    # The archive index holds exactly the bytes records.add_record writes, record after record.
    archive_text = (mem.root / "_archive/_index.md").read_text(encoding="utf-8")
    recs = records.parse_records(archive_text)
    assert len(recs) == len(mem.archived) + len(mem.trash)
    assert functools.reduce(records.add_record, recs, records.empty_archive_index()) == archive_text

    cutoff = dt.datetime.combine(gen.TODAY - dt.timedelta(days=90), dt.time()).timestamp()
    mtimes = {a.path: a.mtime_ns / 1e9 for a in snap.active}
    assert all(mtimes[p] < cutoff for p in mem.old)
    assert sum(1 for m in mtimes.values() if m < cutoff) == len(mem.old)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, Any, str]:
    """One smoke run for the module: (the report module, its Results, its arguments, the report)."""
    run = _load("run")
    table = _load("report")
    work = tmp_path_factory.mktemp("bench")
    args = run.parse_args(
        [
            "--files",
            str(FILES),
            "--big",
            str(BIG),
            "--runs",
            "1",
            "--samples",
            "3",
            "--save-samples",
            "2",
            "--history-versions",
            str(VERSIONS),
            "--work",
            str(work),
            "--out",
            str(work / "BENCHMARKS.md"),
        ]
    )
    res = run.run_all(args, log=lambda _line: None)
    text = table.report(res, args)
    table.write_out(Path(args.out), text)
    return table, res, args, text


def test_every_row_is_produced_with_a_finite_ratio(results: tuple[Any, Any, Any, str]) -> None:
    table, res, _args, text = results
    produced = {(r.target, r.measure, r.files) for r in res.rows}
    missing = [row for row in table.expected_rows(FILES, BIG, VERSIONS) if row not in produced]
    assert not missing
    for row in res.rows:
        assert row.kind != "pending", row
        if row.kind in ("floor", "time"):
            assert row.n >= 1, row
            assert math.isfinite(row.median) and math.isfinite(row.p95) and row.median >= 0, row
        if row.kind == "time":
            assert row.ratio is not None and math.isfinite(row.ratio) and row.ratio > 0, row
            if row.measure not in table.INFO_LABELS:
                assert row.met is not None and row.limit, row
        assert f"| {row.target} | {row.measure} |" in text


def test_structural_guards(results: tuple[Any, Any, Any, str]) -> None:
    table, res, _args, _text = results
    # Nothing reads every file before the first frame: only the previewed file (or none) is opened.
    for n in (FILES, BIG):
        opened = next(r for r in res.rows if r.measure == table.L_OPENED and r.files == n)
        assert opened.median <= 2, opened
    # The rows are virtual: the DOM has the same widgets at 200 and 300 files, far fewer than rows.
    widgets = res.find("1", table.L_WIDGETS)
    assert widgets is not None and widgets.met, widgets
    assert widgets.median < FILES
    assert {v["widgets"] for v in res.info["tui"].values()} == {res.info["tui"][FILES]["widgets"]}
    assert res.info["tui"][FILES]["rows"] > FILES  # every route and orphan is a row
    # Non-TUI commands never import Textual.
    status_ui = res.find("5", table.L_STATUS_UI)
    assert status_ui is not None and status_ui.met, status_ui


def test_the_table_is_written_between_its_markers(results: tuple[Any, Any, Any, str], tmp_path: Path) -> None:
    table, _res, args, text = results
    written = Path(args.out).read_text(encoding="utf-8")
    assert table.MARK_BEGIN in written and table.MARK_END in written and text in written
    notes = tmp_path / "B.md"
    notes.write_text(
        f"# Benchmarks\n\nintro\n\n{table.MARK_BEGIN}\nstale table\n{table.MARK_END}\n\n## Notes\nkept\n"
    )
    table.write_out(notes, text)
    kept = notes.read_text(encoding="utf-8")
    assert kept.startswith("# Benchmarks\n\nintro\n\n") and kept.endswith("## Notes\nkept\n")
    assert "stale table" not in kept and text in kept
