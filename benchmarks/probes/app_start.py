"""Probe: process start → the Index rows and the first row's preview on screen, then every row listed.

    python benchmarks/probes/app_start.py ROOT OUT [--audit]

Opens the app on ROOT as `pmem-tui --root ROOT` does (`PmemApp`, no Epics pane) in the terminal it is given;
`--audit` also counts the memory files opened before the first usable frame. Writes JSON into OUT (see
`_start.py`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from _start import count_opened_files, watch_start

root, out = sys.argv[1], sys.argv[2]
if "--audit" in sys.argv[3:]:
    count_opened_files(root)

from _frames import shows  # noqa: E402

from pmem_tui.tui.allocator import keep_mmap_threshold  # noqa: E402
from pmem_tui.tui.app import PmemApp  # noqa: E402

keep_mmap_threshold()  # as `pmem-tui` does before it opens the app
app = PmemApp(Path(root))


def usable() -> bool:
    """The main screen on top, its Index rows listed and the selected row's preview drawn."""
    main = app.main_screen
    if main is None or app.screen is not main:
        return False
    lst = main.view("index").list
    return bool(lst.all_rows) and main.preview.text.count("\n") >= 3 and shows(main.preview, lst.current_row)


watch_start(app, out, usable, full=lambda: app.scans_done > 0)
sys.exit(app.run() or 0)
