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
import struct
from array import array
from itertools import chain

from pmem_tui.core import cache, folder_reads, safeio
from pmem_tui.core.history.names import HISTORY_DIR, MAIN_REF, TRACKED_DIRS, TRACKED_FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any, TypeAlias

Stamp: TypeAlias = tuple[int, int, int]  # size, mtime_ns, ctime_ns
Pass: TypeAlias = "tuple[int, dict[str, Stamp], Table | None]"  # a stat pass: its clock's start, the
# stamps, the table it was compared with

TABLE_FILE = "history-stat-v4.bin"
_ROW = 24  # bytes of one file's stamp in `Table.stamps_raw` (three 8-byte integers)
_BLOCK = 64 * _ROW  # the stamps compared at once, as bytes, when looking for the few that changed
FEW = 64  # rows a record patches into the last table's bytes; more: the table is encoded whole


class Table:
    """The last record's table: the commit it was written for, its clock, each file's stamp and blob id.

    Kept flat, in walk order: the paths (`names_raw`, one string, joined by NUL), their stamps
    (`stamps_raw`, bytes of 8-byte integers: size, mtime_ns, ctime_ns), their blob ids (`blobs_raw`, 40 hex
    digits each), with the newest mtime or ctime among the stamps. "Nothing changed" is then two
    comparisons; when one file changed, the stamps are compared block by block and only the differing rows
    are looked at, and nothing is unpacked per file but the blob ids (`blobs`)."""

    __slots__ = (
        "_blobs",
        "_names",
        "_padded",
        "_trees",
        "blobs_raw",
        "compared",
        "head",
        "names_raw",
        "newest_ns",
        "stamps_raw",
        "trees_raw",
        "written_ns",
    )

    def __init__(
        self,
        written_ns: int,
        head: str,
        names_raw: str,
        stamps_raw: bytes,
        newest_ns: int,
        blobs_raw: bytes,
        trees_raw: bytes = b"",
    ) -> None:
        self.written_ns = written_ns
        self.head = head
        self.names_raw = names_raw
        self.stamps_raw = stamps_raw
        self.newest_ns = newest_ns
        self.blobs_raw = blobs_raw
        self.trees_raw = trees_raw
        self._names: list[str] | None = None
        self._padded: str | None = None  # the paths between NULs, to find one path's row
        self._blobs: dict[str, str] | None = None
        self._trees: dict[str, str] | None = None
        # The stamps the cheap pass compared with this table, and their `encode` (not made twice).
        self.compared: tuple[dict[str, Stamp], str, bytes] | None = None

    @classmethod
    def of(
        cls, written_ns: int, head: str, stamps: dict[str, Stamp], blobs: dict[str, str], newest_ns: int = 0
    ) -> Table:
        """The table of `stamps` (walk order) and `blobs` (the same paths)."""
        names_raw, stamps_raw = encode(stamps)
        return cls(written_ns, head, names_raw, stamps_raw, newest_ns, _blob_bytes(stamps, blobs))

    @property
    def names(self) -> list[str]:
        if self._names is None:
            self._names = _names_of(self.names_raw)
        return self._names

    @property
    def blobs(self) -> dict[str, str]:
        if self._blobs is None:
            names = self.names
            raw = self.blobs_raw.decode("ascii", "replace")
            if len(raw) != 40 * len(names):
                self._blobs = {}
            else:
                self._blobs = dict(zip(names, [raw[i : i + 40] for i in range(0, len(raw), 40)], strict=True))
        return self._blobs

    @property
    def trees(self) -> dict[str, str]:
        """Each folder's tree id in the record `head` ("" for the root tree); empty when not known."""
        if self._trees is None:
            self._trees = _dict_of(self.trees_raw) if self.trees_raw else {}
        return self._trees

    def stamp_of(self, path: str) -> Stamp | None:
        """The stamp the table keeps for `path` (one file: a test's and a reader's look-up)."""
        try:
            i = self.names.index(path)
        except ValueError:
            return None
        row = array("q", self.stamps_raw[i * _ROW : (i + 1) * _ROW])
        return (row[0], row[1], row[2]) if len(row) == 3 else None

    def blob_for(self, path: str, stamp: Stamp) -> str | None:
        """The blob id `path` had when its stamp was `stamp`, if that still holds (`cache.fresh`)."""
        then = self.stamp_of(path)
        if then is None or not cache.fresh(then, stamp, self.written_ns):
            return None
        return self.blobs.get(path)

    def vouched(self, stamps: dict[str, Stamp]) -> tuple[dict[str, str], list[str]]:
        """The blob ids the table vouches for ({path: blob id}: `cache.fresh` for each, as `blob_for`), and
        the other paths of `stamps` (to be read, in order). Compared as bytes, not file by file: the rows
        whose stamp differs, then (only when the table's newest stamp is racy) the racy ones of the rest."""
        blobs = self.blobs
        rows = self.stale_rows(stamps)
        if rows is not None:
            stale = set(rows)
            gone: set[str] = set()
        else:  # files came or went: path by path
            then = self._stamps()
            stale = {path for path, stamp in stamps.items() if then.get(path) != stamp}
            gone = blobs.keys() - stamps.keys()
            stale |= stamps.keys() - blobs.keys()
            stale |= self._racy(stamps)
        known = dict(blobs)
        for path in stale | gone:
            known.pop(path, None)
        return known, sorted(stale)

    def stale_rows(self, stamps: dict[str, Stamp]) -> list[str] | None:
        """`vouched`'s paths to read, in order, when `stamps` holds the table's paths in its order (the
        stamps compared block by block, nothing unpacked per file); None when files came or went."""
        names_raw, stamps_raw = self._encode(stamps)
        if names_raw != self.names_raw or len(stamps_raw) != len(self.stamps_raw):
            return None
        if len(self.blobs_raw) != 40 * len(stamps):
            return list(stamps)  # a damaged table vouches for nothing
        stale = _differing_rows(list(stamps), self.stamps_raw, stamps_raw)
        racy = self._racy(stamps)
        return sorted(racy.union(stale)) if racy else stale

    def _racy(self, stamps: dict[str, Stamp]) -> set[str]:
        """The paths of `stamps` changed in the racy window before the table's clock (only when the table's
        newest stamp is in it: else none can be)."""
        if not cache.is_racy(self.newest_ns, self.written_ns):
            return set()
        since = cache.racy_from(self.written_ns)
        return {path for path, (_, m, c) in stamps.items() if m >= since or c >= since}

    def blob_of(self, path: str) -> str | None:
        """The blob id the table keeps for `path` (one row, found in the bytes)."""
        i = self._row_of(path)
        return None if i is None else self.blobs_raw[i * 40 : (i + 1) * 40].decode("ascii", "replace")

    def _row_of(self, path: str) -> int | None:
        if self._padded is None:
            self._padded = f"\0{self.names_raw}\0"
        at = self._padded.find(f"\0{path}\0")
        return None if at < 0 else self._padded.count("\0", 0, at)

    def _encode(self, stamps: dict[str, Stamp]) -> tuple[str, bytes]:
        if self.compared is not None and self.compared[0] is stamps:
            return self.compared[1], self.compared[2]
        return encode(stamps)

    def patched(
        self, stamps: dict[str, Stamp], blobs: dict[str, str], rows: list[str]
    ) -> tuple[str, bytes, bytes] | None:
        """This table's bytes with the stamps and blob ids of `rows` (a few paths) taken from `stamps` and
        `blobs`, when `stamps` is a copy of the stamps the cheap pass compared (`compared`: their order),
        some of them replaced, and those held the table's paths in its order (else None: encoded whole)."""
        compared = self.compared
        if compared is None or len(rows) > FEW or compared[1] != self.names_raw:
            return None
        if stamps.keys() != compared[0].keys() or len(self.blobs_raw) != 40 * len(stamps):
            return None
        stamps_raw = bytearray(self.stamps_raw)
        blobs_raw = bytearray(self.blobs_raw)
        for path in rows:
            i = self._row_of(path)
            if i is None or path not in blobs:
                return None
            stamps_raw[i * _ROW : (i + 1) * _ROW] = struct.pack("3q", *stamps[path])
            blobs_raw[i * 40 : (i + 1) * 40] = blobs[path].encode("ascii")
        return self.names_raw, bytes(stamps_raw), bytes(blobs_raw)

    def _stamps(self) -> dict[str, Stamp]:
        rows = array("q", self.stamps_raw)
        names = self.names
        if len(rows) != 3 * len(names):
            return {}
        return {path: (rows[3 * i], rows[3 * i + 1], rows[3 * i + 2]) for i, path in enumerate(names)}


