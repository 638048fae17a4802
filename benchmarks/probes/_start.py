"""The start-up probes' shared part: note the first usable frame, let the app settle, report and exit.

Run in a pseudo-terminal by `measures.measure_startup` (the real Linux driver). The parent notes the clock
just before the spawn; this notes the monotonic clock of the first frame written that `usable` accepts (and of
the first frame after the full scan's rows, for the app), then waits for the workers, and writes the peak
RSS, the widgets in the DOM and the memory files opened before that frame.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from _frames import on_frame, peak_kb, write_result
from textual.app import App
from textual.worker import WorkerState

OPENED: list[str] = []
STATE: dict[str, float | None] = {"ready": None, "full": None}


def count_opened_files(root: str) -> None:
    """Count the memory files (`projects/`, `notes/`) opened before the first usable frame (audit hook)."""
    prefix = root.rstrip(os.sep) + os.sep

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and STATE["ready"] is None and args and not isinstance(args[0], int):
            try:
                path = os.fsdecode(os.fspath(args[0]))
            except TypeError:
                return
            rel = path[len(prefix) :] if path.startswith(prefix) else ""
            if rel.endswith(".md") and rel.startswith(("projects" + os.sep, "notes" + os.sep)):
                OPENED.append(rel)

    sys.addaudithook(audit)


def watch_start(
    app: App[Any], out: str, usable: Callable[[], bool], full: Callable[[], bool] = lambda: True
) -> None:
    """Report on `app` once a frame shows `usable()` (and, later, once one shows `full()`)."""

    def frame() -> None:
        if STATE["ready"] is not None and STATE["full"] is None and full():
            STATE["full"] = time.monotonic()
        if STATE["ready"] is None and usable():
            STATE["ready"] = time.monotonic()
            if full():
                STATE["full"] = STATE["ready"]
            app.run_worker(_finish(app, out), name="bench-finish")

    on_frame(app, frame)


async def _finish(app: App[Any], out: str) -> None:
    for _ in range(6000):  # the full scan starts after the first usable frame
        if STATE["full"] is not None:
            break
        await asyncio.sleep(0.01)
    for _ in range(1000):
        busy = [
            w
            for w in app.workers
            if w.name != "bench-finish" and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        if not busy:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.25)
    write_result(
        {
            "ready": STATE["ready"],
            "full": STATE["full"],
            "maxrss_kb": peak_kb(),
            "widgets": sum(1 for _ in app.screen.walk_children(with_self=True)),
            "opened": len(set(OPENED)),
            "opened_sample": sorted(set(OPENED))[:5],
            "watcher": getattr(getattr(app, "watcher", None), "mode", None),
        },
        out,
    )
    app.exit()
