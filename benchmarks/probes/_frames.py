"""What the probes share: the per-frame hook, waiting for a frame that shows an effect, and small helpers.

Each probe is a script run as a whole process by `benchmarks/measures.py`; its directory is on `sys.path`, so
probes import this module as `_frames`. Probes reach the product only through its public entry points
(`python -m pmem_tui`, `pmem_tui.tui.app.PmemApp`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.worker import WorkerCancelled, WorkerState

FrameCallback = Callable[[], None]


def on_frame(app: App[Any], callback: FrameCallback) -> None:
    """Call `callback` right after each frame `app` composes for the terminal.

    The one private hook of the benchmark: Textual 8 has no public per-frame event (`call_after_refresh` also
    fires when nothing was drawn, and a little later), and a latency must end at the frame itself. It wraps
    this instance's `App._display`, which every screen update goes through. Headless apps (`run_test`) skip
    encoding the frame for the terminal; the wrapper does that work, as a real driver would."""
    display = app._display

    def wrapped(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is None or app._batch_count:
            return  # nothing written (a batch writes once, at its end)
        if app.is_headless and hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)
        callback()

    app._display = wrapped  # type: ignore[method-assign]


class Frames:
    """Latencies inside an app: an expectation is met by the first frame after which its predicate holds."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.waiters: list[tuple[dict[str, Callable[[], bool]], dict[str, float], asyncio.Future[None]]] = []
        on_frame(app, self._frame)

    def _frame(self) -> None:
        now = time.perf_counter()
        for preds, got, fut in self.waiters:
            for name, pred in preds.items():
                if name not in got and pred():
                    got[name] = now
            if len(got) == len(preds) and not fut.done():
                fut.set_result(None)

    def expect(self, preds: dict[str, Callable[[], bool]]) -> tuple[dict[str, float], asyncio.Future[None]]:
        got: dict[str, float] = {}
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append((preds, got, fut))
        return got, fut

    async def collect(
        self,
        got: dict[str, float],
        fut: asyncio.Future[None],
        start: float,
        names: Sequence[str],
        timeout: float,
    ) -> dict[str, float]:
        """Milliseconds from `start` to each expectation's frame (infinite: never shown within `timeout`)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(fut), timeout)
        self.waiters = [w for w in self.waiters if w[2] is not fut]
        return {name: (got[name] - start) * 1000 if name in got else math.inf for name in names}

    def send_key(self, key: str) -> float:
        """Send `key` through the driver as a terminal would; returns the clock just before."""
        char = key if len(key) == 1 else {"backspace": "\x08", "slash": "/", "escape": "\x1b"}.get(key)
        if key == "/":
            key = "slash"
        event = events.Key(key, char)
        event.set_sender(self.app)
        start = time.perf_counter()
        driver = self.app._driver
        assert driver is not None
        driver.send_message(event)
        return start

    async def press(self, key: str, preds: dict[str, Callable[[], bool]], timeout: float) -> dict[str, float]:
        got, fut = self.expect(preds)
        start = self.send_key(key)
        return await self.collect(got, fut, start, list(preds), timeout)


async def workers_done(app: App[Any]) -> None:
    """Until no worker is pending or running (a worker cancelled by a newer one counts as done)."""
    while busy := [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]:
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete(busy)


async def settle(app: App[Any], pilot: Any, quiet: float = 0.0) -> None:
    """Workers done and messages handled (twice: a worker's result may start another)."""
    for _ in range(2):
        await workers_done(app)
        await pilot.pause()
    if quiet:
        await asyncio.sleep(quiet)
        await workers_done(app)
        await pilot.pause()


async def until(pilot: Any, pred: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if pred():
                return True
        await pilot.pause(0.02)
    return False


def shows(preview: Any, row: Any) -> bool:
    """Does the preview show `row`? (Its path comes first; long paths are wrapped or folded.)"""
    return row is not None and "".join(row.path.split()) in "".join(preview.text[:8000].split())


def atomic_write(path: Path, data: bytes, k: int) -> float:
    """Save as editors and agents do (temp file in the same folder, fsync, rename); returns the clock
    just before the rename."""
    tmp = path.with_name(f".{path.name}.bench-{k}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    start = time.perf_counter()
    os.replace(tmp, path)
    return start


def peak_kb() -> int:
    """This process image's peak RSS (VmHWM; ru_maxrss would include the parent's, kept across exec)."""
    with contextlib.suppress(OSError), open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def size_arg(text: str) -> tuple[int, int]:
    cols, lines = text.split("x")
    return int(cols), int(lines)


def app_probe_args(*, repeat: bool = False) -> argparse.Namespace:
    """The in-app probes' command line: ROOT SAMPLES [--size COLSxLINES] [--repeat-hz N]."""
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("samples", type=int)
    parser.add_argument("--size", type=size_arg, default=(160, 48))
    if repeat:
        parser.add_argument("--repeat-hz", type=int, default=30)
    return parser.parse_args()


def write_result(data: dict[str, Any], out: str | None = None) -> None:
    """The probe's result: JSON into `out` (the measure's temp file), or on stdout."""
    text = json.dumps(data)
    if out:
        Path(out).write_text(text)
    else:
        sys.stdout.write(text + "\n")


async def wait_ready(app: Any, pilot: Any) -> None:
    """Until the app shows its full scan's Index rows and the selected row's preview, with its watcher up."""
    ready = await until(
        pilot,
        lambda: (
            app.scans_done >= 1
            and shows(app.main_screen.preview, app.main_screen.view("index").list.current_row)
        ),
        timeout=300,
    )
    if not ready:
        raise RuntimeError("the app never showed the Index rows and the preview")
    await settle(app, pilot)
    await until(pilot, lambda: app.watcher.running, timeout=60)
