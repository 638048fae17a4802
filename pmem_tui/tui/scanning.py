"""The scan worker's work, off the UI thread: a patch of the shown snapshot, else a full scan and its rows."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from pathlib import Path

from pmem_tui.core import settled
from pmem_tui.core.folder_reads import Listing
from pmem_tui.core.history.record import record_if_changed
from pmem_tui.core.model import Snapshot
from pmem_tui.core.report import Baseline
from pmem_tui.tui import patch
from pmem_tui.tui.messages import ScanDone
from pmem_tui.tui.panes import ROW_PANES, rows_for

Base = tuple[Snapshot, Baseline | None, "patch.IndexSignature | None"]  # what the screen shows now

_gc_lock = threading.Lock()
_gc_pauses = 0


@contextlib.contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """No automatic cycle collection while a scan builds its snapshot (nested and concurrent safe)."""
    global _gc_pauses
    with _gc_lock:
        _gc_pauses += 1
        gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if not _gc_pauses:
                # What the scan kept is long-lived and acyclic: move it out of the young generation now, or
                # the first allocations after `enable` would trace all of it (10^6 objects at 100k files:
                # two young collections of 100-150 ms each, on the UI thread, before the first usable frame).
                gc.freeze()
                gc.enable()


def scan(root: Path, generation: int, changed: frozenset[str] | None, base: Base | None) -> ScanDone:
    """A patch of `base` when `changed` lists a few known files or `_index.md` lines, else a full scan."""
    if base is not None and changed is not None:
        found = patch.patch(root, base[0], base[1], base[2], changed)
        if found is not None:
            return ScanDone(
                generation, found.snapshot, found.baseline, changed, found.signature, None, found.rows
            )
    # What changed on disk is recorded first, as `status` and `health` do (a stat pass when nothing did);
    # the scan walks the folders as that pass listed them (with a history store, the tree is listed once).
    listing: Listing = {}
    recorded = record_if_changed(root, listing)
    listed = listing if listing and recorded.problem is None else None
    del listing
    with cycle_collector_paused():  # the scan allocates only acyclic objects, 10^5-10^6 at 100k files
        # The index's signature first: its whole-file read then comes before the snapshot exists.
        unchecked = patch.read_signature(root)
        snap = settled.scan(root, deep=False, listed=listed)[0]  # one state, or the action in progress
        del listed
        signature = patch.checked(unchecked, snap.index_entries, root) if snap.exists else None
        base_line = patch.baseline(snap, signature) if snap.exists else None
        rows = {name: rows_for(name, snap) for name in ROW_PANES}  # built here, off the UI thread
    return ScanDone(generation, snap, base_line, changed, signature, rows, history=recorded)
