"""The command palette's entries, from the key table (`tui/actions.py`) and the pane table (`tui/panes.py`):
every action by name, its key (the user's, `tui/config.py`) in the description. The pane's actions are
offered on the main screen only; the app's everywhere; none that its key would not run there
(`check_action`)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from pmem_tui.tui.actions import GLOBAL, MAIN, by_id
from pmem_tui.tui.key_docs import shown_keys, with_keys
from pmem_tui.tui.keys import keymap
from pmem_tui.tui.panes import PaneSpec, number


async def _run(node: App[Any] | Screen[Any], action: str) -> None:
    await node.run_action(action)


def system_commands(
    app: App[Any], screen: Screen[Any], panes: list[PaneSpec] | None
) -> Iterator[SystemCommand]:
    """`panes`: the main screen's panes shown, in key order (None: another screen is on top)."""
    for action in (*GLOBAL, *MAIN):
        if not action.command:
            continue
        node: App[Any] | Screen[Any]
        if action in GLOBAL or (panes is None and action.action.startswith("app.")):
            node, name = app, action.action.removeprefix("app.")
        elif panes is not None:
            node, name = screen, action.action
        else:
            continue
        target = app if name.startswith("app.") else node
        if target.check_action(name.removeprefix("app."), ()) is False:
            continue  # what its key would not do here (`n` on Epics): not offered either (found in review)
        run = partial(_run, node, name)
        help_text = with_keys(action.help[:1].upper() + action.help[1:], keymap())
        yield SystemCommand(action.command, f"{help_text} ({shown_keys(action, keymap())})", run)
    table = by_id()
    for pane in panes or []:
        show = table[f"pane.{number(pane.id)}"]
        yield SystemCommand(
            f"Show {pane.title} pane",
            f"Switch to the {pane.title} pane ({shown_keys(show, keymap())})",
            partial(_run, screen, show.action),
        )
