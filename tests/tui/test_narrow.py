"""80x24 and smaller (issue 14, item 8): every row its own text (paths cut in the middle, the Index's
title column dropped first), and below a minimum size a notice instead of a screen full of toasts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.widgets.columns import ELLIPSIS, column_widths, cut_middle


def lines_of(app: RecordingApp, pane: str) -> list[str]:
    assert app.main_screen is not None
    lst = app.main_screen.view(pane).list
    return [lst.render_line(y).text.rstrip() for y in range(len(lst.all_rows))]


async def test_at_80x24_every_index_row_reads_differently(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = lines_of(app, "index")
        assert len(set(lines)) == len(lines)
        assert any("notes/reading-list.md" in line for line in lines)  # whole, not "notes/reading-lis…"
        assert app.main_screen is not None
        titles = str(app.main_screen.view("index").titles.content)
        assert "title" not in titles and "route" in titles  # the title column went first


async def test_at_160x48_the_title_column_stays(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        assert "title" in str(app.main_screen.view("index").titles.content)


@given(st.text(min_size=1, max_size=60), st.integers(min_value=0, max_value=70))
def test_cut_middle_fits_and_keeps_both_ends(text: str, width: int) -> None:
    cut = cut_middle(text, width)
    assert cell_len(cut) <= max(width, 0) or cut == text
    if cell_len(text) <= width:
        assert cut == text
    elif width >= 2:
        head, _, tail = cut.partition(ELLIPSIS)
        assert text.startswith(head) and text.endswith(tail) and ELLIPSIS in cut


def test_the_droppable_column_goes_only_when_the_path_would_be_cut() -> None:
    assert column_widths(100, [20, 10, 40], (0.48, 0.2), droppable=(1,))[1] == 10
    narrow = column_widths(30, [25, 10, 40], (0.48, 0.2), droppable=(1,))
    assert narrow[1] == 0 and narrow[0] > int(30 * 0.48)
