"""The Epics pane on a `permanent_memory.md` that is a FIFO: one sentence in the pane, never a worker blocked
in open() (which also kept the app from quitting)."""

from __future__ import annotations

import errno
import io
import os
import shutil
import threading
from pathlib import Path

import pytest
from epics_helpers import PROJECT_LABEL, WITHIN, epics_app, show_epics, v1, write_project
from tui_helpers import RecordingApp, make_demo, settle, until

from pmem_tui.tui.widgets.epics import EpicsPane


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


async def test_the_pane_keeps_following_its_file_through_a_load_error(tmp_path: Path) -> None:
    """Found in trial: once the file could not be read (here a FIFO in its place), the pane's watcher
    stopped for good, as if `.claude/memory/` were gone: the file written back, and later appends, never
    showed until ctrl+r."""
    project = write_project(tmp_path, WITHIN)
    path = project / ".claude" / "memory" / "permanent_memory.md"
    app = RecordingApp(make_demo(tmp_path), extra_panes=[EpicsPane(project, label=PROJECT_LABEL)], watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        view = await show_epics(pilot)
        assert await until(pilot, lambda: len(view.rows) == 4 and view.watcher.running)
        path.unlink()
        os.mkfifo(path)  # real events, through the real observer
        assert await until(pilot, lambda: view.error is not None)
        await settle(pilot)
        assert "named pipe (FIFO)" in view.plain_summary()
        assert view.watcher.running and view.watching in view.plain_summary()  # "● live": still followed
        path.unlink()
        path.write_text(WITHIN, encoding="utf-8")
        assert await until(pilot, lambda: view.error is None and len(view.rows) == 4)
        with path.open("a", encoding="utf-8") as file:
            file.write(v1("NEW-5", "appended", "An epic appended later."))
        assert await until(pilot, lambda: len(view.rows) == 5)
        assert "FIFO" not in view.plain_summary()
        # The folder itself gone: then (only then) the watcher stops, and the pane says ctrl+r reloads.
        shutil.rmtree(path.parent)
        assert await until(pilot, lambda: view.result is not None and not view.rows)
        await settle(pilot)
        assert not view.watcher.running and "ctrl+r reloads" in view.plain_summary()


def test_a_file_over_the_read_cap_is_said_unread_not_walked_down_the_ladder(tmp_path: Path) -> None:
    """Found in trial: a 51 MB permanent_memory.md (never read) showed "the file is 3,350,001 tokens, over
    8,000, and even epic IDs only are over the 120-token target" above rungs 1-3 marked "not needed", none
    of which was tried; the one true sentence (its size, over the 512 KiB read) was cut off at 100 columns."""
    from rich.console import Console

    from pmem_tui.core.loader import READ_CAP, load_permanent_memory
    from pmem_tui.tui.widgets.epics_render import summary_renderable

    project = write_project(tmp_path, v1("FEAT-A", "pagination", "one line") + "x" * (READ_CAP + 1))
    console = Console(width=60, record=True, file=io.StringIO())
    console.print(summary_renderable(load_permanent_memory(project), PROJECT_LABEL, None, "● live"))
    text = " ".join(console.export_text().split())
    assert "over the 512 KiB the loader reads: skipped unread" in text, text
    assert "epic IDs only" not in text and "not needed" not in text, text
