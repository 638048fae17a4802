"""The key bar: the focused widget's bindings, redrawn when they change; a click presses the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import RecordingApp, bare_root, settle

from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.widgets.key_bar import KeyBar


def bar_text(app: RecordingApp) -> str:
    bar = app.screen.query_one(KeyBar)
    return bar.render().plain


def drawn_bar(app: RecordingApp) -> str:
    """The key bar as it was last drawn (`bar_text` renders it anew: it cannot tell a bar left stale)."""
    return app.screen.query_one(KeyBar).render_line(0).text


async def test_the_bar_shows_the_main_screens_keys_and_the_palette(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        for hint in (
            "a Archive",
            "d Delete",
            "/ Filter",
            "e Edit",
            "p Preview",
            "? Help",
            "q Quit",
        ):
            assert hint in text
        assert text.rstrip().endswith("? Help  q Quit  ^p palette")
        assert "U Upgrade" not in text and "D Doctor" not in text  # not needed here: not offered
        assert "^z Undo" not in text and "^y Redo" not in text  # nothing to undo yet


async def test_undo_is_offered_once_an_action_was_applied(demo_root: Path) -> None:
    """Found in trial: `^z Undo` was offered with nothing to undo (as `^y Redo` is not)."""
    from tui_helpers import fill

    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "^z Undo" not in bar_text(app)
        await pilot.press("a")
        await fill(pilot, "done")
        await pilot.press("enter", "y")
        await settle(pilot)
        assert app.screen is app.main_screen and "^z Undo" in bar_text(app)
        await pilot.press("ctrl+z")
        await settle(pilot)
        await pilot.press("y")  # the undo's preview, confirmed: nothing left to undo, one thing to redo
        await settle(pilot)
        text = bar_text(app)
        assert "^z Undo" not in text and "^y Redo" in text


async def test_undo_is_not_offered_once_the_last_action_cannot_be_undone(demo_root: Path) -> None:
    """Found in trial: after a purge the bar offered `^z Undo`, and ctrl+z only said the purge "cannot be
    undone: the files are removed for good". The key still says why when pressed."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is app.main_screen and "Purged 1 expired trash item." in app.notes_text()
        assert "^z Undo" not in bar_text(app)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert "cannot be undone: the files are removed for good" in app.notes[-1][0]


async def test_p_and_n_act_only_where_the_key_table_offers_them(tmp_path: Path) -> None:
    """Found in trial: `p` on the Epics pane (and on an empty pane) moved the focus to the preview quietly,
    and the key bar lost the pane's keys; `n` opened "new file" on the Epics pane, which does not offer it."""
    from epics_helpers import WITHIN, epics_app, write_project

    from pmem_tui.tui.modals.new_file import NewFileModal
    from pmem_tui.tui.widgets.epics import EpicTable

    app = epics_app(tmp_path, write_project(tmp_path, WITHIN))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        epics = await on_pane(pilot, "5")
        assert "p Preview" not in epics and "n New" not in epics
        assert isinstance(app.focused, EpicTable)
        await pilot.press("p", "n")
        await settle(pilot)
        assert app.screen is app.main_screen and isinstance(app.focused, EpicTable)
        assert bar_text(app) == epics  # the pane's keys still offered
        # Nor does the palette offer it there (found in review: it ran the action, which did nothing).
        commands = {c.title for c in app.get_system_commands(app.screen)}
        assert "New memory file" not in commands and "Help: keys" in commands
        changes = await on_pane(pilot, "6")
        assert "n New" not in changes and "p Preview" not in changes  # no change yet: nothing to preview
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is app.main_screen
        await on_pane(pilot, "1")  # where the table offers them, they work
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NewFileModal)


