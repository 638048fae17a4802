"""`ctrl+f`: the search screen. Results as you type (stale ones dropped), highlighted snippets, enter opens
the file in its pane with the preview at the match, the lifecycle keys through their previews, the index's
progress while it is built, and the watcher's changes indexed file by file. The index is started by the first
search screen, never at the app's start."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_actions import modal, preview_of
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import OptionList, ProgressBar, Static
from tui_helpers import RecordingApp, fill, search_caught_up, settle, until

from pmem_tui.core.search import SearchIndex, db
from pmem_tui.tui.commands import system_commands
from pmem_tui.tui.messages import IndexProgress
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens import search as search_screen
from pmem_tui.tui.screens.search import SearchScreen
from pmem_tui.tui.widgets.hit_lines import HitLines
from tests.conftest import cache_file

SIZE = (100, 30)
LONG = "notes/long-log.md"


@pytest.fixture
def root(demo_root: Path) -> Path:
    lines = [f"line {n} of the log, nothing to find here" for n in range(1, 120)]
    lines[99] = "line 100: the quokka finally arrived"
    (demo_root / LONG).write_text("# Long log\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return demo_root


async def open_search(pilot: Pilot[Any], app: RecordingApp, query: str = "") -> SearchScreen:
    """The app's first scan on screen, then `ctrl+f`, whose first use builds the index: awaited."""
    await settle(pilot)
    await pilot.press("ctrl+f")
    assert await until(pilot, lambda: isinstance(app.screen, SearchScreen))
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await search_caught_up(pilot)
    if query:
        await fill(pilot, query)
        assert await until(pilot, lambda: screen.shown_generation == screen.generation)
    return screen


def status(screen: SearchScreen) -> str:
    return str(screen.query_one("#search-status", Static).render())


async def test_results_as_you_type_with_highlighted_snippets(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app, "quokka")
        assert [(h.path, h.line) for h in screen.hits] == [(LONG, 102)]
        assert "1 result" in status(screen)
        prompt = screen.query_one(OptionList).get_option_at_index(0).prompt
        assert isinstance(prompt, HitLines) and f"{LONG}:102" in prompt.plain()
        assert ("quokka", "bold reverse") in prompt.lines[1]
        await fill(pilot, "quokka nosuchthing")
        assert await until(pilot, lambda: screen.shown_generation == screen.generation)
        assert screen.hits == [] and "0 results" in status(screen)
        await fill(pilot, "in:nowhere x")
        assert await until(pilot, lambda: screen.shown_generation == screen.generation)
        assert "in:nowhere is not a place" in status(screen)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_match_at_the_end_of_a_long_line_is_on_screen(root: Path, size: tuple[int, int]) -> None:
    """Found in trial: an agent's one-line paragraph of 237 characters, its match at the end; the row showed
    the snippet's first 70 characters, which the match was not in."""
    line = (
        "The migration should wait until the quarterly freeze ends, because the billing reconciliation job "
        "runs nightly and any schema change during the freeze window needs sign-off from finance; the "
        "rollout plan depends on zanzibar being stable."
    )
    (root / "notes/paragraph.md").write_text("# Paragraph\n\n" + line + "\n", encoding="utf-8")
    app = RecordingApp(root)
    async with app.run_test(size=size) as pilot:
        screen = await open_search(pilot, app, "zanzibar")
        assert [h.path for h in screen.hits] == ["notes/paragraph.md"]
        results = screen.query_one(OptionList)
        rows = [results.render_line(y) for y in range(results.size.height)]
        shown = [strip.text for strip in rows if "…" in strip.text]
        assert shown and "zanzibar" in shown[0], shown
        marked = [seg.text for strip in rows for seg in strip if seg.style is not None and seg.style.reverse]
        assert "zanzibar" in marked


async def test_stale_results_are_dropped(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app, "quokka")
        shown = list(screen.hits)
        screen.post_message(SearchScreen.Found(screen.generation - 1, "an older query's answer"))
        await pilot.pause()
        assert screen.hits == shown and "older" not in status(screen)


class _Conn:
    interrupted = 0

    def interrupt(self) -> None:
        self.interrupted += 1


async def test_a_keystroke_interrupts_the_query_in_flight(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app, "quokka")
        in_flight = _Conn()
        screen.in_flight = in_flight  # type: ignore[assignment]  # a query still running on its connection
        await fill(pilot, "quokkas")
        assert await until(pilot, lambda: screen.shown_generation == screen.generation)
        assert in_flight.interrupted == 1 and screen.hits == []


