"""80x24 and smaller (issue 14, item 8): every row its own text (paths cut in the middle, the Index's
title column dropped first), and below a minimum size a notice instead of a screen full of toasts."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.widgets.columns import ELLIPSIS, column_widths, cut_middle, dropped
from pmem_tui.tui.widgets.pane_tabs import counted, fitted_labels


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


async def test_at_80x24_every_tab_stays_in_view_and_the_active_one_whole(demo_root: Path) -> None:
    """The strip is narrower than the whole labels: the other tabs shorten (before: the tabs past the active
    one were scrolled out of view, so a person at 80 columns did not see the Changes tab exists)."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = app.main_screen
        assert main is not None
        for key, pane in (("1", "index"), ("6", "changes"), ("3", "archive")):
            await pilot.press(key)
            await settle(pilot)
            drawn = main.tabs.render_line(0).text
            labels = main.tabs.labels()
            assert all(f" {label.plain} " in drawn for label in labels.values()), (drawn, labels)
            active = labels[f"pane-{pane}"]
            assert re.search(r" \(\d+\)$", active.plain), active  # its count is shown
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        labels = [label.plain for label in main.tabs.labels().values()]
        assert all(re.search(r" \(\d+\)$", label) for label in labels), labels  # wide enough: whole
        # A count is never read as the next tab's key (found in trial: "5 Epics 6  6 Changes"): in brackets.
        drawn = main.tabs.render_line(0).text
        assert re.fullmatch(r"( \d [A-Z][a-z]+ \(\d+\) )+ *", drawn), drawn


def _tab(title: str, count: int) -> tuple[str, Text]:
    return title, counted(title, count)


TABS = [_tab("1 Index", 7), _tab("2 Core", 1), _tab("3 Archive", 1), _tab("4 Trash", 0), _tab("6 Changes", 0)]


def plain(active: int, width: int) -> list[str]:
    return [label.plain for label in fitted_labels(TABS, active, width)]


def test_the_other_tabs_lose_their_counts_then_the_farthest_its_title() -> None:
    assert plain(0, 200) == [whole.plain for _title, whole in TABS]
    assert plain(0, 52) == ["1 Index (7)", "2 Core", "3 Archive", "4 Trash", "6 Changes"]
    assert plain(0, 50) == ["1 Index (7)", "2 Core", "3 Archive", "4 Trash", "6"]
    assert plain(4, 50) == ["1", "2 Core", "3 Archive", "4 Trash", "6 Changes (0)"]
    assert plain(2, 10) == ["1", "2", "3 Archive (1)", "4", "6"]  # still too wide: then the strip scrolls


@given(st.integers(min_value=0, max_value=4), st.integers(min_value=27, max_value=120))
def test_fitted_labels_fit_whenever_the_keys_and_the_active_label_do(active: int, width: int) -> None:
    labels = plain(active, width)
    assert labels[active] == TABS[active][1].plain
    assert sum(len(label) + 2 for label in labels) <= width
    assert [label.split(" ", 1)[0] for label in labels] == ["1", "2", "3", "4", "6"]


async def test_the_header_never_shows_a_number_without_its_word(demo_root: Path) -> None:
    """Found in trial: at 80 columns, with a few more files or problems, line 2 ended "lifecycle ready  15",
    the word "problems" cut off. The line now drops whole parts (the baseline, "lifecycle ready", a zero
    expired count) instead of cutting one."""
    from pmem_tui.tui.widgets.header import StatusHeader

    for n in range(12):  # 10+ active files, each a problem or two: longer counts
        (demo_root / f"notes/extra-{n}.md").write_text(f"# Extra {n}\n", encoding="utf-8")
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        header = app.main_screen.query_one("#header", StatusHeader)
        seen = []
        for width in (50, 60, 70, 80, 90, 100, 120, 160, 200):
            await pilot.resize_terminal(width, 24)
            await settle(pilot)
            line = header.render_line(1).text.strip()
            seen.append(line)
            assert "…" not in line, line
            for number in re.finditer(r"≈?\d[\d,]*", line):
                assert re.match(r" [a-z]", line[number.end() :]), (width, line)
            if width >= 70:
                assert re.search(r"\b\d+ problems\b", line), line
        assert "lifecycle ready" not in seen[3] and "problems" in seen[3]  # 80 columns: the count kept
        assert "baseline ≈" in seen[-1] and "lifecycle ready" in seen[-1]  # wide: every part


def test_the_header_drops_empty_counts_before_the_problems_and_fits_a_long_root(demo_root: Path) -> None:
    """Found in review: once the low-ranked parts were gone, whole parts went from the end: the problems
    count and the `_core/` warning went, "0 trash" stayed; a long root wrapped line 1 onto two."""
    from dataclasses import replace

    from rich.cells import cell_len

    from pmem_tui.core.report import Baseline
    from pmem_tui.core.tree import scan
    from pmem_tui.tui.widgets.header import header_text

    snap = scan(demo_root, deep=False)
    snap = replace(snap, trash=(), lifecycle_missing=("_archive/_trash",))  # "0 trash", lifecycle incomplete
    base = Baseline(files=3, tokens=90_000, core_tokens=80_000, index_tokens=10)  # the core warning
    root = "~/" + "/".join(["a-long-folder-name"] * 5) + "/my-memory"
    for width in (60, 70, 80):
        first, second = header_text(root, snap, base, "off", width=width).plain.split("\n")
        assert cell_len(first) <= width and "my-memory" in first, first  # the path's end, on one line
        assert cell_len(second) <= width, second
        assert re.search(r"\b\d+ problems\b", second) and "lifecycle incomplete" in second, (width, second)
        if width <= 70:
            assert "0 trash" not in second, second  # an empty count goes first


def test_a_short_column_is_never_cut_while_the_last_one_has_room() -> None:
    """A date (10 cells) kept whole: the last column, free text, gives way first."""
    widths = column_widths(37, [13, 10, 30], (0.48, 0.2))
    assert widths[1] == 10 and widths[2] == 37 - 13 - 10 - 4


async def test_at_80x24_the_archive_and_trash_dates_are_whole(demo_root: Path) -> None:
    """Found in trial: at 80 columns the Archive's and the Trash's dates read "2026-1…" while the reason
    beside them had room."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key, pane in (("3", "archive"), ("4", "trash")):
            await pilot.press(key)
            await settle(pilot)
            lines = lines_of(app, pane)
            assert lines and all(re.search(r"\b\d{4}-\d{2}-\d{2}\b", line) for line in lines), lines


def test_a_last_column_with_text_and_no_room_keeps_its_title() -> None:
    """Found in review: at 80 columns the health review drew each reason after the path (cut at the row's
    end) while its titles left "reason" out: only an empty last column is dropped with its title."""
    widths = column_widths(30, [3, 7, 21, 30, 60], (0.05, 0.11, 0.34, 0.17), path_column=2, droppable=(3,))
    assert widths[-1] == 0  # no room left for the reasons
    assert dropped(widths, [3, 7, 21, 30, 60]) == {3}
    assert dropped(column_widths(100, [20, 10, 0], (0.48, 0.2)), [20, 10, 0]) == {2}  # empty: it goes
