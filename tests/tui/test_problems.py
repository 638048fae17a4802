"""One problem count (issue 14, item 9): the header counts what `status` counts, summaries included, and
`!` shows the Index rows with a problem."""

from __future__ import annotations

import os
from pathlib import Path

from tui_helpers import RecordingApp, settle, until

from pmem_tui.core import tree
from pmem_tui.tui.widgets.header import StatusHeader
from tests.conftest import one_note_memory


def header(app: RecordingApp) -> str:
    assert app.main_screen is not None
    return str(app.main_screen.query_one("#header", StatusHeader).render())


async def test_the_header_counts_what_status_counts(demo_root: Path) -> None:
    deep = tree.scan(demo_root, deep=True)
    kinds = {p.kind for p in deep.problems}
    assert "invalid-summary" in kinds  # the demo has one: the count the header used to leave out
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert await until(pilot, lambda: f"{len(deep.problems)} problems" in header(app))
        assert "not checked" not in header(app)


async def test_bang_shows_only_the_rows_with_a_problem_and_again_every_row(demo_root: Path) -> None:
    deep = tree.scan(demo_root, deep=True)
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        view = app.main_screen.view("index")
        every = len(view.list.all_rows)
        assert await until(
            pilot, lambda: app.main_screen is not None and app.main_screen.content.by_path is not None
        )
        await pilot.press("exclamation_mark")
        await settle(pilot)
        shown = {r.path for r in view.list.all_rows}
        wanted = {p.path for p in deep.problems if p.kind in ("orphan", "dead-route", "invalid-summary")}
        assert wanted <= shown and len(shown) < every
        assert {"projects/outage-scratch.md", "notes/ideas.md", "projects/beacon.md"} <= shown
        assert "press ! for every row" in str(view.titles.render())
        await pilot.press("exclamation_mark")
        await settle(pilot)
        assert len(view.list.all_rows) == every


async def test_a_summary_fixed_on_disk_leaves_the_count(demo_root: Path) -> None:
    """After a change the watcher sees, only the changed file is read again; its problem goes."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        before = len(tree.scan(demo_root, deep=True).problems)
        assert await until(pilot, lambda: f"{before} problems" in header(app))
        beacon = demo_root / "projects/beacon.md"
        text = beacon.read_text(encoding="utf-8")
        head, _, rest = text.partition("## Summary\n")
        fixed = head + "## Summary\n- One.\n- Two.\n- Three.\n" + rest
        beacon.write_text(fixed, encoding="utf-8")
        assert len(tree.scan(demo_root, deep=True).problems) == before - 1
        app.request_rescan(frozenset({"projects/beacon.md"}))
        assert await until(pilot, lambda: f"{before - 1} problem" in header(app))


async def test_bang_names_the_problems_that_have_no_row(tmp_path: Path) -> None:
    """Found in trial: a hand-written root with a linked folder and a FIFO said "5 problems", and `!`
    showed 3 of them; the link and the FIFO (no row anywhere) could not be reached."""
    root = one_note_memory(tmp_path, "# A\n\n- a\n", "- notes/a.md — a\n")
    (tmp_path / "outside").mkdir()
    (root / "projects/linked").symlink_to(tmp_path / "outside")
    os.mkfifo(root / "notes/pipe.md")
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert await until(pilot, lambda: "2 problems" in header(app))
        await pilot.press("exclamation_mark")
        await settle(pilot)
        said = app.notes_text()
        assert "projects/linked" in said and "symbolic link" in said
        assert "notes/pipe.md" in said and "named pipe" in said


def _agent_memory(root: Path) -> None:
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    for name in ("a", "b"):
        (root / f"notes/{name}.md").write_text(f"# {name}\n\n## Summary\n- one\n- two\n- three\n", "utf-8")
    (root / "notes/stray.md").write_text("# Stray\n", encoding="utf-8")  # an orphan
    (root / "_index.md").write_text("- notes/a.md — a\n- notes/b.md — b\n", encoding="utf-8")


async def test_bang_follows_the_problems_an_agent_makes_and_fixes(tmp_path: Path) -> None:
    """Found in trial: with `!` on, an agent's new orphan and dead route never showed (the header counted
    them) and a fixed problem's row stayed: the view kept the paths of the moment `!` was pressed."""
    root = tmp_path / "memory"
    _agent_memory(root)
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        view = app.main_screen.view("index")
        assert await until(pilot, lambda: "1 problem" in header(app))
        await pilot.press("exclamation_mark")
        await settle(pilot)
        assert {r.path for r in view.list.all_rows} == {"notes/stray.md"}

        (root / "notes/new-orphan.md").write_text("# New\n", encoding="utf-8")
        with (root / "_index.md").open("a", encoding="utf-8") as index:
            index.write("- notes/ghost.md — gone\n")
        (root / "notes/b.md").write_text("# b\n\n## Summary\n- just one\n", encoding="utf-8")  # invalid
        app.request_rescan(frozenset({"notes/new-orphan.md", "_index.md", "notes/b.md"}))
        wanted = {"notes/stray.md", "notes/new-orphan.md", "notes/ghost.md", "notes/b.md"}
        assert await until(pilot, lambda: {r.path for r in view.list.all_rows} == wanted)
        assert view.problem_paths is not None

        (root / "notes/stray.md").unlink()  # the agent fixes two of them
        (root / "notes/b.md").write_text("# b\n\n## Summary\n- one\n- two\n- three\n", encoding="utf-8")
        app.request_rescan(frozenset({"notes/stray.md", "notes/b.md"}))
        wanted = {"notes/new-orphan.md", "notes/ghost.md"}
        assert await until(pilot, lambda: {r.path for r in view.list.all_rows} == wanted)
        assert "press ! for every row" in str(view.titles.render())  # still the `!` view


