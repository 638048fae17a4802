"""The Epics pane moves with the same keys as the other panes: j / k / g / G as well as the arrows."""

from __future__ import annotations

from pathlib import Path

from epics_helpers import WITHIN, epics_app, show_epics, write_project
from tui_helpers import settle, until


async def test_j_k_g_and_G_move_in_the_epics_table(tmp_path: Path) -> None:
    app = epics_app(tmp_path, write_project(tmp_path, WITHIN))
    async with app.run_test(size=(120, 36)) as pilot:
        view = await show_epics(pilot)
        assert await until(pilot, lambda: len(view.rows) == 4)
        await settle(pilot)
        table = view.table
        assert table.cursor_row == 0
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == 3
        await pilot.press("g")
        assert table.cursor_row == 0
