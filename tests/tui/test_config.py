"""The user's config.toml (issue 15, item 4): a keymap by binding id and a theme; a file that cannot be used
leaves the defaults and says why in one sentence, never a traceback."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Input, Static
from tui_helpers import RecordingApp, settle

from pmem_tui.tui import actions
from pmem_tui.tui.commands import system_commands
from pmem_tui.tui.config import CONFIG_FILE, ENV_CONFIG_DIR, MAX_BYTES, config_path, load_config
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.help import HelpScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.key_bar import KeyBar

SIZE = (160, 48)
THEMES = ("textual-dark", "nord")


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    monkeypatch.setenv(ENV_CONFIG_DIR, str(folder))
    return folder


def write_config(folder: Path, text: str) -> Path:
    path = folder / CONFIG_FILE
    path.write_text(text, encoding="utf-8")
    return path


def bar_text(app: RecordingApp) -> str:
    return app.screen.query_one(KeyBar).render().plain


def help_text(app: RecordingApp) -> str:
    console = Console(width=160, record=True, file=io.StringIO())
    for widget in app.screen.query(Static):
        console.print(widget.content)
    return console.export_text()


def test_the_path_comes_from_platformdirs_or_the_environment(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert config_path() == config_dir / CONFIG_FILE
    monkeypatch.delenv(ENV_CONFIG_DIR)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_dir / "xdg"))
    assert config_path() == config_dir / "xdg" / "pmem-tui" / CONFIG_FILE


def test_no_file_is_the_defaults(config_dir: Path) -> None:
    config = load_config(THEMES)
    assert config.keymap == {} and config.theme is None and config.problem is None


def test_a_keymap_and_a_theme_are_read(config_dir: Path) -> None:
    write_config(
        config_dir, 'theme = "nord"\n[keymap]\narchive = "A"\nhelp = "?,f1"\n"list.down" = "down, j"\n'
    )
    config = load_config(THEMES)
    assert config.problem is None and config.theme == "nord"
    assert config.keymap == {"archive": "A", "help": "question_mark,f1", "list.down": "down,j"}


def test_the_default_keys_do_not_clash_on_any_screen() -> None:
    for scope in actions.SCOPES:
        keys = [k for a in scope if a.key for k in a.key.split(",")]
        assert len(keys) == len(set(keys)), [a.id for a in scope]


BAD = {
    "not TOML": ("[keymap\narchive = 'A'\n", "not valid TOML"),
    "unknown id": ("[keymap]\narchiv = 'A'\n", "unknown binding id 'archiv'"),
    "doc-only id": ("[keymap]\npanes = 'x'\n", "unknown binding id 'panes'"),
    "unknown theme": ('theme = "no-such-theme"\n', "unknown theme 'no-such-theme'"),
    "unknown setting": ('colour = "red"\n', "unknown setting 'colour'"),
    "keymap not a table": ('keymap = "A"\n', "[keymap] is not a table"),
    "key not a string": ("[keymap]\narchive = 1\n", "[keymap] archive = 1 is not a key"),
    "empty key": ("[keymap]\narchive = ''\n", "is not a key"),
    "key already used": ("[keymap]\narchive = 'd'\n", "gives archive the key 'd', which delete already uses"),
    "key of the app": (
        "[keymap]\nedit = '?'\n",
        "gives edit the key 'question_mark', which help already uses",
    ),
    "not UTF-8": (b"theme = '\xff'\n", "not UTF-8 text"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_file_gives_the_defaults_and_one_sentence(config_dir: Path, case: str) -> None:
    text, said = BAD[case]
    path = config_dir / CONFIG_FILE
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    config = load_config(THEMES)
    assert config.keymap == {} and config.theme is None
    assert config.problem is not None and said in config.problem, config.problem
    assert config.problem.startswith(f"{path}: ") and config.problem.endswith("default keys and theme.")
    assert config.problem.count("\n") == 0


def test_a_link_a_fifo_and_a_huge_file_are_not_read(config_dir: Path, tmp_path: Path) -> None:
    path = config_dir / CONFIG_FILE
    target = write_config(tmp_path, "[keymap]\narchive = 'A'\n")
    path.symlink_to(target)
    link = load_config(THEMES)
    assert link.keymap == {} and link.problem is not None and "link" in link.problem
    path.unlink()
    os.mkfifo(path)  # opening it for reading would wait for a writer: it is never opened
    fifo = load_config(THEMES)
    assert fifo.keymap == {} and fifo.problem is not None and "not read" in fifo.problem
    path.unlink()
    path.write_text("# " + "x" * MAX_BYTES + "\n", encoding="utf-8")
    huge = load_config(THEMES)
    assert huge.keymap == {} and huge.problem is not None and "not read" in huge.problem


async def test_a_remapped_key_does_the_action_and_shows_everywhere(demo_root: Path, config_dir: Path) -> None:
    write_config(config_dir, '[keymap]\narchive = "A"\n"plan.confirm" = "Y"\n')
    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.notes == []  # nothing to say
        assert "A Archive" in bar_text(app) and "a Archive" not in bar_text(app)
        await pilot.press("a")  # the default key no longer archives
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        assert "Confirm (Y)" in str(app.screen.query_one("#plan-confirm").label)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        commands = {c.title: c.help for c in system_commands(app, app.screen, app.screen.present_panes)}
        assert commands["Archive selected"].endswith("(A)")
        assert commands["Show Core pane"].endswith("(2)")
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        [row] = [line for line in help_text(app).splitlines() if "archive the marked active" in line]
        assert row.split()[0] == "A"


async def test_pane_keys_remapped_in_the_help_and_the_palette(demo_root: Path, config_dir: Path) -> None:
    write_config(config_dir, '[keymap]\n"pane.2" = "c"\n')
    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and app.screen.current_pane() == "core"
        commands = {c.title: c.help for c in system_commands(app, app.screen, app.screen.present_panes)}
        assert commands["Show Core pane"].endswith("(c)")
        await pilot.press("question_mark")
        await settle(pilot)
        assert "1 c 3 4 5 6, tab / shift+tab" in help_text(app)  # six panes: Changes is 6


async def test_the_theme_is_applied(demo_root: Path, config_dir: Path) -> None:
    write_config(config_dir, 'theme = "nord"\n')
    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord" and app.notes == []


async def test_a_bad_file_starts_with_the_defaults_and_says_so(demo_root: Path, config_dir: Path) -> None:
    path = write_config(config_dir, 'theme = "nord"\n[keymap]\narchive = "d"\n')
    app = RecordingApp(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        [(note, severity)] = app.notes
        assert note.startswith(f"{path}: [keymap] gives archive the key 'd'") and severity == "warning"
        assert app.theme != "nord" and "a Archive" in bar_text(app)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        assert app.screen.query(Input)


def test_no_toml_parser_is_loaded_without_a_settings_file(tmp_path: Path) -> None:
    """The usual start has no settings file: the app's first frame does not pay for `tomllib` (~2 ms)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom pmem_tui.tui.app import PmemApp\nfrom pmem_tui.tui.config import load_config\n"
        "assert load_config(()).problem is None\nprint('tomllib' in sys.modules)"
    )
    env = {**os.environ, ENV_CONFIG_DIR: str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_remapped_keys_keep_their_place_in_the_key_bar(demo_root: Path, config_dir: Path) -> None:
    """Found in trial: Textual moves a remapped binding to the end of its widget's bindings, so the bar
    showed archive and delete after every other hint, and at 100 columns not at all."""
    write_config(config_dir, '[keymap]\narchive = "d"\ndelete = "a"\n')
    app = RecordingApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.notes == []  # a swap is no clash
        text = bar_text(app)
        assert "d Archive  a Delete  e Edit" in text, text
