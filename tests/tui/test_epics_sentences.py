"""The Epics pane's sentences are read whole and said once (found in trials at 80x24 and 100x30)."""

from __future__ import annotations

from pathlib import Path

import pytest
from epics_helpers import v1, write_project
from test_epics import make_app, open_epics, text_of, view_of
from textual.geometry import Region
from textual.widgets import Static
from tui_helpers import TODAY

from pmem_tui.core.loader import load_permanent_memory
from pmem_tui.tui.widgets.epics import EpicsView
from pmem_tui.tui.widgets.epics_render import epic_loaded_renderable

# Three file warnings, each longer than the pane is wide at 100 columns.
WARNED = (
    "# Permanent memory\n\n"
    + v1("FEAT-1", "cursor pagination", "Opaque cursors over offsets.")
    + "## Epic AUTH-2 - sessions\nTokens.\n\n"
    + "```\n## Epic: X-1 — in code\n## Epic: X-2 — in code\n"
).encode() + b"\xff\n"

WARNINGS = (
    "the file is not valid UTF-8: undecodable bytes are shown as U+FFFD",
    "line 9: heading looks like an epic but lacks 'Epic:'; ignored",
    "a code block is never closed; the 2 '## ' headings after it are read as code",
)


def shown_summary(view: EpicsView) -> str:
    """The summary as the screen shows it, its wrapping undone."""
    widget = view.query_one("#epics-summary", Static)
    strips = widget.render_lines(Region(0, 0, *widget.outer_size))  # with its padding
    return " ".join(" ".join(strip.text.split()) for strip in strips)


async def test_at_100_columns_the_file_warnings_wrap_and_are_read_to_their_end(tmp_path: Path) -> None:
    """Found in trial: at 100x30 each warning was one line cut at the pane's edge ("line 16: a code block
    is never …")."""
    project = write_project(tmp_path, WARNED)
    app = make_app(tmp_path, project)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await open_epics(pilot)
        shown = shown_summary(view)
        for warning in WARNINGS:
            assert warning in shown, shown
        assert "more" not in shown


async def test_at_80x24_one_warning_is_whole_and_the_others_counted(tmp_path: Path) -> None:
    """Wrapped, three warnings would take the block's last lines at 80x24: one is shown whole, then how
    many more and where they are all listed."""
    project = write_project(tmp_path, WARNED)
    app = make_app(tmp_path, project)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_epics(pilot)
        shown = shown_summary(view)
        assert WARNINGS[0] in shown, shown
        assert "⚠ …and 2 more: `pmem-tui loader` lists all" in shown, shown
        assert view_of(app).query_one("#epics-block-scroll").size.height >= 2


@pytest.mark.rule("PL-13")
def test_an_undated_epic_says_its_age_is_unknown_once(tmp_path: Path) -> None:
    """Found in trial: "age unknown: dated from nowhere: no Completed line, marker date or heading date;
    age unknown (neither fresh nor stale)"."""
    project = write_project(tmp_path, "# Permanent memory\n\n" + v1("PAY-19", "refunds", "Idempotency keys."))
    row = load_permanent_memory(project, today=TODAY).rows[0]
    said = " ".join(" ".join(text_of(epic_loaded_renderable(row, 2))).split())
    assert "age unknown: no Completed line, marker date or heading date (neither fresh nor stale)" in said
    assert said.count("age unknown") == 1 and "nowhere" not in said, said


async def test_one_epic_is_counted_in_the_singular(tmp_path: Path) -> None:
    """Found in trial: "1 epics, 1 loaded"."""
    text = "# Permanent memory\n\n" + v1("FEAT-1", "pagination", "Cursors.")
    project = write_project(tmp_path, text.encode())
    app = make_app(tmp_path, project)
    async with app.run_test(size=(120, 36)) as pilot:
        view = await open_epics(pilot)
        shown = shown_summary(view)
        assert "1 epic, 1 loaded" in shown, shown
