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

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from pmem_tui.core.model import ARCHIVE_DIR, ARCHIVE_INDEX, TRASH_DIR, Snapshot
from pmem_tui.tui.index_rows import index_rows
from pmem_tui.tui.rows import Row, archive_rows, core_rows, trash_rows

# What every pane of rows offers (the filter, a new file, the preview, escape), besides its own actions.
_ROW_KEYS = ("filter", "new", "preview.focus", "pane.clear_filter", "history")


@dataclass(frozen=True)
class PaneSpec:
    id: str
    title: str
    keys: tuple[str, ...] = ()  # the key table's actions offered on this pane (those only some panes offer)
    columns: tuple[str, ...] = ()
    rows: Callable[[Snapshot], Sequence[Row]] | None = None  # None: the pane draws itself (an `ExtraPane`)
    empty: str = "Nothing here."  # `{action_id}` names that action's key
    markable: bool = True  # space marks rows (the key bar offers it only where a batch takes them: `keys`)
    droppable: tuple[int, ...] = ()  # columns dropped before the path is cut
    only_when: str = ""  # the pane is optional: when it is shown (the help's words)
    behind: tuple[str, ...] = ()  # the lifecycle paths its rows are read from: a link there empties it


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
             ("path", "archived", "reason"), archive_rows, "The archive is empty.",
             behind=(ARCHIVE_DIR, ARCHIVE_INDEX)),
    PaneSpec("trash", "Trash", (*_ROW_KEYS, "recover", "purge", "mark"),
             ("path", "deleted", "recovery"), trash_rows, "The trash is empty.",
             behind=(ARCHIVE_DIR, TRASH_DIR, ARCHIVE_INDEX)),
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
    """The id of the pane's holder on the main screen (and of its tab: `widgets/pane_tabs.py`)."""
    return f"pane-{name}"


def tab_title(pane: str) -> str:
    return f"{number(pane)} {BY_ID[pane].title}"


def rows_for(pane: str, snap: Snapshot) -> Sequence[Row]:
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
