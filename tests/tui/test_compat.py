"""What `tui/compat.py` relies on in Textual's private API is still there and still does the job: these fail
first when a Textual upgrade removes or changes it (then `compat.py` is the one module to adapt)."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.drivers.linux_driver import LinuxDriver
from textual.geometry import Size
from textual.message_pump import MessagePump
from textual.scroll_view import ScrollView
from textual.widget import Widget

from pmem_tui.tui import compat


def test_the_private_names_exist() -> None:
    assert callable(ScrollView._scroll_update)
    assert list(inspect.signature(ScrollView._scroll_update).parameters) == ["self", "virtual_size"]
    assert "_on_key" in App.__dict__  # where the app looks a key's bindings up
    assert "_check_bindings" in inspect.getsource(App._on_key)
    # Handlers are looked up per class, `_on_<name>` first, subclass first (what `BeforeAppKey` hooks into).
    assert 'f"_{method_name}"' in inspect.getsource(MessagePump._get_dispatch_methods)
    assert "attrs_before" in inspect.getsource(LinuxDriver)


class Bound(Widget, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "mark", "Mark", id="test.x")]
    marked = 0

    def action_mark(self) -> None:
        self.marked += 1


class Scroller(ScrollView):
    pass


class Probe(compat.BeforeAppKey, App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "count", "Count")]

    def __init__(self) -> None:
        super().__init__()
        self.counted = 0
        self.stop_next = False
        self.keys: list[str] = []

    def compose(self) -> ComposeResult:
        yield Bound(id="bound")
        yield Scroller(id="scroller")

    def action_count(self) -> None:
        self.counted += 1

    async def before_app_key(self, event: events.Key) -> bool:
        self.keys.append(event.key)
        stop, self.stop_next = self.stop_next, False
        return stop


async def test_each_helper_does_its_job() -> None:
    app = Probe()
    async with app.run_test(size=(40, 10)) as pilot:
        bound = app.query_one(Bound)
        assert [b.action for b in compat.key_bindings(bound, "x")] == ["mark"]
        assert compat.key_bindings(bound, "z") == ()

        # The hook runs before the app's binding look-up, and True stops it.
        await pilot.press("y")
        assert app.counted == 1 and app.keys[-1] == "y"
        app.stop_next = True
        await pilot.press("y")
        assert app.counted == 1

        # A key read again reaches the app as a new key, and its bindings run.
        compat.repost_key(app, events.Key("y", "y"))
        await pilot.pause()
        assert app.counted == 2 and app.keys[-1] == "y"

        # The virtual size changes without a relayout, and the scrollbar follows.
        scroller = app.query_one(Scroller)
        compat.set_virtual_size(scroller, Size(10, 100))
        await pilot.pause()
        assert scroller.virtual_size == Size(10, 100) and scroller.max_scroll_y > 0

        key: Any = events.Key("a", "a")
        compat.remember(key, "pmem_test", 7)
        assert compat.recall(key, "pmem_test") == 7 and compat.recall(key, "missing", 0) == 0
        assert compat.terminal_attrs_before(app) is None  # the headless driver has none
