"""Issue 13's defects 1-4 and 7, each reproduced on a root written as an agent writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmem_tui.core import lifecycle
from pmem_tui.core.health import check_health
from pmem_tui.core.records import find_record, parse_records
from pmem_tui.core.secrets import find_secrets
from tests.agents.agent_roots import OLD_LINE, X_LINE, Pm, read
from tests.conftest import tree_bytes, write

INDEX = "# Index\n\n## Projects\n- [Keep](projects/keep.md) — kept\n"


def _root(tmp_path: Path, archive: str, files: dict[str, str], index: str = INDEX) -> Path:
    root = tmp_path / "mem"
    for d in ("_core", "projects", "notes", "_archive/_trash"):
        (root / d).mkdir(parents=True, exist_ok=True)
    write(root, "_core/me.md", "# Me\n")
    write(root, "_index.md", index)
    write(root, "projects/keep.md", "# Keep\n")
    write(root, "_archive/_index.md", archive)
    for rel, text in files.items():
        write(root, rel, text)
    return root


RECORD = (
    "## projects/old.md\n"
    "- Original path: projects/old.md\n"
    f"- Index line: `{OLD_LINE}`\n"
    "- Archived: 2026-11-01\n"
    "- Reason: shipped\n"
)


# -- defect 1: an agent's literal archive -------------------------------------------------------------


@pytest.mark.rule("PM-AGENT-1", "PM-REC-1", "PM-REC-6")
def test_literal_archive_is_shown_and_recovered(tmp_path: Path, pm: Pm) -> None:
    root = _root(tmp_path, "# Archive index\n\n" + RECORD, {"_archive/old.md": "# Old\n"})
    status = json.loads(pm(root, "status", "--json", "--no-cache").out)
    assert [(a["path"], a["location"]) for a in status["archived"]] == [
        ("projects/old.md", "_archive/old.md")
    ]
    assert status["problems"] == []
    assert "  projects/old.md (at _archive/old.md)  archived 2026-11-01  shipped\n" in pm(root, "status").out
    got = pm(root, "recover", "projects/old.md", "--yes")
    assert got.code == 0, got.err
    assert got.out.strip() == "Recovered projects/old.md from _archive/old.md to projects/old.md."
    assert read(root, "projects/old.md") == "# Old\n"
    assert read(root, "_index.md") == INDEX + OLD_LINE + "\n"
    assert read(root, "_archive/_index.md") == "# Archive index\n"


@pytest.mark.rule("PM-AGENT-1", "PM-DEL-5")
def test_literal_trash_is_recovered_and_purged(
    tmp_path: Path, pm: Pm, monkeypatch: pytest.MonkeyPatch
) -> None:
    deleted = RECORD + "- Deleted: 2026-11-20\n"
    root = _root(tmp_path, "# Archive index\n\n" + deleted, {"_archive/_trash/old.md": "# Old\n"})
    status = json.loads(pm(root, "status", "--json", "--no-cache").out)
    assert [(t["path"], t["location"]) for t in status["trash"]] == [
        ("projects/old.md", "_archive/_trash/old.md")
    ]
    assert status["problems"] == []
    assert "The memory's files need no repair" in pm(root, "doctor").out  # no second record is rebuilt for it
    monkeypatch.setenv("PMEM_TUI_TODAY", "2027-01-01")
    assert [t.path for t in check_health(root).expired_trash] == ["projects/old.md"]
    assert pm(root, "purge", "--yes").code == 0
    assert not (root / "_archive/_trash/old.md").exists()
    assert read(root, "_archive/_index.md") == "# Archive index\n"


@pytest.mark.rule("PM-AGENT-1")
def test_a_location_field_names_the_file(tmp_path: Path, pm: Pm) -> None:
    record = RECORD + "- Moved to: `_archive/2026/old-importer.md`\n"
    root = _root(
        tmp_path, record, {"_archive/2026/old-importer.md": "# Old\n", "_archive/old.md": "# other\n"}
    )
    got = pm(root, "recover", "projects/old.md", "--yes")
    assert got.code == 0, got.err
    assert read(root, "projects/old.md") == "# Old\n"
    assert (root / "_archive/old.md").exists()


@pytest.mark.rule("PM-AGENT-1", "PM-SAFE-4")
def test_two_candidate_files_are_refused_naming_both(tmp_path: Path, pm: Pm) -> None:
    files = {"_archive/old.md": "# Old 1\n", "_archive/2026/old.md": "# Old 2\n"}
    root = _root(tmp_path, RECORD, files)
    before = tree_bytes(root)
    got = pm(root, "recover", "projects/old.md", "--yes")
    assert got.code == 1 and got.out == ""
    assert got.err.count("\n") == 1
    assert "_archive/old.md" in got.err and "_archive/2026/old.md" in got.err
    assert pm(root, "delete", "projects/old.md", "--yes").code == 1
    assert tree_bytes(root) == before
    status = json.loads(pm(root, "status", "--json", "--no-cache").out)
    assert [p["kind"] for p in status["problems"] if p["path"] == "projects/old.md"] == ["ambiguous-record"]


@pytest.mark.rule("PM-AGENT-1", "PM-SAFE-4")
def test_one_file_claimed_by_two_records_is_refused(tmp_path: Path, pm: Pm) -> None:
    other = RECORD.replace("projects/old.md", "notes/old.md")
    root = _root(tmp_path, RECORD + "\n" + other, {"_archive/old.md": "# Old\n"})
    before = tree_bytes(root)
    got = pm(root, "recover", "notes/old.md", "--yes")
    assert got.code == 1
    assert "_archive/old.md" in got.err and "projects/old.md" in got.err
    assert tree_bytes(root) == before


# -- defect 2: removing a record keeps the agent's text under it ----------------------------------------


@pytest.mark.rule("PM-AGENT-2", "PM-REC-5")
@pytest.mark.parametrize("gap", ["", "\n"])
def test_recover_keeps_a_list_record_written_under_the_section(tmp_path: Path, pm: Pm, gap: str) -> None:
    below = f"- notes/x.md — archived 2026-10-01 — reason: done — index line: `{X_LINE}`\nKept note.\n"
    archive = "# Archive index\n\n" + RECORD + gap + below
    root = _root(tmp_path, archive, {"_archive/projects/old.md": "# Old\n", "_archive/notes/x.md": "# X\n"})
    preview = pm(root, "recover", "projects/old.md")
    assert "Remove the record of projects/old.md, lines 3-7 of _archive/_index.md" in preview.out
    assert "notes/x.md" not in preview.out.split("--- a/_archive/_index.md")[1].replace(
        " " + below.split("\n")[0], ""
    )
    assert pm(root, "recover", "projects/old.md", "--yes").code == 0
    assert read(root, "_archive/_index.md") == "# Archive index\n\n" + below
    x = find_record(parse_records(read(root, "_archive/_index.md")), "notes/x.md")
    assert x is not None and x.index_line == X_LINE
    assert pm(root, "recover", "notes/x.md", "--yes").code == 0
    assert read(root, "_index.md") == INDEX + OLD_LINE + "\n" + X_LINE + "\n"


# -- defect 3: a table-row record is updated in its own shape ------------------------------------------


@pytest.mark.rule("PM-AGENT-2", "PM-DEL-3")
def test_delete_updates_a_table_row_in_place(tmp_path: Path, pm: Pm) -> None:
    table = (
        "# Archive index\n\n| File | Index line | Archived | Reason |\n|---|---|---|---|\n"
        f"| projects/old.md | `{OLD_LINE}` | 2026-11-01 | shipped |\n"
        "| notes/x.md | `- notes/x.md — x` | 2026-10-01 | done |\n"
    )
    root = _root(tmp_path, table, {"_archive/projects/old.md": "# Old\n", "_archive/notes/x.md": "# X\n"})
    assert pm(root, "delete", "projects/old.md", "--yes").code == 0
    assert read(root, "_archive/_index.md") == (
        "# Archive index\n\n| File | Index line | Archived | Reason | Deleted | Recovery deadline |\n"
        "|---|---|---|---|---|---|\n"
        f"| projects/old.md | `{OLD_LINE}` | 2026-11-01 | shipped | 2026-11-30 | 2026-12-30 |\n"
        "| notes/x.md | `- notes/x.md — x` | 2026-10-01 | done |\n"
    )
    recs = parse_records(read(root, "_archive/_index.md"))
    assert [(r.path, r.layout, r.deleted is not None) for r in recs] == [
        ("projects/old.md", "table", True),
        ("notes/x.md", "table", False),
    ]


# -- defect 4: a route listed twice -------------------------------------------------------------------

KEEP = "- [Keep](projects/keep.md) — k"
DUPLICATES = {
    "apart": f"# Index\n\n## A\n- [Dup](projects/dup.md) — one\n{KEEP}\n\n## B\n- projects/dup.md — two\n",
    "adjacent": f"# Index\n- [Dup](projects/dup.md) — one\n- projects/dup.md — two\n{KEEP}\n",
    "identical": f"# Index\n- projects/dup.md — same\n{KEEP}\n- projects/dup.md — same\n",
    "crlf-no-final": f"# Index\r\n- projects/dup.md — a\r\n{KEEP}\r\n- projects/dup.md — b",
}


@pytest.mark.rule("PM-AGENT-2", "PM-ARC-5", "PM-REC-4")
@pytest.mark.parametrize("name", list(DUPLICATES))
def test_a_duplicate_route_keeps_and_restores_every_line(tmp_path: Path, pm: Pm, name: str) -> None:
    index = DUPLICATES[name]
    root = _root(tmp_path, "# Archive index\n", {"projects/dup.md": "# Dup\n"}, index=index)
    preview = pm(root, "archive", "projects/dup.md", "--reason", "done")
    assert "puts the file and its 2 index lines back" in preview.out
    assert pm(root, "archive", "projects/dup.md", "--reason", "done", "--yes").code == 0
    assert "projects/dup.md" not in read(root, "_index.md")
    rec = find_record(parse_records(read(root, "_archive/_index.md")), "projects/dup.md")
    assert rec is not None and len(rec.more_lines) == 1
    assert pm(root, "recover", "projects/dup.md", "--yes").code == 0
    assert read(root, "_index.md") == index
    assert read(root, "_archive/_index.md") == "# Archive index\n"


# -- defect 7: the smaller ones -----------------------------------------------------------------------


@pytest.mark.rule("PM-DEL-1", "PM-ARC-2")
def test_cli_delete_on_an_active_file_prints_the_archive_preview(tmp_path: Path, pm: Pm) -> None:
    root = _root(tmp_path, "# Archive index\n", {})
    before = tree_bytes(root)
    got = pm(root, "delete", "projects/keep.md", "--reason", "superseded")
    assert got.code == 0, got.err
    assert "Here is the archive preview instead" in got.out
    assert "move    projects/keep.md -> _archive/projects/keep.md" in got.out
    assert "reason: superseded" in got.out and "Preview only" in got.out
    refused = pm(root, "delete", "projects/keep.md", "--yes")  # --yes never archives unseen
    assert refused.code == 1 and "archive it first" in refused.err
    assert tree_bytes(root) == before


@pytest.mark.rule("PM-FIRST-1")
def test_first_save_reports_the_structure_it_created(tmp_path: Path, pm: Pm) -> None:
    source = write(tmp_path, "in.md", "# Plan\n\n## Summary\n- The plan.\n")
    got = pm(tmp_path / "fresh", "save", "projects/plan.md", "--from", str(source), "--yes")
    assert got.code == 0, got.err
    assert (
        "Created _core, projects, notes, _archive, _archive/_trash, _index.md, _archive/_index.md." in got.out
    )


@pytest.mark.rule("PM-SAFE-6")
def test_archive_without_an_index_line_does_not_promise_one(tmp_path: Path) -> None:
    root = _root(tmp_path, "# Archive index\n", {"notes/loose.md": "# Loose\n"})
    plan = lifecycle.plan_archive(root, "notes/loose.md", "old")
    text = " ".join([*plan.preview.notes, plan.preview.recovery])
    assert "recovering it will need one" in text
    assert "index line back" not in text


@pytest.mark.rule("PM-CORE-6")
@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("the wifi password is hunter2", True),
        ("my PIN is 4821", True),
        ("The password for the router is Tr0ub4dor&3.", True),
        ("my pin code is 123456", True),
        ("the password is required", False),
        ("the password is long and random", False),
        ("the password is stored in 1Password", False),
        ("the PIN is 4 digits", False),
        ("pin 2026 as the release year", False),
    ],
)
def test_prose_passwords_and_pins_are_secrets(line: str, secret: bool) -> None:
    assert bool(find_secrets(line)) is secret


@pytest.mark.rule("PM-AGENT-1")
def test_a_file_at_another_paths_own_place_is_not_guessed(tmp_path: Path, pm: Pm) -> None:
    root = _root(tmp_path, RECORD, {"_archive/notes/old.md": "# Notes old\n"})
    status = json.loads(pm(root, "status", "--json", "--no-cache").out)
    assert [a["path"] for a in status["archived"]] == ["notes/old.md"]
    assert {(p["kind"], p["path"]) for p in status["problems"]} == {
        ("no-record", "notes/old.md"),
        ("stale-record", "projects/old.md"),
    }


@pytest.mark.rule("PM-AGENT-1")
def test_a_second_index_line_field_is_a_second_line_unless_it_repeats_the_first() -> None:
    text = (
        "## notes/a.md\n- Index line: `- notes/a.md — a`\n- Entry: `- notes/a.md — a`\n"
        "- Index line: `- notes/a.md — b`\n- Line above: `## B`\n"
    )
    [rec] = parse_records(text)
    assert rec.index_line == "- notes/a.md — a" and rec.after is None
    assert [(p.line, p.after) for p in rec.more_lines] == [("- notes/a.md — b", "## B")]
