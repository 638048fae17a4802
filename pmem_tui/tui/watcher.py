"""Watch the memory root with watchdog and tell the app, through one coalescing message, to look again.

The observer thread never touches a widget: the handler adds the changed paths to a locked set and
calls `notify` (which posts `FilesChanged`, a message that replaces any pending copy of itself). The
app drains the set when the message arrives and rescans (debounced there, with a maximum wait).
The watcher is a hint: a lost or doubled event only delays the view, the scan is the truth.

`.pmem/` is not memory: its traffic never rescans. One part of it is watched all the same, the history store's
making and its refs (`history_touched`): a `pmem-tui snapshot` run elsewhere starts or moves the history
without changing a memory file, and the Changes pane reads again (only it: found in trial, it kept saying
"No history yet" until the next file change was recorded).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirAttribEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from pmem_tui.core.history.names import HISTORY_DIR

# Reads (opened, closed without writing) are not changes: the app's own scans and previews would
# otherwise wake it up again and again. Moves matter: editors save with a temp file and a rename. So do
# a mode's changes (found in trial: `chmod 000` on a folder left its files listed until another write).
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    FileAttribEvent,
    DirAttribEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
]
IGNORED_TYPES = frozenset({"opened", "closed_no_write"})
# Beyond this many pending paths, stop collecting them: "everything may have changed".
MAX_PENDING_PATHS = 2000
POLL_INTERVAL_S = 1.0


_META = HISTORY_DIR.split("/")[0]  # `.pmem`: made with the store when it is the first thing in it
_HISTORY_MARKS = (f"{HISTORY_DIR}/refs/", f"{HISTORY_DIR}/packed-refs")  # where a record or review shows


def _under_root(root: str, raw: str | bytes) -> str | None:
    """The POSIX path of `raw` relative to the root; None when outside it."""
    path = os.fsdecode(raw)
    if not path:
        return None
    if path == root:
        return ""
    if not path.startswith(root + os.sep):
        return None
    return path[len(root) + 1 :].replace(os.sep, "/")


def _relative(root: str, raw: str | bytes) -> str | None:
    """The POSIX path of `raw` relative to the root; None when outside it or hidden (e.g. `.pmem/`)."""
    rel = _under_root(root, raw)
    if rel is None or any(part.startswith(".") for part in rel.split("/")):
        return None
    return rel


def history_touched(rel: str | None) -> bool:
    """Whether the path `rel` (under the root) is the history store made, or one of its refs written."""
    return rel is not None and (rel in (_META, HISTORY_DIR) or rel.startswith(_HISTORY_MARKS))


class ChangeHandler(FileSystemEventHandler):
    """Turns watchdog events into relative paths. Safe to call `dispatch` directly (tests do)."""

    def __init__(
        self, root: Path, sink: Callable[[set[str]], None], history: Callable[[], None] = lambda: None
    ) -> None:
        super().__init__()
        self._root = os.path.abspath(root)
        self._sink = sink
        self._history = history  # the history store made or one of its refs written (`history_touched`)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_TYPES:
            return
        paths: set[str] = set()
        history = False
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            rel = _relative(self._root, raw)
            if rel is not None:
                paths.add(rel)
            elif history_touched(_under_root(self._root, raw)):
                history = True
        if paths:
            self._sink(paths)
        if history:
            self._history()


class MemoryWatcher:
    """Owns the observer. `mode` is "live", "polling" (the native observer could not start) or "off"."""

    def __init__(self, root: Path, notify: Callable[[], None]) -> None:
        self.root = root
        self._notify = notify
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._overflow = False
        self._history = False  # the history store was made or a ref written since the last `take_history`
        self._observer: Any = None
        self.mode = "off"
        self.error: str | None = None
        self.handler = ChangeHandler(root, self._collect, self._history_touched)

    def _collect(self, paths: set[str]) -> None:
        with self._lock:
            if self._overflow or len(self._pending) + len(paths) > MAX_PENDING_PATHS:
                self._overflow = True
                self._pending.clear()
            else:
                self._pending |= paths
        self._notify()

    def _history_touched(self) -> None:
        with self._lock:
            self._history = True
        self._notify()

    def take_history(self) -> bool:
        """Whether the history store was made or one of its refs written since the last call."""
        with self._lock:
            touched, self._history = self._history, False
            return touched

    def drain(self) -> frozenset[str] | None:
        """The paths seen since the last drain; None when too many to list (rescan everything)."""
        with self._lock:
            if self._overflow:
                self._overflow = False
                self._pending.clear()
                return None
            paths = frozenset(self._pending)
            self._pending.clear()
            return paths

    @property
    def running(self) -> bool:
        return self._observer is not None

    def start(self) -> str:
        """Start watching; falls back to polling when the native observer cannot start (watch limits)."""
        if self._observer is not None:
            return self.mode
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserverVFS

        # Never through a link: inotify does not descend into one (follow_symlink=False), and the polling
        # fallback lists with lstat (its default, os.stat, would walk into a linked folder).
        attempts: list[tuple[str, Callable[[], Any]]] = [
            ("live", Observer),
            ("polling", lambda: PollingObserverVFS(os.lstat, os.scandir, polling_interval=POLL_INTERVAL_S)),
        ]
        for mode, factory in attempts:
            observer = factory()
            try:
                observer.schedule(
                    self.handler,
                    str(self.root),
                    recursive=True,
                    event_filter=WATCHED_EVENTS,
                    follow_symlink=False,
                )
                observer.daemon = True
                observer.start()
            except (OSError, RuntimeError) as err:
                self.error = str(err) or type(err).__name__
                _stop_quietly(observer)
                continue
            self._observer = observer
            self.mode = mode
            return mode
        self.mode = "off"
        return self.mode

    def stop(self) -> None:
        observer, self._observer = self._observer, None
        if observer is not None:
            _stop_quietly(observer)
        self.mode = "off"


def _stop_quietly(observer: Any) -> None:
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(timeout=2)
    except (OSError, RuntimeError):
        pass