@pytest.mark.parametrize("pane", ["4", "6"], ids=["Trash", "Changes"])
async def test_p_on_an_empty_pane_is_not_offered_keeps_the_focus_and_says_why(
    tmp_path: Path, pane: str
) -> None:
    """Found in review: on an empty Changes pane `p` did nothing and said nothing; the key bar offered
    `p Preview` on an empty Trash pane (and on an empty Changes pane)."""
    app = RecordingApp(bare_root(tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        shown = await on_pane(pilot, pane)
        assert "p Preview" not in shown and "Quit" in shown
        focused = app.focused
        await pilot.press("p")
        await settle(pilot)
        assert app.focused is focused and bar_text(app) == shown
        assert app.notes[-1][0] == "Nothing to preview: no row on this pane."


async def test_p_comes_back_to_the_bar_when_the_filter_is_cleared(demo_root: Path) -> None:
    """Found in review: a filter that showed no row took `p Preview` off the bar, as it should; escape on the
    list cleared the filter and brought the rows back, but not `p` (the bar was redrawn on a focus change
    only). The bar is redrawn whenever the pane goes from no row to a row, or back."""
    from tui_helpers import fill

    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "p Preview" in drawn_bar(app)
        await pilot.press("slash")
        await fill(pilot, "zzzz")
        await pilot.press("enter")
        await pilot.pause()
        assert "p Preview" not in drawn_bar(app) and "/ Filter" in drawn_bar(app)
        await pilot.press("escape")  # on the list: the filter is cleared, the rows are back
        await pilot.pause()
        assert app.main_screen.nothing_to_preview() is None
        assert "p Preview" in drawn_bar(app)


async def on_pane(pilot: Pilot[Any], key: str) -> str:
    """`key` pressed (a pane, or a screen: `?`, `H`), the app settled: the key bar's text."""
    await pilot.press(key)
    await settle(pilot)
    app = pilot.app
    assert isinstance(app, RecordingApp)
    return bar_text(app)


async def test_the_bar_offers_what_works_on_the_pane_in_view(demo_root: Path) -> None:
    """Issue 14, item 6: on Core no archive / delete / recover (they always refuse there); `P` on the
    Trash; each pane's own keys."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        index = bar_text(app)
        assert "a Archive" in index and "r Recover" not in index and "P Purge" not in index
        core = await on_pane(pilot, "2")
        assert "e Edit" in core and "n New" in core
        assert not [h for h in ("a Archive", "d Delete", "r Recover") if h in core]
        archive = await on_pane(pilot, "3")
        assert "d Delete" in archive and "r Recover" in archive and "a Archive" not in archive
        trash = await on_pane(pilot, "4")
        assert "r Recover" in trash and "P Purge" in trash and "e Edit" not in trash
        for text in (index, core, archive, trash):
            assert "? Help" in text and "q Quit" in text


async def test_row_keys_are_offered_only_with_a_row_and_purge_only_with_expired_trash(tmp_path: Path) -> None:
    """Found in trial: an empty Trash pane offered `space Mark`, `r Recover` and `P Purge` (nothing to mark,
    recover or purge); each still says why when pressed. Marks a filter hides still count for the actions."""
    from tui_helpers import fill

    root = bare_root(tmp_path)
    for folder in ("_archive/_trash", "projects"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    app = RecordingApp(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        trash = await on_pane(pilot, "4")
        assert not [k for k in ("space Mark", "r Recover", "P Purge") if k in trash], trash
        await pilot.press("r")
        await settle(pilot)
        assert app.notes[-1][0] == "Nothing selected to recover."
        changes = await on_pane(pilot, "6")  # no history yet: no row
        assert "v History" not in changes and "p Preview" not in changes, changes
        index = await on_pane(pilot, "1")
        assert "a Archive" in index and "space Mark" in index
        await pilot.press("space", "slash")
        await fill(pilot, "no such row")
        await pilot.press("enter")
        await settle(pilot)
        hidden = bar_text(app)
        assert "a Archive" in hidden and "space Mark" not in hidden, hidden  # the mark the filter hides


async def test_help_and_quit_stay_at_80_columns(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        assert "? Help" in text and "q Quit" in text and len(text) <= 80
        assert "/ Filter" in text  # the pane's first keys still fit


@pytest.mark.rule("PM-UPG-4")
async def test_upgrade_is_offered_while_the_lifecycle_is_incomplete(tmp_path: Path) -> None:
    root = bare_root(tmp_path)
    app = RecordingApp(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "U Upgrade" in bar_text(app)


async def test_the_bar_follows_the_focus(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash")  # the filter input takes the focus: letters type, they are no keys
        await pilot.pause()
        assert "a Archive" not in bar_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert "a Archive" in bar_text(app)


async def test_a_click_on_a_hint_presses_its_key(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        x = bar_text(app).index("? Help") + 1
        await pilot.click(KeyBar, offset=(x, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_a_click_between_hints_does_nothing(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        gap = text.index("▕") - 2  # the blank run before the palette hint
        screen = app.screen
        await pilot.click(KeyBar, offset=(gap, 0))
        await pilot.pause()
        assert app.screen is screen


async def test_the_health_bar_offers_keep_on_K_and_keeps_help_and_quit(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        core = await on_pane(pilot, "2")
        assert "space Mark" not in core  # no action takes marked rows on Core
        await pilot.press("H")
        await settle(pilot)
        text = bar_text(app)
        assert "K Keep" in text and "k Keep" not in text
        assert text.rstrip().endswith("? Help  q Quit  ^p palette")


async def test_the_help_screen_has_its_own_bar(demo_root: Path) -> None:
    """Found in trial: over the help screen the main screen's bar still offered `a Archive` (which did
    nothing there) and `q Quit` (which closes the help)."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        text = await on_pane(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "esc Close" in text
        assert "Archive" not in text and "Quit" not in text


async def test_cancel_is_escape_alone_while_the_reason_is_typed(demo_root: Path) -> None:
    """Found in review: with the reason's input focused the bar said `n/esc Cancel`, but `n` types."""
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        text = bar_text(app)
        assert "esc Cancel" in text and "n/esc" not in text
        await pilot.press(*"old", "enter")  # the preview is built; the focus leaves the input
        await settle(pilot)
        assert "n/esc Cancel" in bar_text(app)


async def test_the_health_reviews_fix_key_fits_at_80_columns(demo_root: Path) -> None:
    """Found in review, as a user: at 80 columns the health review's bar ended before `f Fix`, its own
    action (Mark, Keep, Archive and Archive+delete came first)."""
    from pmem_tui.tui.screens.health import HealthScreen

    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = await on_pane(pilot, "H")
        assert isinstance(app.screen, HealthScreen)
        assert "f Fix" in text and "q Quit" in text and len(text) <= 80, text


async def test_the_health_bar_offers_the_proposal_keys_only_with_a_proposal(demo_root: Path) -> None:
    """Found in trial: while the review was loading, nothing listed, the bar offered `f Fix  K Keep  a
    Archive`; as on the main screen, the keys that act on a row are offered only with a row, and `P` only
    with expired trash (pressed anyway, each says why)."""
    import dataclasses
    import datetime as dt
    import threading

    from pmem_tui.core.health import HealthReport, check_health
    from pmem_tui.tui.screens.health import HealthScreen

    release = threading.Event()
    healthy = threading.Event()

    def slow(root: Path, today: dt.date) -> HealthReport:
        release.wait(10)
        report = check_health(root, today=today)
        return dataclasses.replace(report, proposals=()) if healthy.is_set() else report

    row_keys = ("f Fix", "K Keep", "a Archive", "Archive+delete", "e Edit", "space Mark")
    app = RecordingApp(demo_root, health_source=slow)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HealthScreen) and screen.checking
        text = bar_text(app)
        assert not [k for k in row_keys if k in text], text
        assert "Back" in text and "q Quit" in text and "Purge expired" not in text  # not known yet
        release.set()
        await settle(pilot)
        assert not screen.checking and screen.report is not None and screen.report.proposals
        text = bar_text(app)
        assert all(k in text for k in row_keys) and "P Purge expired" in text, text  # the demo has some
        # Nothing to propose: none of them either.
        healthy.set()
        screen.reload()
        await settle(pilot)
        text = bar_text(app)
        assert not [k for k in row_keys if k in text], text
