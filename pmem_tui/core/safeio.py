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
"""

from __future__ import annotations

import errno
import os
import stat

# Only for mypy: `status` imports this module on its warm path, where `pathlib` and `typing` cost time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
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
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC
_DIR_FLAGS = os.O_RDONLY | _NOFOLLOW | _DIRECTORY | _CLOEXEC


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


def _lstat_at(name: str, dir_fd: int) -> os.stat_result | None:
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
            st = _lstat_at(part, fd)
            if st is not None and not stat.S_ISDIR(st.st_mode):
                raise refusal(shown, st.st_mode)
            try:
                next_fd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as err:  # it changed after the lstat (a link here gives ENOTDIR or ELOOP)
                now = _lstat_at(part, fd) if err.errno in (errno.ENOTDIR, errno.ELOOP) else None
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


# A folder's entries as (name, st_mode, size, mtime_ns, ctime_ns), by folder path (`stamps_below`'s
# `listing`; `folder_walk.walk_files` walks it instead of listing each folder again). A folder's own entry
# in its parent holds only its mode.
Listing = dict[str, list[tuple[str, int, int, int, int]]]


def stamps_below(
    root: Path | str,
    rel: str,
    *,
    suffix: str = "",
    skip: frozenset[str] = frozenset(),
    listing: Listing | None = None,
) -> list[tuple[str, int, int, int]]:
    """(path, size, mtime_ns, ctime_ns) of every non-hidden regular file below the folder `rel` whose name
    ends with `suffix` (its path: `rel/...`), in no order; `skip`: paths left out (with what is below them).

    The cheap walk for a freshness check over many files (`_entries_below`): each file costs one ``lstat``
    relative to its folder and no object but its stamp. `listing`: also filled with every folder listed in
    full (every non-hidden entry, links and other kinds included; a folder that could not be listed to its
    end is left out; `skip`'s entries too), so that a scan right after need not list the tree again."""
    out: list[tuple[str, int, int, int]] = []
    add = out.append
    isreg = stat.S_ISREG
    for _fd, entry, path in _entries_below(root, rel, skip, listing):
        wanted = path.endswith(suffix)
        if wanted or listing is not None:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            size, mtime_ns, ctime_ns = st.st_size, st.st_mtime_ns, st.st_ctime_ns
            if wanted and isreg(st.st_mode):
                add((path, size, mtime_ns, ctime_ns))
            if listing is not None:
                name = entry.name
                listing[path[: -len(name) - 1]].append((name, st.st_mode, size, mtime_ns, ctime_ns))
    return out


def read_below(
    root: Path | str, rel: str, cap: int = MEMORY_CAP
) -> Iterator[tuple[str, bytes, os.stat_result]]:
    """Each non-hidden regular file below the folder `rel` with its bytes and its fstat, in `stamps_below`'s
    order (a first record of the history reads every file in one walk, with no stat pass before it). The
    listing's entry type tells a regular file (no ``lstat`` before the open: a link, a FIFO or a device is
    never opened), then `read_each_at`'s checks on the open file. One that cannot be read is left out."""
    for fd, entry, path in _entries_below(root, rel, frozenset()):
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        got = _read_at(fd, entry.name, path, cap)
        if got is not None:
            yield path, got[0], got[1]


def _entries_below(
    root: Path | str, rel: str, skip: frozenset[str], listing: Listing | None = None
) -> Iterator[tuple[int, os.DirEntry[str], str]]:
    """(its folder's fd, the entry, its path) of every non-hidden entry below the folder `rel` that is not
    a folder, each folder's entries in one run; `skip`: paths left out (with what is below them). `listing`:
    each folder's list is started there (its subfolders in it), for the caller to add the other entries.

    Each folder is opened once, relative to the one above it, with ``O_NOFOLLOW`` (a link is never entered);
    the fd stays open while its entries are handled. A folder that cannot be listed, or turns into a link
    meanwhile, is left out (nothing: `rel` itself is not a folder)."""
    try:
        top = open_dir(root, rel)
    except OSError:
        return
    stack = [(top, rel + "/")]
    try:
        while stack:
            fd, prefix = stack.pop()
            folder: list[tuple[str, int, int, int, int]] = []
            if listing is not None:
                listing[prefix[:-1]] = folder
            try:
                with os.scandir(fd) as it:
                    for entry in it:
                        name = entry.name
                        if name[0] == ".":
                            continue
                        path = prefix + name
                        if path in skip:
                            continue
                        if entry.is_dir(follow_symlinks=False):  # the entry's type: a link is never one
                            folder.append((name, stat.S_IFDIR, 0, 0, 0))
                            try:
                                stack.append((os.open(name, _DIR_FLAGS, dir_fd=fd), path + "/"))
                            except OSError:  # gone, or it became a link since it was listed
                                continue
                        else:
                            yield fd, entry, path
            except OSError:
                if listing is not None:
                    del listing[prefix[:-1]]  # not listed to its end: a scan lists it again
                continue  # this folder could not be listed (gone, no permission): nothing below it
            finally:
                os.close(fd)
    finally:
        for fd, _prefix in stack:
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
    st = _lstat_at(name, parent)
    if st is not None and not stat.S_ISREG(st.st_mode):  # never open a FIFO or a device
        raise refusal(shown, st.st_mode)
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=parent)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EMLINK):  # it became a link after the lstat
            raise refusal(shown, stat.S_IFLNK) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise refusal(shown, st.st_mode)
    return fd, st


class Reader:
    """`read_under` for many files below one root, keeping the folder of the last one open: files read
    folder by folder (in a listing's order) cost one walk from the root per folder, not one per file. The
    same checks on every file; a folder is reached without a link when it is opened, as by `read_under`."""

    def __init__(self, root: Path | str) -> None:
        self._root = root
        self._folder: str | None = None
        self._fd = -1

    def read(self, rel: str, cap: int = MEMORY_CAP) -> bytes:
        head, _, name = rel.rpartition("/")
        if head != self._folder:
            self.close()
            self._fd = open_dir(self._root, head)
            self._folder = head
        fd, st = open_regular_at(self._fd, name, rel)
        try:
            return read_fd(fd, st, rel, cap)
        finally:
            os.close(fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd, self._folder = -1, None

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_each_at(
    parent: int, folder: str, names: Iterable[str], cap: int = MEMORY_CAP
) -> Iterator[tuple[str, bytes, os.stat_result]]:
    """`open_regular_at` then `read_fd` for each of `names` in the folder open as `parent` (known as
    `folder`), in one loop: each that is a regular file, with its bytes and its fstat. One that is not (any
    more), is over `cap`, or cannot be read is left out, as a reader that skips what it cannot read would."""
    for name in names:
        shown = f"{folder}/{name}" if folder else name
        st = _lstat_at(name, parent)
        if st is not None and not stat.S_ISREG(st.st_mode):  # never open a FIFO or a device
            continue
        got = _read_at(parent, name, shown, cap)
        if got is not None:
            yield shown, got[0], got[1]


def _read_at(parent: int, name: str, shown: str, cap: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes and fstat of `name` in the folder open as `parent` if it opens (``O_NOFOLLOW``,
    ``O_NONBLOCK``) as a regular file within `cap`; else None."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=parent)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
            return None
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:  # it changed while it was read: read it again, whole
            os.lseek(fd, 0, os.SEEK_SET)
            data = read_fd(fd, st, shown, cap)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data, st


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
