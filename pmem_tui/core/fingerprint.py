"""Fingerprints (size, mtime_ns, sha256) of what a plan read, re-checked before it is applied."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from pmem_tui.core.model import Fingerprint


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_with_fingerprint(path: Path) -> tuple[bytes, Fingerprint]:
    """Read a regular file (never through a symlink) and fingerprint exactly the bytes read."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(f"{path} is not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data, Fingerprint(size=len(data), mtime_ns=st.st_mtime_ns, sha256=sha256_bytes(data))


def fingerprint(path: Path) -> Fingerprint | None:
    """The file's fingerprint, or None when nothing is there. A symlink or folder gets a marker print."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        kind = "symlink" if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode) else "other"
        # A folder changes mtime whenever its entries do; its kind is what a plan relies on.
        return Fingerprint(size=-1, mtime_ns=0 if kind == "dir" else st.st_mtime_ns, sha256=kind)
    return read_with_fingerprint(path)[1]
