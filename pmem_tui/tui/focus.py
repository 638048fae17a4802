"""Keys typed in a burst go where the focus is when each is handled, not where it was when it was read.

Typed fast, pasted, or sent together by tmux, keys are all read (and handed to the focused widget) before
the first of them has run its binding; a binding that moves the focus (`/`, `escape`, `2`, `p`...) would
leave the keys behind it with the old widget. Two parts fix that: `focus_now` moves the focus at once, and
`reroute_stray_key` reads a key again when the focus moved after it was handed out.
"""

from __future__ import annotations

from typing import Any, cast

from textual import events
from textual.app import App
from textual.dom import NoScreen
from textual.widget import Widget


def focus_now(widget: Widget) -> None:
    """Give `widget` the focus now. `Widget.focus` defers the move (`call_later`), so keys already queued
    behind the one that asked for it (typed fast, pasted, or sent together by tmux) would still reach the
    old focus: `/` then `a` would plan an archive instead of filtering for "a"."""
    try:
        widget.screen.set_focus(widget)
    except NoScreen:  # not mounted on a screen (yet): the deferred way
        widget.focus()


_ORIGIN = "pmem_focused_when_read"  # set on a key event: the widget that had the focus when it was read


class RemembersKeyFocus:
    """Marks each key a focusable widget receives with the widget itself; see `reroute_stray_key`."""

    async def on_event(self, event: events.Event) -> None:
        # A plain mixin (listed before the widget class): a Widget base here would break the merging of
        # the widget's COMPONENT_CLASSES.
        widget = cast(Widget, self)
        if isinstance(event, events.Key):
            setattr(event, _ORIGIN, widget)
        await super().on_event(event)  # type: ignore[misc]


def reroute_stray_key(app: App[Any], event: events.Key) -> bool:
    """Read a key that bubbled up to the app once more, when the focus moved after the key was first read
    (True: queued again; the app must not look for a binding now).

    The app hands each key to the widget focused when the key is read, and the bindings run as the key
    bubbles back up, so in a burst the keys after a focus-moving key (`/`, `escape`, `2`, `p`...) have
    already been handed to the old widget when the focus moves. Looked up for bindings against the new
    focus they would be lost (an input "consumes" letters) or act on the wrong widget.
    """
    origin = getattr(event, _ORIGIN, None)
    focused = app.focused
    if origin is None or focused is None or focused is origin:
        return False
    # Read again, as a new key: the app's priority bindings and forwarding then see the focus as it is now.
    key = events.Key(event.key, event.character)
    key.set_sender(app)
    app.post_message(key)
    return True
