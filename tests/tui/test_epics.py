"""The Epics pane: the permanent-memory loader as the agent sees it, through the TUI (key 5)."""

from __future__ import annotations

import builtins
import io
import os
import threading
from pathlib import Path
from typing import Any, cast

import pytest
from epics_helpers import PROJECT_LABEL, WITHIN, over_budget, over_cap, v1, write_project
from rich.console import RenderableType
from textual.pilot import Pilot
from tui_helpers import TODAY, RecordingApp, make_demo, settle, until

from pmem_tui.core.loader import HEADER, STALE_PREFIX, Shape, Status, Step, load_permanent_memory
from pmem_tui.demo.epics import build_epics_demo
from pmem_tui.tui import app as app_module
from pmem_tui.tui.widgets import epics
from pmem_tui.tui.widgets.epics import EpicsPane, EpicsView, epics_panes
from pmem_tui.tui.widgets.preview import render_lines

SIZE = (120, 36)


# -- helpers ---------------------------------------------------------------------------------------


def make_app(tmp_path: Path, project: Path, **kwargs: Any) -> RecordingApp:
    root = make_demo(tmp_path)
    return RecordingApp(root, extra_panes=[EpicsPane(project, label=PROJECT_LABEL)], **kwargs)


def view_of(app: RecordingApp) -> EpicsView:
    assert app.main_screen is not None
    return app.main_screen.query_one(EpicsView)


async def open_epics(pilot: Pilot[Any]) -> EpicsView:
    app = pilot.app
    assert isinstance(app, RecordingApp)
    await settle(pilot)
    await pilot.press("5")
    view = view_of(app)
    assert await until(pilot, lambda: view.result is not None or view.error is not None)
    await settle(pilot)
    return view


def text_of(renderable: RenderableType, width: int = 300) -> list[str]:
    return ["".join(s.text for s in line).rstrip() for line in render_lines(renderable, width)]


def preview_text(app: RecordingApp) -> str:
    assert app.main_screen is not None
    return " ".join(app.main_screen.preview.text.split())  # wrapping undone


def shown_block(view: EpicsView) -> list[str]:
    """The block as the pane shows it, its line numbers taken off."""
    lines = [line for line in text_of(cast(RenderableType, view.block.content)) if line]
    out = []
    for n, line in enumerate(lines, start=1):
        prefix = f"{n} "
        assert line.startswith(prefix), line
        out.append(line[len(prefix) :])
    return out


def epics_errors(app: RecordingApp) -> list[str]:
    """Errors from this pane's workers (`_load_epics`, `_start_epics_watcher`) or naming it."""
    return [e for e in app.errors() if "epics" in e.lower()]