async def test_enter_opens_the_file_in_its_pane_at_the_match(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_search(pilot, app, "quokka")
        await pilot.press("enter")
        main = app.main_screen
        assert main is not None and app.screen is main
        view = main.current_view()
        assert view is not None and view.list.current_row is not None
        assert view.list.current_row.location == LONG
        assert await until(pilot, lambda: "quokka" in main.preview.text and main.preview.scroll_y > 50)
        top = main.preview.text.split("\n")[round(main.preview.scroll_y) :]
        assert any("quokka" in line for line in top[:5])  # the match is at the top of the preview


async def test_results_keys_move_and_escape_closes(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app, "the")
        assert len(screen.hits) > 2
        await pilot.press("down")
        assert screen.results.has_focus and screen.results.highlighted == 0
        await pilot.press("j", "j", "k")
        assert screen.results.highlighted == 1
        await pilot.press("slash")
        assert screen.input.has_focus
        await pilot.press("escape")
        assert app.screen is app.main_screen


async def test_archive_a_result_through_its_preview(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app, "quokka")
        await pilot.press("down", "a")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        assert modal(app).heading == "Archive notes/long-log.md"
        await pilot.press("escape")
        assert await until(pilot, lambda: app.screen is screen)
        assert (root / LONG).exists()


async def test_delete_and_recover_an_archived_result(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app, "in:archive the")
        assert screen.hits and all(h.location == "archive" for h in screen.hits)
        await pilot.press("down", "r")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        assert modal(app).heading.startswith("Recover")
        await pilot.press("escape")
        assert await until(pilot, lambda: app.screen is screen)
        await pilot.press("d")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        assert modal(app).heading.startswith("Delete") and "_trash" in preview_of(modal(app))


async def test_progress_bar_while_the_index_is_built(root: Path) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app)
        bar = screen.query_one(ProgressBar)
        assert not bar.display
        app.post_message(IndexProgress(40, 100, ready=False))
        await pilot.pause()
        assert bar.display and bar.progress == 40 and bar.total == 100
        assert "Indexing: 40 of 100 files read" in status(screen)
        app.post_message(IndexProgress(0, 0, ready=True))
        await pilot.pause()
        assert not bar.display and "Indexing" not in status(screen)


async def test_the_watchers_changes_are_indexed_file_by_file(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app)  # the index is built
        refreshed: list[int] = []
        real = SearchIndex.refresh
        monkeypatch.setattr(SearchIndex, "refresh", lambda self: refreshed.append(1) or real(self))
        (root / "notes/fresh.md").write_text("# Fresh\n\nA wombat appears.\n", encoding="utf-8")
        assert app._search is not None
        app._search.files_changed(frozenset({"notes/fresh.md"}))
        await search_caught_up(pilot)
        await fill(pilot, "wombat")
        assert await until(pilot, lambda: screen.shown_generation == screen.generation)
        assert [h.path for h in screen.hits] == ["notes/fresh.md"]
        assert refreshed == []  # one file read, no walk of the memory


def _index_workers(app: RecordingApp) -> list[Any]:
    return [w for w in app.workers if w.group == "search-index"]


