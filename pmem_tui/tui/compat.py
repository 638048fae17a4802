"""Every use of Textual's private API, in one place (tests/tui/test_compat.py fails if an upgrade removes
what these rely on). Nothing else in pmem_tui touches a name with a leading underscore from Textual.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_size(widget: ScrollView, size: Size) -> None:
    """Change a scroll view's virtual size without a layout of the whole screen (the widget's own size
    does not change; the scrollbars are updated, and relaid out by Textual only if one appears or goes).
    Private: `ScrollView._scroll_update`, what the `virtual_size` watcher runs besides the layout."""
    if widget.virtual_size == size:
        return
    if widget.size.height <= 0:
        widget.virtual_size = size  # not laid out yet: the first layout takes it
        return
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)
    widget.refresh()


def key_bindings(node: DOMNode, key: str) -> tuple[Binding, ...]:
    """The bindings `node` itself declares for `key` (private: `DOMNode._bindings`)."""
    return tuple(node._bindings.key_to_bindings.get(key, ()))


def repost_key(app: App[Any], event: events.Key) -> None:
    """Read `event`'s key again, as a new key sent by the app (what the driver does for a keypress)."""
    key = events.Key(event.key, event.character)
    key.set_sender(app)
    app.post_message(key)


def remember(event: events.Event, name: str, value: object) -> None:
    """Keep a value of ours on a Textual event (it has no slots); `recall` reads it back."""
    setattr(event, name, value)


def recall(event: events.Event, name: str, default: object = None) -> object:
    return getattr(event, name, default)


def terminal_attrs_before(app: App[Any]) -> list[Any] | None:
    """The terminal's mode before the app started (private: the Linux driver's `attrs_before`)."""
    return getattr(app._driver, "attrs_before", None)


class BeforeAppKey:
    """App mixin: `before_app_key` runs ahead of Textual's `App._on_key`, where the app looks up a key's
    bindings; True stops that look-up. Textual calls each class's `_on_key` subclass first, and a
    prevented default ends the walk."""

    async def before_app_key(self, event: events.Key) -> bool:
        return False

    async def _on_key(self, event: events.Key) -> None:
        if await self.before_app_key(event):
            event.prevent_default()
