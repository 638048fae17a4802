"""The health check's cache, in the root's hidden metadata folder (`.pmem/cache/`), never among memory files.

Two files, each replaced atomically (a temporary file in the same folder, then `os.replace`):

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

import contextlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pmem_tui.core.model import META_DIR

__all__ = ["CACHE_DIR", "FEATURES_FILE", "RACY_NS", "REPORT_FILE", "read_features", "read_report", "write"]

CACHE_DIR = f"{META_DIR}/cache"
FEATURES_FILE = f"{CACHE_DIR}/health-v1.bin"
REPORT_FILE = f"{CACHE_DIR}/health-v1-report.json"
RACY_NS = 2_000_000_000


def _safe_dir(root: Path, create: bool) -> Path | None:
    """The cache folder if it is (or can be made) a real folder below the root, never through a symlink."""
    path = root
    for part in CACHE_DIR.split("/"):
        path = path / part
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.mkdir(path)
            except OSError:
                return None
            continue
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None
    return path


def _read(root: Path, rel: str) -> bytes | None:
    if _safe_dir(root, create=False) is None:
        return None
    try:
        fd = os.open(root / rel, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 22):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_report(root: Path) -> dict[str, Any] | None:
    data = _read(root, REPORT_FILE)
    if data is None:
        return None
    try:
        loaded = json.loads(data)
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def read_features(root: Path, num_bins: int) -> tuple[dict[str, Any], npt.NDArray[np.uint32]] | None:
    data = _read(root, FEATURES_FILE)
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


def _write_one(folder: Path, name: str, data: bytes) -> None:
    tmp = folder / f".{name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write(
    root: Path, features: dict[str, Any], signatures: npt.NDArray[np.uint32], report: dict[str, Any]
) -> bool:
    """Write both cache files; False (and nothing half-written) when the cache folder is not usable."""
    folder = _safe_dir(root, create=True)
    if folder is None:
        return False
    try:
        head = json.dumps(features, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
        body = np.ascontiguousarray(signatures, dtype="<u4").tobytes()
        _write_one(folder, FEATURES_FILE.rsplit("/", 1)[1], head + b"\n" + body)
        rep = json.dumps(report, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        _write_one(folder, REPORT_FILE.rsplit("/", 1)[1], rep)
    except (OSError, ValueError):
        return False
    return True
