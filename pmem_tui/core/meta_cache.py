"""Caches in the root's hidden metadata folder (`.pmem/cache/`), never among memory files.

Shared by the health check's cache (`health_cache`) and the deep scan's cache (`scan_cache`). Every cache file
is replaced atomically (a temporary file in the same folder, then `os.replace`); the folder and the files are
never reached through a symlink. A cache that cannot be read, parsed or written is ignored: the caller then
works as if it were cold. Nothing here is fsync'd: losing a cache costs one cold run, never a wrong answer,
because every entry is checked against its file's current size and mtime_ns before use.

A file modified less than `RACY_NS` before its cache was written is never trusted from it (its mtime may not
change on a second write within the file system's timestamp granularity), so it is read again.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from pmem_tui.core import safeio
from pmem_tui.core.model import META_DIR

__all__ = ["CACHE_DIR", "RACY_NS", "is_racy", "read", "safe_dir", "write_atomic"]

CACHE_DIR = f"{META_DIR}/cache"
RACY_NS = 2_000_000_000


def is_racy(mtime_ns: int, written_ns: int) -> bool:
    """Whether a file with this mtime may have changed unseen since a cache written at `written_ns`."""
    return mtime_ns >= written_ns - RACY_NS


def safe_dir(root: Path, create: bool) -> Path | None:
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


def read(root: Path, rel: str) -> bytes | None:
    """The bytes of the cache file `rel` (a path below the root), or None if it cannot be read safely."""
    if safe_dir(root, create=False) is None:
        return None
    try:
        return safeio.read_under(root, rel, safeio.CACHE_CAP)  # no link, FIFO or device; bounded
    except OSError:
        return None


def write_atomic(folder: Path, name: str, data: bytes) -> None:
    """Replace `folder/name` with `data` atomically; raises OSError (leaving no temporary file) on failure."""
    tmp = folder / f".{name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
