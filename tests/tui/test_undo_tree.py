"""ctrl+z leaves the tree as it was before the action, folders included; ctrl+y does the action again as
it was given (found in trial: an archive's undo left the empty `_archive/notes/` it had made; a redo asked
for the reason again; a delete's undo brought the file back to the active place, not to the archive)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, fill, settle

from pmem_tui.tui.modals.plan_modal import PlanModal


def memory(parent: Path) -> Path:
    """notes/a.md and notes/b.md listed, projects/sub/c.md archived (its record keeps its line and reason);
    no `_archive/notes/`, no trash folder below `_archive/_trash/`."""
    root = parent / "memory"
    for folder in ("_core", "notes", "projects", "_archive/_trash", "_archive/projects/sub"):
        (root / folder).mkdir(parents=True)
    (root / "_core/me.md").write_text("# Me\n", encoding="utf-8")
    (root / "notes/a.md").write_text("# A\n", encoding="utf-8")
    (root / "notes/b.md").write_text("# B\n", encoding="utf-8")
    (root / "_archive/projects/sub/c.md").write_text("# C\n", encoding="utf-8")
    (root / "_index.md").write_text(
        "# Index\n\n- [A](notes/a.md) — a\n- [B](notes/b.md) — b\n", encoding="utf-8"
    )
    (root / "_archive/_index.md").write_text(
        "# Archive index\n\n## projects/sub/c.md\n- archived: 2026-01-05\n- reason: shipped in January\n"
        "- index line: `- [C](projects/sub/c.md) — c`\n",
        encoding="utf-8",
    )
    return root


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path below root (folders as None), the tool's `.pmem/` aside."""
    return {
        p.relative_to(root).as_posix(): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
        if ".pmem" not in p.relative_to(root).parts
    }


def modal(app: RecordingApp) -> PlanModal:
    assert isinstance(app.screen, PlanModal), app.screen
    return app.screen


def preview(app: RecordingApp) -> str:
    return " ".join(modal(app).preview_text.split())


async def press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


@pytest.mark.rule("PM-AGENT-3", "PM-ARC-5")
@pytest.mark.parametrize("marked", [0, 2], ids=["one", "a batch"])
async def test_undo_of_an_archive_removes_the_folder_it_made_and_redo_keeps_the_reason(
    tmp_path: Path, make_app, marked: int
) -> None:
    root = memory(tmp_path)
    before = tree(root)
    app: RecordingApp = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*(["space"] * marked), "a")
        await fill(pilot, "kept in the wiki now")
        await pilot.press("enter")
        assert "_archive/notes" in preview(app)  # the folder it makes is named
        await press(pilot, "y")
        after = tree(root)
        assert "_archive/notes" in after
        await pilot.press("ctrl+z")
        assert "Remove the empty folder it created - _archive/notes/" in preview(app)
        await press(pilot, "y")
        assert tree(root) == before
        # Redo: the reason the person gave, shown in the preview; nothing asked again.
        await pilot.press("ctrl+y")
        assert not modal(app).query("#plan-input")
        assert "reason: kept in the wiki now" in preview(app)
        await press(pilot, "y")
        assert tree(root) == after
        assert not app.errors()


async def test_undo_keeps_a_folder_an_agent_put_a_file_in(tmp_path: Path, make_app) -> None:
    root = memory(tmp_path)
    app: RecordingApp = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await fill(pilot, "done")
        await press(pilot, "enter", "y")
        (root / "_archive/notes/agent.md").write_text("# An agent's\n", encoding="utf-8")
        await pilot.press("ctrl+z")
        assert "empty folder" not in preview(app)
        await press(pilot, "y")
        assert (root / "notes/a.md").exists()
        assert (root / "_archive/notes/agent.md").read_text(encoding="utf-8") == "# An agent's\n"
        # One put there after the preview: the folder stays, the undo is done all the same.
        await pilot.press("ctrl+y")
        await press(pilot, "y")
        (root / "_archive/notes/agent.md").unlink()
        await pilot.press("ctrl+z")
        assert "_archive/notes/" in preview(app)
        (root / "_archive/notes/late.md").write_text("# Late\n", encoding="utf-8")
        await press(pilot, "y")
        assert (root / "notes/a.md").exists()
        assert sorted(p.name for p in (root / "_archive/notes").iterdir()) == ["late.md"]
        assert not app.errors()


