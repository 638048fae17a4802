"""A memory root's caches, in its folder of the user's cache folder (`cache_home`), never under the root.

Shared by the health check's cache (`health_cache`), the deep scan's cache (`scan_cache`) and `status_cache`.
Every cache file is replaced atomically (a temporary file in the same folder, then `os.replace`); the root's
cache folder and its files are never reached through a symlink. A cache that cannot be read, parsed or
written is ignored: the caller then works as if it were cold. Nothing here is fsync'd: losing a cache costs
one cold run, never a wrong answer, because every entry is checked against its file's current size and
mtime_ns before use.

A file modified less than `RACY_NS` before its cache was written is never trusted from it (its mtime may not
change on a second write within the file system's timestamp granularity), so it is read again.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from pmem_tui.core import cache_home, safeio

__all__ = ["RACY_NS", "is_racy", "read", "safe_dir", "write_atomic"]

RACY_NS = 2_000_000_000


def is_racy(mtime_ns: int, written_ns: int) -> bool:
    """Whether a file with this mtime may have changed unseen since a cache written at `written_ns`."""
    return mtime_ns >= written_ns - RACY_NS


def safe_dir(root: Path, create: bool) -> Path | None:
    """The root's cache folder if it is (or can be made) a real folder, never a symlink; None if not."""
    folder = cache_home.folder_for(root)
    if folder is None:
        return None
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.makedirs(os.path.dirname(folder), mode=0o700, exist_ok=True)
            os.mkdir(folder, mode=0o700)
        except FileExistsError:
            return safe_dir(root, create=False)  # another process made it first: check what it made
        except OSError:
            return None
        return Path(folder)
    except OSError:
        return None
    return Path(folder) if stat.S_ISDIR(st.st_mode) else None


def read(root: Path, name: str) -> bytes | None:
    """The bytes of the root's cache file `name`, or None if it cannot be read safely."""
    folder = safe_dir(root, create=False)
    if folder is None:
        return None
    try:
        return safeio.read_path(folder / name, safeio.CACHE_CAP)  # no link, FIFO or device; bounded
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
