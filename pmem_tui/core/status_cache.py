"""The whole `status` output, cached as `status-v2-<format>.bin` in the root's cache folder (`cache_home`);
`health`'s output too, for the same key (`OUTPUT_FILES`, `cli/health_quick.py`).

A warm `status` lists the root, finds that nothing it can see has changed since the last run and prints the
stored output, without scanning or parsing anything. The key is compared byte for byte (no hash, so no
collision), and is made of:

* the output format, this cache's version, the Python version, and the name, size and mtime_ns of every
  module of the package (a new or edited pmem-tui never serves an older one's output);
* the root as given (absolute) and today's date (`clock.today`: `PMEM_TUI_TODAY`, else the local date), so
  trash that expires at midnight is reported as expired;
* the user reading (effective uid, gid and groups);
* the root's own times and every entry below it, hidden ones and `.pmem/` included (the cache is outside
  the root, so storing it changes none of them): folders by path, mtime_ns and ctime_ns; files by path,
  st_mode, size, mtime_ns and ctime_ns; symbolic links by path; a folder that cannot be listed by path and
  errno. An added, removed or renamed file or folder (even one that came and went while a scan ran: its
  folder's times changed), an edit, a chmod, the journal's intent file appearing: each changes the key;
* the bytes of `_index.md` and `_archive/_index.md` (read as the scan reads them).

The freshness rule is the cache layer's (`cache.fresh`): a file whose size, mtime_ns and ctime_ns did not
change is trusted to have the same content, and the output is never stored while any listed file's or
folder's mtime or ctime is racy (`cache.is_racy`) against the moment the listing started, so a file edited
twice within one timestamp tick is never missed. It is not stored either when the scan could not read
something (an I/O failure is not a fact about the tree). A root with a symbolic link at depth one or two
(where the scan follows links: `_archive/`, `_archive/_trash/`, ...) or inside `.pmem/` bypasses this cache
entirely. The key and the output are stored and compared by `cache.read` / `cache.write` (safe, framed,
checksummed; a damaged or unwritable cache is a miss).

Imports only the standard library (and platformdirs, through `cache_home`) on the hit path: it runs before the
rest of pmem-tui is imported.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time

from pmem_tui.core import cache, safeio

TYPE_CHECKING = False  # not `typing` (5 ms to import with `re`): this module runs before anything else
if TYPE_CHECKING:
    from typing import Any

__all__ = ["OUTPUT_FILES", "STATUS_FILES", "Probe", "probe", "store"]

_VERSION = 2
_META = ".pmem"  # kept equal to `model.META_DIR` (tested)
STATUS_FILES = {fmt: f"status-v{_VERSION}-{fmt}.bin" for fmt in ("json", "text")}  # in the cache folder
# `health`'s output, stored the same way for the same key (`cli/health_quick.py`)
OUTPUT_FILES = {
    **STATUS_FILES,
    **{f"health-{fmt}": f"health-output-v1-{fmt}.bin" for fmt in ("json", "text")},
}
_CONTROL_FILES = ("_index.md", "_archive/_index.md")
_KEY_MARSHAL = 2  # 3+ writes an object referenced twice (an int `newest` shares) as a back-reference
_DIR_FD = os.stat in os.supports_dir_fd and os.listdir in os.supports_fd  # (lstat is a stat)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_S_ISDIR = stat.S_ISDIR
_S_ISLNK = stat.S_ISLNK
_ENV_TODAY = "PMEM_TUI_TODAY"  # kept equal to `clock.ENV_TODAY` (tested)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Probe:
    """One status run's key, taken before the scan reads anything, and the stored output if it matches.

    A plain class, not a dataclass: `dataclasses` costs milliseconds to import on the hit path.
    """

    __slots__ = ("cached", "entries", "fmt", "key", "newest_ns", "root", "started_ns")

    def __init__(
        self,
        root: str,
        fmt: str,
        key: bytes,
        started_ns: int,
        newest_ns: int,
        cached: bytes | None,
        entries: list[Any] | None = None,
    ) -> None:
        self.root = root
        self.fmt = fmt
        self.key = key
        self.started_ns = started_ns
        self.newest_ns = newest_ns  # the latest mtime or ctime of any listed file
        self.cached = cached
        self.entries = entries  # the listing the key was made of

    @property
    def racy(self) -> bool:
        return cache.is_racy(self.newest_ns, self.started_ns)

    def folders(self) -> dict[str, list[tuple[str, int, int, int, int]]] | None:
        """The listing by folder: each folder's entries as (name, st_mode, size, mtime_ns, ctime_ns) in the
        order they were listed (a folder's and a link's size and times are 0), for a scan that follows at
        once (`folder_walk.walk_files`: the tree listed once, not twice). None when an entry could not be
        stat'ed or a folder listed: the scan lists and reports those itself."""
        if self.entries is None:
            return None
        out: dict[str, list[tuple[str, int, int, int, int]]] = {"": []}
        for entry in self.entries[1:]:  # the root's own times first
            path, kind = entry[0], entry[1]
            head, _, name = path.rpartition("/")
            if kind == "d":
                out[path] = []
                row = (name, stat.S_IFDIR, 0, 0, 0)
            elif kind == "l":
                row = (name, stat.S_IFLNK, 0, 0, 0)
            elif type(kind) is int:
                row = (name, kind, entry[2], entry[3], entry[4])
            else:
                return None
            out[head].append(row)
        return out


