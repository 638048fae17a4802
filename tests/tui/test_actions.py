"""Every change goes key -> plan -> preview modal -> confirm -> executor; nothing changes before `y`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_helpers import TODAY, RecordingApp, archive_preview, bare_root, fill, settle

from pmem_tui.core import records
from pmem_tui.tui.modals.new_file import NewFileModal
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.memory_list import MemoryList


def lst(app: RecordingApp, pane: str) -> MemoryList:
    main = app.main_screen
    assert main is not None
    return main.view(pane).list


def modal(app: RecordingApp) -> PlanModal:
    assert isinstance(app.screen, PlanModal), app.screen
    return app.screen


def preview_of(m: PlanModal) -> str:
    return " ".join(m.preview_text.split())


def record_of(root: Path, path: str) -> records.ArchiveRecord | None:
    text = (root / "_archive/_index.md").read_text(encoding="utf-8")
    found = [r for r in records.parse_records(text) if r.path == path]
    return found[-1] if found else None


def snapshot_tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".pmem" not in p.parts
    }


async def select(pilot, app: RecordingApp, pane: str, path: str) -> None:
    await pilot.press(str(["index", "core", "archive", "trash"].index(pane) + 1))
    memory_list = lst(app, pane)
    key = next(r.key for r in memory_list.all_rows if r.path == path)
    assert memory_list.select_key(key)
    await settle(pilot)


@pytest.mark.rule(
    "PM-SAFE-6", "PM-CORE-2", "PM-CORE-3", "PM-ARC-1", "PM-ARC-3", "PM-ARC-4", "PM-ARC-5", "PM-ARC-6"
)
async def test_archive_asks_reason_previews_then_applies_only_on_y(demo_root: Path, make_app) -> None:
    line = "- [Cobalt migration](projects/cobalt-migration.md) — MySQL to Postgres, done 2024"
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "index", "projects/cobalt-migration.md")
        before = snapshot_tree(demo_root)
        await pilot.press("a")
        m = modal(app)
        reason_input = m.query_one("#plan-input", Input)
        assert reason_input.has_focus and m.plan is None  # the reason comes first
        await pilot.press(*"migration done", "enter")  # `n` and `y` typed into the input, not keys
        assert m.plan is not None and reason_input.value == "migration done"
        shown = preview_of(m)
        assert "projects/cobalt-migration.md -> _archive/projects/cobalt-migration.md" in shown
        assert f"line removed {line}" in shown
        assert "reason: migration done" in shown and "recoverable" in shown
        assert snapshot_tree(demo_root) == before  # nothing changed before the confirmation
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert not (demo_root / "projects/cobalt-migration.md").exists()
        assert (demo_root / "_archive/projects/cobalt-migration.md").exists()
        assert line not in (demo_root / "_index.md").read_text(encoding="utf-8")
        rec = record_of(demo_root, "projects/cobalt-migration.md")
        assert rec is not None and rec.index_line == line and rec.reason == "migration done"
        assert rec.archived == TODAY
        assert (
            "Archived projects/cobalt-migration.md to _archive/projects/cobalt-migration.md."
            in app.notes_text()
        )
        # The panes follow: the row left the Index and appeared in the Archive.
        assert "projects/cobalt-migration.md" not in {r.path for r in lst(app, "index").all_rows}
        assert "projects/cobalt-migration.md" in {r.path for r in lst(app, "archive").all_rows}


@pytest.mark.rule("PM-CORE-3", "PM-SAFE-6")
async def test_cancel_with_n_or_escape_changes_nothing(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        before = snapshot_tree(demo_root)
        await pilot.press("a")
        await fill(pilot, "old")
        await pilot.press("enter")
        assert modal(app).plan is not None
        await pilot.press("n")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("3", "d")
        assert modal(app).plan is not None
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert snapshot_tree(demo_root) == before
        assert app.notes_text().count("Cancelled: nothing was changed.") == 2


@pytest.mark.rule("PM-ARC-1", "PM-SAFE-5", "PM-CORE-4")
async def test_core_files_are_refused_before_any_preview(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("2", "a")
        assert isinstance(app.screen, MainScreen)  # refused: no modal
        await pilot.press("d")
        assert isinstance(app.screen, MainScreen)
        assert len(app.errors()) == 2 and all("_core" in e for e in app.errors())
        assert (demo_root / "_core/preferences.md").exists()


@pytest.mark.rule("PM-DEL-1", "PM-ARC-2")
async def test_delete_on_an_active_file_explains_and_offers_the_archive_preview(
    demo_root: Path, make_app
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        m = modal(app)
        explanation = str(m.query_one("#plan-explanation").render())
        assert "is active" in explanation and "Only an archived file can be deleted" in explanation
        assert m.heading == "Archive projects/atlas.md"
        await fill(pilot, "shipped")
        await pilot.press("enter", "y")
        await settle(pilot)
        # It was archived, not deleted.
        assert (demo_root / "_archive/projects/atlas.md").exists()
        assert not (demo_root / "_archive/_trash/projects/atlas.md").exists()


@pytest.mark.rule("PM-DEL-2", "PM-DEL-3", "PM-DEL-4", "PM-SAFE-6")
async def test_delete_an_archived_file_to_the_trash_with_its_deadline(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", "projects/legacy-api.md")
        await pilot.press("d")
        m = modal(app)
        shown = preview_of(m)
        assert "_archive/projects/legacy-api.md -> _archive/_trash/projects/legacy-api.md" in shown
        deadline = (TODAY + dt.timedelta(days=30)).isoformat()
        assert f"recoverable until {deadline}" in shown
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/_trash/projects/legacy-api.md").exists()
        rec = record_of(demo_root, "projects/legacy-api.md")
        assert rec is not None and rec.deleted == TODAY and rec.deadline == TODAY + dt.timedelta(days=30)
        assert f"_archive/_trash/projects/legacy-api.md; recoverable until {deadline}." in app.notes_text()
        trash = {r.path: r.cells[2] for r in lst(app, "trash").all_rows}
        assert trash["projects/legacy-api.md"] == "recoverable 30 more days"


@pytest.mark.rule("PM-REC-1", "PM-REC-3", "PM-REC-4", "PM-REC-5", "PM-REC-6")
async def test_recover_from_the_trash_restores_file_line_and_record(demo_root: Path, make_app) -> None:
    line = "- [Temp benchmarks](projects/temp-benchmarks.md) — one-off numbers"
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "trash", "projects/temp-benchmarks.md")
        await pilot.press("r")
        shown = preview_of(modal(app))
        assert "_archive/_trash/projects/temp-benchmarks.md -> projects/temp-benchmarks.md" in shown
        assert f"line added {line}" in shown
        await pilot.press("enter")  # enter on the focused Confirm button confirms too
        await settle(pilot)
        assert (demo_root / "projects/temp-benchmarks.md").exists()
        assert line in (demo_root / "_index.md").read_text(encoding="utf-8").splitlines()
        assert record_of(demo_root, "projects/temp-benchmarks.md") is None
        assert "Recovered projects/temp-benchmarks.md from _archive/_trash/" in app.notes_text()


@pytest.mark.rule("PM-REC-2", "PM-CORE-1")
async def test_recover_of_a_legacy_record_proposes_a_line_to_confirm(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", "notes/q3-planning.md")
        await pilot.press("r")
        m = modal(app)
        line_input = m.query_one("#plan-input", Input)
        assert line_input.has_focus and m.plan is None  # never guessed: the person confirms
        assert "notes/q3-planning.md" in line_input.value and "Planning meeting, Q3" in line_input.value
        line_input.value = "- [Q3 planning](notes/q3-planning.md) — feature freeze, alerting debt"
        await pilot.press("enter")
        assert "line added - [Q3 planning](notes/q3-planning.md)" in preview_of(m)
        await pilot.press("y")
        await settle(pilot)
        index = (demo_root / "_index.md").read_text(encoding="utf-8")
        assert "- [Q3 planning](notes/q3-planning.md) — feature freeze, alerting debt" in index.splitlines()
        assert (demo_root / "notes/q3-planning.md").exists()


async def test_a_wrong_index_line_is_refused_inside_the_modal(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", "notes/q3-planning.md")
        await pilot.press("r")
        m = modal(app)
        m.query_one("#plan-input", Input).value = "- [Other](notes/other.md)"
        await pilot.press("enter")
        assert m.plan is None and m.error is not None and "does not name notes/q3-planning.md" in m.error
        await pilot.press("escape")
        assert not (demo_root / "notes/q3-planning.md").exists()


@pytest.mark.rule("PM-ARC-3", "PM-ARC-6", "PM-REC-6")
async def test_space_marks_rows_and_plans_them_together(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        index = lst(app, "index")
        await pilot.press("space", "space")  # marks atlas and beacon (space moves down)
        assert {r.path for r in index.marked_rows()} == {"projects/atlas.md", "projects/beacon.md"}
        await pilot.press("a")
        m = modal(app)
        assert m.heading == "Archive 2 files"
        await fill(pilot, "quarter over")
        await pilot.press("enter")
        shown = preview_of(m)
        assert "projects/atlas.md -> _archive/projects/atlas.md" in shown
        assert "projects/beacon.md -> _archive/projects/beacon.md" in shown
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/projects/atlas.md").exists()
        assert (demo_root / "_archive/projects/beacon.md").exists()
        # A result per item.
        assert "Archived projects/atlas.md to _archive/projects/atlas.md." in app.notes_text()
        assert "Archived projects/beacon.md to _archive/projects/beacon.md." in app.notes_text()
        assert index.marked_keys == frozenset()
        # Marks in the Archive pane: recover both in one preview.
        await pilot.press("3")
        archive = lst(app, "archive")
        for row in list(archive.all_rows):
            if row.path in ("projects/atlas.md", "projects/beacon.md"):
                archive.select_key(row.key)
                await pilot.press("space")
        await pilot.press("r")
        assert modal(app).heading == "Recover 2 files"
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "projects/atlas.md").exists() and (demo_root / "projects/beacon.md").exists()


@pytest.mark.rule("PM-DEL-2")
async def test_marked_delete_skips_what_cannot_be_deleted(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("3", "space", "space", "d")
        m = modal(app)
        assert m.heading == "Delete 2 files"
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/_trash/notes/q3-planning.md").exists()
        assert (demo_root / "_archive/_trash/projects/legacy-api.md").exists()


@pytest.mark.rule("PM-REC-3", "PM-REC-4", "PM-CORE-2")
async def test_ctrl_z_plans_the_inverse_of_archive_delete_and_recover(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    index_before = (demo_root / "_index.md").read_bytes()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+z")
        assert "Nothing to undo" in app.notes_text()
        await pilot.press("a")
        await fill(pilot, "done")
        await pilot.press("enter", "y")
        await settle(pilot)
        assert (demo_root / "_archive/projects/atlas.md").exists()
        await pilot.press("ctrl+z")
        m = modal(app)
        assert m.heading.startswith("Undo: Archive projects/atlas.md")
        assert "_archive/projects/atlas.md -> projects/atlas.md" in preview_of(m)
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "projects/atlas.md").exists()
        assert (demo_root / "_index.md").read_bytes() == index_before  # the line is back in its place
        # The undo is not an action of its own: ctrl+z again has nothing left to undo (issue 14, item 12).
        await pilot.press("ctrl+z")
        assert "Nothing left to undo" in app.notes_text().splitlines()[-1]
        # ctrl+y redoes it, through its own preview, titled as a redo: archive again, with the reason given.
        await pilot.press("ctrl+y")
        m = modal(app)
        assert m.heading == "Redo: Archive projects/atlas.md"
        assert not m.query("#plan-input")
        assert "reason: done" in preview_of(m)
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/projects/atlas.md").exists()
        await pilot.press("ctrl+y")
        assert "Nothing to redo" in app.notes_text().splitlines()[-1]
        # Delete, then undo the delete: back in the archive, where it was.
        await select(pilot, app, "archive", "projects/atlas.md")
        await pilot.press("d", "y")
        await settle(pilot)
        assert (demo_root / "_archive/_trash/projects/atlas.md").exists()
        await pilot.press("ctrl+z")
        assert "back where it was in the archive" in str(modal(app).query_one("#plan-explanation").render())
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/projects/atlas.md").exists()
        assert not (demo_root / "_archive/_trash/projects/atlas.md").exists()


@pytest.mark.rule("PM-SAVE-1", "PM-SAVE-2", "PM-SAVE-3", "PM-SAVE-4", "PM-CORE-1")
async def test_edit_runs_the_editor_on_a_copy_then_previews_the_save(demo_root: Path, make_app) -> None:
    seen: list[Path] = []

    def editor(path: Path) -> None:
        seen.append(path)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("p95 latency is 180 ms", "p95 latency is 150 ms"), encoding="utf-8")

    app = make_app(demo_root, editor=editor)
    original = (demo_root / "projects/atlas.md").read_bytes()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        m = modal(app)
        assert seen and not seen[0].is_relative_to(demo_root)  # the editor never touches the file itself
        assert (demo_root / "projects/atlas.md").read_bytes() == original
        shown = preview_of(m)
        assert "-- p95 latency is 180 ms" in shown
        assert "+- p95 latency is 150 ms" in shown
        assert "Summary revision" in shown  # the summary change is in the same preview
        await pilot.press("y")
        await settle(pilot)
        assert b"p95 latency is 150 ms" in (demo_root / "projects/atlas.md").read_bytes()
        assert "Saved projects/atlas.md." in app.notes_text()
        # ctrl+z writes the previous content back.
        await pilot.press("ctrl+z", "y")
        await settle(pilot)
        assert (demo_root / "projects/atlas.md").read_bytes() == original


async def test_edit_without_changes_and_edit_refusals(demo_root: Path, make_app) -> None:
    app = make_app(demo_root, editor=lambda path: None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        assert isinstance(app.screen, MainScreen)
        assert "No changes to projects/atlas.md: nothing to save." in app.notes_text()
        await pilot.press("3", "e")
        assert "recover it first" in app.errors()[-1]
        await pilot.press("1")
        assert lst(app, "index").select_key("notes/ideas.md")
        await pilot.press("e")
        assert "does not exist" in app.errors()[-1]


@pytest.mark.rule("PM-SAVE-2", "PM-SAVE-3", "PM-SAVE-5", "PM-CORE-5")
async def test_n_asks_path_and_line_runs_the_editor_and_previews_the_new_file(
    demo_root: Path, make_app
) -> None:
    def editor(path: Path) -> None:
        path.write_text("# Coffee\n\nOat milk, no sugar.\n", encoding="utf-8")

    app = make_app(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        assert isinstance(app.screen, NewFileModal)
        await pilot.press(*"coffee.md", "enter")  # typed after the prefilled "notes/"
        line_input = app.screen.query_one("#new-index-line", Input)
        assert line_input.has_focus
        line_input.value = "- [Coffee](notes/coffee.md) — how I take it"
        await pilot.press("enter")
        m = modal(app)
        shown = preview_of(m)
        assert "line added - [Coffee](notes/coffee.md) — how I take it" in shown
        assert "Oat milk, no sugar." in shown and "(new file)" in shown
        assert not (demo_root / "notes/coffee.md").exists()
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "notes/coffee.md").read_text(
            encoding="utf-8"
        ) == "# Coffee\n\nOat milk, no sugar.\n"
        assert "- [Coffee](notes/coffee.md) — how I take it" in (demo_root / "_index.md").read_text(
            encoding="utf-8"
        )
        assert "notes/coffee.md" in {r.key for r in lst(app, "index").all_rows}
        # Undo of a new file archives it (never a silent removal).
        await pilot.press("ctrl+z")
        assert modal(app).query_one("#plan-input", Input).value == "Undo of a new file"
        await pilot.press("escape")


@pytest.mark.rule("PM-CORE-6")
async def test_a_secret_is_refused_with_one_sentence(demo_root: Path, make_app) -> None:
    def editor(path: Path) -> None:
        path.write_text("# Keys\n\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYzz9\n")

    app = make_app(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await fill(pilot, "notes/keys.md")
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.errors() and not (demo_root / "notes/keys.md").exists()


@pytest.mark.rule("PM-DEL-5", "PM-HEALTH-6", "PM-SAFE-6")
async def test_purge_lists_every_expired_item_and_needs_its_own_confirmation(
    demo_root: Path, make_app
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert (demo_root / "_archive/_trash/notes/offsite-ideas.md").exists()  # never removed on its own
        await pilot.press("P")
        m = modal(app)
        shown = preview_of(m)
        assert "x _archive/_trash/notes/offsite-ideas.md" in shown
        assert "temp-benchmarks" not in shown.split("Diff:")[0]  # not expired: not listed
        await pilot.press("y")
        await settle(pilot)
        assert not (demo_root / "_archive/_trash/notes/offsite-ideas.md").exists()
        assert (demo_root / "_archive/_trash/projects/temp-benchmarks.md").exists()
        await pilot.press("P")
        assert isinstance(app.screen, MainScreen)
        assert "No expired trash to purge." in app.notes_text()
        await pilot.press("ctrl+z")
        assert "cannot be undone" in app.notes_text()


@pytest.mark.rule("PM-UPG-1", "PM-UPG-2", "PM-UPG-3", "PM-UPG-4")
async def test_root_without_lifecycle_shows_banner_and_upgrade_preview(tmp_path: Path, make_app) -> None:
    root = bare_root(tmp_path)
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        banner = app.main_screen.query_one("#banner")
        assert banner.display and "press U to preview the upgrade" in str(banner.render())
        await pilot.press("a")
        assert isinstance(app.screen, MainScreen)
        assert "press U to preview the upgrade first" in app.errors()[-1]
        await pilot.press("U")
        m = modal(app)
        shown = preview_of(m)
        assert "+ _archive" in shown and "+ _archive/_trash" in shown and "+ _archive/_index.md" in shown
        assert "Move" not in shown  # nothing moved, rewritten or summarised
        assert not (root / "_archive").exists()
        await pilot.press("y")
        await settle(pilot)
        assert (root / "_archive/_trash").is_dir() and (root / "_archive/_index.md").is_file()
        assert (root / "notes/a.md").read_text(encoding="utf-8") == "# A\n"
        assert not banner.display
        await pilot.press("U")
        assert "nothing to upgrade" in app.notes_text()


@pytest.mark.rule("PM-FIRST-1", "PM-LAYOUT-1")
async def test_missing_root_opens_welcome_then_first_save(tmp_path: Path, make_app) -> None:
    from pmem_tui.tui.screens.welcome import WelcomeScreen

    root = tmp_path / "nothing-yet"

    def editor(path: Path) -> None:
        path.write_text("# Profile\n\nI like short answers.\n", encoding="utf-8")

    app = make_app(root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen)
        assert "There is no memory at ~/.persistent-memory yet" in str(
            app.screen.query_one("#welcome-text").render()
        )
        await pilot.press("n")
        assert isinstance(app.screen, NewFileModal)
        new_path = app.screen.query_one("#new-path", Input)
        new_path.value = "_core/profile.md"
        await pilot.press("enter", "enter")
        shown = preview_of(modal(app))
        for created in ("_core", "projects", "notes", "_archive", "_archive/_trash", "_index.md"):
            assert f"+ {created}" in shown
        assert not root.exists()
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert (root / "_core/profile.md").exists() and (root / "_archive/_index.md").exists()


async def test_stale_plan_is_refused_by_the_executor_too(demo_root: Path, make_app) -> None:
    """Even without the watcher, a plan whose files changed after the preview is refused."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await archive_preview(pilot, "old")
        (demo_root / "projects/atlas.md").write_text("# changed meanwhile\n", encoding="utf-8")
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "projects/atlas.md").exists()
        assert "changed since the preview" in app.errors()[-1]


