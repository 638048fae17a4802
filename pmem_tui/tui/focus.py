"""Keys typed in a burst go where the focus is when each is handled, not where it was when it was read.

Typed fast, pasted, or sent together by tmux, keys are all read (and handed to the focused widget) before
the first of them has run its binding; a binding that moves the focus (`/`, `escape`, `2`, `p`...) would
leave the keys behind it with the old widget. Two parts fix that: `focus_now` moves the focus at once, and
`reroute_stray_key` reads a key again when the focus moved after it was handed out. A key read *before* a
priority binding moved the focus (`j j /` in one burst) is not read again: it runs against the widget it was
meant for (`KeyReadOrder` tells the two apart).
"""

from __future__ import annotations

import itertools
from typing import Any, cast

from textual import events
from textual.app import App
from textual.dom import NoScreen
from textual.widget import Widget

from pmem_tui.tui.compat import key_bindings, recall, remember, repost_key


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
            remember(event, _ORIGIN, widget)
        await super().on_event(event)  # type: ignore[misc]


_READ = "pmem_read_number"  # set on a key event when the app reads it: its place in the order of reading


class KeyReadOrder:
    """App mixin: numbers each key as it is read, and remembers the number of the last key whose priority
    binding (run as the key is read, ahead of the keys read before it) moved the focus."""

    _read_numbers = itertools.count(1)
    focus_moved_at_read = 0

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)  # type: ignore[misc]
            return
        number = next(self._read_numbers)
        remember(event, _READ, number)
        app = cast(App[Any], self)
        before = app.focused
        await super().on_event(event)  # type: ignore[misc]
        if app.focused is not before:
            self.focus_moved_at_read = number


def read_before_focus_move(app: App[Any], event: events.Key) -> bool:
    """Whether `event` was read before the last key whose priority binding moved the focus as it was read."""
    return cast(int, recall(event, _READ, 0)) < getattr(app, "focus_moved_at_read", 0)


async def _run_on_origin(app: App[Any], event: events.Key, origin: Widget) -> None:
    """Run the key's (non-priority) binding as if `origin` still had the focus: from it up to the app."""
    for node in origin.ancestors_with_self:
        for binding in key_bindings(node, event.key):
            if not binding.priority and await app.run_action(binding.action, node):
                return


async def reroute_stray_key(app: App[Any], event: events.Key) -> bool:
    """Read a key that bubbled up to the app once more, when the focus moved after the key was first read
    (True: queued again, or run against the widget it was read for; the app must not look for a binding now).

    The app hands each key to the widget focused when the key is read, and the bindings run as the key
    bubbles back up, so in a burst the keys after a focus-moving key (`/`, `escape`, `2`, `p`...) have
    already been handed to the old widget when the focus moves. Looked up for bindings against the new
    focus they would be lost (an input "consumes" letters) or act on the wrong widget.
    """
    origin = recall(event, _ORIGIN)
    focused = app.focused
    if origin is None or focused is None or focused is origin:
        return False
    if read_before_focus_move(app, event):
        # Read before the key that moved the focus: it belongs to the widget that had the focus then.
        if isinstance(origin, Widget) and origin.is_attached:
            await _run_on_origin(app, event, origin)
        return True
    # Read again, as a new key: the app's priority bindings and forwarding then see the focus as it is now.
    repost_key(app, event)
    return True
