"""Ask for a new memory file's path and (optionally) its index line, before the editor opens."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from pmem_tui.core.errors import PmemError, Refused
from pmem_tui.core.paths import Area, check_memory_path
from pmem_tui.tui.actions import bindings_of
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.words import in_keys


@dataclass(frozen=True)
class NewFileRequest:
    path: str
    index_line: str | None  # None: let the save propose one from the file's title and summary


class NewFileModal(ModalScreen[NewFileRequest | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings_of("new.cancel"),
    ]

    def __init__(self, root: Path, *, first_save: bool = False, initial_path: str = "notes/") -> None:
        super().__init__(classes="plan-modal")
        self.root = root
        self.first_save = first_save
        self.initial_path = initial_path
        self.refusal: str | None = None  # why the path typed cannot be used (shown under the field)

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-dialog"):
            title = "First memory file" if self.first_save else "New memory file"
            yield Static(Text(title), id="plan-title")
            if self.first_save:
                yield Static(
                    Text(
                        "The memory root does not exist yet. The save preview lists the whole structure "
                        "it creates (_core/, projects/, notes/, _archive/, _archive/_trash/, _index.md, "
                        "_archive/_index.md, pmem-tui's own .pmem/); nothing is written before you confirm."
                    ),
                    id="plan-explanation",
                )
            # Statics, not Labels: a Label is as wide as its text; at 80 columns the border cut it.
            yield Static("Path (in _core/, projects/ or notes/), then enter:")
            yield Input(
                value=self.initial_path, placeholder="notes/topic.md", id="new-path", select_on_focus=False
            )
            yield Static("", id="new-path-refusal")
            yield Static("Index line (optional; empty: built from the title and summary you write):")
            yield Input(placeholder="- [Title](notes/topic.md) — one-line summary", id="new-index-line")
            yield Static(
                Text("Next, your editor opens; after it closes you see the save preview.", style="dim"),
                id="new-hint",
            )
            with Horizontal(id="plan-buttons"):
                yield Button("Continue", id="new-continue", variant="primary")
                yield Button("Cancel", id="new-cancel", action="screen.cancel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#new-path-refusal", Static).display = False
        self.query_one("#new-path", Input).focus()

    @on(Input.Submitted, "#new-path")
    def _path_done(self, event: Input.Submitted) -> None:
        event.stop()
        if self._checked_path() is not None:
            self.query_one("#new-index-line", Input).focus()

    @on(Input.Changed, "#new-path")
    def _path_edited(self, event: Input.Changed) -> None:
        event.stop()
        self._show_refusal(None)

    def _show_refusal(self, message: str | None) -> None:
        self.refusal = message
        field = self.query_one("#new-path-refusal", Static)
        field.update(Text(message or "", style="bold red"))
        field.display = message is not None

    def _checked_path(self) -> str | None:
        """The path typed, checked as a save target; a refusal stays under the field, the dialog open."""
        typed = self.query_one("#new-path", Input).value.strip()
        try:
            if not typed or typed.endswith("/"):
                raise Refused("Give the new file a name, such as notes/topic.md.")
            rel = check_memory_path(self.root, typed, Area.CORE)
            if (self.root / rel).exists():
                raise Refused(f"{rel} already exists; select it and press {key_for('edit')} to edit it.")
        except PmemError as err:
            self._show_refusal(in_keys(str(err)))
            self.query_one("#new-path", Input).focus()
            return None
        self._show_refusal(None)
        return rel

    @on(Input.Submitted, "#new-index-line")
    @on(Button.Pressed, "#new-continue")
    def _continue(self, event: Message) -> None:
        event.stop()
        self._finish()

    def _finish(self) -> None:
        path = self._checked_path()
        line = self.query_one("#new-index-line", Input).value.strip()
        if path is not None:
            self.dismiss(NewFileRequest(path, line or None))

    def action_cancel(self) -> None:
        self.dismiss(None)
