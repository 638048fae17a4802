"""The History view's columns: a short cell is whole while the row has room; an empty column takes none."""

from __future__ import annotations

from pathlib import Path

import pytest
from history_helpers import EDITED, memory_with_history
from test_history_tui import open_history
from tui_helpers import RecordingApp

from pmem_tui.core.history import names
from pmem_tui.tui.screens import history
from pmem_tui.tui.widgets.columns import column_widths


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_the_origin_is_whole_beside_an_empty_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """Found in trial: at 100x30 the origin read "seen on di…" while the "where" column, empty (the file
    never moved), kept its room and its title. At 80 columns the origin takes the gap the empty column
    needs not."""
    root = memory_with_history(tmp_path, monkeypatch)
    app = RecordingApp(root)
    async with app.run_test(size=size) as pilot:
        screen = await open_history(pilot, app, EDITED)
        lines = [screen.list.render_line(y).text for y in range(len(screen.list.all_rows))]
        assert lines and all(f"  {names.SEEN_ON_DISK}" in line for line in lines), lines
        assert not any("…" in line for line in lines), lines
        assert history.COLUMNS.index("where") in screen.list.dropped_columns()  # no room, no title
        assert "where" not in str(screen.titles.content)


def test_the_last_column_s_spare_room_goes_to_a_cut_column() -> None:
    assert column_widths(40, [16, 12, 0], (0.4, 0.2)) == [16, 12, 0]  # before: [16, 8, 12]
    assert column_widths(40, [16, 12, 20], (0.4, 0.2)) == [16, 8, 12]  # the last uses its room
    assert column_widths(40, [16, 12, 10], (0.4, 0.2)) == [16, 10, 10]  # what it does not use goes
    assert column_widths(30, [16, 12, 0], (0.6, 0.2)) == [16, 12, 0]  # and the gap an empty one needs not