def tree_state(*roots: Path) -> dict[str, tuple[bytes, int]]:
    state: dict[str, tuple[bytes, int]] = {}
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                path = Path(dirpath) / name
                state[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return state


# -- where the pane appears ------------------------------------------------------------------------


def test_pane_only_with_a_project_or_a_claude_memory_folder(tmp_path: Path, monkeypatch: Any) -> None:
    here = tmp_path / "here"
    here.mkdir()
    assert epics_panes(None, cwd=here) == []
    (here / ".claude").mkdir()
    assert epics_panes(None, cwd=here) == []  # .claude/ alone is not enough
    (here / ".claude" / "memory").mkdir()
    [pane] = epics_panes(None, cwd=here)
    assert isinstance(pane, EpicsPane) and pane.project == here
    # --project DIR: shown even without .claude/memory/ (the pane then says the loader is silent).
    other = tmp_path / "other"
    other.mkdir()
    [pane] = epics_panes(str(other), cwd=tmp_path)
    assert isinstance(pane, EpicsPane) and pane.project == other
    # The app's slot uses it, with the current folder as the default.
    monkeypatch.chdir(here)
    assert [p.pane_id for p in app_module._extra_panes(None)] == ["epics"]
    monkeypatch.chdir(tmp_path)
    assert app_module._extra_panes(None) == []


async def test_key_5_opens_the_pane_only_when_it_exists(tmp_path: Path) -> None:
    project = write_project(tmp_path, WITHIN)
    plain = RecordingApp(make_demo(tmp_path / "a"))
    async with plain.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        assert plain.main_screen is not None
        assert plain.main_screen.current_pane_id() == "pane-index"
        assert not plain.main_screen.query(EpicsView)
    app = make_app(tmp_path / "b", project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert app.main_screen is not None and app.main_screen.current_pane_id() == "pane-epics"
        assert view.table.has_focus
        label = app.main_screen.tabs.label("pane-epics")
        assert str(label) == "5 Epics (4)"


async def test_demo_opens_with_the_sample_project(tmp_path: Path, monkeypatch: Any) -> None:
    """`pmem-tui --demo`: run_app writes the sample project next to the sample memory and shows it."""
    seen: dict[str, Any] = {}

    def fake_run(self: app_module.PmemApp, *args: Any, **kwargs: Any) -> int:
        seen["project"] = self.project
        seen["panes"] = list(self.extra_panes)
        seen["result"] = load_permanent_memory(Path(str(self.project)))
        return 0

    monkeypatch.setattr(app_module.PmemApp, "run", fake_run)
    assert app_module.run_app(tmp_path / "unused", demo=True) == 0
    [pane] = seen["panes"]
    assert isinstance(pane, EpicsPane) and str(pane.project) == seen["project"]
    assert seen["result"].status is Status.LOADED


def test_demo_project_is_mixed_with_one_tentative_and_one_stale(tmp_path: Path) -> None:
    project = build_epics_demo(tmp_path, TODAY)
    result = load_permanent_memory(project, today=TODAY)
    assert {r.epic.shape for r in result.rows} == {Shape.V1, Shape.V2}
    assert [r.id for r in result.rows if r.epic.tentative] == ["SEARCH-31"]
    assert [r.id for r in result.rows if r.stale] == ["AUTH-7"]
    assert result.step is Step.DROP_TENTATIVE and result.within_target


# -- what it shows ---------------------------------------------------------------------------------


@pytest.mark.rule("PL-3", "PL-4", "PL-9", "PL-11")
async def test_rows_show_shape_confidence_age_stale_and_cost(tmp_path: Path) -> None:
    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        result = load_permanent_memory(project, today=TODAY)
        tokens = {r.id: str(r.tokens) for r in result.rows}
        size = {r.id: str(r.section_tokens) for r in result.rows}
        assert view.plain_rows() == [
            ("▸ FEAT-1", "v2", "0.9", "18d", tokens["FEAT-1"], "✓ full", "marker", size["FEAT-1"]),
            ("▸ AUTH-2", "v1", "—", "18d", tokens["AUTH-2"], "✓ full", "heading", size["AUTH-2"]),
            ("▸ OPS-3", "v2", "0.9", "282d!", tokens["OPS-3"], "✓ full", "marker", size["OPS-3"]),
            ("▸ SRCH-4", "v2", "tent.", "18d", tokens["SRCH-4"], "✓ full", "marker", size["SRCH-4"]),  # kept
        ]
        assert view.table.row_count == 4
        summary = view.plain_summary()
        assert "~/work/shop/.claude/memory/permanent_memory.md" in summary
        assert "4 epics, 4 loaded" in summary


@pytest.mark.rule("PL-5", "PL-6")
async def test_block_is_shown_exactly_as_the_agent_receives_it(tmp_path: Path) -> None:
    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        expected = load_permanent_memory(project, today=TODAY).block.split("\n")
        shown = shown_block(view)
        assert shown == expected
        assert shown[0] == HEADER == "[permanent-memory | trust: file]"
        assert len(shown) == 1 + 4  # the stamp, then one line per epic
        assert all(len(line) <= 120 for line in shown)
        title = view.block_title.content
        assert "What the agent receives · 5 lines · 75 tokens · stamped trust: file" in str(title)


@pytest.mark.rule("PL-2", "PL-10")
async def test_enter_toggles_between_what_loads_and_the_full_body(tmp_path: Path) -> None:
    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        line = load_permanent_memory(project, today=TODAY).rows[0].line
        assert line is not None
        text = preview_text(app)
        assert "What loads" in text and line in text and "line 2 of the block" in text
        assert "BODY-ONLY" not in text
        await pilot.press("enter")
        await settle(pilot)
        text = preview_text(app)
        assert "Full body (lines 3–9" in text and "never loads it" in text
        assert "BODY-ONLY detail of FEAT-1" in text and "### Architectural decisions" in text
        assert view.plain_rows()[0][0] == "▾ FEAT-1"
        # The body is for display: the block is unchanged.
        assert not any("BODY-ONLY" in s for s in shown_block(view))
        assert view.result is not None and "BODY-ONLY" not in view.result.block
        await pilot.press("enter")
        await settle(pilot)
        text = preview_text(app)
        assert "What loads" in text and "BODY-ONLY" not in text
        assert view.plain_rows()[0][0] == "▸ FEAT-1"
        # The preview follows the cursor; each epic keeps its own toggle.
        await pilot.press("down", "enter")
        await settle(pilot)
        assert "BODY-ONLY gotcha of AUTH-2" in preview_text(app)
        await pilot.press("up")
        await settle(pilot)
        assert "What loads" in preview_text(app)


@pytest.mark.rule("PL-7")
async def test_budget_gauge_numbers(tmp_path: Path) -> None:
    project = write_project(tmp_path, over_budget())
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        result = view.result
        assert result is not None and result.used == 36
        gauge = next(line for line in view.plain_summary().splitlines() if line.startswith("Budget "))
        assert gauge.endswith(" 36 / 120 target, cap 200")
        bar = gauge.removeprefix("Budget ").split(" ")[0]
        assert len(bar) == epics.GAUGE_WIDTH
        assert bar.count("█") == round(36 * 30 / 200)  # the bar spans 0..cap
        assert bar.index("┃") == round(120 * 30 / 200)  # the target mark


@pytest.mark.rule("PL-8", "PL-9")
async def test_ladder_step_in_force_and_what_each_rung_did(tmp_path: Path) -> None:
    project = write_project(tmp_path, over_budget())
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        summary = view.plain_summary()
        assert "Ladder step 3 · epic IDs only" in summary
        assert "0 none            253 tok" in summary
        assert "1 drop tentative  226 tok  −27  dropped 1: EP-2" in summary
        assert "2 trim summaries  166 tok  −60  trimmed 8: EP-1, EP-3, EP-4 +5" in summary
        assert " ▶ 3 ids only         36 tok −130  reduced to IDs 8" in summary
        assert "4 skip file" in summary and "not needed" in summary
        loads = {row[0].removeprefix("▸ "): row[5] for row in view.plain_rows()}
        assert loads["EP-2"] == "✗ tentative"
        assert {v for k, v in loads.items() if k != "EP-2"} == {"◐ ID only"}
        assert shown_block(view)[1:3] == ["Epic: EP-1", STALE_PREFIX + "Epic: EP-3"]
        assert app.main_screen is not None
        assert str(app.main_screen.tabs.label("pane-epics")) == "5 Epics (9) ◐"
        # The dropped epic's preview says which step dropped it.
        await pilot.press("down")
        await settle(pilot)
        assert "Not loaded: dropped by step 1, tentative epics dropped." in preview_text(app)


@pytest.mark.rule("PL-8")
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (WITHIN, "Ladder step 0 · no degradation: the full block is within the 120-token target"),
        (over_cap(), "Ladder step 4 · file skipped: even epic IDs only are over the 200-token cap"),
        (
            over_cap(40) + "x" * 40_000,
            "Ladder step 4 · file skipped: the file is 10,840 tokens, over 8,000, and even epic IDs only",
        ),
    ],
    ids=["within", "over-cap", "over-8000"],
)
async def test_ladder_text_for_every_outcome(tmp_path: Path, content: str, expected: str) -> None:
    project = write_project(tmp_path, content)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert expected in view.plain_summary()
        assert "⚠ the file is" not in view.plain_summary()  # said once, in the ladder line
        if view.result is not None and view.result.status is Status.SKIPPED:
            assert "0 / 120 target, cap 200" in view.plain_summary()
            assert str(view.block_title.content).endswith("What the agent receives: nothing")
            assert shown_block(view) == []


