"""The Index filter as typed: the first screenful before the frame, the rest after it, always the same
rows in the same order as the plain definition (every term exact, or by chunks that each begin a word, in
one field; rows containing the query as typed first, each group in pane order)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.panes import BY_ID
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.list_filter import ListFilter
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.pane import PaneView

WORDS = (
    "atlas",
    "billing",
    "decision",
    "standup",
    "retro",
    "2026",
    "postgis",
    "İstanbul",
    "a.b",
    "[x]",
    "zoë",
)


def make_rows(n: int, seed: int = 7) -> list[Row]:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        path = f"notes/{rnd.choice(WORDS)}-{i:05d}.md"
        title = " ".join(rnd.choice(WORDS) for _ in range(2))
        summary = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 6)))
        rows.append(Row(key=path, kind="entry", path=path, location=path, cells=(path, title, summary)))
    return rows


def word_start(line: str, i: int) -> bool:
    return i == 0 or not line[i - 1].isalnum()


def term_matches(term: str, line: str) -> bool:
    """The term in the line, or its letters in chunks that each begin a word (greedy, from the first word
    start with its first letter)."""
    if term in line:
        return True
    starts = [i for i, ch in enumerate(line) if ch == term[0] and word_start(line, i)]
    if not starts:
        return False
    pos = starts[0] + 1
    for ch in term[1:]:
        if pos < len(line) and line[pos] == ch:
            pos += 1
            continue
        later = [i for i in range(pos, len(line)) if line[i] == ch and word_start(line, i)]
        if not later:
            return False
        pos = later[0] + 1
    return True


def reference(rows: Sequence[Row], query: str) -> list[Row]:
    """The filter's definition, written plainly."""
    terms = query.lower().split()
    if not terms:
        return list(rows)
    needle = " ".join(terms)
    exact, loose = [], []
    for row in rows:
        fields = [row.path.lower(), *(c.lower() for c in row.cells[1:])]
        if any(needle in f for f in fields):
            exact.append(row)
        elif all(any(term_matches(t, f) for f in fields) for t in terms):
            loose.append(row)
    return exact + loose


def shown_paths(lst: MemoryList) -> list[str]:
    """What the list draws (its visible lines), without finishing a running filter."""
    return [lst.render_line(y).text.split()[0] for y in range(lst.scrollable_content_region.height)]


