"""Below a minimum size the app shows one notice instead of panes cut to pieces and toasts over
everything; it goes away by itself once the terminal is large enough again."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Static

from pmem_tui.tui.actions import bindings_of
from pmem_tui.tui.keys import key_for

MIN_WIDTH = 60
MIN_HEIGHT = 16


class TooSmallScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    TooSmallScreen {
        align: center middle;
        background: $background;
    }
    TooSmallScreen ToastRack {
        display: none;
    }
    TooSmallScreen #too-small {
        width: 100%;
        height: auto;
        text-align: center;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings_of("small.quit", "small.ignore"),  # the app's own keys would open a screen with no room
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self._say()

    def on_resize(self, event: events.Resize) -> None:
        self._say(event.size)

    def _say(self, size: Size | None = None) -> None:
        width, height = size or self.app.size
        self.query_one("#too-small", Static).update(
            Text(
                f"Terminal too small ({width}x{height}): pmem-tui needs {MIN_WIDTH}x{MIN_HEIGHT}. "
                f"Make the window larger, or press {key_for('small.quit')} to quit."
            )
        )

    def action_ignore(self) -> None:
        self.app.bell()


def follow_size(app: App[Any], size: Size | None = None) -> None:
    """Show the notice while the terminal (`size`, else the app's) is below the minimum; take it away
    once it is not. (The app's own `size` follows a resize only after its handlers ran.)"""
    width, height = size or app.size
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        if not isinstance(app.screen, TooSmallScreen):
            app.push_screen(TooSmallScreen())
    elif isinstance(app.screen, TooSmallScreen):
        app.pop_screen()
