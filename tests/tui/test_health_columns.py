"""The health review's list in the width it has (found in trial): at 80 columns its signals and reason
columns were cut to "dead-r…" and "its sum…" while the detail pane beside it said both whole. Its columns
follow the panes' one rule (`widgets/columns.py`): narrower, the signals go before the path is cut (the
detail pane names them) and the titles leave them out too (`widgets/list_titles.py`); wide, each row's
signals are whole."""

from __future__ import annotations

from pathlib import Path

from test_health_screen import health_list, health_screen, open_health
from tui_helpers import settle, until

from pmem_tui.tui.screens import health


def _titled(app: object) -> list[str]:
    titles = health_screen(app).titles  # type: ignore[arg-type]
    return [name.strip() for name in str(titles.content).split("·")]


def _lines(app: object) -> list[str]:
    listed = health_list(app)  # type: ignore[arg-type]
    return [listed.render_line(y).text for y in range(len(listed.all_rows))]


async def test_at_80_columns_the_signals_give_way_and_the_titles_follow(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_health(pilot, app)
        rows = health_list(app).all_rows
        assert rows
        assert health_list(app).dropped_columns() == {3}
        assert _titled(app) == ["#", "category", "path", "reason"]
        for row, line in zip(rows, _lines(app), strict=True):
            n, category, _path, signals, reason = row.cells
            assert f"{n}  {category}  " in line and signals not in line
            assert reason[:8] in line  # the signals' room goes to the path and the reason
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert await until(pilot, lambda: _titled(app) == list(health.COLUMNS))
        for row, line in zip(rows, _lines(app), strict=True):
            assert f"  {row.cells[3]}  " in line  # every row's signals whole
        await pilot.resize_terminal(80, 24)
        assert await until(pilot, lambda: _titled(app) == ["#", "category", "path", "reason"])