class PaneApp(App[None]):
    def __init__(self, rows: list[Row]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield PaneView(BY_ID["index"], id="pane")

    def on_mount(self) -> None:
        pane = self.query_one(PaneView)
        pane.set_rows(self.rows)
        pane.open_filter()


@contextlib.asynccontextmanager
async def pane_app(rows: list[Row]) -> AsyncIterator[tuple[Pilot[Any], PaneView, MemoryList]]:
    """A lone pane on `rows`, its filter open, mounted."""
    app = PaneApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(PaneView)
        yield pilot, pane, pane.list


def filter_workers(app: App[Any]) -> list[Any]:
    return [w for w in app.workers if w.group == "filter" and not w.is_finished and not w.is_cancelled]


def test_filtered_equals_the_definition() -> None:
    """Typed letter by letter (each query narrows from the last), backspace, several terms: the same
    rows in the same order as the definition."""
    rows = make_rows(3000)
    answers = ListFilter(rows)  # the list's filter (`MemoryList._filter`)
    queries = ["s", "st", "sta", "stan", "st", "", "i", "is", "ist", "b d", "b de", "a.", "a.b", "[x"]
    queries += ["2026 zo", "zoë", "ZOË", "x y", "", "retro decision", "retro decisio", "q"]
    for query in queries:
        assert [r.key for r in answers.answer(query)] == [r.key for r in reference(rows, query)], query


async def test_first_screenful_then_the_rest() -> None:
    rows = make_rows(6000)
    async with pane_app(rows) as (pilot, _pane, lst):
        expected = reference(rows, "at")
        lst.type_query("at")
        # Before any other work: the visible rows are the final ones, the rest is still to come.
        assert lst.filter_pending and lst.filter_query == "at"
        height = lst.scrollable_content_region.height
        assert shown_paths(lst) == [r.path for r in expected[:height]]
        assert lst.virtual_size.height < len(expected)
        assert lst.current_row == expected[0]
        await settle(pilot)
        assert not lst.filter_pending
        assert lst.virtual_size.height == len(expected)
        assert list(lst.rows) == expected


async def test_typing_keys_and_backspace() -> None:
    rows = make_rows(6000)
    async with pane_app(rows) as (pilot, pane, lst):
        assert pane.filter_input.has_focus
        typed = ""
        for key in ["s", "t", "a", "space", "d", "backspace", "backspace", "backspace"]:
            await pilot.press(key)
            typed = typed + " " if key == "space" else typed[:-1] if key == "backspace" else typed + key
            await settle(pilot)
            assert lst.filter_query == typed
            assert list(lst.rows) == reference(rows, typed), typed
        await pilot.press("escape")
        assert lst.filter_query == "" and list(lst.rows) == rows


async def test_a_newer_query_replaces_a_running_one() -> None:
    rows = make_rows(6000)
    async with pane_app(rows) as (pilot, _pane, lst):
        lst.type_query("a")
        lst.type_query("at")
        lst.type_query("atl")
        assert len(filter_workers(pilot.app)) <= 1  # the older runs are cancelled, not finished
        lst.type_query("at")  # back to a query whose run never finished
        await settle(pilot)
        assert list(lst.rows) == reference(rows, "at")
        lst.type_query("atl")
        await settle(pilot)
        assert list(lst.rows) == reference(rows, "atl")
        lst.type_query("a")
        await settle(pilot)
        assert list(lst.rows) == reference(rows, "a")


async def test_moves_past_the_first_screenful_finish_the_filter() -> None:
    rows = make_rows(6000)
    async with pane_app(rows) as (_pilot, _pane, lst):
        expected = reference(rows, "e")
        lst.type_query("e")
        assert lst.filter_pending
        lst.action_last()
        assert not lst.filter_pending
        assert lst.cursor == len(expected) - 1 and lst.current_row == expected[-1]
        lst.action_first()
        lst.type_query("rd")  # "retro decision": by word starts only
        assert lst.filter_pending
        expected = reference(rows, "rd")
        while True:  # page down to the end: past the rows found first, the filter finishes
            before = lst.cursor
            lst.action_page_down()
            assert lst.current_row == expected[lst.cursor]
            if lst.cursor == before:
                break
        assert lst.cursor == len(expected) - 1 and not lst.filter_pending


async def test_marks_and_row_updates_while_a_filter_runs() -> None:
    rows = make_rows(6000)
    async with pane_app(rows) as (pilot, _pane, lst):
        lst.focus()
        lst.action_toggle_mark()  # marks the first row
        marked = rows[0].key
        expected = reference(rows, "at")
        lst.type_query("at")
        assert lst.filter_pending
        # The watcher replaces a row far below the first screenful, and one on screen.
        far, near = expected[-1], expected[0]
        far_new = Row(far.key, far.kind, far.path, far.location, (far.path, "changed", "text"))
        near_new = Row(near.key, near.kind, near.path, near.location, (near.path, "retitled", "x"))
        assert lst.update_row(far_new) and lst.update_row(near_new)
        assert not lst.filter_pending
        now = [far_new if r.key == far.key else near_new if r.key == near.key else r for r in rows]
        assert list(lst.rows) == reference(now, "at")  # what the query shows over the new texts
        assert far_new not in lst.rows and near_new not in lst.rows  # neither holds "at" any more
        await settle(pilot)
        assert lst.marked_keys == {marked}
        assert [r.key for r in lst.selection()] == [marked]
        # A query typed after the update sees the new text.
        lst.type_query("retitled")
        await settle(pilot)
        assert list(lst.rows) == reference(lst.all_rows, "retitled") and lst.rows[0] == near_new


async def test_a_row_whose_text_changes_under_a_query_joins_or_leaves_it() -> None:
    """Found in trial: an agent's edit of a line under a filter left its row where it was shown (no match
    left to highlight), never brought in a row that now matched, and after a second edit said "No row
    matches" while a line did. Each update is now answered for its row alone, as a fresh query would."""
    rows = make_rows(3000)
    rnd = random.Random(11)
    async with pane_app(rows) as (pilot, _pane, lst):
        lst.focus()
        for query in ("standup", "at", "zoë retro", "2026"):
            lst.set_query(query)
            for _ in range(12):
                i = rnd.randrange(len(rows))
                old = rows[i]
                words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 3)))
                new = Row(old.key, old.kind, old.path, old.location, (old.path, "edited", words))
                assert lst.update_row(new)  # the list shows `rows` itself: it is now in there
                assert rows[i] is new and list(lst.rows) == reference(rows, query)
            lst.type_query(query + " z")  # the answers stay right for the next keystroke too
            await settle(pilot)
            assert list(lst.rows) == reference(rows, query + " z")
            lst.set_query("")
        shown = [r for r in rows if "standup" in r.cells[2]][:1]
        assert shown
        lst.set_query("standup")
        target = shown[0]
        gone = Row(target.key, target.kind, target.path, target.location, (target.path, "x", "ocean"))
        assert lst.update_row(gone) and gone not in lst.rows  # it no longer matches: it leaves
        back = Row(target.key, target.kind, target.path, target.location, (target.path, "x", "standup"))
        assert lst.update_row(back) and back in lst.rows and lst.rows  # and comes back


