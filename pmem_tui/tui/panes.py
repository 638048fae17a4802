"""Every pane of the main screen in one table: a new pane is one `PaneSpec` here and one module.

A pane of rows (Index, Core, Archive, Trash) is drawn by `widgets/pane.PaneView` from its spec: the column
titles, the rows builder (`rows.py`), the text of an empty pane, whether space marks rows. A pane that draws
itself (Epics, Changes) names no rows builder: its module hands the app an `ExtraPane` that builds its
widget, and the pane is shown only when the app has one (the app always has the Changes pane). Either way
the spec gives the pane its key (`1`.. in table order, `actions.MAIN`), its tab title and the keys the key
bar offers on it (`keys`: ids in `tui/actions.py`; an action no pane lists is offered on every pane).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Tab, TabbedContent, TabPane

from pmem_tui.core.model import Snapshot
from pmem_tui.tui.rows import Row, archive_rows, core_rows, index_rows, trash_rows

# What every pane of rows offers (the filter, a new file, the preview, escape), besides its own actions.
_ROW_KEYS = ("filter", "new", "preview.focus", "pane.clear_filter", "history")


@dataclass(frozen=True)
class PaneSpec:
    id: str
    title: str
    keys: tuple[str, ...] = ()  # the key table's actions offered on this pane (those only some panes offer)
    columns: tuple[str, ...] = ()
    rows: Callable[[Snapshot], list[Row]] | None = None  # None: the pane draws itself (an `ExtraPane`)
    empty: str = "Nothing here."  # `{action_id}` names that action's key
    markable: bool = True  # space marks rows (the key bar offers it only where a batch takes them: `keys`)
    droppable: tuple[int, ...] = ()  # columns dropped before the path is cut
    only_when: str = ""  # the pane is optional: when it is shown (the help's words)


# fmt: off
PANES: tuple[PaneSpec, ...] = (
    PaneSpec("index", "Index", (*_ROW_KEYS, "archive", "delete", "edit", "problems", "mark"),
             ("route", "title", "summary"), index_rows,
             "No index entries and no active files yet. Press {new} to write the first memory file.",
             droppable=(1,)),  # the Index drops its title column (the summary says more) before a route
    PaneSpec("core", "Core", (*_ROW_KEYS, "edit"),  # no batch action on Core: space is not offered
             ("path", "size", "modified"), core_rows,
             "No _core/ files: nothing is loaded at baseline besides _index.md."),
    PaneSpec("archive", "Archive", (*_ROW_KEYS, "delete", "recover", "mark"),
             ("path", "archived", "reason"), archive_rows, "The archive is empty."),
    PaneSpec("trash", "Trash", (*_ROW_KEYS, "recover", "purge", "mark"),
             ("path", "deleted", "recovery"), trash_rows, "The trash is empty."),
    PaneSpec("epics", "Epics", only_when="when the project has one"),  # `widgets/epics.py`
    PaneSpec("changes", "Changes", ("history", "preview.focus")),  # `widgets/changes.py`
)
# fmt: on

BY_ID = {spec.id: spec for spec in PANES}
ROW_PANES = tuple(spec.id for spec in PANES if spec.rows is not None)  # the panes of rows, in key order


def number(pane: str) -> int:
    """The pane's key: its place in the table, from 1."""
    return PANES.index(BY_ID[pane]) + 1


def pane_id(name: str) -> str:
    """The id of the pane's `TabPane` on the main screen."""
    return f"pane-{name}"


def tab_title(pane: str) -> str:
    return f"{number(pane)} {BY_ID[pane].title}"


# Every tab's whole label, as its pane last said it: a narrow strip shows the other tabs shorter (`fit_tabs`).
_WHOLE: WeakKeyDictionary[Tab, Text] = WeakKeyDictionary()


def show_tab_label(pane: Widget, label: Text) -> None:
    """Write `label` on the tab of the pane that holds `pane` (nothing before it is mounted in one)."""
    tab_pane = next((a for a in pane.ancestors if isinstance(a, TabPane)), None)
    tabbed = next((a for a in pane.ancestors if isinstance(a, TabbedContent)), None)
    if tab_pane is not None and tabbed is not None and tab_pane.id is not None:
        _WHOLE[tabbed.get_tab(tab_pane)] = label
        fit_tabs(tabbed)


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
        if width <= 0 or sum(label.cell_len + 2 for label in labels) <= width:
            break
        for i, label in step:
            labels[i] = label
    return labels


def fit_tabs(tabbed: TabbedContent) -> None:
    """Label the tabs of `tabbed` to fit its width (`fitted_labels`); after a label, the active tab or the
    width changed."""
    if not tabbed.is_attached:  # a strip being torn down (the app quitting during start-up)
        return
    ids = {pane_id(spec.id) for spec in PANES}
    panes = [pane for pane in tabbed.query(TabPane) if pane.id in ids]
    try:
        tabs = [tabbed.get_tab(pane) for pane in panes]
    except (NoMatches, ValueError):  # a tab not there (yet, or any more): labelled on the next call
        return
    titles = [tab_title(str(pane.id).removeprefix(pane_id(""))) for pane in panes]
    wholes = [
        _WHOLE.setdefault(tab, Text.from_markup(tab.label.markup, emoji=False)) for tab in tabs
    ]  # as composed
    titled = list(zip(titles, wholes, strict=True))
    active = next((i for i, pane in enumerate(panes) if pane.id == tabbed.active), -1)
    for tab, label in zip(tabs, fitted_labels(titled, active, tabbed.size.width), strict=True):
        if tab.label != Content.from_text(label):
            tab.label = label
    if 0 <= active < len(tabs):  # a strip too narrow even for the keys scrolls: the active tab in view
        tabs[active].scroll_visible(animate=False, force=True)


def rows_for(pane: str, snap: Snapshot) -> list[Row]:
    build = BY_ID[pane].rows
    assert build is not None, pane
    return build(snap)


def offered_on(action_id: str) -> tuple[str, ...]:
    """The panes where the key bar offers the action: those that list it, or every pane if none does."""
    listed = tuple(spec.id for spec in PANES if action_id in spec.keys)
    return listed or tuple(spec.id for spec in PANES)


class ExtraPane(Protocol):
    """The module of a pane that draws itself (spec without rows), as the app was given it.

    `make_widget` builds the pane's content once; `update` is called after every scan. To show
    something in the preview, the widget posts `messages.ShowInPreview`.
    """

    pane_id: str

    def make_widget(self, app: App[Any]) -> Widget: ...

    def update(self, screen: Screen[Any], snap: Snapshot) -> None: ...