def _differing_rows(paths: list[str], old: bytes, new: bytes) -> list[str]:
    """The paths whose row differs between two `stamps_raw` of the same paths: block by block (one
    comparison of bytes for 64 rows), then row by row in a block that differs."""
    out = []
    for start in range(0, len(old), _BLOCK):
        end = start + _BLOCK
        if old[start:end] != new[start:end]:
            for at in range(start, min(end, len(old)), _ROW):
                if old[at : at + _ROW] != new[at : at + _ROW]:
                    out.append(paths[at // _ROW])
    return out


def encode(stamps: dict[str, Stamp]) -> tuple[str, bytes]:
    """The table's form of `stamps` (walk order): the NUL-joined paths, the stamps as 8-byte integers."""
    return "\0".join(stamps), struct.pack(f"{3 * len(stamps)}q", *chain.from_iterable(stamps.values()))


def _names_of(raw: str) -> list[str]:
    return raw.split("\0") if raw else []


def _blob_bytes(stamps: dict[str, Stamp], blobs: dict[str, str]) -> bytes:
    return "".join([blobs[path] for path in stamps]).encode("ascii")


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


def walk(root: Path | str, listing: folder_reads.Listing | None = None) -> dict[str, Stamp]:
    """Every tracked regular file's stamp, by path. Links, FIFOs, devices and hidden names are skipped; a
    folder that cannot be listed is skipped too (the recorder keeps what the last record had there, as it
    was: `record._unreadable_not_gone`). The folders are walked by `folder_reads.stamps_below`: each opened
    from its parent with O_NOFOLLOW, no link ever followed.
    `listing`: filled with the tracked folders' entries, as listed (for the app's scan right after)."""
    out: dict[str, Stamp] = {}
    for rel in TRACKED_FILES:
        try:
            st = safeio.lstat_under(root, rel)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    for folder in TRACKED_DIRS:
        for path, size, mtime_ns, ctime_ns in folder_reads.stamps_below(root, folder, listing=listing):
            out[path] = (size, mtime_ns, ctime_ns)
    return out


def read_all(root: Path | str) -> Iterator[tuple[str, bytes, os.stat_result]]:
    """Every tracked regular file with its bytes and its fstat, in `walk`'s order, in one walk (a first
    record: no stat pass before it; `folder_reads.read_below`: no link followed, no FIFO or device opened)."""
    for rel in TRACKED_FILES:
        try:
            data, st = safeio.read_under_stat(root, rel)
        except OSError:
            continue
        yield rel, data, st
    for folder in TRACKED_DIRS:
        yield from folder_reads.read_below(root, folder)


def load(root: Path | str) -> Table | None:
    value = cache.read(root, TABLE_FILE)
    if value is None:
        return None
    try:
        loaded = marshal.loads(value)
    except (ValueError, EOFError, TypeError):
        return None
    if type(loaded) is not tuple or len(loaded) != 7:
        return None
    kinds = (int, str, str, bytes, int, bytes, bytes)
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
    *,
    like: Table | None = None,
    rows: list[str] | None = None,
) -> None:
    """Keep the table of the record `head`, its files' blob ids and its folders' tree ids (never an error: a
    table not written costs one full pass). `newest_ns`: an upper bound of the stamps' newest time, when the
    caller knows one (a later one only makes the next cheap pass look once more); else it is computed.
    `like`, `rows`: the last table, and the only paths whose stamp or blob id may differ from it (a record
    of one changed file: its bytes patched, not the whole table encoded again)."""
    try:
        got = like.patched(stamps, blobs, rows) if like is not None and rows is not None else None
        if got is None:
            names_raw, stamps_raw = encode(stamps)
            got = (names_raw, stamps_raw, _blob_bytes(stamps, blobs))
        payload = marshal.dumps(
            (
                started_ns,
                head,
                got[0],
                got[1],
                newest(stamps) if newest_ns is None else newest_ns,
                got[2],
                marshal.dumps(trees),
            )
        )
    except (ValueError, OverflowError, KeyError):
        return
    cache.write(root, TABLE_FILE, payload)


def unchanged(
    root: Path | str, listing: folder_reads.Listing | None = None
) -> tuple[bool, int, dict[str, Stamp], Table | None]:
    """Whether the tree is exactly as the last record holds it, by stamps alone; also the clock's start, the
    stamps and the table, for the record that follows when it is not (`listing`: see `walk`).

    `cache.fresh` for every file at once: the same stamps, in the same walk order (one comparison of bytes;
    another order is a change, and the record that follows finds none), and the newest mtime or ctime among
    them not racy against the table's clock."""
    started = cache.clock()  # before any file is looked at (`cache.fresh`)
    table = load(root)
    stamps = walk(root, listing)
    if table is None:
        return False, started, stamps, table
    names_raw, stamps_raw = encode(stamps)
    table.compared = (stamps, names_raw, stamps_raw)
    same = names_raw == table.names_raw and stamps_raw == table.stamps_raw
    if not same or table.head != read_head(root):
        return False, started, stamps, table
    return not cache.is_racy(table.newest_ns, table.written_ns), started, stamps, table
