"""The key bar at the bottom of each screen: the active bindings, one widget, one line.

Textual's `Footer` mounts a widget per binding and recomposes them all whenever the bindings change
(every focus change); at start-up that alone cost ~40 ms of the first frame. This bar draws the same
hints as one line of text and redraws it when the screen's bindings change. A click on a hint presses
its key.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

_ENABLED = Style()
_DISABLED = Style(dim=True)


class KeyBar(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, Binding, bool]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.refresh()

    def _hints(self) -> tuple[list[tuple[Binding, bool]], tuple[Binding, bool] | None]:
        """The bindings to show (one per action, first key wins) and the command palette's, if any."""
        shown: dict[str, tuple[Binding, bool]] = {}
        palette: tuple[Binding, bool] | None = None
        active = self.screen.active_bindings
        for key, (_node, binding, enabled, _tooltip) in active.items():
            if self.app.ENABLE_COMMAND_PALETTE and key == self.app.COMMAND_PALETTE_BINDING:
                palette = (binding, enabled)
            elif binding.show and binding.action not in shown:
                shown[binding.action] = (binding, enabled)
        return list(shown.values()), palette

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        text_style = self.get_component_rich_style("key-bar--description")
        hints, palette = self._hints()
        text = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, Binding, bool]] = []

        def add(binding: Binding, enabled: bool) -> None:
            start = len(text)
            extra = _ENABLED if enabled else _DISABLED
            text.append(f" {self.app.get_key_display(binding)} ", key_style + extra)
            text.append(f"{binding.description} ", text_style + extra)
            spans.append((start, len(text), binding, enabled))

        for binding, enabled in hints:
            add(binding, enabled)
        if palette is not None:
            label_len = len(self.app.get_key_display(palette[0])) + len(palette[0].description) + 4
            gap = self.size.width - len(text) - label_len
            if gap > 0:
                text.append(" " * (gap - 1) + "▕", text_style)
                add(*palette)
        self._spans = spans
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, binding, enabled in self._spans:
            if start <= event.x < end:
                if enabled:
                    self.app.simulate_key(binding.key.split(",")[0])
                else:
                    self.app.bell()
                return
