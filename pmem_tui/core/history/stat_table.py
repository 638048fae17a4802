"""The cheap pass: has anything in the memory tree changed since the last record?

A stat of every tracked file (`walk`: never through a link, hidden names skipped as the scan skips them)
compared with the table the last record left in the user's cache folder (`TABLE_FILE`, through the cache
layer): path -> (size, mtime_ns, ctime_ns, git blob id), and each folder's tree id in that record (a record
of one changed file builds only the trees on that file's path, `store.update_tree`). The table belongs to
one record (the commit id it was written for): when the store's ref names another, the table still says
which content a stamp had, but not what the record holds. A file whose stamp is not `cache.fresh` is hashed
again; only those are read.

Standard library only (and `safeio`, `cache`): `status` and `snapshot` run this before anything heavy, and
when nothing changed they stop here, without importing dulwich.
"""

from __future__ import annotations

import marshal
import stat

from pmem_tui.core import cache, safeio
from pmem_tui.core.history.names import HISTORY_DIR, MAIN_REF, TRACKED_DIRS, TRACKED_FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypeAlias

Stamp: TypeAlias = tuple[int, int, int]  # size, mtime_ns, ctime_ns
Pass: TypeAlias = "tuple[int, dict[str, Stamp], Table | None]"  # a stat pass: its clock's start, the
# stamps, the table it was compared with

TABLE_FILE = "history-stat-v3.bin"
_CANONICAL = 2  # marshal version 2: no back-references, so equal stamps give equal bytes (as `status_cache`)


class Table:
    """The last record's table: the commit it was written for, its clock, each file's stamp and blob id.

    The stamps are kept as the exact bytes `marshal` makes of them in walk order, with the newest mtime or
    ctime among them: "nothing changed" is then one comparison of bytes, and the rest is unpacked only when
    something did change."""

    __slots__ = (
        "_blobs",
        "_stamps",
        "_trees",
        "blobs_raw",
        "head",
        "newest_ns",
        "stamps_raw",
        "trees_raw",
        "written_ns",
    )

    def __init__(
        self,
        written_ns: int,
        head: str,
        stamps_raw: bytes,
        newest_ns: int,
        blobs_raw: bytes,
        trees_raw: bytes = b"",
    ) -> None:
        self.written_ns = written_ns
        self.head = head
        self.stamps_raw = stamps_raw
        self.newest_ns = newest_ns
        self.blobs_raw = blobs_raw
        self.trees_raw = trees_raw
        self._stamps: dict[str, Stamp] | None = None
        self._blobs: dict[str, str] | None = None
        self._trees: dict[str, str] | None = None

    @property
    def stamps(self) -> dict[str, Stamp]:
        if self._stamps is None:
            self._stamps = _dict_of(self.stamps_raw)
        return self._stamps

    @property
    def blobs(self) -> dict[str, str]:
        if self._blobs is None:
            self._blobs = _dict_of(self.blobs_raw)
        return self._blobs

    @property
    def trees(self) -> dict[str, str]:
        """Each folder's tree id in the record `head` ("" for the root tree); empty when not known."""
        if self._trees is None:
            self._trees = _dict_of(self.trees_raw) if self.trees_raw else {}
        return self._trees

    def blob_for(self, path: str, stamp: Stamp) -> str | None:
        """The blob id `path` had when its stamp was `stamp`, if that still holds (`cache.fresh`)."""
        then = self.stamps.get(path)
        if then is None or not cache.fresh(then, stamp, self.written_ns):
            return None
        return self.blobs.get(path)

    def vouched(self, stamps: dict[str, Stamp]) -> tuple[dict[str, str], list[str]]:
        """The blob ids the table vouches for ({path: blob id}: `cache.fresh` for each, as `blob_for`), and
        the other paths of `stamps` (to be read, in order). Compared as sets, not file by file: the stamps
        that differ, then (only when the table's newest stamp is racy) the racy ones among the rest."""
        blobs = self.blobs
        then = self.stamps
        stale = {path for path, stamp in stamps.items() if then.get(path) != stamp}
        stale |= stamps.keys() - blobs.keys()
        if cache.is_racy(self.newest_ns, self.written_ns):
            since = cache.racy_from(self.written_ns)
            stale.update(path for path, (_, m, c) in stamps.items() if m >= since or c >= since)
        known = dict(blobs)
        for path in stale | (blobs.keys() - stamps.keys()):
            known.pop(path, None)
        return known, sorted(stale)

