"""Keys named inside sentences come from the key table and follow the user's keymap (issue 15): the empty
Index's "Press n to write...", the Trash's "P purges it", the help's move rows, the banners, refusals and
the preview modal's key bar."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static
from tui_helpers import RecordingApp, bare_root, settle

from pmem_tui.tui import actions, key_docs
from pmem_tui.tui.config import CONFIG_FILE, ENV_CONFIG_DIR
from pmem_tui.tui.keys import key_for, keymap, use_keymap
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthScreen
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.words import in_keys

SIZE = (160, 48)
KEYMAP = """[keymap]
new = "N"
purge = "ctrl+x"
problems = "F"
upgrade = "ctrl+u"
archive = "A"
"list.down" = "down,ctrl+n"
"plan.cancel" = "c"
"health.purge" = "X"
"health.delete" = "D"
"""


@pytest.fixture
def remapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / CONFIG_FILE).write_text(KEYMAP, encoding="utf-8")
    monkeypatch.setenv(ENV_CONFIG_DIR, str(folder))


def screen_text(app: RecordingApp) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    for widget in app.screen.query(Static):
        console.print(widget.content)
    return console.export_text()


def test_the_sentences_say_the_table_keys_by_default() -> None:
    use_keymap({})
    assert key_for("purge") == "P" and key_for("problems") == "!" and key_for("pane.clear_filter") == "escape"
    assert key_docs.shown_keys(actions.MOVE, {}).startswith("↓ / j, ↑ / k")
    assert "a / d / r then plan them" in key_docs.with_keys(actions.MARK.help, {})
    assert in_keys("run `pmem-tui upgrade` first") == "press U to preview the upgrade first"


def test_every_named_action_in_the_table_texts_exists() -> None:
    for action in actions.ALL + tuple(a for s in actions.HELP for a in s.actions):
        for text in (action.help, action.keys_shown, action.key_display or ""):
            for name in key_docs._NAMED.findall(text):
                assert name in actions.by_id(), (action.id, name)


async def test_a_user_keymap_changes_the_keys_in_sentences(tmp_path: Path, remapped: None) -> None:
    app = RecordingApp(bare_root(tmp_path / "bare"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        banner = str(app.main_screen.query_one("#banner").render())
        assert "press ctrl+u to preview the upgrade" in banner and "press U" not in banner
        assert in_keys("run `pmem-tui upgrade` first") == "press ctrl+u to preview the upgrade first"
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        help_text = screen_text(app)
        assert "↓ / ctrl+n, ↑ / k" in help_text  # the move row
        assert "A / d / r then plan them together" in help_text  # the mark row's sentence
        assert "c / escape" in help_text  # the modal's cancel row
    assert keymap() == {}  # the keys belonged to the app that ended


async def test_the_panes_and_the_modal_name_the_users_keys(remapped: None, demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        cells = [r.cells[-1] for r in app.main_screen.view("trash").list.all_rows]
        assert "expired: ctrl+x purges it" in cells and "expired: P purges it" not in cells
        await pilot.press("F")  # the problems filter: its hint names the user's key
        await settle(pilot)
        titles = screen_text(app)
        assert "press F for every row" in titles and "press !" not in titles
        await pilot.press("F")
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        bar = app.screen.query_one(KeyBar).render().plain
        assert "esc Cancel" in bar and "/esc" not in bar  # the reason's input has the focus: c types
        assert "Cancel (c)" in str(app.screen.query_one("#plan-cancel").label)
        app.screen.query_one("#plan-cancel").focus()
        await settle(pilot)
        bar = app.screen.query_one(KeyBar).render().plain
        assert "c/esc Cancel" in bar and "n/esc" not in bar
        await pilot.press("escape")  # the reason's input has the focus: "c" would be typed there
        await settle(pilot)
        await pilot.press("H")  # the health review's hints
        await settle(pilot)
        assert isinstance(app.screen, HealthScreen)
        review = screen_text(app)
        assert "removed for good only with X" in review and "only with P" not in review
        assert "D: archive it, then move it to the trash" in review and "d: archive it" not in review


async def test_the_empty_index_names_the_users_new_key(tmp_path: Path, remapped: None) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "_index.md").write_text("", encoding="utf-8")
    app = RecordingApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        empty = app.main_screen.view("index").list.empty_text
        assert empty.endswith("Press N to write the first memory file.")