@pytest.mark.rule("PL-11")
async def test_stale_epics_are_flagged_and_prefixed(tmp_path: Path) -> None:
    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        stale = [row[0].removeprefix("▸ ") for row in view.plain_rows() if row[3].endswith("d!")]
        assert stale == ["OPS-3"]
        assert [s for s in shown_block(view) if s.startswith(STALE_PREFIX)] == [
            "(>90d may be outdated) Epic: OPS-3 — deploys — Blue-green; migrations stay compatible."
        ]
        await pilot.press("down", "down")
        await settle(pilot)
        text = preview_text(app)
        assert "282 days old" in text and "Older than 90 days" in text
        assert "from the marker's date=" in text


@pytest.mark.rule("PL-1")
async def test_silent_when_the_project_has_no_memory_folder(tmp_path: Path) -> None:
    project = tmp_path / "bare"
    project.mkdir()
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert view.result is not None and view.result.status is Status.NO_MEMORY_DIR
        assert "the loader is silent, the agent gets nothing" in view.plain_summary()
        assert not view.table.display and view.plain_rows() == []
        assert str(view.block_title.content).endswith(": nothing")
        assert "the loader is silent" in preview_text(app)
        assert not epics_errors(app)


async def test_a_missing_project_folder_is_said_in_the_pane(tmp_path: Path) -> None:
    app = make_app(tmp_path, tmp_path / "nowhere")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert view.error is not None and "does not exist" in view.error
        assert "does not exist" in view.plain_summary()


