"""The user's config.toml in a real terminal (issue 15, item 4): a remapped key works and the key bar shows
it; a config that cannot be used still lets the app start, with the defaults and one sentence."""

from __future__ import annotations

from pathlib import Path

from tests.tmux.terminal import Pane
from tests.tmux.test_real_terminal import quit_cleanly, started


def start_with(pane: Pane, tmp_path: Path, config_text: str) -> None:
    """The demo, with `config_text` as the user's config.toml."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text(config_text, encoding="utf-8")
    pane.start((160, 48), {"TERM": "xterm-256color", "PMEM_TUI_CONFIG_DIR": str(config)})
    started(pane)


def test_a_remapped_key_in_a_real_terminal(pane: Pane, tmp_path: Path) -> None:
    start_with(pane, tmp_path, '[keymap]\narchive = "A"\n')
    pane.wait_for(" A Archive ")
    pane.keys("A")
    pane.wait_for("Why archive it?")
    pane.keys("Escape")
    pane.wait_for_notice("Cancelled: nothing was changed.")
    quit_cleanly(pane, tmp_path)


def test_a_config_that_cannot_be_used_in_a_real_terminal(pane: Pane, tmp_path: Path) -> None:
    start_with(pane, tmp_path, "[keymap\n")
    pane.wait_for_notice("not valid TOML")
    pane.wait_for(" a Archive ")
    quit_cleanly(pane, tmp_path)
