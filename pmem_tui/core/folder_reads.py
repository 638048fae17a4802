"""Reads and walks over many files below the root, through `safeio`'s door (the same checks: no link at
any depth, only regular files, a cap per read), each folder opened once for all its files: `stamps_below`,
the cheap walk of a freshness check (history's stat pass, the search index, health's listing), which can
leave its `Listing` for a scan right after; `read_below`, every file below a folder in one walk (a first
history record); `Reader` and `read_each_at`, many named files read a folder at a time (the deep scan,
health's run, a history record).
"""

from __future__ import annotations

import os
import stat

from pmem_tui.core import safeio

# Only for mypy: `status` reaches this module on its warm path, where `pathlib` and `typing` cost time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

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
    root: Path | str, rel: str, cap: int = safeio.MEMORY_CAP
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
        top = safeio.open_dir(root, rel)
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
                                stack.append((os.open(name, safeio.DIR_FLAGS, dir_fd=fd), path + "/"))
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


class Reader:
    """`read_under` for many files below one root, keeping the folder of the last one open: files read
    folder by folder (in a listing's order) cost one walk from the root per folder, not one per file. The
    same checks on every file; a folder is reached without a link when it is opened, as by `read_under`."""

    def __init__(self, root: Path | str) -> None:
        self._root = root
        self._folder: str | None = None
        self._fd = -1

    def read(self, rel: str, cap: int = safeio.MEMORY_CAP) -> bytes:
        head, _, name = rel.rpartition("/")
        if head != self._folder:
            self.close()
            self._fd = safeio.open_dir(self._root, head)
            self._folder = head
        fd, st = safeio.open_regular_at(self._fd, name, rel)
        try:
            return safeio.read_fd(fd, st, rel, cap)
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
    parent: int, folder: str, names: Iterable[str], cap: int = safeio.MEMORY_CAP
) -> Iterator[tuple[str, bytes, os.stat_result]]:
    """`open_regular_at` then `read_fd` for each of `names` in the folder open as `parent` (known as
    `folder`), in one loop: each that is a regular file, with its bytes and its fstat. One that is not (any
    more), is over `cap`, or cannot be read is left out, as a reader that skips what it cannot read would."""
    for name in names:
        shown = f"{folder}/{name}" if folder else name
        st = safeio.lstat_at(name, parent)
        if st is not None and not stat.S_ISREG(st.st_mode):  # never open a FIFO or a device
            continue
        got = _read_at(parent, name, shown, cap)
        if got is not None:
            yield shown, got[0], got[1]


def _read_at(parent: int, name: str, shown: str, cap: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes and fstat of `name` in the folder open as `parent` if it opens (``O_NOFOLLOW``,
    ``O_NONBLOCK``) as a regular file within `cap`; else None."""
    try:
        fd = os.open(name, safeio.FILE_FLAGS, dir_fd=parent)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
            return None
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:  # it changed while it was read: read it again, whole
            os.lseek(fd, 0, os.SEEK_SET)
            data = safeio.read_fd(fd, st, shown, cap)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data, st
