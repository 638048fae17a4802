"""The health check's cache, in the root's cache folder (`meta_cache`), never in the root.

Two files, each replaced atomically through `meta_cache` (which also says when an entry is trusted):

* ``health-v1.bin``: one JSON header line, then the MinHash signatures as raw little-endian uint32 rows. The
  header holds, per active file, the key it was computed for (path, size, mtime_ns) and its features (word
  digest, counts, stated date, status, checklist, summary state, proposed index line), the parsed index for
  the `_index.md` it was read from, and every candidate pair already compared, with its similarity.
* ``health-v1-report.json``: the last report and the key of everything it depends on (every listed file's
  path, size and mtime_ns, the day and the options). A warm run whose key matches reads nothing else.

A file modified less than `RACY_NS` before the cache was written is never trusted from it (its mtime may not
change on a second write within the file system's timestamp granularity), so it is read again. A cache that
cannot be read, parsed or written is ignored: the check then works as if it were cold. Nothing here is
fsync'd: losing the cache costs one cold run, never a wrong answer, because every entry is checked against
the file's current size and mtime_ns before use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pmem_tui.core.meta_cache import RACY_NS, read, safe_dir, write_atomic

__all__ = ["FEATURES_FILE", "RACY_NS", "REPORT_FILE", "read_features", "read_report", "write"]

FEATURES_FILE = "health-v1.bin"  # both in the root's cache folder
REPORT_FILE = "health-v1-report.json"


def read_report(root: Path) -> dict[str, Any] | None:
    data = read(root, REPORT_FILE)
    if data is None:
        return None
    try:
        loaded = json.loads(data)
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def read_features(root: Path, num_bins: int) -> tuple[dict[str, Any], npt.NDArray[np.uint32]] | None:
    data = read(root, FEATURES_FILE)
    if data is None:
        return None
    head, sep, body = data.partition(b"\n")
    if not sep:
        return None
    try:
        header = json.loads(head)
        if not isinstance(header, dict):
            return None
        joined = header["files"]["paths"]
        header["files"]["paths"] = joined.split("\0") if joined else []
        rows = len(header["files"]["paths"])
        if len(body) != rows * num_bins * 4:
            return None
        sig = np.frombuffer(body, dtype="<u4").astype(np.uint32).reshape(rows, num_bins)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return header, sig


def write(
    root: Path, features: dict[str, Any], signatures: npt.NDArray[np.uint32], report: dict[str, Any]
) -> bool:
    """Write both cache files; False (and nothing half-written) when the cache folder is not usable."""
    folder = safe_dir(root, create=True)
    if folder is None:
        return False
    try:
        head = json.dumps(features, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
        body = np.ascontiguousarray(signatures, dtype="<u4").tobytes()
        write_atomic(folder, FEATURES_FILE, head + b"\n" + body)
        rep = json.dumps(report, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        write_atomic(folder, REPORT_FILE, rep)
    except (OSError, ValueError):
        return False
    return True
