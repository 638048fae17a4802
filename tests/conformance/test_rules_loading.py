"""Loading and status (PM-LOAD-1..3, PM-STATUS-1..2), read for a TUI.

pmem-tui is not an agent: it loads nothing into a context. What it must not do is read what normal loading
never reads, or claim more than the baseline. `docs/conformance-reasons.md` says how these rules are read:

* The scan behind the app's panes and `status` lists archived and trashed files (a directory listing and a
  `stat`), but never opens them: their contents are read only when the person asks for that file.
* `_archive/_index.md` is read as a control file, so the Archive and Trash panes (and `status`) can show each
  record's date and reason; the baseline an agent loads never includes it.
* Which on-demand file to open is decided from its one-line summary in `_index.md`: a shallow scan shows every
  active file with its summary without opening any of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core import report, tree
from pmem_tui.core.executor import apply
from pmem_tui.core.lifecycle import plan_archive, plan_delete
from pmem_tui.core.model import ARCHIVE_INDEX, INDEX_FILE, ArchiveRecord
from pmem_tui.core.records import add_record
from pmem_tui.core.tokens import estimate_tokens
from tests.conformance.spy import OpenSpy, in_archive
from tests.conftest import write


def _archive_some(root: Path) -> None:
    apply(plan_archive(root, "projects/alpha.md", "shipped"), root)
    apply(plan_archive(root, "notes/standup.md", "stale"), root)
    apply(plan_delete(root, "notes/standup.md"), root)


@pytest.mark.rule("PM-LOAD-2", "PM-STATUS-2", "PM-STATUS-1")
def test_status_lists_the_archive_without_opening_archived_files(
    memory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _archive_some(memory)
    spy = OpenSpy(memory, deny=in_archive).install(monkeypatch)

    snap = tree.scan(memory)
    assert [a.path for a in snap.archived] == ["projects/alpha.md"]
    assert snap.archived[0].record is not None and snap.archived[0].record.reason == "shipped"
    assert [t.path for t in snap.trash] == ["notes/standup.md"]
    assert not [p for p in snap.problems if p.path.startswith("_archive") or p.kind == "unreadable"]

    data = report.status_dict(snap)
    assert [a["path"] for a in data["archived"]] == ["projects/alpha.md"]
    text = "\n".join(report.status_lines(snap))
    assert "projects/alpha.md  archived 2026-11-30  shipped" in text

    assert main(["--root", str(memory), "status"]) == 0
    assert main(["--root", str(memory), "status", "--json"]) == 0
    out = capsys.readouterr().out
    assert "Archived (1):" in out and '"location":"_archive/projects/alpha.md"' in out

    assert spy.refused == []
    assert not [p for p in spy.opened if in_archive(p)]
    # What status does read: the baseline (core and index), the active files, and the archive index.
    assert set(spy.opened) >= {INDEX_FILE, ARCHIVE_INDEX, "_core/profile.md"}


@pytest.mark.rule("PM-LOAD-2", "PM-STATUS-2")
def test_status_works_when_archived_files_cannot_be_read(
    memory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even if opening one would fail, nothing reports it: the scan never tries."""
    _archive_some(memory)
    write(memory, "_archive/notes/unrecorded.md", b"\xff\xfe not even UTF-8")
    spy = OpenSpy(memory, deny=in_archive).install(monkeypatch)
    assert main(["--root", str(memory), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {a["path"] for a in data["archived"]} == {"projects/alpha.md", "notes/unrecorded.md"}
    kinds = {(p["kind"], p["path"]) for p in data["problems"]}
    assert ("no-record", "notes/unrecorded.md") in kinds
    assert not [k for k in kinds if k[0] == "unreadable"]
    assert spy.refused == []


@pytest.mark.rule("PM-LOAD-1", "PM-LOAD-2", "PM-CORE-4")
def test_the_baseline_is_core_plus_index_and_never_the_archive(memory: Path) -> None:
    def expected() -> tuple[int, int]:
        files = sorted(p for p in (memory / "_core").rglob("*") if p.is_file())
        texts = [p.read_bytes().decode("utf-8") for p in [*files, memory / INDEX_FILE]]
        return len(texts), sum(estimate_tokens(t) for t in texts)

    base = report.baseline(tree.scan(memory))
    assert (base.files, base.tokens) == expected() == (3, base.core_tokens + base.index_tokens)

    # A big archive (files and records) changes nothing an agent loads.
    _archive_some(memory)
    for n in range(20):
        write(memory, f"_archive/projects/big{n}.md", "# Big\n\n" + "archived words " * 2000)
    text = (memory / ARCHIVE_INDEX).read_text(encoding="utf-8")
    for n in range(20):
        text = add_record(
            text, ArchiveRecord(f"projects/big{n}.md", f"- projects/big{n}.md — big", None, "x" * 500)
        )
    write(memory, ARCHIVE_INDEX, text)
    after = report.baseline(tree.scan(memory))
    assert (after.files, after.tokens) == expected()
    assert after.core_tokens == base.core_tokens
    # Status claims the baseline, and nothing more, as loaded.
    lines = report.status_lines(tree.scan(memory))
    claim = [line for line in lines if "loads" in line]
    assert claim == [
        f"Baseline an agent loads: 3 files, about {after.tokens} tokens "
        f"(_core/ {after.core_tokens}, _index.md {after.index_tokens})"
    ]


@pytest.mark.rule("PM-LOAD-3", "PM-STATUS-1", "PM-CORE-5")
def test_on_demand_files_are_shown_by_their_index_summary_without_opening_them(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file's own text says something else: what is shown comes from its index line.
    write(memory, "projects/alpha.md", "# Alpha\n\nNothing here matches the index summary.\n")
    spy = OpenSpy(memory).install(monkeypatch)
    snap = tree.scan(memory, deep=False)
    assert set(spy.opened) <= {INDEX_FILE, ARCHIVE_INDEX}
    summaries = {a.path: a.index_summary for a in snap.active}
    assert summaries == {
        "projects/alpha.md": "the importer project",
        "notes/standup.md": "daily standup notes",
        "notes/日本語 メモ.md": "CJK note with a space",
    }
    lines = report.status_lines(snap)
    assert any(
        line.startswith("  projects/alpha.md  ") and line.endswith("the importer project") for line in lines
    )
    assert "Active (3 files, about" in "\n".join(lines)


@pytest.mark.rule("PM-STATUS-1")
def test_status_reports_count_size_and_one_line_summaries(memory: Path) -> None:
    snap = tree.scan(memory)
    lines = report.status_lines(snap)
    total = sum((memory / a.path).stat().st_size for a in snap.active)
    assert f"Active (3 files, about {report.human_size(total)}):" in lines
    for a in snap.active:
        [line] = [x for x in lines if x.startswith(f"  {a.path}  ")]
        assert line.endswith(a.index_summary or "")
        assert "\n" not in line
