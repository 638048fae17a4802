"""Fingerprints (size, mtime_ns, sha256) of what a plan read, re-checked before it is applied."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path

from pmem_tui.core import safeio
from pmem_tui.core.model import Fingerprint, FolderPrint


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_with_fingerprint(root: Path, rel: str) -> tuple[bytes, Fingerprint]:
    """Read the regular file `rel` below `root` (through `safeio`: no link at any depth, no FIFO or device,
    at most its cap) and fingerprint exactly the bytes read."""
    data, st = safeio.read_under_stat(root, rel)
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
    # Hashed as it streams, without a cap: a file of any size can still be archived or moved.
    fd, st = safeio.open_path(path, cap=sys.maxsize)
    digest, size = hashlib.sha256(), 0
    with os.fdopen(fd, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return Fingerprint(size=size, mtime_ns=st.st_mtime_ns, sha256=digest.hexdigest())


def folder_print(root: Path, rel: str) -> FolderPrint:
    """What a plan saw of the folder `rel` below `root` (reached without a link; OSError when it cannot be):
    its device, inode and ctime. The same folder, unchanged inside, keeps all three; one removed and made
    again at its path does not (its inode number may be the old one's: the ctime tells them apart)."""
    fd = safeio.open_dir(root, rel)
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return st.st_dev, st.st_ino, st.st_ctime_ns
