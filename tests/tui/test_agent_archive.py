"""The app on a root an agent archived into by hand: its literal archive is listed and recovered."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from test_actions import modal, preview_of, select
from tui_helpers import settle

from tests.agents.agent_roots import ACTIVE_INDEX, OLD_LINE, VARIANTS, build, changes_outside, read, shape


@pytest.mark.rule("PM-AGENT-1", "PM-AGENT-2", "PM-REC-6")
async def test_the_app_recovers_an_inline_record_from_a_literal_archive(tmp_path: Path, make_app) -> None:
    v = VARIANTS["crlf-bom-literal"]
    b = build(tmp_path, "inline-list", v)
    app = make_app(b.root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", "projects/old.md")
        await pilot.press("r")
        shown = preview_of(modal(app))
        assert "_archive/old.md -> projects/old.md" in shown
        assert f"line added {OLD_LINE}" in shown
        await pilot.press("y")
        await settle(pilot)
        assert app.errors() == []
        assert (b.root / "projects/old.md").is_file() and not (b.root / v.location).exists()
        assert read(b.root, "_index.md") == shape(ACTIVE_INDEX + OLD_LINE + "\n", v)
        assert changes_outside(b.archive, read(b.root, "_archive/_index.md"), b.lo, b.hi) == []


def _root(tmp_path: Path, archive: str, files: dict[str, str]) -> Path:
    root = tmp_path / "mem"
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_index.md").write_text("# Index\n", encoding="utf-8")
    (root / "_archive/_index.md").write_text(archive, encoding="utf-8")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


OURS = "## notes/a.md\n- Index line: `- notes/a.md — ours`\n- Archived: 2026-12-01\n- Reason: ours\n"
ROW = (
    "| File | Index line | Archived | Reason |\n|---|---|---|---|\n"
    "| notes/a.md | `- notes/a.md — agent's` | 2026-10-15 | agent's |\n"
)


async def _recover_in_app(make_app, root: Path, row: str) -> str:
    """`r` on the Archive pane's row `row`, then `y`: the preview as shown."""
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", row)
        await pilot.press("r")
        shown = preview_of(modal(app))
        await pilot.press("y")
        await settle(pilot)
        assert app.errors() == []
    return shown


@pytest.mark.rule("PM-REC-4", "PM-REC-5", "PM-AGENT-2")
async def test_the_app_recovers_by_the_newest_of_two_records_and_says_the_other_stays(
    tmp_path: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in trial: the app's recover used the agent's older row (the last in the file) and left
    pmem-tui's record behind, without a word."""
    monkeypatch.setenv("PMEM_TUI_TODAY", "2026-12-03")  # a date after today is not used for choosing
    root = _root(tmp_path, f"# Archive index\n\n{OURS}\n{ROW}", {"_archive/notes/a.md": "# A\n"})
    shown = await _recover_in_app(make_app, root, "notes/a.md")
    assert "line added - notes/a.md — ours" in shown
    assert "2 records name notes/a.md: using the one archived 2026-12-01 (lines 3-6); the other" in shown
    assert read(root, "_archive/_index.md") == f"# Archive index\n\n{ROW}"


@pytest.mark.rule("PM-AGENT-1", "PM-SAFE-6")
async def test_the_app_recovers_a_trashed_file_an_agent_moved_into_the_archive(
    tmp_path: Path, make_app
) -> None:
    """Found in trial: a trashed notes/a.md moved by hand to `_archive/a.md` showed as a file that "cannot be
    recovered here"; its record's path was "neither in the archive nor in the trash"."""
    deleted = OURS + "- Deleted: 2026-11-20\n"
    root = _root(tmp_path, f"# Archive index\n\n{deleted}", {"_archive/a.md": "# A\n"})
    shown = await _recover_in_app(make_app, root, "a.md")
    assert "_archive/a.md -> notes/a.md" in shown
    assert "notes/a.md is not at _archive/_trash/notes/a.md, where its record puts it; _archive/a.md" in shown
    assert read(root, "notes/a.md") == "# A\n"
    assert read(root, "_index.md") == "# Index\n- notes/a.md — ours\n"


def test_an_archived_row_says_other_records_name_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pmem_tui.core import tree
    from pmem_tui.tui.rows import archive_rows

    monkeypatch.setenv("PMEM_TUI_TODAY", "2026-12-03")  # a date after today is not used for choosing

    root = _root(tmp_path, f"# Archive index\n\n{OURS}\n{ROW}", {"_archive/notes/a.md": "# A\n"})
    (row,) = archive_rows(tree.scan(root, deep=False))
    assert row.facts_note == (
        "Archived 2026-12-01 - reason: ours; 2 records name it: recovering it uses this one (the latest "
        "date; on a tie, the one keeping its index line, then the later in the file) and says the other stays"
    )


def test_a_trashed_row_says_other_records_name_it(tmp_path: Path) -> None:
    from pmem_tui.core import tree
    from pmem_tui.tui.rows import trash_rows

    deleted = OURS + "- Deleted: 2026-11-20\n"
    older = ROW.replace("2026-10-15 |", "2026-10-15, deleted 2026-10-20 |")
    root = _root(tmp_path, f"# Archive index\n\n{deleted}\n{older}", {"_archive/_trash/notes/a.md": "# A\n"})
    (row,) = trash_rows(tree.scan(root, deep=False, today=dt.date(2026, 12, 3)))
    assert row.facts_note.endswith(
        ". 2 records name it: recovering it uses this one (the latest date; on a tie, the one keeping its "
        "index line, then the later in the file) and says the other stays."
    )
