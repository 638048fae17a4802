"""Shown when the memory root does not exist: what the layout is, and the first save."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Center, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from pmem_tui.tui.actions import bindings_of
from pmem_tui.tui.widgets.key_bar import KeyBar

LAYOUT = """\
{root}
├── _core/                 baseline context, read when an agent loads memory
│   ├── profile.md
│   └── preferences.md
├── _index.md              one line per active file: how agents find it
├── projects/              active, on-demand memory
├── notes/                 active, on-demand memory
└── _archive/              never loaded in normal use
    ├── _index.md          archive and trash records
    └── _trash/            deleted files, recoverable for 30 days"""


def welcome_text(root_label: str) -> Text:
    text = Text()
    text.append("Welcome to pmem-tui\n\n", style="bold")
    text.append("There is no memory at ")
    text.append(root_label, style="bold")
    text.append(" yet.\n\n")
    text.append(
        "Persistent memory is plain Markdown your agents share. Once it exists, it looks like this:\n\n"
    )
    text.append(LAYOUT.format(root=root_label), style="cyan")
    text.append("\n\n")
    text.append("n", style="bold reverse")
    text.append("  write the first memory file. The preview lists every folder and file it creates;\n")
    text.append("   nothing is written before you confirm with y.\n")
    text.append("q", style="bold reverse")
    text.append("  quit.   ")
    text.append("?", style="bold reverse")
    text.append("  all keys.\n\n")
    text.append("To look around first, run ", style="dim")
    text.append("pmem-tui --demo", style="bold dim")
    text.append(": a sample memory in a temporary folder.", style="dim")
    return text


class WelcomeScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings_of("welcome.first_save"),
    ]

    def __init__(self, root_label: str) -> None:
        super().__init__()
        self.root_label = root_label

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="welcome-body"), Center():
            yield Static(welcome_text(self.root_label), id="welcome-text")
        yield KeyBar()

    async def action_first_save(self) -> None:
        await self.app.run_action("new_file")
