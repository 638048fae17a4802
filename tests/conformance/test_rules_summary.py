"""Summary-first (PM-SUM-1..3), seen through the scan, `status` and health, not only the parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core import report, tree
from pmem_tui.core.executor import apply
from pmem_tui.core.health import check_health
from pmem_tui.core.lifecycle import plan_archive, plan_save
from pmem_tui.core.model import SummaryState
from tests.conftest import tree_bytes, write

BULLETS = "- Ships in December.\n- Postgres over SQLite.\n- No network at run time.\n"
FILES = {
    # valid: right after the title and introductory metadata, 3 to 6 bullets
    "projects/meta.md": (
        f"---\nowner: me\n---\n# Meta\n\nUpdated: 2026-11-01\n> a quote\n\n## Summary\n{BULLETS}"
    ),
    "projects/cjk.md": "# 项目\n\n## 摘要\n"
    + "".join(f"- 事实{n}。\n" for n in range(6))
    + "\n## 细节\n正文。\n",
    # invalid: too few, too many bullets
    "notes/two.md": "# Two\n\n## Summary\n- one\n- two\n",
    "notes/seven.md": "# Seven\n\n## Summary\n" + "".join(f"- fact {n}\n" for n in range(7)),
    # missing: no summary, or a summary that is not right after the title
    "notes/plain.md": "# Plain\n\nJust text.\n",
    "notes/late.md": f"# Late\n\n## Detail\ntext\n\n## Summary\n{BULLETS}",
}
EXPECTED = {
    "projects/meta.md": "valid",
    "projects/cjk.md": "valid",
    "notes/two.md": "invalid",
    "notes/seven.md": "invalid",
    "notes/plain.md": "missing",
    "notes/late.md": "missing",
}


def _fill(root: Path) -> None:
    index = "# Index\n\n" + "".join(f"- {p} — {p}\n" for p in FILES)
    write(root, "_index.md", index)
    for path, text in FILES.items():
        write(root, path, text)


@pytest.mark.rule("PM-SUM-1", "PM-SUM-2")
def test_summary_states_in_status(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(memory)
    before = tree_bytes(memory)
    assert main(["--root", str(memory), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    states = {a["path"]: a["summary_state"] for a in data["active"] if a["path"] in FILES}
    assert states == EXPECTED
    problems = {(p["kind"], p["path"]) for p in data["problems"]}
    # Only a summary that is there but malformed is a problem; a missing one is normal (the file is read).
    assert {p for p in problems if p[0] == "invalid-summary"} == {
        ("invalid-summary", "notes/two.md"),
        ("invalid-summary", "notes/seven.md"),
    }
    snap = tree.scan(memory)
    valid = snap.active_file("projects/meta.md")
    assert valid is not None and valid.summary.bullets == (
        "Ships in December.",
        "Postgres over SQLite.",
        "No network at run time.",
    )
    # Nothing fails, nothing is created or migrated by looking.
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-SUM-2", "PM-SAVE-5")
def test_files_without_a_summary_stay_as_they_are_through_save_and_archive(memory: Path) -> None:
    _fill(memory)
    new = FILES["notes/plain.md"] + "\nOne more line.\n"
    plan = plan_save(memory, "notes/plain.md", new.encode())
    assert not [n for n in plan.preview.notes if "Summary" in n]
    apply(plan, memory)
    assert (memory / "notes/plain.md").read_text(encoding="utf-8") == new
    apply(plan_archive(memory, "notes/late.md", "done"), memory)
    assert (memory / "_archive/notes/late.md").read_text(encoding="utf-8") == FILES["notes/late.md"]
    snap = tree.scan(memory)
    plain = snap.active_file("notes/plain.md")
    assert plain is not None and plain.summary.state is SummaryState.MISSING


@pytest.mark.rule("PM-SUM-3", "PM-HEALTH-1")
def test_the_summary_flow_never_applies_to_core_index_or_archive(memory: Path) -> None:
    bad = "# Bad\n\n## Summary\n- only one bullet\n"
    write(memory, "_core/summary-like.md", bad)
    write(memory, "_index.md", (memory / "_index.md").read_text(encoding="utf-8") + "\n## Summary\n- x\n")
    write(memory, "projects/bad.md", bad)
    write(
        memory, "_index.md", (memory / "_index.md").read_text(encoding="utf-8") + "- projects/bad.md — bad\n"
    )
    apply(plan_archive(memory, "projects/bad.md", "bad summary"), memory)
    snap = tree.scan(memory)
    assert [p for p in snap.problems if p.kind == "invalid-summary"] == []
    data = report.status_dict(snap)
    assert all(set(c) == {"path", "bytes"} for c in data["core"])  # no summary state for _core/
    assert all("summary_state" not in a for a in data["archived"] + data["trash"])
    health = check_health(memory, use_cache=False)
    assert [p for p in health.proposals if "invalid-summary" in p.kinds] == []


@pytest.mark.rule("PM-SUM-3", "PM-SAVE-4")
def test_saving_a_core_file_shows_no_summary_revision(memory: Path) -> None:
    write(memory, "_core/profile.md", f"# Profile\n\n## Summary\n{BULLETS}")
    plan = plan_save(memory, "_core/profile.md", f"# Profile\n\n## Summary\n{BULLETS}- A fourth.\n".encode())
    assert not [n for n in plan.preview.notes if "Summary revision" in n]


@pytest.mark.rule("PM-SAVE-4")
def test_an_active_file_summary_change_is_in_the_same_preview(memory: Path) -> None:
    old = (memory / "projects/alpha.md").read_text(encoding="utf-8")
    new = old.replace("Alpha ships the importer in December.", "Alpha ships the importer in January.")
    plan = plan_save(memory, "projects/alpha.md", new.encode())
    notes = "\n".join(plan.preview.notes)
    assert "- Alpha ships the importer in December." in notes
    assert "+ Alpha ships the importer in January." in notes
    assert [d.path for d in plan.preview.diffs] == ["projects/alpha.md"]
