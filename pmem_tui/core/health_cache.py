"""The health check's cache: two files in the root's cache folder, stored through the cache layer (`cache`).

* ``health-v2.bin``: one JSON header line, then the MinHash signatures as raw little-endian uint32 rows. The
  header holds, per active file, the key it was computed for and its features (word digest, counts, stated
  date, status, checklist, summary state, proposed index line), the parsed index for the `_index.md` it was
  read from, and every candidate pair already compared, with its similarity.
* ``health-v2-report.bin``: the last report (JSON) and the key of everything it depends on. A warm run
  whose key matches reads nothing else.

What an entry holds, and which key it is checked against, is the health engine's; where it is stored, how
(safe, framed, checksummed, replaced atomically) and the racy window (`is_racy`) are the cache layer's
(`cache`). A cache that cannot be read, parsed or written is ignored: the check then works as if it were cold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pmem_tui.core import cache
from pmem_tui.core.cache import RACY_NS, is_racy  # what health checks each entry with

__all__ = ["FEATURES_FILE", "RACY_NS", "REPORT_FILE", "is_racy", "read_features", "read_report", "write"]

FEATURES_FILE = "health-v2.bin"  # both in the root's cache folder
REPORT_FILE = "health-v2-report.bin"


def read_report(root: Path) -> dict[str, Any] | None:
    data = cache.read(root, REPORT_FILE)
    if data is None:
        return None
    try:
        loaded = json.loads(data)
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def read_features(root: Path, num_bins: int) -> tuple[dict[str, Any], npt.NDArray[np.uint32]] | None:
    data = cache.read(root, FEATURES_FILE)
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
    """Write both cache files; False when either could not be written (each is replaced whole or not)."""
    try:
        head = json.dumps(features, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
        body = np.ascontiguousarray(signatures, dtype="<u4").tobytes()
        rep = json.dumps(report, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    except ValueError:
        return False
    return cache.write(root, FEATURES_FILE, head + b"\n" + body) and cache.write(root, REPORT_FILE, rep)
