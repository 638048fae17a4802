"""A list's column titles: the names of the columns its list shows at its present width. A column the list
leaves out in a narrow terminal (`MemoryList.dropped_columns`) leaves the titles too, so that each title
stands over its own column (found in trial: the Changes pane at 80 columns titled five columns over three)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from pmem_tui.tui.widgets.memory_list import MemoryList


class ListTitles(Static):
    """The titles over `list_`'s columns; `notice`, when set, is shown in their place."""

    def __init__(self, columns: Sequence[str], list_: MemoryList) -> None:
        self.columns = tuple(columns)
        self.list = list_
        self.notice: Text | None = None
        super().__init__(self._text(), classes="pane-titles")

    def _text(self) -> Text:
        if self.notice is not None:
            return self.notice
        dropped = self.list.dropped_columns() if self.list.is_mounted else frozenset()
        names = [n for i, n in enumerate(self.columns) if i not in dropped]
        return Text("  " + "  ·  ".join(names), no_wrap=True, overflow="ellipsis")

    def sync(self) -> None:
        """Show the titles of the columns the list shows now (after its rows or its width changed)."""
        text = self._text()
        if text.plain != str(self.content):
            self.update(text)

    def on_resize(self) -> None:
        self.call_after_refresh(self.sync)  # the list beside it has its new width once it is laid out