@pytest.mark.rule("PM-AGENT-2", "PM-AGENT-3")
async def test_undo_of_a_delete_puts_the_file_back_in_the_archive(tmp_path: Path, make_app) -> None:
    """Undo of a delete: the file back at its archive place, its record as before the delete, the trash
    folder the delete made removed; redo: in the trash again."""
    root = memory(tmp_path)
    app: RecordingApp = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "d")
        assert "_archive/_trash/projects" in preview(app)
        before = tree(root)
        await press(pilot, "y")
        assert (root / "_archive/_trash/projects/sub/c.md").exists()
        await pilot.press("ctrl+z")
        assert "_archive/_trash/projects/sub/ - _archive/_trash/projects/" in preview(app)
        await press(pilot, "y")
        assert tree(root) == before
        await press(pilot, "ctrl+y")
        await press(pilot, "y")
        assert (root / "_archive/_trash/projects/sub/c.md").exists()
        assert not app.errors()


@pytest.mark.rule("PM-REC-3", "PM-AGENT-3")
@pytest.mark.parametrize("place", ["archive", "trash"])
async def test_undo_of_a_recover_puts_it_back_and_removes_the_folder_it_recreated(
    tmp_path: Path, make_app, place: str
) -> None:
    """A recover recreates `projects/sub/`; its undo puts the file back where it came from (the archive: a
    record with the same reason, never asked again; the trash: the record as it was) and removes the
    folder."""
    root = memory(tmp_path)
    app: RecordingApp = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        if place == "trash":
            await press(pilot, "3", "d", "y")
            await press(pilot, "4")
        else:
            await press(pilot, "3")
        before = tree(root)
        await pilot.press("r")
        assert "projects/sub" in preview(app)  # recreated: named
        await press(pilot, "y")
        assert (root / "projects/sub/c.md").exists()
        await pilot.press("ctrl+z")
        assert not modal(app).query("#plan-input")
        text = preview(app)
        assert "Remove the empty folder it created - projects/sub/" in text
        assert "reason: shipped in January" in text
        await press(pilot, "y")
        assert not (root / "projects/sub").exists() and (root / "projects").is_dir()
        if place == "trash":
            assert tree(root) == before
        else:  # archived again today, with the same reason
            assert (root / "_archive/projects/sub/c.md").exists()
            assert "shipped in January" in (root / "_archive/_index.md").read_text(encoding="utf-8")
        await press(pilot, "ctrl+y")
        await press(pilot, "y")
        assert (root / "projects/sub/c.md").exists()
        assert not app.errors()


async def test_an_undo_that_asks_for_the_reason_removes_the_folder_too(tmp_path: Path, make_app) -> None:
    """A record without a reason: the recover's undo asks for one, and its plan removes `projects/sub/`."""
    root = memory(tmp_path)
    archive = root / "_archive/_index.md"
    archive.write_text(archive.read_text(encoding="utf-8").replace("- reason: shipped in January\n", ""))
    app: RecordingApp = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "r", "y")
        assert (root / "projects/sub/c.md").exists()
        await pilot.press("ctrl+z")
        assert modal(app).query("#plan-input")
        await press(pilot, "enter")
        assert "Remove the empty folder it created - projects/sub/" in preview(app)
        await press(pilot, "y")
        assert (root / "_archive/projects/sub/c.md").exists() and not (root / "projects/sub").exists()
        assert not app.errors()
