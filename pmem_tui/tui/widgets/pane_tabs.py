"""The main screen's tab strip, drawn by one widget: a label per pane and the bar under the active one.

Textual's `TabbedContent` made the strip out of 16 widgets (the tabs, their containers, the underline, a
`TabPane` per pane), ~1 ms each of CSS and mounting before the first frame (`benchmarks/notes/speed.md`,
app start). This draws the same two lines, a label row and Textual's own `Bar`; the panes themselves sit in a
`ContentSwitcher` that the main screen drives.

A label is the pane's title and what the pane says about itself ("1 Index (9)", "3 marked"...). A strip too
narrow for every whole label shortens the other tabs first (`fitted_labels`), and one too narrow even for
their keys slides so the active tab stays in view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.renderables.bar import Bar
from textual.widget import Widget

PAD = 1  # cells each side of a label


def fitted_labels(tabs: Sequence[tuple[str, Text]], active: int, width: int) -> list[Text]:
    """The labels of a tab strip `width` cells wide, so that every tab stays in view: each tab is
    (its title, e.g. "2 Core"; its whole label). If the whole labels do not fit, the other tabs show their
    title alone (their counts are in the header), then, the farthest from the active tab first, their key
    alone; the active tab keeps its whole label. A tab takes its label and one cell each side."""
    labels = [whole for _title, whole in tabs]
    farthest = sorted((i for i in range(len(tabs)) if i != active), key=lambda i: -abs(i - active))
    steps = [[(i, Text(title)) for i, (title, _whole) in enumerate(tabs) if i != active]]
    steps += [[(i, Text(tabs[i][0].split(" ", 1)[0]))] for i in farthest]
    for step in steps:
        if width <= 0 or sum(label.cell_len + 2 * PAD for label in labels) <= width:
            break
        for i, label in step:
            labels[i] = label
    return labels


class PaneTabs(Widget):
    """A tab per pane, in the pane table's order; `active` is the shown pane's id. Not focusable: the
    panes' keys (1-6, tab) and a click choose the pane."""

    DEFAULT_CSS = """
    PaneTabs {
        height: 2;
        width: 1fr;
        pointer: pointer;
    }
    PaneTabs > .pane-tabs--tab {
        color: $foreground 50%;
    }
    PaneTabs > .pane-tabs--active, PaneTabs > .pane-tabs--hover {
        color: $foreground;
    }
    PaneTabs > .pane-tabs--bar {
        color: $block-cursor-background;
        background: $foreground 10%;
    }
    PaneTabs:ansi > .pane-tabs--tab {
        text-style: dim;
    }
    PaneTabs:ansi > .pane-tabs--active {
        text-style: bold;
    }
    PaneTabs:ansi > .pane-tabs--bar {
        background: $border-blurred;
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "pane-tabs--tab",
        "pane-tabs--active",
        "pane-tabs--hover",
        "pane-tabs--bar",
    }
    ALLOW_SELECT = False

    active: reactive[str] = reactive("")
    hovered: reactive[str] = reactive("")  # the tab under the mouse, drawn brighter (as Textual's tabs)

    class Clicked(Message):
        """The tab of `pane` (its id) was clicked."""

        def __init__(self, pane: str) -> None:
            super().__init__()
            self.pane = pane

    def __init__(self, active: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._tabs: dict[str, tuple[str, Text]] = {}  # pane id -> (its title "2 Core", its whole label)
        self.set_reactive(PaneTabs.active, active)

    def add(self, pane: str, title: str, label: Text | None = None) -> None:
        """A tab for the pane with id `pane`, after the others: `title`, or its whole `label`."""
        self._tabs[pane] = (title, label if label is not None else Text(title))
        self.refresh()

    def set_label(self, pane: str, label: Text) -> None:
        """Write `label`, the whole label, on the tab of `pane`; an unknown pane is ignored."""
        if pane in self._tabs and self._tabs[pane][1] != label:
            self._tabs[pane] = (self._tabs[pane][0], label)
            self.refresh()

    def labels(self) -> dict[str, Text]:
        """Each pane's label as shown at the strip's width."""
        panes = list(self._tabs)
        active = panes.index(self.active) if self.active in panes else -1
        fitted = fitted_labels(list(self._tabs.values()), active, self.size.width)
        return dict(zip(panes, fitted, strict=True))

    def label(self, pane: str) -> Text:
        return self.labels()[pane]

    def _layout(self) -> tuple[list[tuple[str, Text, int, int]], int]:
        """Each tab as (pane, label, first cell, end cell) on the strip, and how far the strip slides left so
        that the active tab is in view."""
        tabs, x = [], 0
        for pane, label in self.labels().items():
            tabs.append((pane, label, x, x + label.cell_len + 2 * PAD))
            x = tabs[-1][3]
        start, end = next(((a, b) for pane, _, a, b in tabs if pane == self.active), (0, 0))
        width = self.size.width
        return tabs, max(0, min(start, end - width)) if end > width else 0

    def render(self) -> RenderableType:
        tabs, shift = self._layout()
        line = Text(no_wrap=True, overflow="crop", end="")
        bar_range = (0, 0)
        for pane, label, start, end in tabs:
            style = "active" if pane == self.active else "hover" if pane == self.hovered else "tab"
            tab = Text(" " * PAD, end="") + label + Text(" " * PAD)
            tab.stylize_before(self.get_component_rich_style(f"pane-tabs--{style}"))
            line.append_text(tab)
            if pane == self.active:  # the bar under the label, as Textual's
                bar_range = (start + PAD - shift, end - PAD - shift)
        # Labels are our titles and counts: one cell per character, so the slide cuts characters.
        bar = self.get_component_rich_style("pane-tabs--bar")
        return Group(
            line[shift:],
            Bar(bar_range, Style.from_color(bar.color), Style.from_color(bar.bgcolor)),
        )

    def _pane_at(self, x: int) -> str | None:
        """The pane whose tab is at cell `x` of the strip, if any."""
        tabs, shift = self._layout()
        return next((pane for pane, _, start, end in tabs if start <= x + shift < end), None)

    def on_click(self, event: events.Click) -> None:
        pane = self._pane_at(event.x)
        if pane is not None:
            event.stop()
            self.post_message(self.Clicked(pane))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hovered = self._pane_at(event.x) or ""

    def on_leave(self) -> None:
        self.hovered = ""


def counted(title: str, count: int | None) -> Text:
    """A tab's label with its count, "5 Epics (6)" (… while unknown): in brackets, so that it is never read as
    the next tab's key (found in trial: "5 Epics 6  6 Changes")."""
    return Text.assemble(f"{title} (", ("…" if count is None else str(count), "bold"), ")")


def show_tab_label(widget: Widget, pane: str, label: Text) -> None:
    """Write `label` on the tab of `pane` (its id) on the screen of `widget` (nothing before it is on one)."""
    if widget.is_attached:
        for tabs in widget.screen.query(PaneTabs):
            tabs.set_label(pane, label)


def in_view(widget: Widget) -> bool:
    """`widget` is mounted and shown: its pane is the one in view (the switcher hides the others)."""
    return widget.is_mounted and all(w.display for w in (widget, *widget.ancestors) if isinstance(w, Widget))
