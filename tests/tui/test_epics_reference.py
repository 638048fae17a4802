"""The Epics pane against the loader's reference (PL-13, PL-16): age sources, over-cap epics, typed entries,
the archive and the history, all read-only. Pilot tests on the `--demo` sample project."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import pytest
from epics_helpers import PROJECT_LABEL
from rich.console import RenderableType
from textual.pilot import Pilot
from tui_helpers import TODAY, RecordingApp, make_demo, settle, until

from pmem_tui.demo.epics import build_epics_demo
from pmem_tui.tui.widgets.epics import EpicsPane, EpicsView
from pmem_tui.tui.widgets.preview import render_lines

SIZE = (120, 36)


async def open_demo(pilot: Pilot[Any]) -> EpicsView:
    app = pilot.app
    assert isinstance(app, RecordingApp) and app.main_screen is not None
    await settle(pilot)
    await pilot.press("5")
    view = app.main_screen.query_one(EpicsView)
    assert await until(pilot, lambda: view.data is not None)
    await settle(pilot)
    return view


def demo_app(tmp_path: Path) -> tuple[RecordingApp, Path]:
    project = build_epics_demo(tmp_path / "shop", TODAY)
    app = RecordingApp(make_demo(tmp_path), extra_panes=[EpicsPane(project, label=PROJECT_LABEL)])
    return app, project


def plain(renderable: object) -> str:
    lines = render_lines(cast(RenderableType, renderable), 200)
    return "\n".join("".join(s.text for s in line).rstrip() for line in lines)


def preview(app: RecordingApp) -> str:
    assert app.main_screen is not None
    return " ".join(app.main_screen.preview.text.split())


def files_under(root: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            out[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


@pytest.mark.rule("PL-13", "PL-16")
async def test_each_row_says_where_its_age_comes_from_and_flags_over_cap_epics(tmp_path: Path) -> None:
    app, _ = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_demo(pilot)
        rows = {r[0].removeprefix("▸ "): r for r in view.plain_rows()}
        assert {k: (r[3], r[6]) for k, r in rows.items()} == {
            "FEAT-112": ("12d", "completed"),
            "AUTH-7": ("200d!", "completed"),  # stale: over 90 days
            "SEARCH-31": ("5d", "marker"),
            "OPS-4": ("40d", "heading"),
            "PAY-19": ("?", "—"),  # no date anywhere: age unknown, not fresh
        }
        assert [k for k, r in rows.items() if r[7].endswith("!")] == ["OPS-4"]
        assert "from its Completed line (line 25)" in preview(app)
        await pilot.press("down", "down", "down")
        await settle(pilot)
        assert "over the producer's 500-token cap" in preview(app)
        await pilot.press("down")
        await settle(pilot)
        text = preview(app)
        assert "age unknown" in text and "neither fresh nor stale" in text


@pytest.mark.rule("PL-16", "PL-10")
async def test_typed_entries_archive_and_history_are_shown_read_only(tmp_path: Path) -> None:
    app, project = demo_app(tmp_path)
    before = files_under(project)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_demo(pilot)
        assert "Typed entries" not in preview(app)  # the short view: what loads
        await pilot.press("enter")
        await settle(pilot)
        text = preview(app)
        assert "Typed entries (4; shown here only, never loaded)" in text
        assert "[decision] 0.9 Opaque cursors" in text and "[gotcha] 0.55 Cursor decoding" in text
        archive = plain(view.archive.content)
        assert "Archived epics (archive/): 2 in 1 file · read-only, the agent never loads them" in archive
        assert "CART-2" in archive and "IMG-1" in archive
        history = plain(view.history.content)
        assert "History (history.jsonl): 4 events · newest first" in history
        assert "1 line is not a JSON object: skipped" in history
        assert history.index("FEAT-112") < history.index("AUTH-7")  # newest first
        assert view.result is not None
        assert "[decision]" not in view.result.block and "CART-2" not in view.result.block
        await pilot.press("ctrl+r")
        await settle(pilot)
    assert files_under(project) == before