def _dict_of(raw: bytes) -> dict[str, Any]:
    try:
        value = marshal.loads(raw)
    except (ValueError, EOFError, TypeError):
        return {}
    return value if type(value) is dict else {}


def store_exists(root: Path | str) -> bool:
    try:
        return stat.S_ISDIR(safeio.lstat_under(root, HISTORY_DIR).st_mode)
    except OSError:
        return False


def read_head(root: Path | str, ref: str = MAIN_REF) -> str | None:
    """The commit id (40 hex) `ref` names, by default the newest record's; None when there is none (no
    store, no record yet, or a damaged ref)."""
    try:
        data = safeio.read_under(root, f"{HISTORY_DIR}/{ref}", 100).strip()
    except FileNotFoundError:
        data = _packed_ref(root, ref)  # `git gc` moves refs into `packed-refs`
    except OSError:
        return None
    text = data.decode("ascii", "replace")
    return text if len(text) == 40 and all(c in "0123456789abcdef" for c in text) else None


def _packed_ref(root: Path | str, ref: str) -> bytes:
    try:
        data = safeio.read_under(root, f"{HISTORY_DIR}/packed-refs", safeio.MIB)
    except OSError:
        return b""
    for line in data.splitlines():
        sha, _, name = line.partition(b" ")
        if name == ref.encode():
            return sha
    return b""


def walk(root: Path | str) -> dict[str, Stamp]:
    """Every tracked regular file's stamp, by path. Links, FIFOs, devices and hidden names are skipped; a
    folder that cannot be listed is skipped too (what it held is then not in this record). The folders are
    walked by `safeio.stamps_below`: each opened from its parent with O_NOFOLLOW, no link ever followed."""
    out: dict[str, Stamp] = {}
    for rel in TRACKED_FILES:
        try:
            st = safeio.lstat_under(root, rel)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    for folder in TRACKED_DIRS:
        for path, size, mtime_ns, ctime_ns in safeio.stamps_below(root, folder):
            out[path] = (size, mtime_ns, ctime_ns)
    return out


def load(root: Path | str) -> Table | None:
    value = cache.read(root, TABLE_FILE)
    if value is None:
        return None
    try:
        loaded = marshal.loads(value)
    except (ValueError, EOFError, TypeError):
        return None
    if type(loaded) is not tuple or len(loaded) != 6:
        return None
    kinds = (int, str, bytes, int, bytes, bytes)
    if any(type(v) is not k for v, k in zip(loaded, kinds, strict=True)):
        return None
    return Table(*loaded)


def newest(stamps: dict[str, Stamp]) -> int:
    """The newest mtime or ctime among `stamps` (0 for none)."""
    return max((max(s[1], s[2]) for s in stamps.values()), default=0)


def save(
    root: Path | str,
    started_ns: int,
    head: str,
    stamps: dict[str, Stamp],
    blobs: dict[str, str],
    trees: dict[str, str],
    newest_ns: int | None = None,
) -> None:
    """Keep the table of the record `head`, its files' blob ids and its folders' tree ids (never an error: a
    table not written costs one full pass). `newest_ns`: an upper bound of the stamps' newest time, when the
    caller knows one (a later one only makes the next cheap pass look once more); else it is computed."""
    try:
        payload = marshal.dumps(
            (
                started_ns,
                head,
                marshal.dumps(stamps, _CANONICAL),
                newest(stamps) if newest_ns is None else newest_ns,
                marshal.dumps(blobs),
                marshal.dumps(trees),
            )
        )
    except ValueError:
        return
    cache.write(root, TABLE_FILE, payload)


def unchanged(root: Path | str) -> tuple[bool, int, dict[str, Stamp], Table | None]:
    """Whether the tree is exactly as the last record holds it, by stamps alone; also the clock's start, the
    stamps and the table, for the record that follows when it is not.

    `cache.fresh` for every file at once: the same stamps, in the same walk order (one comparison of bytes;
    another order is a change, and the record that follows finds none), and the newest mtime or ctime among
    them not racy against the table's clock."""
    started = cache.clock()  # before any file is looked at (`cache.fresh`)
    table = load(root)
    stamps = walk(root)
    same = table is not None and marshal.dumps(stamps, _CANONICAL) == table.stamps_raw
    if table is None or not same or table.head != read_head(root):
        return False, started, stamps, table
    return not cache.is_racy(table.newest_ns, table.written_ns), started, stamps, table
