"""One source for every key (issue 14, items 6 and 13): the bindings, the help screen and the README's
table all come from `tui/actions.py`."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.binding import Binding
from textual.widgets import Static
from tui_helpers import RecordingApp, settle

from pmem_tui.tui import actions
from pmem_tui.tui.app import PmemApp
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthScreen
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.epics import EpicsView, EpicTable
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.pane import PaneView

README = Path(__file__).parents[2] / "README.md"


def test_the_readme_key_table_is_the_generated_one() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- keys:start")
    body = text[text.index("\n", start) + 1 : text.index("<!-- keys:end -->")]
    assert body == actions.readme_table(), "run `python -m pmem_tui.tui.actions` and paste it into the README"


def test_every_binding_is_in_the_key_table_with_the_same_keys() -> None:
    table = actions.by_id()
    widgets = (PmemApp, MainScreen, HealthScreen, MemoryList, PaneView, EpicTable, EpicsView, PlanModal)
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
            assert action.help and action.keys_text


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
