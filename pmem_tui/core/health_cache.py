"""The health check's cache, in the root's cache folder (`meta_cache`), never in the root.

Two files, each replaced atomically through `meta_cache` (which also says when an entry is trusted):

* ``health-v1.bin``: one JSON header line, then the MinHash signatures as raw little-endian uint32 rows. The
  header (`health.features.FeatureCache`, written by `health.codec`) holds, per active file, the key it was
  computed for (path, size, mtime_ns) and its features, the parsed index for the `_index.md` it was read
  from, and every candidate pair already compared, with its similarity.
* ``health-v1-report.json``: the last report and the key of everything it depends on (`health.check`'s
  `StoredReport`). A warm run whose key matches reads nothing else.

A file modified less than `RACY_NS` before the cache was written is never trusted from it (its mtime may not
change on a second write within the file system's timestamp granularity), so it is read again. A cache that
cannot be read, parsed or written is ignored: the check then works as if it were cold. Nothing here is
fsync'd: losing the cache costs one cold run, never a wrong answer, because every entry is checked against
the file's current size and mtime_ns before use.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from pmem_tui.core.meta_cache import RACY_NS, read, safe_dir, write_atomic

__all__ = ["FEATURES_FILE", "RACY_NS", "REPORT_FILE", "read_features", "read_report", "write"]

FEATURES_FILE = "health-v1.bin"  # both in the root's cache folder
REPORT_FILE = "health-v1-report.json"


def read_report(root: Path) -> bytes | None:
    return read(root, REPORT_FILE)


def read_features(root: Path, num_bins: int) -> tuple[bytes, npt.NDArray[np.uint32]] | None:
    """The features file's header line (the health codec reads it) and its signature rows."""
    data = read(root, FEATURES_FILE)
    if data is None:
        return None
    head, sep, body = data.partition(b"\n")
    if not sep or len(body) % (num_bins * 4):
        return None
    return head, np.frombuffer(body, dtype="<u4").astype(np.uint32).reshape(-1, num_bins)


def write(root: Path, features: bytes, signatures: npt.NDArray[np.uint32], report: bytes) -> bool:
    """Write both cache files; False (and nothing half-written) when the cache folder is not usable."""
    folder = safe_dir(root, create=True)
    if folder is None:
        return False
    try:
        body = np.ascontiguousarray(signatures, dtype="<u4").tobytes()
        write_atomic(folder, FEATURES_FILE, features + b"\n" + body)
        write_atomic(folder, REPORT_FILE, report)
    except (OSError, ValueError):
        return False
    return True
