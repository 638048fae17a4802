"""One source for every key (issue 14, items 6 and 13): the bindings, the help screen and the README's
table all come from `tui/actions.py`."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console
from textual.binding import Binding
from textual.widgets import Static
from tui_helpers import RecordingApp, settle

from pmem_tui.tui import actions, key_docs, panes
from pmem_tui.tui.app import PmemApp
from pmem_tui.tui.modals.new_file import NewFileModal
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthScreen
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.history import HistoryScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.screens.search import SearchScreen
from pmem_tui.tui.screens.too_small import TooSmallScreen
from pmem_tui.tui.screens.welcome import WelcomeScreen
from pmem_tui.tui.widgets.changes import ChangesView
from pmem_tui.tui.widgets.epics import EpicsView, EpicTable
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.pane import FilterInput, PaneView
from pmem_tui.tui.widgets.preview import PreviewView

README = Path(__file__).parents[2] / "README.md"
WIDGETS = (
    PmemApp,
    MainScreen,
    HealthScreen,
    SearchScreen,
    MemoryList,
    PaneView,
    FilterInput,
    PreviewView,
    EpicTable,
    EpicsView,
    ChangesView,
    HistoryScreen,
    PlanModal,
    HelpScreen,
    NewFileModal,
    WelcomeScreen,
    TooSmallScreen,
)


def test_the_readme_key_table_is_the_generated_one() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- keys:start")
    body = text[text.index("\n", start) + 1 : text.index("<!-- keys:end -->")]
    hint = "run `python -m pmem_tui.tui.key_docs` and paste it into the README"
    assert body == key_docs.readme_table(), hint


def test_every_binding_is_in_the_key_table_with_the_same_keys() -> None:
    table = actions.by_id()
    widgets = WIDGETS
    seen = 0
    for widget in widgets:
        for binding in widget.BINDINGS:
            assert isinstance(binding, Binding)
            if binding.id is None:
                continue
            entry = table.get(binding.id)
            assert entry is not None, f"{widget.__name__}: {binding.id} is not in tui/actions.py"
            assert set(binding.key.split(",")) <= set(entry.key.split(",")), binding.id
            seen += 1
    assert seen >= 30


def test_help_text_for_every_documented_key() -> None:
    for section in actions.HELP:
        for action in section.actions:
            assert action.help and key_docs.shown_keys(action, {})


async def test_the_help_screen_shows_every_section_from_the_table(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=160, record=True, file=io.StringIO())
        for widget in app.screen.query(Static):
            console.print(widget.content)
        shown = console.export_text()
        for section in actions.HELP:
            assert section.title in shown
        assert "Epics pane" in shown and "1 2 3 4 5" in shown and "ctrl+y" in shown
        assert "(Archive, Trash)" in shown  # where recover works


def test_every_widget_binding_is_the_tables_own() -> None:
    """Issue 15, item 4: each binding is built from its row of the table (same keys, action, label, show,
    priority), and every row with a key is bound somewhere."""
    table = actions.by_id()
    bound: set[str] = set()
    for widget in WIDGETS:
        for binding in widget.BINDINGS:
            assert isinstance(binding, Binding) and binding.id is not None, widget.__name__
            assert binding == table[binding.id].binding(), binding.id
            bound.add(binding.id)
    assert bound == {a.id for a in actions.ALL if a.key}


SOURCES = Path(__file__).parents[2] / "pmem_tui" / "tui"


def test_no_key_is_written_by_hand_in_parentheses() -> None:
    """A key in a label or a palette entry ("Confirm (y)") comes from the table, so a user's key shows."""
    pattern = re.compile(r"""\s\((?:[a-zA-Z!?/]|ctrl\+\w|escape|enter|space)\)["']""")
    for path in SOURCES.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not pattern.search(line), f"{path.name}:{number}: {line.strip()}"


def test_pane_keys_and_offers_come_from_the_pane_table() -> None:
    """Issue 15, item 5: key `n` shows the table's n-th pane; the keys a pane offers are the table's."""
    table = actions.by_id()
    for i, spec in enumerate(panes.PANES):
        action = table[f"pane.{i + 1}"]
        assert (action.key, action.action, action.label) == (str(i + 1), f"show_pane({i})", spec.title)
        assert panes.tab_title(spec.id) == f"{i + 1} {spec.title}"
        assert set(spec.keys) <= set(table), spec.id
    assert panes.ROW_PANES == ("index", "core", "archive", "trash")
    assert key_docs.where_text(table["recover"]) == "Archive, Trash"
    assert key_docs.where_text(table["undo"]) == ""  # listed by no pane: offered on every pane
