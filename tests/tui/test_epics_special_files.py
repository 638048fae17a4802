"""The Epics pane on a `permanent_memory.md` that is a FIFO: one sentence in the pane, never a worker blocked
in open() (which also kept the app from quitting)."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest
from epics_helpers import epics_app, show_epics
from tui_helpers import until


def release_readers(fifo: Path, stop: threading.Event) -> None:
    """Open `fifo` for writing whenever someone waits to read it, so a blocking reader fails the test
    instead of hanging it."""
    while not stop.is_set():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as err:
            if err.errno != errno.ENXIO:  # ENXIO: no reader yet
                return
        stop.wait(0.01)


@pytest.mark.rule("PL-10")
async def test_a_fifo_is_said_in_the_pane_without_blocking(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude" / "memory").mkdir(parents=True)
    fifo = project / ".claude" / "memory" / "permanent_memory.md"
    os.mkfifo(fifo)
    stop = threading.Event()
    helper = threading.Thread(target=release_readers, args=(fifo, stop), daemon=True)
    helper.start()
    try:
        app = epics_app(tmp_path, project)
        async with app.run_test(size=(120, 36)) as pilot:
            view = await show_epics(pilot)
            assert await until(pilot, lambda: view.result is not None or view.error is not None)
            assert view.result is None and view.error is not None
            assert "not a regular file" in view.error and "not a regular file" in view.plain_summary()
    finally:
        stop.set()
        helper.join(timeout=10)
