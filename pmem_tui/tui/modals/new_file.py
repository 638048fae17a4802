"""Ask for a new memory file's path and (optionally) its index line, before the editor opens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from pmem_tui.tui.widgets.key_bar import KeyBar


@dataclass(frozen=True)
class NewFileRequest:
    path: str
    index_line: str | None  # None: let the save propose one from the file's title and summary


class NewFileModal(ModalScreen[NewFileRequest | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="new.cancel"),
    ]

    def __init__(self, *, first_save: bool = False, initial_path: str = "notes/") -> None:
        super().__init__(classes="plan-modal")
        self.first_save = first_save
        self.initial_path = initial_path

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
            yield Label("Path (in _core/, projects/ or notes/), then enter:")
            yield Input(
                value=self.initial_path, placeholder="notes/topic.md", id="new-path", select_on_focus=False
            )
            yield Label("Index line (optional; empty: built from the title and summary you write):")
            yield Input(placeholder="- [Title](notes/topic.md) — one-line summary", id="new-index-line")
            yield Static(
                Text("Next, your editor opens; after it closes you see the save preview.", style="dim"),
                id="new-hint",
            )
            with Horizontal(id="plan-buttons"):
                yield Button("Continue", id="new-continue", variant="primary")
                yield Button("Cancel", id="new-cancel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#new-path", Input).focus()

    @on(Input.Submitted, "#new-path")
    def _path_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#new-index-line", Input).focus()

    @on(Input.Submitted, "#new-index-line")
    def _line_done(self, event: Input.Submitted) -> None:
        event.stop()
        self._finish()

    @on(Button.Pressed, "#new-continue")
    def _continue(self, event: Button.Pressed) -> None:
        event.stop()
        self._finish()

    @on(Button.Pressed, "#new-cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def _finish(self) -> None:
        path = self.query_one("#new-path", Input).value.strip()
        line = self.query_one("#new-index-line", Input).value.strip()
        if not path or path.endswith("/"):
            self.notify("Give the new file a path such as notes/topic.md.", severity="warning")
            self.query_one("#new-path", Input).focus()
            return
        self.dismiss(NewFileRequest(path, line or None))

    def action_cancel(self) -> None:
        self.dismiss(None)
