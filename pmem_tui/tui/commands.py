"""The command palette's entries, from the key table (`tui/actions.py`): every action by name, its key
in the description. The pane's actions are offered on the main screen only; the app's everywhere."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from pmem_tui.tui.actions import GLOBAL, MAIN


async def _run(node: App[Any] | Screen[Any], action: str) -> None:
    await node.run_action(action)


def system_commands(
    app: App[Any], screen: Screen[Any], pane_names: list[str] | None
) -> Iterator[SystemCommand]:
    """`pane_names`: the main screen's panes in key order (None: another screen is on top)."""
    for action in (*GLOBAL, *MAIN):
        if not action.command:
            continue
        if action in GLOBAL or (pane_names is None and action.action.startswith("app.")):
            run = partial(_run, app, action.action.removeprefix("app."))
        elif pane_names is not None:
            run = partial(_run, screen, action.action)
        else:
            continue
        help_text = action.help[:1].upper() + action.help[1:]
        yield SystemCommand(action.command, f"{help_text} ({action.keys_text})", run)
    for i, name in enumerate(pane_names or []):
        yield SystemCommand(
            f"Show {name} pane",
            f"Switch to the {name} pane ({i + 1})",
            partial(_run, screen, f"show_pane({i})"),
        )
