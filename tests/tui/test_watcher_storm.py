"""Watcher storm (issue 6): 10,000 file events in a few seconds while the app runs with its real observer.

Once the app has settled after the storm (the observer has delivered the storm's last event, nothing is
pending and no scan is in flight) the view equals the disk (every pane's rows equal a fresh scan's), and no
widget was touched from another thread than the app's during the storm. Nothing here is bounded by wall
clock except generous hang guards: a slow machine takes longer, it does not fail (issue 12).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from tui_helpers import RecordingApp, settle, until

from pmem_tui.core import tree
from pmem_tui.tui.panes import ROW_PANES as PANES
from pmem_tui.tui.panes import rows_for
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.memory_list import MemoryList
from pmem_tui.tui.widgets.preview import PreviewView

EVENTS = 10_000
POOL = 40  # storm file names cycled through
# The storm's last write: a hidden file (the app ignores it), so that its event, delivered after every earlier
# one, says the observer has reported the whole storm.
DONE_MARKER = ".storm-done"
HANG_GUARD_S = 120.0  # only a guard against a hang: the test waits on events, not on time


def _storm(root: Path, counted: Callable[[], int], stop: threading.Event) -> int:
    """Create, rewrite, rename and delete files until the observer has reported EVENTS events."""
    storm = root / "notes" / "storm"
    storm.mkdir(parents=True, exist_ok=True)
    existing = sorted(p for p in (root / "projects").rglob("*.md"))
    index = root / "_index.md"
    ops = 0
    k = 0
    while counted() < EVENTS and not stop.is_set() and ops < 40 * EVENTS:
        n = k % POOL
        a, b = storm / f"a{n}.md", storm / f"b{n}.md"
        (a if not b.exists() else b).write_text(f"# Storm {k}\n\nline {k}\n", encoding="utf-8")
        if a.exists() and k % 3 == 0:
            os.replace(a, b)  # a rename, as an editor's save
        elif b.exists() and k % 5 == 0:
            b.unlink()
        target = existing[k % len(existing)]
        with target.open("a", encoding="utf-8") as fh:  # an agent appending to a known file
            fh.write(f"- storm note {k}\n")
        if k % 50 == 0:  # an atomic rewrite of _index.md (one summary changed)
            text = index.read_text(encoding="utf-8")
            tmp = root / f"._index.md.storm-{k}.tmp"
            tmp.write_text(text.replace(" — ", f" — storm {k}: ", 1), encoding="utf-8")
            os.replace(tmp, index)
        ops += 4
        k += 1
        if k % 200 == 0:
            time.sleep(0.02)  # spread the storm over a few seconds, as busy agents would
    return ops


def _settled(app: RecordingApp) -> bool:
    """Nothing seen and not yet shown: no path waiting in the watcher or the app, no debounce timer, the
    newest scan shown."""
    watcher = app.watcher
    with watcher._lock:
        waiting = bool(watcher._pending) or watcher._overflow
    return (
        not waiting
        and app._pending == set()
        and app._debounce is None
        and app._generation == app._shown_generation
        and not any(w.group == "scan" and not w.is_finished for w in app.workers)
    )


def _view_equals_disk(app: RecordingApp, root: Path) -> bool:
    main = app.main_screen
    if main is None:
        return False
    snap = tree.scan(root, deep=False)
    return all(list(main.view(name).list.all_rows) == rows_for(name, snap) for name in PANES)


async def test_watcher_storm_view_equals_disk_once_settled(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = RecordingApp(demo_root, watch=True)
    app_thread = threading.get_ident()
    off_thread: list[str] = []

    def guard(cls: type[Any], name: str) -> None:
        original = getattr(cls, name)

        def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != app_thread:
                off_thread.append(f"{cls.__name__}.{name} from {threading.current_thread().name}")
            return original(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, wrapped)

    for cls, name in [
        (Widget, "refresh"),
        (MemoryList, "set_rows"),
        (MemoryList, "apply_rows"),
        (MemoryList, "update_row"),
        (PreviewView, "show_row"),
        (MainScreen, "update_snapshot"),
        (MainScreen, "update_index_rows"),
        (MainScreen, "refresh_header"),
    ]:
        guard(cls, name)

    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert await until(pilot, lambda: app.watcher.mode == "live")
        handler = app.watcher.handler
        events = [0]
        observer_threads: set[int] = set()
        dispatch = handler.on_any_event

        marker_seen = threading.Event()

        def counting(event: Any) -> None:
            events[0] += 1
            observer_threads.add(threading.get_ident())
            if os.path.basename(os.fsdecode(event.src_path)) == DONE_MARKER:
                marker_seen.set()
            dispatch(event)

        handler.on_any_event = counting  # type: ignore[method-assign]
        stop = threading.Event()
        result: list[int] = []
        writer = threading.Thread(target=lambda: result.append(_storm(demo_root, lambda: events[0], stop)))
        started = time.monotonic()
        writer.start()
        try:
            while writer.is_alive():
                assert time.monotonic() - started < HANG_GUARD_S, "the storm did not end"
                await pilot.pause(0.05)  # the app keeps running (and drawing) during the storm
        finally:
            stop.set()
            writer.join()
        ended = time.monotonic()
        storm_seconds = ended - started
        (demo_root / DONE_MARKER).write_text("done\n", encoding="utf-8")

        # Wait for events, not for time: the marker's event (the observer has delivered the whole storm), then
        # the app settling. Only then is the view compared with the disk, once: it must be equal.
        assert await until(pilot, marker_seen.is_set, timeout=HANG_GUARD_S), "the observer went quiet"
        assert await until(pilot, lambda: _settled(app), timeout=HANG_GUARD_S), "the app never settled"
        lag = time.monotonic() - ended
        assert _view_equals_disk(app, demo_root), f"settled after {lag:.2f} s; the view differs from the disk"

        print(f"storm: {events[0]} events, {result} ops, {storm_seconds:.2f} s, settled after {lag:.3f} s")
        assert events[0] >= EVENTS, f"only {events[0]} events in {storm_seconds:.1f} s"
        assert observer_threads and app_thread not in observer_threads  # the events came from the observer
        assert not off_thread, f"widgets touched off the app's thread: {sorted(set(off_thread))[:5]}"
        assert app.watcher.running
        assert not app.errors()
