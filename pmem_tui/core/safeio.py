"""The one door for reading a file below the memory root (or a project's `.claude/memory/`).

Agents write in the folder too, so any name may turn out to be a link, a FIFO, a device or a huge file.
Every read here: walks the path one component at a time with ``O_NOFOLLOW`` relative to the folder above
(``dir_fd``), so a link at any depth below the root is never followed (the root itself is resolved once,
as the safety contract in `paths.py` does); looks at the name with ``lstat`` before opening it and at the
open file with ``fstat``, so only a regular file is ever read (a FIFO or a device is never opened for
reading, and ``O_NONBLOCK`` keeps even a racing swap from blocking); and reads at most a cap, refusing
more with a sentence that names the limit.

A refusal is an `UnsafeFile`, an `OSError`: readers that already turn an `OSError` into a problem or a
one-sentence refusal keep doing so, and `kind` says which problem kind to report.

The reads and walks over many files, each folder opened once for all its files, are `folder_reads`'s.
"""

from __future__ import annotations

import errno
import os
import stat

# Only for mypy: `status` imports this module on its warm path, where `pathlib` and `typing` cost time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

MIB = 1024 * 1024
# A memory file or either index read whole (scan, health, preview, plans): far above any real memory file
# (a 10^5-line index is 13 MB), low enough that reading one never exhausts memory.
MEMORY_CAP = 64 * MIB
# `save --from`: the content of one memory file, typed or generated.
SOURCE_CAP = 10 * MIB
# A cache in `.pmem/cache/` (the scan's facts at 10^5 files): one over this is ignored, as a damaged one is.
CACHE_CAP = 256 * MIB

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Every open below the root (here and in `folder_reads`): a link never followed, a FIFO never waited on.
FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC
DIR_FLAGS = os.O_RDONLY | _NOFOLLOW | _DIRECTORY | _CLOEXEC


class UnsafeFile(OSError):
    """A file that is not read: a link, not a regular file, or over a cap.

    `kind` is the problem kind to report (``symlink`` or ``unreadable``), `detail` the reason without the
    path (for a problem row), and `strerror` the whole sentence with the path (for a refusal).
    """

    def __init__(self, kind: str, shown: str, detail: str, code: int) -> None:
        super().__init__(code, f"{shown} is {detail}")
        self.kind = kind
        self.detail = detail


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def describe_mode(mode: int) -> str:
    """What a file of this mode is, for a sentence: 'a named pipe (FIFO)', 'a folder'..."""
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def refusal(shown: str, mode: int) -> UnsafeFile:
    if stat.S_ISLNK(mode):
        return UnsafeFile("symlink", shown, "a symbolic link, which pmem-tui never follows", errno.ELOOP)
    if stat.S_ISDIR(mode):
        return UnsafeFile("unreadable", shown, "a folder, not a file", errno.EISDIR)
    detail = f"{describe_mode(mode)}, not a regular file; pmem-tui never reads it"
    return UnsafeFile("unreadable", shown, detail, errno.EINVAL)


def too_large(shown: str, size: int | None, cap: int) -> UnsafeFile:
    has = f"{size / MIB:.1f} MiB, " if size is not None else ""
    limit = f"{cap // MIB} MiB" if cap % MIB == 0 else f"{cap:,} bytes"
    return UnsafeFile(
        "unreadable", shown, f"too large ({has}over the {limit} that pmem-tui reads)", errno.EFBIG
    )


def lstat_at(name: str, dir_fd: int) -> os.stat_result | None:
    """The lstat of `name` in the folder open as `dir_fd`; None when there is none to take."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None


def open_dir(root: Path | str, rel: str) -> int:
    """An fd of the folder `rel` below `root` (``""``: the root), reached without following any link."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _NONBLOCK | _CLOEXEC)  # the root may be a link
    try:
        for depth, part in enumerate(p for p in rel.split("/") if p):
            shown = "/".join(rel.split("/")[: depth + 1])
            st = lstat_at(part, fd)
            if st is not None and not stat.S_ISDIR(st.st_mode):
                raise refusal(shown, st.st_mode)
            try:
                next_fd = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as err:  # it changed after the lstat (a link here gives ENOTDIR or ELOOP)
                now = lstat_at(part, fd) if err.errno in (errno.ENOTDIR, errno.ELOOP) else None
                if now is not None and not stat.S_ISDIR(now.st_mode):
                    raise refusal(shown, now.st_mode) from None
                raise
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def lstat_under(root: Path | str, rel: str) -> os.stat_result:
    """The lstat of `rel` below `root`, its folders reached without following a link."""
    head, _, name = rel.rpartition("/")
    fd = open_dir(root, head)
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    finally:
        os.close(fd)


def what_is_at(root: Path | str, rel: str) -> str | None:
    """None when `rel` below `root` is a regular file reached without a link; else what is there, as a
    refusal says it ("no such file", "a symbolic link, which pmem-tui never follows", "a named pipe
    (FIFO), not a regular file; pmem-tui never reads it"...)."""
    try:
        st = lstat_under(root, rel)
    except UnsafeFile as err:  # a folder on the way is a link ("notes/x is a symbolic link..."), or a file
        return err.strerror if err.kind == "symlink" and err.strerror else NO_SUCH_FILE
    except (FileNotFoundError, NotADirectoryError, ValueError):  # (ValueError: a NUL in the name)
        return NO_SUCH_FILE
    except OSError as err:
        return f"it cannot be checked ({err.strerror})"
    return None if stat.S_ISREG(st.st_mode) else refusal(rel, st.st_mode).detail


NO_SUCH_FILE = "no such file"


def names_in(root: Path | str, rel: str) -> frozenset[str]:
    """The names in the folder `rel` below `root`, reached without a link; OSError when it cannot be."""
    fd = open_dir(root, rel)
    try:
        return frozenset(os.listdir(fd))
    finally:
        os.close(fd)