async def test_the_index_waits_for_the_first_search(root: Path) -> None:
    """Nothing of the index at start (no worker, no file in the cache folder), nor for the watcher's changes
    before it; the first `ctrl+f` builds it."""
    app = RecordingApp(root)
    where = cache_file(root, db.DB_FILE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.scans_done >= 1
        assert _index_workers(app) == [] and not os.path.exists(where)
        (root / "notes/fresh.md").write_text("# Fresh\n\nA wombat appears.\n", encoding="utf-8")
        app.search_flow.files_changed(frozenset({"notes/fresh.md"}))
        await settle(pilot)
        assert _index_workers(app) == [] and not app.search_flow.started and not os.path.exists(where)
        screen = await open_search(pilot, app, "wombat")
        assert os.path.exists(where)
        assert [h.path for h in screen.hits] == ["notes/fresh.md"]  # the first refresh found it by its stamp


async def test_the_first_search_screen_says_the_index_is_catching_up(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    real = SearchIndex.refresh

    def held(self: SearchIndex) -> int:
        gate.wait(60)  # the worker holds until the screen was looked at (a hang guard only)
        return real(self)

    monkeypatch.setattr(SearchIndex, "refresh", held)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        assert await until(pilot, lambda: isinstance(app.screen, SearchScreen), workers=False)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        bar = screen.query_one(ProgressBar)
        assert bar.display and "Indexing" in status(screen) and "results may be incomplete" in status(screen)
        gate.set()
        await search_caught_up(pilot)
        assert not bar.display and "Indexing" not in status(screen)


def test_search_is_in_the_palette(root: Path) -> None:
    app = RecordingApp(root)
    names = [c.title for c in system_commands(app, app.screen if app._screen_stack else None, None)]  # type: ignore[arg-type]
    assert "Search file contents" in names


def _frames(app: RecordingApp, screen: SearchScreen) -> list[tuple[str, bool]]:
    """Every frame drawn from now on, as (the query shown, whether its own results are the ones shown)."""
    frames: list[tuple[str, bool]] = []
    display = app._display

    def recorded(drawn: Any, renderable: Any) -> None:
        display(drawn, renderable)
        if renderable is not None and drawn is screen:
            frames.append((screen.input.value, screen.shown_generation == screen.generation))

    app._display = recorded  # type: ignore[method-assign]
    return frames


async def drawn_by_itself(condition: Callable[[], bool]) -> bool:
    """Poll `condition` without `pilot.pause`, which draws a frame itself: the frames are the app's own (the
    timeout is only a hang guard)."""
    for _ in range(60_000):
        if condition():
            return True
        await asyncio.sleep(0.001)
    return condition()


async def test_a_keystrokes_frame_shows_its_results(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typed key by key: no frame shows a query with the results of the one before (the screen's next frame
    waits for the query, up to `HOLD`: generous here, so that a loaded machine never draws in between)."""
    monkeypatch.setattr(search_screen, "HOLD", 30.0)
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app)
        frames = _frames(app, screen)
        for ch in "quokka":
            await pilot.press(ch)
            assert await drawn_by_itself(lambda: screen.shown_generation == screen.generation)
        await settle(pilot)
        assert frames and frames[-1] == ("quokka", True)
        assert [query for query, own in frames if not own] == []
        assert [(h.path, h.line) for h in screen.hits] == [(LONG, 102)]


def slow_query(gate: threading.Event, real: Any) -> Any:
    """`real`, answering only once the test opens `gate` (60 s: a hang guard only)."""

    def slow(*args: Any) -> Any:
        gate.wait(60)
        return real(*args)

    return slow


async def test_a_slow_query_shows_the_typed_text_first(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query slower than `HOLD`: the typed text is drawn without waiting for it, its results come later."""
    gate, real = threading.Event(), search_screen.run_query
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot, app)
        frames = _frames(app, screen)
        monkeypatch.setattr(search_screen, "run_query", slow_query(gate, real))
        monkeypatch.setattr(search_screen, "HOLD", 0.01)
        await pilot.press("q")
        assert await drawn_by_itself(lambda: ("q", False) in frames)  # once the hold is over
        assert screen.hits == []
        gate.set()
        assert await until(pilot, lambda: screen.shown_generation == screen.generation)
        assert await until(pilot, lambda: frames[-1] == ("q", True))
        answer = real(root, "q")
        assert not isinstance(answer, str) and answer.hits
        assert [h.path for h in screen.hits] == [h.path for h in answer.hits]


async def test_escape_while_a_keystroke_waits_for_its_query(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`escape` typed while the screen holds its frame for a query closes it once the hold ends; the query's
    late answer, for a screen gone, changes nothing."""
    gate, real = threading.Event(), search_screen.run_query
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_search(pilot, app)
        monkeypatch.setattr(search_screen, "run_query", slow_query(gate, real))
        monkeypatch.setattr(search_screen, "HOLD", 0.5)
        await pilot.press("q", "escape")
        assert await until(pilot, lambda: app.screen is app.main_screen, workers=False)
        gate.set()
        await settle(pilot)
        assert app.screen is app.main_screen and app.return_code is None


async def test_at_80_columns_the_status_is_read_to_its_end(root: Path) -> None:
    """Found in trial: at 80 columns "1 result  2 files not indexed: 2 not text (not UTF-8, or holding a NUL"
    ended there, on a one-line status without even an ellipsis."""
    (root / "notes/latin1.md").write_bytes(b"# Caf\xe9\n\xe9t\xe9 quokka\n")
    (root / "notes/bytes.md").write_bytes(b"# Bytes\n\xff\xfe quokka\n")
    app = RecordingApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_search(pilot, app, "quokka")
        assert "not indexed" in status(screen)
        await settle(pilot)
        widget = screen.query_one("#search-status", Static)
        strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
        shown = " ".join(strip.text.strip() for strip in strips)
        assert "holding a NUL byte)." in shown, shown