@pytest.mark.rule("PL-10", "PL-12")
async def test_nothing_is_written_and_manual_overrides_is_never_opened(
    tmp_path: Path, monkeypatch: Any
) -> None:
    project = write_project(tmp_path, WITHIN)
    (project / ".claude" / "memory" / "manual_overrides.md").write_text("# Overrides\n- secret\n")
    app = make_app(tmp_path, project)
    before = tree_state(project, app.root)
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(os.fsdecode(file) if isinstance(file, str | bytes | os.PathLike) else repr(file))
        return real_open(file, *args, **kwargs)

    real_os_open = os.open

    def os_spy(path: Any, *args: Any, **kwargs: Any) -> int:  # `safeio` opens with os.open, folder by folder
        opened.append(os.fsdecode(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    monkeypatch.setattr(os, "open", os_spy)
    async with app.run_test(size=SIZE) as pilot:
        await open_epics(pilot)
        await pilot.press("enter", "down", "enter", "ctrl+r")
        await settle(pilot)
        await pilot.press("down", "enter", "1", "5")
        await settle(pilot)
    monkeypatch.undo()
    assert tree_state(project, app.root) == before  # bytes and mtimes
    assert not [p for p in opened if p.endswith("manual_overrides.md")]
    assert any(p.endswith("permanent_memory.md") for p in opened)


# -- loading and refreshing ------------------------------------------------------------------------


async def test_the_loader_runs_off_the_ui_thread(tmp_path: Path, monkeypatch: Any) -> None:
    project = write_project(tmp_path, WITHIN)
    threads: list[bool] = []
    real = load_permanent_memory

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(epics, "load_permanent_memory", spy)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        await open_epics(pilot)
    assert threads and not any(threads)


async def test_a_change_under_claude_memory_reloads_the_pane(tmp_path: Path) -> None:
    from watchdog.events import FileModifiedEvent

    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert len(view.rows) == 4
        path = project / ".claude" / "memory" / "permanent_memory.md"
        path.write_text(over_budget(), encoding="utf-8")
        loads = view.loads
        # The project watcher's handler, as watchdog would call it (no timing: the observer is off).
        view.watcher.handler.dispatch(FileModifiedEvent(str(path)))
        view.watcher.handler.dispatch(FileModifiedEvent(str(path)))  # a burst: one reload
        assert await until(pilot, lambda: len(view.rows) == 9)
        await settle(pilot)
        assert view.loads == loads + 1
        assert "Ladder step 3 · epic IDs only" in view.plain_summary()
        # ctrl+r reloads too (for when the watcher is off); the cursor stays on its epic.
        path.write_text(WITHIN, encoding="utf-8")
        await pilot.press("ctrl+r")
        assert await until(pilot, lambda: len(view.rows) == 4)
        await pilot.press("down")
        await settle(pilot)
        assert view.current_row is not None and view.current_row.id == "AUTH-2"
        path.write_text(v1("NEW-0", "first", "A new first epic.") + WITHIN, encoding="utf-8")
        await pilot.press("ctrl+r")
        assert await until(pilot, lambda: len(view.rows) == 5)
        await settle(pilot)
        assert view.table.cursor_row == 2 and view.current_row is not None and view.current_row.id == "AUTH-2"
        assert "AUTH-2" in preview_text(app)


async def test_the_project_watcher_follows_the_app_setting(tmp_path: Path) -> None:
    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert await until(pilot, lambda: view.watcher.running)
        assert view.watcher.mode in ("live", "polling")
        path = project / ".claude" / "memory" / "permanent_memory.md"
        path.write_text(over_budget(), encoding="utf-8")  # a real event, through a real observer
        assert await until(pilot, lambda: len(view.rows) == 9)
    assert not view.watcher.running  # stopped with the app
    quiet = make_app(tmp_path / "q", project)
    async with quiet.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert not view.watcher.running and "ctrl+r reloads" in view.plain_summary()


async def test_user_text_is_never_markup(tmp_path: Path) -> None:
    content = (
        "## Epic: [red]X[/red] — [bold]intent[/bold]\n"
        "<!-- af-memory:v2 epic=[red]X[/red] confidence=0.9 items=1 date=2026-03-01 -->\n"
        "Summary with [link=http://x]markup[/link] and [/] brackets.\n"
    )
    project = write_project(tmp_path, content)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert view.plain_rows()[0][0] == "▸ [red]X[/red]"
        assert shown_block(view)[1].startswith(
            "Epic: [red]X[/red] — [bold]intent[/bold] — Summary with [link="
        )
        assert "[red]X[/red] [bold]intent[/bold]" in preview_text(app)
        assert not epics_errors(app)


async def test_selection_keys_are_hidden_and_inert_on_the_epics_pane(tmp_path: Path) -> None:
    from pmem_tui.tui.widgets.key_bar import KeyBar

    project = write_project(tmp_path, WITHIN)
    app = make_app(tmp_path, project)
    async with app.run_test(size=SIZE) as pilot:
        await open_epics(pilot)
        bar = app.screen.query_one(KeyBar).render().plain
        for hint in ("a Archive", "d Delete", "r Recover", "e Edit", "/ Filter"):
            assert hint not in bar
        assert "H Health" in bar and "q Quit" in bar
        await pilot.press("a", "d", "r", "e", "slash")
        await pilot.pause()
        assert app.errors() == []  # no "Nothing selected" for keys that mean nothing here
        assert app.screen is app.main_screen
        await pilot.press("1")
        await pilot.pause()
        assert "a Archive" in app.screen.query_one(KeyBar).render().plain


async def test_a_short_terminal_keeps_lines_for_the_block(tmp_path: Path) -> None:
    project = build_epics_demo(tmp_path / "demo", TODAY)  # five epics and a ladder step in force
    app = make_app(tmp_path, project)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_epics(pilot)
        assert view.has_class("-short")
        block = view.query_one("#epics-block-scroll")
        assert block.size.height >= 2  # the first lines of what the agent receives stay visible
    app = make_app(tmp_path / "tall", project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_epics(pilot)
        assert not view.has_class("-short")
