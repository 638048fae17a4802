"""The one cache layer: how a root's caches are read and written, and when what they hold is fresh.

Every cache (the deep scan's per-file facts, `status`'s whole output, the health check's features and report)
is one file in the root's folder of the user's cache folder (`cache_home`: never under the root), and goes
through here:

* Safe: the folder and its files are never reached through a link; a read is bounded (`safeio.CACHE_CAP`)
  and never opens a FIFO or a device; a file is replaced atomically (a temporary file, then `os.replace`).
  Nothing is fsync'd: losing a cache costs one cold run.
* Framed: ``pmem-tui-cache-v1 <name> <key length> <CRC-32 of the value>\\n``, then the key, then the value.
  A file that is truncated, damaged, renamed or another version's is a miss.
* Never an error: a cache that cannot be read, parsed or written is a miss (a cold run), never a wrong
  answer and never an error shown to the person.

One freshness rule (`fresh`). A file's stamp is (size, mtime_ns, ctime_ns), kept by its path: the ctime too,
because an edit that keeps the size and puts the mtime back (`rsync -t`, `cp -p`, `touch -r`) still moves
it. What was learned from a file is trusted only while its stamp is unchanged and the file is not racy: it
did not change (mtime or ctime) within `RACY_NS` before the cache's clock started, because a second write
within one timestamp tick leaves the stamp as it was. The clock starts before any file is looked at.

* Per-file entries (`FileEntries`): one value per file, each checked by `fresh` (the deep scan).
* Whole-output entries (`read` / `write` with a key): a value stored with the bytes of everything it depends
  on (the stamps of every file it read, the options, the day, the code), compared byte for byte, and not
  stored while any of those files is racy (`status`).

Standard library only: `status` reads its output through here before the rest of pmem-tui is imported
(hence `str` paths, not `pathlib`).
"""

from __future__ import annotations

import contextlib  # loaded at start-up already (`site`)
import marshal
import os
import stat
import time
import zlib

from pmem_tui.core import cache_home, safeio

TYPE_CHECKING = False  # not `typing` (5 ms with `re`): `status` runs this before anything else
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    Stamp: TypeAlias = tuple[int, int, int]  # (size, mtime_ns, ctime_ns) of one file, kept by its path

__all__ = [
    "RACY_NS",
    "FileEntries",
    "folder",
    "fresh",
    "is_racy",
    "racy_from",
    "read",
    "write",
    "write_atomic",
]

RACY_NS = 2_000_000_000  # above the coarsest timestamp tick in use (FAT: 2 s)
_MAGIC = b"pmem-tui-cache-v1 "
clock = time.time_ns  # when a cache's clock starts (tests move it forward instead of sleeping)


def is_racy(changed_ns: int, written_ns: int) -> bool:
    """Whether a file last changed at `changed_ns` may have changed again unseen in the same timestamp tick
    since a cache whose clock started at `written_ns`."""
    return changed_ns >= racy_from(written_ns)


def racy_from(written_ns: int) -> int:
    """The first change time `is_racy` holds against a cache whose clock started at `written_ns` (for a
    reader checking many stamps at once)."""
    return written_ns - RACY_NS


def fresh(then: object, now: Stamp, written_ns: int) -> bool:
    """Whether what was learned from a file with stamp `then` still holds for it with stamp `now`."""
    return then == now and not is_racy(max(now[1], now[2]), written_ns)


def folder(root: str | os.PathLike[str], create: bool) -> str | None:
    """The root's cache folder if it is (or, with `create`, can be made) a real folder, never a link."""
    path = cache_home.folder_for(root)
    if path is None:
        return None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            os.mkdir(path, mode=0o700)
        except FileExistsError:
            return folder(root, create=False)  # another process made it first: check what it made
        except OSError:
            return None
        return path
    except OSError:
        return None
    return path if stat.S_ISDIR(st.st_mode) else None