def list_dir(root: Path | str, rel: str) -> list[tuple[str, os.stat_result]]:
    """Each entry of the folder `rel` below `root` with its lstat, the folder reached without a link."""
    fd = open_dir(root, rel)
    try:
        out = []
        with os.scandir(fd) as it:
            for entry in it:
                try:
                    out.append((entry.name, entry.stat(follow_symlinks=False)))
                except OSError:
                    continue  # gone since the listing
        return out
    finally:
        os.close(fd)


def open_regular(root: Path | str, rel: str) -> tuple[int, os.stat_result]:
    """An fd and its fstat for the regular file `rel` below `root`; UnsafeFile for anything else."""
    head, _, name = rel.rpartition("/")
    parent = open_dir(root, head)
    try:
        return open_regular_at(parent, name, rel)
    finally:
        os.close(parent)


def open_regular_at(parent: int, name: str, shown: str) -> tuple[int, os.stat_result]:
    """`open_regular` for the entry `name` of the folder open as `parent` (a reader of many files in one
    folder opens the folder once)."""
    st = lstat_at(name, parent)
    if st is not None and not stat.S_ISREG(st.st_mode):  # never open a FIFO or a device
        raise refusal(shown, st.st_mode)
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=parent)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EMLINK):  # it became a link after the lstat
            raise refusal(shown, stat.S_IFLNK) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise refusal(shown, st.st_mode)
    return fd, st


def read_fd(fd: int, st: os.stat_result, shown: str, cap: int) -> bytes:
    """At most `cap` bytes of an open regular file; a file that has (or grows to) more is refused."""
    if st.st_size > cap:
        raise too_large(shown, st.st_size, cap)
    first = os.read(fd, min(cap, st.st_size) + 1)  # one call for a file that does not change
    if len(first) == st.st_size:  # one byte more than its size was asked for: this is all of it
        return first
    chunks, total = [first], len(first)
    while total <= cap:
        chunk = os.read(fd, min(cap + 1 - total, 1 << 20))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
    raise too_large(shown, None, cap)


def read_under(root: Path | str, rel: str, cap: int = MEMORY_CAP) -> bytes:
    """The bytes of the regular file `rel` below `root`, reached without a link, at most `cap` of them."""
    return read_under_stat(root, rel, cap)[0]


def read_under_stat(root: Path | str, rel: str, cap: int = MEMORY_CAP) -> tuple[bytes, os.stat_result]:
    fd, st = open_regular(root, rel)
    try:
        return read_fd(fd, st, rel, cap), st
    finally:
        os.close(fd)


def read_head(root: Path | str, rel: str, size: int) -> tuple[bytes, os.stat_result]:
    """The first `size` bytes (or fewer) of the regular file `rel` below `root`, for a capped display."""
    fd, st = open_regular(root, rel)
    try:
        chunks, total = [], 0
        while total < size and (chunk := os.read(fd, size - total)):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_unless_over(root: Path | str, rel: str, cap: int) -> tuple[bytes | None, os.stat_result]:
    """`read_under_stat`, but a file over `cap` bytes is not read and not refused: ``(None, its stat)``."""
    fd, st = open_regular(root, rel)
    try:
        if st.st_size > cap:
            return None, st
        try:
            return read_fd(fd, st, rel, cap), st
        except UnsafeFile:  # it grew past the cap while being read
            return None, os.fstat(fd)
    finally:
        os.close(fd)


def open_path(path: Path | str, cap: int = MEMORY_CAP) -> tuple[int, os.stat_result]:
    """`open_regular` for a path whose folder is the root or already checked (only its last component is
    walked), refusing a file over `cap` bytes before anything is read (for readers that stream)."""
    head, name = os.path.split(os.fspath(path))
    fd, st = open_regular(head or ".", name)
    if st.st_size > cap:
        os.close(fd)
        raise too_large(name, st.st_size, cap)
    return fd, st


def open_file(path: Path | str, cap: int = MEMORY_CAP) -> BinaryIO:
    """`open_path` as a binary file object, for readers that stream."""
    return os.fdopen(open_path(path, cap)[0], "rb")


def read_path(path: Path | str, cap: int = MEMORY_CAP) -> bytes:
    """`read_under` for a path whose folder is the root or already checked: only its last component is
    walked."""
    head, name = os.path.split(os.fspath(path))
    return read_under(head or ".", name, cap)


def entry_kind(root: Path | str, rel: str) -> str:
    """``dir``, ``file``, ``symlink``, ``missing`` or ``other`` for `rel` below `root`, by an lstat of every
    component (a link anywhere on the way makes it ``symlink``: what is behind it is never looked at)."""
    current = os.fspath(root)
    parts = rel.split("/")
    for depth, part in enumerate(parts):
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except (OSError, ValueError):
            return "missing"
        if stat.S_ISLNK(st.st_mode):
            return "symlink"
        if not stat.S_ISDIR(st.st_mode):
            return "file" if stat.S_ISREG(st.st_mode) and depth == len(parts) - 1 else "other"
    return "dir"


def read_source(source: str, cap: int = SOURCE_CAP) -> bytes:
    """The content a person gives to `save --from FILE`: a regular file (a link to one is fine: it is the
    person's own file, outside the memory), never a FIFO or a device, at most `cap` bytes."""
    try:
        st = os.stat(source)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        detail = f"{describe_mode(st.st_mode)}, not a regular file; give a file, or `--from -` for a pipe"
        raise UnsafeFile("unreadable", source, detail, errno.EINVAL)
    fd = os.open(source, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refusal(source, st.st_mode)
        return read_fd(fd, st, source, cap)
    finally:
        os.close(fd)
