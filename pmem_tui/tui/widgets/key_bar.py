"""The key bar at the bottom of each screen: the active bindings, one widget, one line.

Textual's `Footer` mounts a widget per binding and recomposes them all whenever the bindings change
(every focus change); at start-up that alone cost ~40 ms of the first frame. This bar draws the same
hints as one line of text and redraws it when the screen's bindings change. A click on a hint presses
its key.
"""

from __future__ import annotations

from typing import ClassVar, TypeAlias

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

from pmem_tui.tui.actions import ALL, PINNED
from pmem_tui.tui.key_docs import with_keys
from pmem_tui.tui.keys import keymap

Hint: TypeAlias = tuple[Binding, bool]
_ENABLED = Style()
_DISABLED = Style(dim=True)
# A widget's hints in the key table's order: Textual moves a binding the user's keymap rebinds to the end of
# its widget's bindings (found in trial: a swapped archive and delete went last, and off a 100-column bar).
_TABLE_ORDER = {action.id: n for n, action in enumerate(ALL)}


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

    def _hints(self) -> tuple[list[Hint], list[Hint], Hint | None]:
        """The bindings to show (one per action, first key wins), those pinned at the right end (help,
        quit) and the command palette's, if any. A screen with an `offers(binding)` method decides which
        bindings it shows (what works on the pane in view); otherwise each binding's `show` does."""
        shown: dict[str, tuple[int, Hint]] = {}
        palette: Hint | None = None
        offers = getattr(self.screen, "offers", None)
        active = self.screen.active_bindings
        nodes: dict[int, int] = {}  # the focus chain's order: the focused widget's keys first
        for key, (node, binding, enabled, _tooltip) in active.items():
            rank = nodes.setdefault(id(node), len(nodes))
            if self.app.ENABLE_COMMAND_PALETTE and key == self.app.COMMAND_PALETTE_BINDING:
                palette = (binding, enabled)
            elif binding.action not in shown and (offers(binding) if callable(offers) else binding.show):
                shown[binding.action] = (rank, (binding, enabled))
        ordered = sorted(shown.values(), key=lambda s: (s[0], _TABLE_ORDER.get(s[1][0].id or "", len(ALL))))
        hints = [hint for _rank, hint in ordered]
        pinned = sorted((h for h in hints if h[0].action in PINNED), key=lambda h: PINNED.index(h[0].action))
        return [h for h in hints if h[0].action not in PINNED], pinned, palette

    def _width(self, hint: Hint) -> int:
        return len(self._key(hint[0])) + len(hint[0].description) + 3

    def _key(self, binding: Binding) -> str:
        shown = getattr(self.screen, "key_shown", None)  # a screen whose keys depend on its focus
        if callable(shown) and (keys := shown(binding)) is not None:
            return str(keys)
        if binding.key_display and "{" in binding.key_display:  # names another action's keys (the user's)
            return with_keys(binding.key_display, keymap())
        return self.app.get_key_display(binding)

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        text_style = self.get_component_rich_style("key-bar--description")
        hints, pinned, palette = self._hints()
        text = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, Binding, bool]] = []

        def add(binding: Binding, enabled: bool) -> None:
            start = len(text)
            extra = _ENABLED if enabled else _DISABLED
            text.append(f" {self._key(binding)} ", key_style + extra)
            text.append(f"{binding.description} ", text_style + extra)
            spans.append((start, len(text), binding, enabled))

        # Help, quit and the palette (every action by name) stay at the right end, whatever the width: they
        # are what a lost person looks for. The pane's keys fill the rest, in order, as many as fit whole.
        width = self.size.width
        right = [*pinned, *([palette] if palette is not None else [])]
        room = width - sum(map(self._width, right)) - 1
        for hint in hints:
            if self._width(hint) > room:
                break
            add(*hint)
            room -= self._width(hint)
        gap = width - len(text) - sum(map(self._width, right))
        if gap > 0 and right:
            text.append(" " * (gap - 1) + "▕", text_style)
        for hint in right:
            add(*hint)
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
