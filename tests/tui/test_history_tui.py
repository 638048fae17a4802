"""Issue 16 in the app: the Changes pane, the History view, restore through the preview, recording what the
watcher sees."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from history_helpers import (
    EDITED,
    HOUR,
    LINE,
    SECRET_LINE,
    SECRET_NOTE,
    T0,
    append,
    memory_with_a_kept_secret,
    memory_with_history,
    record_at,
)
from textual.pilot import Pilot
from tui_helpers import RecordingApp, make_demo, settle, until

from pmem_tui.core.history import lock, log, names, record, stat_table
from pmem_tui.tui.messages import FilesChanged
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthScreen
from pmem_tui.tui.screens.history import HistoryScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.changes import ChangesView
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.widgets.memory_list import MemoryList
from tests.conftest import tree_bytes

SIZE = (120, 36)
SECOND = "- a second line, written after the last record."


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return memory_with_history(tmp_path, monkeypatch)


def changes_view(app: RecordingApp) -> ChangesView:
    assert app.main_screen is not None
    return app.main_screen.query_one(ChangesView)


def history_screen(app: RecordingApp) -> HistoryScreen:
    assert isinstance(app.screen, HistoryScreen), app.screen
    return app.screen


async def open_changes(pilot: Pilot[object], app: RecordingApp) -> ChangesView:
    await settle(pilot)
    await pilot.press("6")
    view = changes_view(app)
    assert await until(pilot, lambda: view.data is not None)
    await settle(pilot)
    return view


async def open_history(pilot: Pilot[object], app: RecordingApp, path: str) -> HistoryScreen:
    await settle(pilot)
    main = app.main_screen
    assert main is not None
    memory_list = main.view("index").list
    assert memory_list.select_key(next(r.key for r in memory_list.all_rows if r.path == path))
    await pilot.press("v")
    screen = history_screen(app)
    assert await until(pilot, lambda: screen.loads > 0 and screen.diffs > 0)
    return screen


async def open_health_review(pilot: Pilot[object], app: RecordingApp) -> HealthScreen:
    await settle(pilot)
    await pilot.press("H")
    screen = app.screen
    assert isinstance(screen, HealthScreen)
    assert await until(pilot, lambda: screen.loads > 0)
    return screen


def flat(text: str) -> str:
    """Text as shown, its wrapped lines joined (the preview wraps long lines)."""
    return " ".join(text.split())


def diff_shown(screen: HistoryScreen) -> str:
    return flat(screen.diff_view.text)


async def test_changes_pane_shows_the_external_edit_the_scan_recorded(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_changes(pilot, app)
        assert view.data is not None
        [change] = view.data.changes
        assert (change.path, change.kind, change.origin) == (EDITED, "modified", names.SEEN_ON_DISK)
        assert (change.lines_added, change.lines_removed) == (2, 0)
        assert change.time == T0 + 2 * 3600  # the app's scan recorded the second edit first
        assert view.list.current_row is not None and view.list.current_row.cells[4] == "+2 -0"
        preview = app.main_screen.preview  # type: ignore[union-attr]
        assert await until(pilot, lambda: SECOND in flat(preview.text))
        assert f"+{LINE}" in flat(preview.text)
        assert not app.errors()


async def test_changes_are_read_one_at_a_time_and_the_newest_request_is_read(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reloads asked while a read is in flight (the mount's, the scan's, a watcher's) never run at once
    (before: each started a thread; at 100,000 files two walks of the history doubled the peak memory), and
    one more read follows that sees what the last request asked for."""
    from pmem_tui.tui import history_data

    real, running, most, gate = history_data.read_changes, [0], [0], threading.Event()
    gate.set()

    def counted(path: Path) -> history_data.ChangesData:
        running[0] += 1
        most[0] = max(most[0], running[0])
        try:
            assert gate.wait(30)  # held while the test asks for more reads
            return real(path)
        finally:
            running[0] -= 1

    monkeypatch.setattr(history_data, "read_changes", counted)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_changes(pilot, app)
        gate.clear()
        for _ in range(3):
            view.reload()
            await pilot.pause()  # each request reaches the event loop (a read it starts blocks on the gate)
        append(root, EDITED, "- a third line, recorded while the reads wait.")
        assert record.record(root).commit is not None
        view.reload()
        await pilot.pause()
        gate.set()
        assert await until(pilot, lambda: view.data is not None and view.data.changes[0].lines_added == 3)
        assert most[0] == 1
        assert not app.errors()