async def test_unfinished_action_banner_and_doctor(demo_root: Path, make_app) -> None:
    from pmem_tui.core import executor, lifecycle
    from pmem_tui.core.fsops import HardStop

    plan = lifecycle.plan_archive(demo_root, "projects/atlas.md", "crash test")

    def crash(name: str, rel: str) -> None:
        if (name.startswith("move") or name == "link") and not rel.startswith(".pmem/"):  # not .gitignore
            raise HardStop

    with pytest.raises(HardStop):
        executor.apply(plan, demo_root, hook=crash)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.snapshot is not None and app.snapshot.unfinished_action
        assert "Press D" in str(app.main_screen.query_one("#banner").render())
        await pilot.press("D")
        assert modal(app).heading.startswith("Doctor:")
        await pilot.press("y")
        await settle(pilot)
        assert app.snapshot is not None and app.snapshot.unfinished_action is None


async def test_notifications_show_user_text_literally(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.refuse("Refusing 'notes/[red]x[/red].md': it does not exist.")
        app.screen.notify("[bold]from a screen[/bold]")
        await pilot.pause()
        shown = list(app._notifications)
        assert [n.message for n in shown][-2:] == [
            "Refusing 'notes/[red]x[/red].md': it does not exist.",
            "[bold]from a screen[/bold]",
        ]
        assert not any(n.markup for n in shown)


async def test_typing_in_a_prefilled_input_keeps_the_proposal(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", "notes/q3-planning.md")  # a legacy record: a line is proposed
        await pilot.press("r")
        await settle(pilot)
        field = app.screen.query_one("#plan-input", Input)
        proposal = field.value
        assert proposal.startswith("- [")
        await pilot.press("x")
        assert field.value == proposal + "x"


@pytest.mark.rule("PM-REC-3", "PM-CORE-2")
async def test_undo_is_a_stack_of_the_sessions_actions(demo_root: Path, make_app) -> None:
    """Two actions, two ctrl+z: the second undoes the first action, not the first undo (issue 14, item
    12); each through its own preview."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "index", "projects/atlas.md")
        await pilot.press("a")
        await fill(pilot, "done")
        await pilot.press("enter", "y")
        await settle(pilot)
        await select(pilot, app, "index", "projects/beacon.md")
        await pilot.press("a")
        await fill(pilot, "done too")
        await pilot.press("enter", "y")
        await settle(pilot)
        assert (demo_root / "_archive/projects/beacon.md").exists()
        await pilot.press("ctrl+z")
        assert modal(app).heading == "Undo: Archive projects/beacon.md"
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("ctrl+z")
        assert modal(app).heading == "Undo: Archive projects/atlas.md"
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "projects/atlas.md").exists() and (demo_root / "projects/beacon.md").exists()
        # Redo goes forward again in order; a new action would clear what is left to redo.
        await pilot.press("ctrl+y")
        assert modal(app).heading == "Redo: Archive projects/atlas.md"
        await pilot.press("n")
        assert app.can_redo
