"""`?`: every key of the app, in one place."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

# (keys, action). The README's key table is the same list.
KEYS: tuple[tuple[str, str], ...] = (
    ("j / k, ↓ / ↑, g / G, pgup / pgdn", "move in the list (or scroll the preview)"),
    ("1 2 3 4, tab / shift+tab", "switch pane: Index, Core, Archive, Trash"),
    ("/", "filter the current pane (fuzzy on path, title, summary); enter: first match; escape: clear"),
    ("space", "mark several rows; a / d / r then plan them together (one preview, a result per item)"),
    ("a", "archive the selected active file(s): asks for the reason, then shows the preview"),
    (
        "d",
        "delete the selected archived file(s) to the trash; on an active file: explains, offers the archive",
    ),
    ("r", "recover the selected archived or trashed file(s); asks for an index line if the record has none"),
    ("e", "edit the selected file in $EDITOR (the app suspends), then the save preview"),
    ("n", "new memory file: path and index line, editor, then the save preview"),
    ("H", "health review"),
    ("P", "purge expired trash, with its own preview listing every item"),
    ("U", "upgrade the lifecycle structure (create the missing folders and archive index only)"),
    ("D", "doctor: finish or undo an interrupted action (offered when one is found)"),
    ("ctrl+z", "undo the last action by planning its inverse, with its preview"),
    ("p", "focus the preview (scroll it with the movement keys; tab goes back)"),
    ("?", "this help"),
    ("ctrl+p", "command palette: every action by name"),
    ("q", "quit"),
)
MODAL_KEYS: tuple[tuple[str, str], ...] = (
    ("enter (in the input)", "build the preview from the reason or index line you typed"),
    ("y, or enter on Confirm", "confirm: only now does anything change on disk"),
    ("n, escape", "cancel: nothing changes"),
)
HEALTH_KEYS: tuple[tuple[str, str], ...] = (
    ("k", "keep: dismiss the proposal"),
    ("a", "archive the file, through its preview"),
    ("d", "archive, then delete to the trash, each through its preview"),
    ("f", "apply the index fix of a drift proposal (add or drop a line), through its preview"),
    ("e", "edit the file in $EDITOR, then the save preview"),
    ("space", "mark several proposals; k / a / d then take them together, f one after the other"),
    ("U", "upgrade, when the review is blocked by an incomplete lifecycle structure"),
    ("P", "purge expired trash (its own confirmation)"),
    ("escape", "back to the panes"),
)


def key_table(title: str, rows: tuple[tuple[str, str], ...]) -> Table:
    table = Table(
        title=Text(title, style="bold"), title_justify="left", show_header=False, box=None, expand=True
    )
    table.add_column("key", style="bold cyan", no_wrap=True, width=34)
    table.add_column("action", ratio=1)
    for key, action in rows:
        table.add_row(Text(key), Text(action))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Text("pmem-tui keys"), id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(key_table("Main screen", KEYS))
                yield Static(key_table("Preview modal", MODAL_KEYS))
                yield Static(key_table("Health review", HEALTH_KEYS))
                yield Static(
                    Text(
                        "Every change shows its preview first; nothing on disk changes before you confirm. "
                        "Press escape to close.",
                        style="dim",
                    )
                )

    def action_close(self) -> None:
        self.dismiss(None)