async def test_mark_reviewed_empties_the_pane_and_writes_only_the_reviewed_ref(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_changes(pilot, app)
        before = (root / EDITED).read_bytes()
        loads = view.loads
        assert "p Preview" in app.screen.query_one(KeyBar).render().plain
        await pilot.press("R")
        assert await until(pilot, lambda: view.loads > loads)
        assert view.data is not None and view.data.rows == ()
        await settle(pilot)  # the key bar offers `p` only with a row to preview
        assert "p Preview" not in app.screen.query_one(KeyBar).render().plain
        assert "Nothing changed since the last review." in view.list.empty_text
        assert "Marked reviewed" in app.notes_text()
        assert stat_table.read_head(root, names.REVIEWED_REF) == stat_table.read_head(root)
        assert (root / EDITED).read_bytes() == before


async def test_r_on_a_memory_without_history_starts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pane says how to start the history from the app; R records the memory as it is (its first
    version), marks it reviewed and writes nothing but the store (before: only `pmem-tui snapshot`, outside
    the app, could start it, and R said "No history yet")."""
    root = make_demo(tmp_path)
    before = tree_bytes(root)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_changes(pilot, app)
        assert "press R on the Changes pane" in view.list.empty_text
        loads = view.loads
        await pilot.press("R")
        assert await until(pilot, lambda: view.loads > loads)
        head = stat_table.read_head(root)
        assert head is not None and stat_table.read_head(root, names.REVIEWED_REF) == head
        assert "Nothing changed since the last review." in view.list.empty_text
        assert "History started in .pmem/history" in app.notes_text()
        app.record_delay = 0.001
        append(root, EDITED, LINE)  # an agent's edit: listed once the app records it
        monkeypatch.setattr(app.watcher, "drain", lambda: {EDITED})
        app.post_message(FilesChanged())
        assert await until(pilot, lambda: view.data is not None and len(view.data.changes) == 1)
        assert not app.errors()
    assert tree_bytes(root) == {**before, EDITED: before[EDITED] + (LINE + "\n").encode()}


async def test_the_app_records_what_the_watcher_saw(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_changes(pilot, app)
        app.record_delay = 0.001
        append(root, "notes/reading-list.md", "- a book the agent added")
        monkeypatch.setattr(app.watcher, "drain", lambda: {"notes/reading-list.md"})
        seen = app.records_seen
        app.post_message(FilesChanged())
        assert await until(pilot, lambda: app.records_seen > seen)
        assert await until(pilot, lambda: view.data is not None and len(view.data.rows) == 2)
        assert view.data is not None and view.data.changes[0].path == "notes/reading-list.md"
        assert log.records(root)[0].origin == names.SEEN_ON_DISK


async def test_a_history_that_cannot_record_says_so_once_and_blocks_nothing(root: Path) -> None:
    (root / names.HISTORY_DIR / names.MAIN_REF).write_text("not a commit id\n")
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_changes(pilot, app)
        warnings = [m for m, s in app.notes if s == "warning" and m.startswith("History could not record")]
        assert len(warnings) == 1 and "damaged" in warnings[0]
        assert view.data is not None and "damaged" in view.data.empty
        assert app.main_screen is not None and app.main_screen.view("index").list.all_rows  # the panes work


async def test_v_opens_the_history_and_diffs_any_two_versions(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app, EDITED)
        assert screen.found is not None
        assert [(v.kind, v.time) for v in screen.found.versions] == [
            ("modified", T0 + 7200),
            ("modified", T0 + 3600),
            ("added", T0),
        ]
        # The newest version is the file now (the diff view draws what it was given on its next refresh).
        assert await until(pilot, lambda: "No difference." in diff_shown(screen))
        diffs = screen.diffs
        await pilot.press("down")  # the first agent edit, against the file now
        assert await until(pilot, lambda: screen.diffs > diffs and f"+{SECOND}" in diff_shown(screen))
        diffs = screen.diffs
        await pilot.press("space")  # marked; the cursor moves on to the first version
        assert screen.marked is not None and screen.list.current_row is not None
        assert screen.list.current_row.kind == "added"
        assert await until(pilot, lambda: screen.diffs > diffs and f"+{LINE}" in diff_shown(screen))
        assert SECOND not in diff_shown(screen)  # between the two versions, not the file now
        await pilot.press("up", "space")  # unmark
        assert screen.marked is None and not screen.list.marked_keys
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_v_on_the_changes_pane_opens_that_file_s_history(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_changes(pilot, app)
        await pilot.press("v")
        screen = history_screen(app)
        assert screen.path == EDITED


async def test_restore_goes_through_the_save_preview_y_applies_n_cancels(root: Path) -> None:
    first = b""
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app, EDITED)
        first = log.version_bytes(root, screen.found.versions[-1].id, EDITED)  # type: ignore[union-attr]
        now = (root / EDITED).read_bytes()
        await pilot.press("G", "r")
        assert isinstance(app.screen, PlanModal)
        shown = app.screen.preview_text
        assert f"-{LINE}" in shown and f"-{SECOND}" in shown
        assert app.screen.heading.startswith("Restore projects/atlas.md to version ")
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and (root / EDITED).read_bytes() == now
        assert "Cancelled: nothing was changed." in app.notes_text()
        await pilot.press("r")
        assert isinstance(app.screen, PlanModal)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert (root / EDITED).read_bytes() == first
        assert await until(pilot, lambda: screen.found is not None and len(screen.found.versions) == 4)
        assert screen.found is not None and screen.found.versions[0].origin == "restore"
        assert not app.errors()


async def test_restore_of_a_deleted_version_is_one_sentence(tmp_path: Path, root: Path) -> None:
    (root / "notes/reading-list-2.md").unlink()
    record.record(root)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(HistoryScreen(root, "notes/reading-list-2.md"))
        screen = history_screen(app)
        assert await until(pilot, lambda: screen.loads > 0)
        assert screen.current is not None and screen.current.kind == "deleted"
        await pilot.press("r")
        assert not isinstance(app.screen, PlanModal)
        assert app.errors() and "not in version" in app.errors()[-1]


async def test_health_offers_forget_for_a_secret_in_a_kept_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = memory_with_a_kept_secret(tmp_path, monkeypatch)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_health_review(pilot, app)
        p = screen.report.proposal(SECRET_NOTE) if screen.report is not None else None
        assert p is not None and p.kinds == ("secret-in-history", "orphan") and p.fix_action == "forget"
        assert screen.query_one("#health-list", MemoryList).select_key(f"proposal:{SECRET_NOTE}")
        await pilot.press("f")  # planned in a worker: it reads the history
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        modal = app.screen
        assert isinstance(modal, PlanModal)
        shown = flat(modal.preview_text)
        assert f"Forget the content of {SECRET_NOTE} at version {p.fix[:12]}" in shown  # type: ignore[index]
        assert "hunter22" not in shown
        live = (root / SECRET_NOTE).read_bytes()
        await pilot.press("n")  # cancel: the history still holds it
        await settle(pilot)
        assert app.screen is screen and len(log.versions(root, SECRET_NOTE)) == 2
        await pilot.press("f")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        loads = screen.loads
        await pilot.press("y")
        assert await until(pilot, lambda: "is gone from the history" in app.notes_text())
        assert await until(pilot, lambda: screen.loads > loads and not screen.checking)
        after = screen.report.proposal(SECRET_NOTE) if screen.report is not None else None
        assert after is not None and after.kinds == ("orphan",)  # the secret is gone; the orphan's fix next
        assert (root / SECRET_NOTE).read_bytes() == live  # the memory file is not touched
        assert all(
            SECRET_LINE.encode() not in log.version_bytes(root, v.id, SECRET_NOTE)
            for v in log.versions(root, SECRET_NOTE)
            if v.kind != "deleted"
        )
        assert not app.errors()


def test_before_any_review_a_change_s_diff_is_against_the_first_record(tmp_path: Path) -> None:
    """The list counts from the first record until a review is marked; the preview's diff does too (before:
    it compared with nothing, so the whole file showed as added)."""
    from pmem_tui.tui.history_data import change_diff

    root = tmp_path / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes/tools.md").write_text("# Tools\nripgrep\n", encoding="utf-8")
    record.record(root, create=True)
    append(root, "notes/tools.md", "- an agent's line")
    record.record(root)
    (changed,) = log.changes_since_review(root)
    first = log.records(root)[-1].id
    assert changed.since == first
    text = change_diff(root, changed).plain
    assert f"--- a/notes/tools.md@{first[:12]}" in text and "/dev/null" not in text
    assert "+- an agent's line" in text and "+# Tools" not in text


async def fix_marked(pilot: Pilot[object], app: RecordingApp, paths: tuple[str, ...]) -> HealthScreen:
    """The health review, checked, with the proposals of `paths` marked, `f` pressed, and the first preview
    open."""
    screen = await open_health_review(pilot, app)
    assert await until(pilot, lambda: not screen.checking)
    health_list = screen.query_one("#health-list", MemoryList)
    for path in paths:
        assert health_list.select_key(f"proposal:{path}")
        await pilot.press("space")
    await pilot.press("f")
    assert await until(pilot, lambda: isinstance(app.screen, PlanModal))  # planned in a worker
    return screen


@pytest.mark.rule("PM-HEALTH-5")
async def test_a_refused_forget_in_a_batch_of_fixes_is_said_and_the_next_fix_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Marked proposals fixed one after another (`f`): when the history store refuses a forget as it is
    applied (here another pmem-tui holds the store's lock past the timeout), the refusal is one sentence and
    the next fix's preview opens (before: the batch went on only after a success; a refusal ended it)."""
    orphan = "projects/outage-scratch.md"
    root = memory_with_a_kept_secret(tmp_path, monkeypatch)
    monkeypatch.setattr(record, "LOCK_TIMEOUT_S", 0.05)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await fix_marked(pilot, app, (SECRET_NOTE, orphan))
        first = app.screen
        assert isinstance(first, PlanModal) and first.heading.startswith(f"Forget a version of {SECRET_NOTE}")
        assert "(fix 1 of 2)" in first.heading
        with lock.held(root / names.HISTORY_DIR / names.LOCK_NAME):
            await pilot.press("y")
            assert await until(pilot, lambda: bool(app.errors()))
        refusals = [e for e in app.errors() if "kept the history store locked" in e]
        assert len(refusals) == 1 and refusals[0].startswith(f"Forget a version of {SECRET_NOTE}")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal) and app.screen is not first)
        second = app.screen
        assert isinstance(second, PlanModal) and second.plan is not None
        assert second.plan.title.startswith(f"Fix _index.md: add {orphan}")
        assert "(fix 2 of 2)" in second.heading
        await pilot.press("y")
        await settle(pilot)
        assert f"({orphan})" in (root / "_index.md").read_text(encoding="utf-8")
        assert len(log.versions(root, SECRET_NOTE)) == 2  # the refused forget changed nothing