async def test_a_dead_routes_preview_says_what_is_there_as_status_does(tmp_path: Path) -> None:
    """Found in trial: a listed FIFO's row said "there is no such file: a dead route", while `!` said
    "a named pipe (FIFO), not a regular file; never read"; the preview now says what `status` says."""
    root = tmp_path / "memory"
    _agent_memory(root)
    os.mkfifo(root / "notes/pipe.md")
    (root / "notes/link.md").symlink_to(root / "notes/a.md")
    with (root / "_index.md").open("a", encoding="utf-8") as index:
        index.write("- notes/pipe.md — a pipe\n- notes/link.md — a link\n- notes/gone.md — gone\n")
    status = {p.path: p.detail for p in tree.scan(root, deep=False).problems if p.kind == "dead-route"}
    app = RecordingApp(root)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        lst = app.main_screen.view("index").list
        for line, route in enumerate(("notes/pipe.md", "notes/link.md", "notes/gone.md"), 3):
            assert lst.select_key(route)
            why = status[route].removeprefix("in _index.md but ")
            wanted = f"In _index.md (line {line}), a dead route: {why}."
            assert await until(pilot, lambda w=wanted: w in " ".join(app.main_screen.preview.text.split()))


def test_an_archived_file_pmem_tui_never_recovers_says_so() -> None:
    """Found in trial: an agent archived `_core/identity.md`; its preview said "recovering it asks you to
    confirm one", and `r` then refused: `_core/` is the protected core memory."""
    from pmem_tui.core.model import ArchivedItem
    from pmem_tui.core.records import parse_records
    from pmem_tui.tui.rows import _archive_row

    rec = parse_records("## _core/identity.md\n- Archived: 2026-11-01\n- Reason: old\n")[0]
    note = _archive_row(ArchivedItem("_core/identity.md", "_archive/_core/identity.md", 5, 0, rec)).facts_note
    assert note.endswith(
        "It cannot be recovered here: '_core/' is the protected core memory; move it by hand."
    )
    assert "confirm one" not in note


async def _doctor_says(root: Path) -> str:
    """What the app says after `D` on `root`."""
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        return app.notes_text()


async def test_doctor_in_the_app_says_what_it_leaves_to_the_person(tmp_path: Path) -> None:
    """Found in review: with only a file dropped by hand in the trash, `D` said "Nothing needed repair."
    and not that doctor leaves that file to the person (the CLI said it)."""
    root = tmp_path / "memory"
    _agent_memory(root)
    (root / "_archive/_trash/handdrop.md").write_text("# Dropped\n", encoding="utf-8")
    said = await _doctor_says(root)
    assert "_archive/_trash/handdrop.md has no deletion record" in said
    assert "doctor leaves it to you" in said


async def test_doctor_in_the_app_names_a_damaged_history_store(tmp_path: Path) -> None:
    """Found in trial: with a pack file of the history deleted by hand, `D` said "Nothing needed repair."
    while the Changes pane named `pmem-tui doctor --yes`, which rebuilds the store."""
    from pmem_tui.core.history import names, record

    root = tmp_path / "memory"
    _agent_memory(root)
    assert record.record(root, create=True).commit is not None
    for pack in (root / names.HISTORY_DIR / "objects" / "pack").glob("*.pack"):
        pack.unlink()
    said = await _doctor_says(root)
    assert "The memory's files need no repair." in said
    assert "History: " in said and "`pmem-tui doctor --yes` rebuilds it" in said


async def test_doctor_in_the_app_names_a_few_of_many_notes(tmp_path: Path) -> None:
    """Found in review: 300 files dropped in the trash made a 300-line toast."""
    from pmem_tui.tui.plan_app import NOTES_SHOWN

    root = tmp_path / "memory"
    _agent_memory(root)
    for n in range(NOTES_SHOWN + 3):
        (root / f"_archive/_trash/drop{n}.md").write_text("# Dropped\n", encoding="utf-8")
    said = await _doctor_says(root)
    assert said.count("doctor leaves it to you") == NOTES_SHOWN and "…and 3 more." in said


async def test_a_linked_trash_is_not_said_to_be_empty(demo_root: Path, tmp_path: Path) -> None:
    """Found in trial: with `_archive/_trash` a link to a folder of trashed files, the Trash pane said "The
    trash is empty."; it names the link instead (nothing behind it is read)."""
    real = tmp_path / "real-trash"
    (demo_root / "_archive/_trash").rename(real)
    (demo_root / "_archive/_trash").symlink_to(real, target_is_directory=True)
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        trash, archive = app.main_screen.view("trash").list, app.main_screen.view("archive").list
        assert not trash.all_rows
        assert "_archive/_trash is a symbolic link, which pmem-tui never follows" in trash.empty_text
        assert archive.all_rows and "symbolic link" not in archive.empty_text