def read(root: str | os.PathLike[str], name: str, key: bytes = b"") -> bytes | None:
    """The value stored in the root's cache file `name` for `key`, or None (missing, unsafe, damaged,
    another version's or another key's)."""
    where = folder(root, create=False)
    if where is None:
        return None
    try:
        data = safeio.read_path(os.path.join(where, name), safeio.CACHE_CAP)  # no link, FIFO or device
    except OSError:
        return None
    prefix = _MAGIC + name.encode() + b" "
    end = data.find(b"\n", 0, len(prefix) + 40)
    if end < 0 or not data.startswith(prefix):
        return None
    try:
        key_len, crc = (int(v) for v in data[len(prefix) : end].split(b" "))
    except ValueError:
        return None
    start = end + 1
    if key_len != len(key) or memoryview(data)[start : start + key_len] != key:
        return None
    value = data[start + key_len :]
    return value if zlib.crc32(value) == crc else None


def write(root: str | os.PathLike[str], name: str, value: bytes, key: bytes = b"") -> bool:
    """Store `value` for `key` as the root's cache file `name`; False if not written (never an error)."""
    where = folder(root, create=True)
    if where is None:
        return False
    head = _MAGIC + b"%s %d %d\n" % (name.encode(), len(key), zlib.crc32(value))
    try:
        write_atomic(os.path.join(where, name), (head, key, value))
    except (OSError, ValueError):
        return False
    return True


def write_atomic(path: str, parts: tuple[bytes, ...]) -> None:
    """Replace `path` with `parts` joined, atomically; an OSError leaves no temporary file behind."""
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".{name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")  # not `secrets`: 5 ms
    try:
        with open(tmp, "xb") as f:
            for part in parts:
                f.write(part)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class FileEntries:
    """The per-file entries of one cache file: load once, `get` / `put` per file, then `save`.

    Besides one value per file (kept by path, checked by `fresh`), it keeps values derived from some bytes
    the caller names by their digest (`derived` / `derive`: never stale). Values are anything `marshal`
    writes; what comes back is type-checked by the caller. Only what was used in this run is saved, and
    only when something changed.
    """

    def __init__(self, root: str | os.PathLike[str], name: str) -> None:
        self._root = root
        self._name = name
        self._started = clock()  # before any file is stat'ed: see `fresh`
        self._written = 0
        self._old: dict[str, Any] = {}
        self._new: dict[str, tuple[Stamp, Any]] = {}
        self._old_derived: dict[str, Any] = {}
        self._new_derived: dict[str, Any] = {}
        self._changed = False
        value = read(root, name)
        try:
            loaded = marshal.loads(value) if value is not None else None
        except (ValueError, EOFError, TypeError):
            return
        if type(loaded) is tuple and len(loaded) == 3:
            written, files, derived = loaded
            if type(written) is int and type(files) is dict and type(derived) is dict:
                self._written, self._old, self._old_derived = written, files, derived

    def get(self, path: str, stamp: Stamp) -> Any:
        """The value learned from `path` if it is fresh for `stamp`, else None."""
        row = self._old.get(path)
        if type(row) is not tuple or len(row) != 2 or not fresh(row[0], stamp, self._written):
            return None
        self._new[path] = row
        return row[1]

    def put(self, path: str, stamp: Stamp, value: Any) -> None:
        self._new[path] = (stamp, value)
        self._changed = True

    def derived(self, digest: str) -> Any:
        """The value derived from the bytes with this digest, else None."""
        value = self._old_derived.get(digest)
        if value is not None:
            self._new_derived[digest] = value
        return value

    def derive(self, digest: str, value: Any) -> None:
        self._new_derived[digest] = value
        self._changed = True

    def save(self) -> bool:
        """Write the file if anything changed (a file read anew or gone); False if not written."""
        if (
            not self._changed
            and len(self._new) == len(self._old)
            and len(self._new_derived) == len(self._old_derived)
        ):
            return False
        try:
            payload = marshal.dumps((self._started, self._new, self._new_derived))
        except ValueError:
            return False
        return write(self._root, self._name, payload)