@pytest.mark.rule("PM-HEALTH-5")
async def test_two_forgets_in_one_batch_both_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two kept secrets fixed in one batch (`f` on both marks): the first forget rewrites every record, so
    the version the second proposal names is gone; the second is found again by its content and applies
    (before: it was refused, "not a version", and its secret stayed in the history)."""
    other, other_line = "notes/ci-tokens.md", "- ci password: swordfish9"
    root = make_demo(tmp_path)
    note, other_note = root / SECRET_NOTE, root / other
    note.write_text(f"# Deploy keys\n\nWhere the keys live.\n{SECRET_LINE}\n", encoding="utf-8")
    other_note.write_text(f"# CI tokens\n\nThe CI's tokens.\n{other_line}\n", encoding="utf-8")
    record_at(monkeypatch, T0)
    assert record.record(root, create=True).commit is not None
    (root / SECRET_NOTE).write_text("# Deploy keys\n\nWhere the keys live: in the vault.\n", encoding="utf-8")
    (root / other).write_text("# CI tokens\n\nThe CI's tokens: in the vault.\n", encoding="utf-8")
    record_at(monkeypatch, T0 + HOUR)
    assert record.record(root).commit is not None
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await fix_marked(pilot, app, (SECRET_NOTE, other))
        report = screen.report
        assert report is not None
        assert all(getattr(report.proposal(p), "fix_action", None) == "forget" for p in (SECRET_NOTE, other))
        first = app.screen
        assert isinstance(first, PlanModal) and "(fix 1 of 2)" in first.heading
        await pilot.press("y")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal) and app.screen is not first)
        second = app.screen
        assert isinstance(second, PlanModal) and "(fix 2 of 2)" in second.heading
        later = SECRET_NOTE if SECRET_NOTE in second.heading else other
        (newest,) = [v for v in log.versions(root, later) if v.kind == "added"]
        assert f"at version {newest.id[:12]}" in flat(second.preview_text)  # the rewritten record's id
        await pilot.press("y")
        assert await until(pilot, lambda: app.notes_text().count("is gone from the history") == 2)
        assert not app.errors()
    for path, line in ((SECRET_NOTE, SECRET_LINE), (other, other_line)):
        held = [log.version_bytes(root, v.id, path) for v in log.versions(root, path) if v.kind != "deleted"]
        assert held and all(line.encode() not in b for b in held)


def _titled(titles: object) -> list[str]:
    return [name.strip() for name in str(getattr(titles, "content", "")).split("·")]


async def test_at_80_columns_the_titles_name_only_the_columns_shown(root: Path) -> None:
    """Found in trial: at 80 columns the Changes pane left out its time and origin columns, and its titles
    still named all five over the three shown (so "when" stood over the diff counts); the History view too."""
    from pmem_tui.tui.screens import history
    from pmem_tui.tui.widgets import changes

    app = RecordingApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_changes(pilot, app)
        dropped = view.list.dropped_columns()
        assert dropped  # the narrow case this is about
        shown = [n for i, n in enumerate(changes.COLUMNS) if i not in dropped]
        assert _titled(view.titles) == shown
        await pilot.resize_terminal(160, 48)
        assert await until(pilot, lambda: _titled(view.titles) == list(changes.COLUMNS))
        await pilot.resize_terminal(80, 24)
        assert await until(pilot, lambda: _titled(view.titles) == shown)
        screen = await open_history(pilot, app, EDITED)
        dropped = screen.list.dropped_columns()
        assert dropped
        assert _titled(screen.titles) == [n for i, n in enumerate(history.COLUMNS) if i not in dropped]
