"""The app's process gives freed big buffers back to the system (glibc's `malloc`).

Why: glibc serves a block over its mmap threshold (128 KiB at start) with its own mapping, unmapped when
freed. But each such block freed raises the threshold to its size (up to 32 MiB), and the trim threshold
to twice that: later blocks of that size then come from the heap, and when freed they stay there. The app
reads `_index.md` whole, every file's head and the archive's records, in worker threads, so a long-lived
process kept megabytes of freed buffers: peak RSS at 10^5 files 97 -> 90.6 MB, at 10^4 56.9 -> 54.4 MB
with the threshold fixed (BENCHMARKS.md, measure 7; benchmarks/notes/speed.md). Setting the threshold
turns that raising off. The CLI's short commands do not need it.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
THRESHOLD = 128 * 1024  # glibc's own starting value, kept


def keep_mmap_threshold() -> bool:
    """Keep glibc's mmap threshold where it starts (True: glibc's `mallopt` took it; False: nothing changed:
    not Linux, no `mallopt` that takes it, or the person set the threshold themselves)."""
    if not sys.platform.startswith("linux") or _set_by_person():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD))  # musl's `mallopt` does nothing and says 0


def _set_by_person() -> bool:
    """The threshold set in the environment (glibc's own variables): theirs to keep."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return "MALLOC_MMAP_THRESHOLD_" in os.environ or "glibc.malloc.mmap_threshold" in tunables
