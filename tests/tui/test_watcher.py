"""The live view: watchdog events -> one coalescing message -> debounced rescan -> rows updated in place."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import RecordingApp, archive_preview, settle, until
from watchdog.events import (
    DirModifiedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from pmem_tui.tui.messages import FilesChanged
from pmem_tui.tui.modals.plan_modal import PlanModal, touches
from pmem_tui.tui.watcher import MAX_PENDING_PATHS, ChangeHandler, MemoryWatcher
from pmem_tui.tui.widgets.changes import ChangesView
from pmem_tui.tui.widgets.memory_list import MemoryList


def index_list(app: RecordingApp) -> MemoryList:
    main = app.main_screen
    assert main is not None
    return main.view("index").list


def test_handler_turns_events_into_relative_paths(tmp_path: Path) -> None:
    got: list[set[str]] = []
    handler = ChangeHandler(tmp_path, got.append)
    handler.dispatch(FileModifiedEvent(str(tmp_path / "notes/a.md")))
    handler.dispatch(FileMovedEvent(str(tmp_path / "notes/.a.md.swp"), str(tmp_path / "notes/a.md")))
    handler.dispatch(FileCreatedEvent(str(tmp_path / ".pmem/journal/intent.json")))  # our metadata: ignored
    handler.dispatch(FileOpenedEvent(str(tmp_path / "notes/b.md")))  # reads are not changes
    handler.dispatch(FileClosedNoWriteEvent(str(tmp_path / "notes/b.md")))
    handler.dispatch(FileModifiedEvent(str(tmp_path.parent / "elsewhere.md")))
    assert got == [{"notes/a.md"}, {"notes/a.md"}]


def test_watcher_collects_until_drained_and_overflows_to_everything(tmp_path: Path) -> None:
    posts: list[int] = []
    watcher = MemoryWatcher(tmp_path, lambda: posts.append(1))
    watcher.handler.dispatch(FileModifiedEvent(str(tmp_path / "notes/a.md")))
    watcher.handler.dispatch(FileModifiedEvent(str(tmp_path / "notes/b.md")))
    assert len(posts) == 2 and watcher.drain() == frozenset({"notes/a.md", "notes/b.md"})
    assert watcher.drain() == frozenset()
    for n in range(MAX_PENDING_PATHS + 1):
        watcher.handler.dispatch(FileModifiedEvent(str(tmp_path / f"notes/{n}.md")))
    assert watcher.drain() is None  # too many: rescan everything


def test_files_changed_messages_coalesce() -> None:
    assert FilesChanged().can_replace(FilesChanged())


def test_touches_matches_files_and_folders_the_plan_read(demo_root: Path) -> None:
    from pmem_tui.core import lifecycle

    plan = lifecycle.plan_archive(demo_root, "projects/atlas.md", "r")
    assert touches(plan, {"projects/atlas.md"})
    assert touches(plan, {"projects"})  # a folder around it moved
    assert touches(plan, {"_index.md"})
    assert not touches(plan, {"notes/standup-habits.md"})
    assert touches(plan, None)


async def test_dispatched_events_update_rows_in_place_keeping_selection(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        rows = index_list(app)
        assert rows.select_key("notes/reading-list.md")
        selected_at = rows.cursor
        scans = app.scans_done
        # An agent writes a new file and lists it at the top of the index.
        (demo_root / "notes/new-agent-note.md").write_text("# From an agent\n", encoding="utf-8")
        index_text = (demo_root / "_index.md").read_text(encoding="utf-8")
        (demo_root / "_index.md").write_text(
            index_text.replace(
                "## Projects\n", "## Projects\n- [Agent note](notes/new-agent-note.md) — new\n"
            ),
            encoding="utf-8",
        )
        for rel in ("notes/new-agent-note.md", "_index.md", "_index.md", "_index.md"):
            app.watcher.handler.dispatch(FileModifiedEvent(str(demo_root / rel)))
        assert await until(pilot, lambda: app.scans_done > scans)
        await settle(pilot)
        assert app.scans_done == scans + 1  # a burst of events, one rescan
        assert index_list(app) is rows  # the same widget, rows replaced in place
        assert "notes/new-agent-note.md" in {r.key for r in rows.all_rows}
        current = rows.current_row
        assert current is not None and current.path == "notes/reading-list.md"  # selection kept
        assert rows.cursor == selected_at + 1


async def test_an_editor_atomic_save_updates_the_row_and_the_preview(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        scans = app.scans_done
        target = demo_root / "projects/atlas.md"
        temp = demo_root / "projects/atlas.md.tmp123"
        temp.write_text("# Atlas\n\nRewritten by an editor.\n", encoding="utf-8")
        os.replace(temp, target)
        app.watcher.handler.dispatch(FileCreatedEvent(str(temp)))
        app.watcher.handler.dispatch(FileMovedEvent(str(temp), str(target)))
        app.watcher.handler.dispatch(DirModifiedEvent(str(demo_root / "projects")))
        main = app.main_screen
        assert main is not None
        assert await until(pilot, lambda: "Rewritten by an editor." in main.preview.text)
        row = index_list(app).current_row
        assert row is not None and row.size == target.stat().st_size
        # One row redrawn in place, no rescan of the whole memory.
        assert app.rows_updated_in_place == 1 and app.scans_done == scans


@pytest.mark.rule("PM-SAFE-6", "PM-CORE-3")
async def test_watcher_change_makes_the_open_preview_refuse_confirmation(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        modal = await archive_preview(pilot, "old")
        _an_agent_edits_atlas(app, demo_root)  # while the preview is open
        assert await until(pilot, lambda: modal.stale is not None)
        assert "changed since the preview" in str(modal.query_one("#plan-status").render())
        modal.action_confirm()  # `y`, were it pressed with the focus out of the input
        await settle(pilot)
        assert app.screen is modal  # confirmation refused, the modal stays
        assert (demo_root / "projects/atlas.md").exists()
        assert "changed since the preview" in app.errors()[-1]
        await pilot.press("escape")


def _an_agent_edits_atlas(app: Any, root: Path) -> None:
    """An agent rewrites projects/atlas.md; the watcher is told, as the file system would tell it."""
    (root / "projects/atlas.md").write_text("# Atlas\n\nnew facts\n", encoding="utf-8")
    app.watcher.handler.dispatch(FileModifiedEvent(str(root / "projects/atlas.md")))


def _key_bar_text(screen: object) -> str:
    from textual.screen import Screen

    from pmem_tui.tui.widgets.key_bar import KeyBar

    assert isinstance(screen, Screen)
    return str(screen.query_one(KeyBar).render())


async def test_a_stale_preview_offers_no_confirm_and_keeps_the_reason_typed(
    demo_root: Path, make_app
) -> None:
    """Found in trial: after "changed since the preview", the key bar still offered `y Confirm`, the
    disabled Confirm button handed the focus to Cancel, so enter cancelled and the reason typed was lost."""
    from textual.widgets import Input

    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        modal = await archive_preview(pilot, "superseded by the new router")
        assert "y Confirm" in _key_bar_text(modal)
        _an_agent_edits_atlas(app, demo_root)
        assert await until(pilot, lambda: modal.stale is not None)
        await pilot.pause()
        assert "Confirm" not in _key_bar_text(modal) and not modal.query_one("#plan-confirm").display
        status = str(modal.query_one("#plan-status").render())
        assert "Press enter to preview again with what you typed, or escape to cancel." in status
        assert modal.query_one("#plan-input", Input).value == "superseded by the new router"
        assert "Preview again" in _key_bar_text(modal)
        await pilot.press("enter")  # a new preview, of the file as it is now, with the same reason
        await settle(pilot)
        assert app.screen is modal and modal.stale is None and modal.plan is not None
        assert "y Confirm" in _key_bar_text(modal) and modal.query_one("#plan-confirm").display
        await pilot.press("y")
        await settle(pilot)
        assert not (demo_root / "projects/atlas.md").exists()
        record = (demo_root / "_archive/_index.md").read_text(encoding="utf-8")
        assert "superseded by the new router" in record


async def test_a_y_pressed_as_the_preview_goes_stale_is_refused_not_typed_into_the_reason(
    demo_root: Path, make_app
) -> None:
    """Found in trial: the stale preview gave the focus to the reason's input, so the `y` a person pressed
    to confirm (the key bar had offered it a moment before) was typed into the reason ("...routery"), and
    enter then previewed the archive with that reason. The `y` is refused and says why; the reason stays."""
    from textual.widgets import Input

    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        modal = await archive_preview(pilot, "superseded by the new router")
        _an_agent_edits_atlas(app, demo_root)
        assert await until(pilot, lambda: modal.stale is not None)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is modal and "changed since the preview" in app.errors()[-1]
        assert modal.query_one("#plan-input", Input).value == "superseded by the new router"
        assert "Preview again" in _key_bar_text(modal)
        await pilot.press("enter")  # a new preview, of the file as it is now, with the same reason
        await settle(pilot)
        assert app.screen is modal and modal.stale is None and modal.plan is not None
        await pilot.press("y")
        await settle(pilot)
        record = (demo_root / "_archive/_index.md").read_text(encoding="utf-8")
        assert "- Reason: superseded by the new router\n" in record


async def test_a_stale_preview_without_input_says_to_cancel_and_act_again(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert app.main_screen is not None
        assert app.main_screen.view("trash").list.select_key("projects/temp-benchmarks.md")
        await pilot.press("r")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PlanModal) and modal.plan is not None and modal.builder is None
        trashed = next(p for p in modal.plan.reads if p.startswith("_archive/_trash/") and p.endswith(".md"))
        (demo_root / trashed).write_text("# Changed in the trash\n", encoding="utf-8")
        app.watcher.handler.dispatch(FileModifiedEvent(str(demo_root / trashed)))
        assert await until(pilot, lambda: modal.stale is not None)
        await pilot.pause()
        assert "Confirm" not in _key_bar_text(modal)
        assert "Cancel (n), then do the action again" in str(modal.query_one("#plan-status").render())
        assert app.focused is modal.query_one("#plan-cancel")
        await pilot.press("y")  # refused, and says why
        await settle(pilot)
        assert app.screen is modal and "Cancel (n), then do the action again" in app.errors()[-1]
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is app.main_screen


async def test_steady_events_still_refresh_within_the_maximum_wait(demo_root: Path, make_app) -> None:
    now = [1000.0]
    app = make_app(demo_root)
    app.monotonic = lambda: now[0]
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        generation = app._generation
        path = str(demo_root / "_index.md")  # a control file: always a full rescan
        for _ in range(3):  # events 50 ms apart: each one would reset a plain debouncer
            app.watcher.handler.dispatch(FileModifiedEvent(path))
            app.on_files_changed(FilesChanged())
            now[0] += 0.05
        assert app._generation == generation  # still debouncing
        now[0] += 0.1
        app.watcher.handler.dispatch(FileModifiedEvent(path))
        app.on_files_changed(FilesChanged())
        assert app._generation == generation + 1  # the maximum wait forced a rescan
        await settle(pilot)


async def test_real_observer_sees_an_external_write(demo_root: Path) -> None:
    app = RecordingApp(demo_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert await until(pilot, lambda: app.watcher.mode in ("live", "polling"))
        assert "● live" in str(app.main_screen.query_one("#header").render()) or app.watcher.mode == "polling"
        (demo_root / "notes/live.md").write_text("# Live\n", encoding="utf-8")
        found = await until(pilot, lambda: "notes/live.md" in {r.key for r in index_list(app).all_rows})
        assert found
    assert not app.watcher.running and app.watcher.mode == "off"  # stopped on unmount


async def test_observer_that_cannot_start_falls_back_to_polling(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchdog.observers

    class NoWatches(watchdog.observers.Observer):  # type: ignore[misc, valid-type]
        def start(self) -> None:
            raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchdog.observers, "Observer", NoWatches)
    app = RecordingApp(demo_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert await until(pilot, lambda: app.watcher.mode != "off")
        assert app.watcher.mode == "polling"
        assert "polling" in str(app.main_screen.query_one("#header").render())


async def test_the_full_scan_reads_the_tree_only_once_the_watches_are_set(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file an agent writes while the first scan runs is read by the scan or reported by the watcher:
    the scan starts after the watches are set (before, the two ran side by side, and a folder the scan had
    read but the watcher had not reached yet could change unseen)."""
    from pmem_tui.core import tree

    app = RecordingApp(demo_root, watch=True)
    watching_at_scan: list[bool] = []
    real = tree.scan

    def scan(*args: object, **kwargs: object) -> object:
        watching_at_scan.append(app.watcher.running)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree, "scan", scan)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done == 1)
        assert watching_at_scan and all(watching_at_scan)
        (demo_root / "notes/while.md").write_text("# While\n", encoding="utf-8")
        assert await until(pilot, lambda: "notes/while.md" in {r.key for r in index_list(app).all_rows})


