"""Floor probe: process start → the first frame of an empty Textual app (one `Static`).

    python benchmarks/probes/floor_empty_app.py OUT

The same measurement as `app_start.py` (see `_start.py`), on the smallest Textual app.
"""

from __future__ import annotations

import sys

from _start import watch_start
from textual.app import App, ComposeResult
from textual.widgets import Static


class Empty(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("pmem-tui benchmark floor: an empty Textual app")


app = Empty()
watch_start(app, sys.argv[1], usable=lambda: True)
app.run()
