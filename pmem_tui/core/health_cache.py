"""The health check's cache: two files in the root's cache folder, stored through the cache layer (`cache`).

* ``health-v3.bin``: one header line, then the MinHash signatures as raw little-endian uint32 rows. The
  header (`health.features.FeatureCache`, written by `health.codec`) holds, per active file, the key it was
  computed for and its features, the parsed index for the `_index.md` it was read from, and every candidate
  pair already compared, with its similarity.
* ``health-v3-report.bin``: the last report and the key of everything it depends on (`health.check`'s
  `StoredReport`). A warm run whose key matches reads nothing else.

What an entry holds, and which key it is checked against, is the health engine's (`health.codec`); where it
is stored, how (safe, framed, checksummed, replaced atomically) and the racy window (`is_racy`) are the cache
layer's (`cache`). A cache that cannot be read, parsed or written is ignored: the check then works as if it
were cold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pmem_tui.core import cache

if TYPE_CHECKING:  # numpy loads with the features file, which a warm run never reads
    from pathlib import Path

    import numpy as np
    import numpy.typing as npt

__all__ = ["FEATURES_FILE", "REPORT_FILE", "read_features", "read_report", "write"]

FEATURES_FILE = "health-v3.bin"  # both in the root's cache folder
REPORT_FILE = "health-v3-report.bin"


def read_report(root: Path) -> bytes | None:
    return cache.read(root, REPORT_FILE)


def read_features(root: Path, num_bins: int) -> tuple[bytes, npt.NDArray[np.uint32]] | None:
    """The features file's header line (the health codec reads it) and its signature rows."""
    import numpy as np

    data = cache.read(root, FEATURES_FILE)
    if data is None:
        return None
    head, sep, body = data.partition(b"\n")
    if not sep or len(body) % (num_bins * 4):
        return None
    return head, np.frombuffer(body, dtype="<u4").astype(np.uint32).reshape(-1, num_bins)


def write(root: Path, features: bytes, signatures: npt.NDArray[np.uint32], report: bytes) -> bool:
    """Write both cache files; False when either could not be written (each is replaced whole or not)."""
    import numpy as np

    try:
        body = np.ascontiguousarray(signatures, dtype="<u4").tobytes()
    except ValueError:
        return False
    if not cache.write(root, FEATURES_FILE, features + b"\n" + body):
        return False
    return cache.write(root, REPORT_FILE, report)
