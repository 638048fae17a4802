"""What the key table (`actions.py`) is written in: an `Action` (one binding, its key bar label and help), a
`Section` of the help screen, and what is made of actions: their Textual bindings (`bindings`), and a list
move's keys bound to scrolling instead (`scroll_of`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Action:
    id: str  # the binding's id (unique in the app)
    key: str  # Textual's key names, comma separated ("" when the widget's own bindings carry it)
    action: str  # the action the binding runs
    label: str  # the key bar's label
    help: str  # the help screen's and the README's text
    show: bool = True  # offered in the key bar where it applies (`panes.PaneSpec.keys`; state may hide it)
    priority: bool = False
    keys_shown: str = ""  # how the help writes the keys, when not simply `key`
    command: str = ""  # its name in the command palette (none: not offered there)
    key_display: str | None = None  # how the key bar writes the key, when not as Textual does (`{id}`: keys)

    def binding(self) -> Binding:
        return Binding(
            self.key,
            self.action,
            self.label,
            show=self.show,
            priority=self.priority,
            id=self.id,
            key_display=self.key_display,
        )


@dataclass(frozen=True)
class Section:
    title: str
    actions: tuple[Action, ...]


# What each of the list's moves (`actions.LIST`) scrolls, with the same keys: the preview's and the plan
# modal's (`scroll_of`).
_SCROLLS = {
    "list.up": ("up", "scroll_up", "Scroll up"),
    "list.down": ("down", "scroll_down", "Scroll down"),
    "list.page_up": ("page_up", "page_up", "Page up"),
    "list.page_down": ("page_down", "page_down", "Page down"),
    "list.first": ("top", "scroll_home", "Top"),
    "list.last": ("bottom", "scroll_end", "Bottom"),
}


def scroll_of(move: Action, prefix: str = "preview", run: str = "{}") -> Action:
    """`move`'s keys bound to scrolling, as `{prefix}.up`...; `run`: the action, around the scroll's name."""
    suffix, action, label = _SCROLLS[move.id]
    return Action(f"{prefix}.{suffix}", move.key, run.format(action), label, "", show=False)


def bindings(actions: tuple[Action, ...]) -> list[BindingType]:
    """The bindings of the actions that carry a key (the others only document a widget's own keys)."""
    return [a.binding() for a in actions if a.key]
