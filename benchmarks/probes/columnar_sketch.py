"""Probe (a sketch for the RSS and every-row targets, not product code): what a columnar scan would hold.

    python benchmarks/probes/columnar_sketch.py ROOT

In one process with the app's imports, it measures the resident memory (VmRSS) and the time of two ways to
hold what the Index pane's rows need, one after the other in fresh child processes:

- `objects`: today's `settled.scan` (an `IndexEntry` per line, an `ActiveFile` per file) and the rows;
- `columns`: `_index.md` kept as its bytes with the fast line pattern's spans (route, title, summary) in an
  `array('i')`, and the active files as one list of paths with their sizes and times in `array('q')`s; no
  row objects (a row would be made when drawn).

Prints one JSON line per way: {"way", "entries", "files", "seconds", "rss_mb", "hwm_mb"}.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from array import array
from pathlib import Path


def _rss() -> tuple[float, float]:
    values = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return values["VmRSS"], values["VmHWM"]


def _objects(root: Path) -> tuple[object, int, int]:
    from pmem_tui.core import settled
    from pmem_tui.tui.panes import ROW_PANES, rows_for

    snap = settled.scan(root, deep=False)[0]
    rows = {name: rows_for(name, snap) for name in ROW_PANES}
    return (snap, rows), len(snap.index_entries), len(snap.active)


def _columns(root: Path) -> tuple[object, int, int]:
    from pmem_tui.core import index

    data = (root / "_index.md").read_bytes()
    fast = index._FAST_ENTRY.fullmatch
    spans = array("i")
    pos = 0
    for raw in data.split(b"\n"):
        m = fast(raw.decode("utf-8"))  # the pattern is for text: spans in characters of the line
        if m is not None:
            spans.append(pos)
            for group in ("dest", "title", "summary"):
                spans.extend(m.span(group))
        pos += len(raw) + 1
    paths: list[str] = []
    sizes, mtimes = array("q"), array("q")
    for top in ("projects", "notes"):
        for folder, _dirs, names in os.walk(root / top):
            rel = os.path.relpath(folder, root)
            for name in names:
                st = os.lstat(os.path.join(folder, name))
                paths.append(f"{rel}/{name}")
                sizes.append(st.st_size)
                mtimes.append(st.st_mtime_ns)
    return (data, spans, paths, sizes, mtimes), len(spans) // 7, len(paths)


def child(way: str, root: Path) -> None:
    import pmem_tui.tui.app  # noqa: F401  # the app's imports, as in the app

    gc.disable()  # as the app's scan
    start = time.perf_counter()
    _held, entries, files = (_objects if way == "objects" else _columns)(root)
    seconds = time.perf_counter() - start
    rss, hwm = _rss()  # while `_held` keeps what was built alive
    print(
        json.dumps(
            {
                "way": way,
                "entries": entries,
                "files": files,
                "seconds": round(seconds, 3),
                "rss_mb": round(rss, 1),
                "hwm_mb": round(hwm, 1),
            }
        )
    )


if __name__ == "__main__":
    if len(sys.argv) == 3:
        child(sys.argv[2], Path(sys.argv[1]))
    else:
        for way in ("objects", "columns"):
            subprocess.run([sys.executable, __file__, sys.argv[1], way], check=True)