async def test_a_watcher_that_fails_to_start_still_lets_the_scan_run(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: MemoryWatcher) -> str:
        raise ValueError("no watches today")

    monkeypatch.setattr(MemoryWatcher, "start", broken)
    app = RecordingApp(demo_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done == 1)
        assert index_list(app).all_rows and not app.watcher.running


async def test_a_second_start_while_the_first_is_setting_its_watches_starts_nothing(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan ending (an action's, say) while the watcher still sets its watches asks for the watcher
    again: that must not start a second observer beside the first."""
    import threading

    gate, starts = threading.Event(), []
    real = MemoryWatcher.start

    def slow(self: MemoryWatcher) -> str:
        starts.append(1)
        gate.wait(20)
        return real(self)

    monkeypatch.setattr(MemoryWatcher, "start", slow)
    app = RecordingApp(demo_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: bool(starts), workers=False)
        assert app._maybe_start_watcher() is False  # the first is still starting
        gate.set()
        assert await until(pilot, lambda: app.scans_done == 1)
        assert app.watcher.running and len(starts) == 1
        assert app._maybe_start_watcher() is False  # running


def test_a_change_of_mode_alone_is_seen(tmp_path: Path) -> None:
    """Found in trial: `chmod 000` on a folder (no write) left its files listed, and their old previews,
    until some other write woke the app."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/a.md").write_text("# A\n", encoding="utf-8")
    seen = threading.Event()
    watcher = MemoryWatcher(tmp_path, seen.set)
    assert watcher.start() == "live"
    try:
        os.chmod(tmp_path / "notes", 0o000)
        assert seen.wait(30), "no event for the folder's chmod"  # a bound against a hang, not a timing
        assert watcher.drain() == frozenset({"notes"})
    finally:
        os.chmod(tmp_path / "notes", 0o755)
        watcher.stop()


def test_the_history_store_made_or_its_refs_written_is_told_apart_from_memory(tmp_path: Path) -> None:
    """`.pmem/` is no memory (no path, no rescan), but the store made and its refs written are told, on their
    own; its packs and lock are not."""
    seen: list[set[str]] = []
    told: list[int] = []
    handler = ChangeHandler(tmp_path, seen.append, lambda: told.append(1))
    store = tmp_path / ".pmem/history"
    handler.dispatch(FileCreatedEvent(str(store / "objects/pack/pack-1.pack")))
    handler.dispatch(FileModifiedEvent(str(store / "record.lock")))
    handler.dispatch(FileCreatedEvent(str(tmp_path / ".pmem/journal/intent.json")))
    assert seen == [] and told == []
    handler.dispatch(FileMovedEvent(str(store / "refs/heads/.main.tmp"), str(store / "refs/heads/main")))
    handler.dispatch(FileCreatedEvent(str(store)))
    assert seen == [] and len(told) == 2


async def test_a_snapshot_made_elsewhere_starts_the_changes_pane_without_a_rescan(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in trial: `pmem-tui snapshot` run in another terminal made the history store, and the Changes
    pane kept saying "No history yet… press R" until a memory file changed. The store's refs written wake the
    pane (only it: `.pmem/` traffic is no rescan); a ref written that the pane has read already reads
    nothing again."""
    from pmem_tui.core.history import record
    from pmem_tui.tui import history_data

    app = RecordingApp(demo_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert await until(pilot, lambda: app.watcher.mode in ("live", "polling"))
        await pilot.press("6")
        view = app.screen.query_one(ChangesView)
        assert await until(pilot, lambda: view.data is not None)
        assert "No history yet" in view.list.empty_text
        scans = app.scans_done
        assert record.record(demo_root, create=True).commit is not None  # what `pmem-tui snapshot` does
        assert await until(pilot, lambda: "No history yet" not in view.list.empty_text, timeout=20)
        assert view.data is not None and view.data.refs is not None
        assert app.scans_done == scans and not app.errors()
        loads, reads, read = view.loads, history_data.read_changes, []
        monkeypatch.setattr(history_data, "read_changes", lambda root: read.append(root) or reads(root))
        app.watcher.handler.dispatch(FileModifiedEvent(str(demo_root / ".pmem/history/refs/heads/main")))
        app.on_files_changed(FilesChanged())
        await settle(pilot)
        assert view.loads == loads and read == []
