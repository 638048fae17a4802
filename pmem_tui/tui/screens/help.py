"""`?`: every key of the app, drawn from the one key table (`tui/actions.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pmem_tui.tui.action_types import Section
from pmem_tui.tui.actions import HELP, bindings_of
from pmem_tui.tui.key_docs import shown_keys, where_text, with_keys
from pmem_tui.tui.keys import key_for, keymap
from pmem_tui.tui.widgets.key_bar import KeyBar


def key_table(section: Section, keymap: Mapping[str, str]) -> Table:
    """The section's keys, the user's where they chose their own (`keymap`)."""
    table = Table(
        title=Text(section.title, style="bold"),
        title_justify="left",
        show_header=False,
        box=None,
        expand=True,
    )
    table.add_column("key", style="bold cyan", width=34)  # the move row wraps
    table.add_column("action", ratio=1)
    for action in section.actions:
        text = Text(with_keys(action.help, keymap))
        where = where_text(action) if section is HELP[0] else ""
        if where:
            text.append(f"  ({where})", style="dim")  # the panes where the key works
        table.add_row(Text(shown_keys(action, keymap)), text)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings_of("help.close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Text("pmem-tui keys"), id="help-title")
            with VerticalScroll(id="help-body"):
                for section in HELP:
                    yield Static(key_table(section, keymap()))
                yield Static(
                    Text(
                        "Every change shows its preview first; nothing on disk changes before you confirm. "
                        f"Press {key_for('help.close')} to close.",
                        style="dim",
                    )
                )
        yield KeyBar()  # its own: the main screen's, seen below the dialog, offers keys that do nothing here

    def action_close(self) -> None:
        self.dismiss(None)
