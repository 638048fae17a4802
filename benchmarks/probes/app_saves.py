"""Probe: an external atomic save → its row updated on screen, with the app's real watcher: saves of visible
rows' files, then of their `_index.md` lines; and the rows rebuilt and full rescans per save.

    python benchmarks/probes/app_saves.py ROOT SAMPLES [--size 160x48]

In-process `App.run_test` (headless); from just before the rename to the first frame whose row shows the new
size and mtime (the new summary). Every file it edits is restored. Prints JSON (ms), with the saved files'
paths (the floors save the same files).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _frames import Frames, app_probe_args, atomic_write, settle, wait_ready, write_result

from pmem_tui.tui.allocator import keep_mmap_threshold
from pmem_tui.tui.app import PmemApp

Predicate = Callable[[], bool]
TIMEOUT = 20.0


async def session(
    root: Path, samples: int, size: tuple[int, int], touched: dict[Path, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    keep_mmap_threshold()  # as `pmem-tui` does before it opens the app
    app = PmemApp(root, watch=True, root_label="benchmark")
    frames = Frames(app)

    def remember(path: Path) -> None:
        if path not in touched:
            st = path.stat()
            touched[path] = (path.read_bytes(), st.st_atime_ns, st.st_mtime_ns)

    async with app.run_test(size=size) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot, quiet=0.2)
        main: Any = app.main_screen  # Any: the probe depends on these names only, not on their types
        lst = main.view("index").list
        height = lst.scrollable_content_region.height
        visible = [
            i
            for i in range(1, min(height, len(lst.all_rows)))
            if lst.all_rows[i].kind == "entry"
            and lst.all_rows[i].index_line
            and " — " in lst.all_rows[i].index_line
        ]
        rebuilt: list[int] = []
        rescans: list[int] = []
        passed: list[int] = []
        set_rows = lst.set_rows

        def counting_set_rows(rows: list[Any]) -> None:
            passed.append(len(rows))
            set_rows(rows)

        lst.set_rows = counting_set_rows  # this list's rows rebuilt per save (the target: one row, never all)

        def file_shown(i: int, key: Any, size: int, path: Path) -> Predicate:
            mtime = path.stat().st_mtime_ns  # the saved file's, read after the rename
            return lambda: (r := lst.all_rows[i]).key == key and r.size == size and r.mtime_ns == mtime

        def line_shown(i: int, key: Any, summary: str, _path: Path) -> Predicate:
            return lambda: (r := lst.all_rows[i]).key == key and r.cells[2] == summary

        async def save(path: Path, data: bytes, k: int, shown: Callable[[Path], Predicate]) -> float:
            before_scans = app.scans_done
            passed.clear()
            t0 = atomic_write(path, data, k)
            got, fut = frames.expect({"frame": shown(path)})
            latency = (await frames.collect(got, fut, t0, ["frame"], TIMEOUT))["frame"]
            await settle(app, pilot, quiet=0.3)
            rescans.append(app.scans_done - before_scans)
            rebuilt.append(sum(passed))
            return latency

        file_saves: list[float] = []
        for k in range(samples):
            i = visible[k % len(visible)]
            row = lst.all_rows[i]
            path = root / row.location
            remember(path)
            data = path.read_bytes() + f"\n- edited by the benchmark, save {k}\n".encode()
            file_saves.append(await save(path, data, k, partial(file_shown, i, row.key, len(data))))
        index_saves: list[float] = []
        index_path = root / "_index.md"
        remember(index_path)
        for k in range(samples):
            i = visible[k % len(visible)]
            row = lst.all_rows[i]
            old_line = row.index_line
            summary = f"summary edited by the benchmark ({k})"
            new_line = old_line[: old_line.index(" — ")] + " — " + summary
            text = index_path.read_bytes().decode("utf-8").replace(old_line + "\n", new_line + "\n", 1)
            shown = partial(line_shown, i, row.key, summary)
            index_saves.append(await save(index_path, text.encode("utf-8"), k, shown))
        lst.set_rows = set_rows
        out["save_file"] = file_saves
        out["save_index"] = index_saves
        out["rows_rebuilt"] = rebuilt
        out["rescans"] = rescans
        out["sample_paths"] = [str(root / lst.all_rows[i].location) for i in visible]
    return out


def main() -> None:
    args = app_probe_args()
    touched: dict[Path, Any] = {}
    try:
        result = asyncio.run(session(args.root, args.samples, args.size, touched))
    finally:
        for path, (data, atime, mtime) in touched.items():
            path.write_bytes(data)
            os.utime(path, ns=(atime, mtime))
    write_result(result)


if __name__ == "__main__":
    main()