def probe(root: str, fmt: str) -> Probe | None:
    """The key of `root` now and the output stored for it, or None when this root cannot use the cache."""
    started = cache.clock()  # before any stat: see `Probe.racy`
    listed = _listing(root)
    if listed is None:
        return None
    entries, newest = listed
    controls: list[bytes | None] = []
    for rel in _CONTROL_FILES:
        try:
            controls.append(safeio.read_under(root, rel))  # never a link, a FIFO or a device; bounded
        except FileNotFoundError:
            controls.append(None)
        except OSError:
            return None  # the scan will report (or fail on) it: leave that to the uncached path
    day = _day()
    # Who reads: another user may not be able to read what this one could (or the other way round).
    reader = (os.geteuid(), os.getegid(), sorted(os.getgroups())) if hasattr(os, "geteuid") else None
    parts = (_VERSION, fmt, sys.version, _code(), root, day, reader, controls, entries)
    key = marshal.dumps(parts, _KEY_MARSHAL)  # equal keys, equal bytes
    return Probe(root, fmt, key, started, newest, cache.read(root, OUTPUT_FILES[fmt], key), entries)


def store(p: Probe, output: bytes) -> bool:
    """Keep `output` for `p`'s key unless the listing was racy; False if not written (never an error)."""
    return not p.racy and cache.write(p.root, OUTPUT_FILES[p.fmt], output, p.key)


def _listing(root: str) -> tuple[list[Any], int] | None:
    """Every entry below `root` (see the module docstring) and the newest mtime or ctime among its files.

    `listdir` plus `lstat` relative to an open folder: about 20% faster than `scandir` + `DirEntry.stat`,
    which matters because this walk is most of a warm `status`.
    """
    entries: list[Any] = []
    add = entries.append
    newest = 0
    try:
        # The root's own times too: an entry made and removed again at its top level changes them.
        st = os.stat(root)
    except OSError:
        return None  # no root: nothing worth caching
    add(("", "d", st.st_mtime_ns, st.st_ctime_ns))
    newest = max(st.st_mtime_ns, st.st_ctime_ns)
    lstat, is_dir, is_link = os.lstat, _S_ISDIR, _S_ISLNK  # locals: this loop runs once per entry
    stack = [""]
    while stack:
        rel = stack.pop()
        folder = os.path.join(root, rel) if rel else root
        fd = -1
        try:
            if _DIR_FD:  # opened without following a link that replaced the folder since its lstat
                fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | (_O_NOFOLLOW if rel else 0))
                names = os.listdir(fd)
            else:
                names = os.listdir(folder)
        except OSError as err:
            if fd >= 0:
                os.close(fd)
            if not rel:
                return None  # no root (or not a folder): nothing worth caching
            add((rel, "e", err.errno))
            continue
        prefix = f"{rel}/" if rel else ""
        shallow = not rel or "/" not in rel  # entries at depth one or two
        try:
            for name in names:
                path = prefix + name
                try:
                    st = lstat(name, dir_fd=fd) if fd >= 0 else lstat(os.path.join(folder, name))
                except OSError as err:
                    add((path, "?", err.errno))
                    continue
                mode = st.st_mode
                if is_dir(mode):
                    # With its times: an entry made and removed again (or a folder renamed away and back)
                    # while a scan ran leaves the folder's mtime and ctime changed, never the same.
                    mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
                    add((path, "d", mtime, ctime))
                    newest = max(newest, mtime, ctime)
                    stack.append(path)
                elif is_link(mode):
                    if shallow or path.startswith(f"{_META}/"):
                        return None  # the scan may follow it: its target's changes would be unseen
                    add((path, "l"))
                else:
                    mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
                    add((path, mode, st.st_size, mtime, ctime))
                    if mtime > newest:
                        newest = mtime
                    if ctime > newest:
                        newest = ctime
        finally:
            if fd >= 0:
                os.close(fd)
    return entries, newest


_code_key: list[Any] | None = None


def _day() -> str:
    """Today as `clock.today` sees it, without importing `datetime` (3 ms).

    The frozen date exactly as written (one string always parses to one date; a malformed one makes the scan
    fail, so nothing is stored), else the local date, which is what `datetime.date.today()` returns.
    """
    return os.environ.get(_ENV_TODAY) or time.strftime("%Y-%m-%d")


def _code() -> list[Any]:
    """Name, size and mtime_ns of every module of the package: output made by other code is never served."""
    global _code_key
    if _code_key is None:
        found: list[Any] = []
        for sub in ("", "cli", "core", "core/health", "core/history"):  # what `status` and `health` run
            folder = os.path.join(_PACKAGE, sub) if sub else _PACKAGE
            with os.scandir(folder) as it:
                for entry in it:
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        found.append((folder, entry.name, st.st_size, st.st_mtime_ns))
        _code_key = sorted(found)
    return _code_key