async def test_new_rows_while_a_filter_runs() -> None:
    rows = make_rows(6000)
    async with pane_app(rows) as (pilot, pane, lst):
        lst.type_query("st")
        assert lst.filter_pending
        fewer = rows[::2]
        pane.set_rows(fewer)  # a rescan replaces the rows: the filter runs again on them
        assert not lst.filter_pending
        await settle(pilot)
        assert list(lst.rows) == reference(fewer, "st")
        pane.clear_filter()
        assert list(lst.rows) == fewer


async def test_filter_keeps_tab_count_and_marks(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        main = app.main_screen
        assert main is not None
        lst = main.view("index").list
        total = len(lst.all_rows)
        await pilot.press("space")  # mark the first row
        await pilot.press("slash", *"list")
        await settle(pilot)
        assert lst.filter_query == "list" and 0 < len(lst.rows) < total
        tabs = [str(label) for label in main.tabs.labels().values()]
        assert any(f"Index ({total})" in t and "●1" in t for t in tabs), tabs


async def test_a_row_updated_with_a_longer_title_widens_its_column() -> None:
    """Found in trial: an agent's longer title showed cut ("Alpha New …") until a rescan rebuilt the list."""
    rows = [Row(p, "entry", p, p, (p, "Alpha", "s")) for p in ("notes/a.md", "notes/b.md")]
    async with pane_app(list(rows)) as (pilot, _pane, lst):
        longer = Row(
            "notes/a.md", "entry", "notes/a.md", "notes/a.md", ("notes/a.md", "Alpha New Title X", "s")
        )
        assert lst.update_row(longer)
        await pilot.pause()
        assert "Alpha New Title X" in lst.render_line(0).text


async def test_a_copy_hidden_by_the_filter_is_not_taken_for_one_removed() -> None:
    """Found in review: a route's second line leaving a filter's answer sent the cursor to the route's
    first line, far above and off the screen; the cursor stays where the row was, on screen."""

    def row(key: str, path: str, summary: str) -> Row:
        return Row(key, "entry", path, path, (path, "", summary))

    rows = [row("r.md", "r.md", "zeta one")] + [
        row(f"f{i:03d}.md", f"f{i:03d}.md", "zeta") for i in range(200)
    ]
    rows += [row("r.md\n2", "r.md", "zeta two"), row("g.md", "g.md", "zeta")]
    async with pane_app(list(rows)) as (pilot, _pane, lst):
        lst.set_query("zeta")
        assert lst.select_key("r.md\n2")
        await pilot.pause()
        assert lst.update_row(row("r.md\n2", "r.md", "other"))  # an agent's edit: it leaves the answer
        await pilot.pause()
        assert lst.current_row is not None and lst.current_row.key == "g.md"  # the row after it
        top = round(lst.scroll_y)
        assert top <= lst.cursor < top + lst.scrollable_content_region.height
