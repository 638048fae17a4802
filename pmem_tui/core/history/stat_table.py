"""The cheap pass: has anything in the memory tree changed since the last record?

A stat of every tracked file (`walk`: never through a link, hidden names skipped as the scan skips them)
compared with the table the last record left in the user's cache folder (`TABLE_FILE`, through the cache
layer): path -> (size, mtime_ns, ctime_ns, git blob id). The table belongs to one record (the commit id it
was written for): when the store's ref names another, the table still says which content a stamp had, but
not what the record holds. A file whose stamp is not `cache.fresh` is hashed again; only those are read.

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
    from typing import TypeAlias

    Stamp: TypeAlias = tuple[int, int, int]
    Row: TypeAlias = tuple[int, int, int, str]  # size, mtime_ns, ctime_ns, blob id (40 hex)

TABLE_FILE = "history-stat-v1.bin"


class Table:
    """The last record's table: the commit it was written for, its clock, a row per file."""

    __slots__ = ("head", "rows", "written_ns")

    def __init__(self, written_ns: int, head: str, rows: dict[str, Row]) -> None:
        self.written_ns = written_ns
        self.head = head
        self.rows = rows

    def blob_for(self, path: str, stamp: Stamp) -> str | None:
        """The blob id `path` had when its stamp was `stamp`, if that still holds (`cache.fresh`)."""
        row = self.rows.get(path)
        if row is None or not cache.fresh(row[:3], stamp, self.written_ns):
            return None
        return row[3]


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
    folder that cannot be listed is skipped too (what it held is then not in this record)."""
    out: dict[str, Stamp] = {}
    for rel in TRACKED_FILES:
        try:
            st = safeio.lstat_under(root, rel)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    stack = list(TRACKED_DIRS)
    while stack:
        folder = stack.pop()
        try:
            entries = safeio.list_dir(root, folder)
        except OSError:
            continue
        for name, st in entries:
            if name.startswith("."):
                continue
            mode = st.st_mode
            if stat.S_ISDIR(mode):
                stack.append(f"{folder}/{name}")
            elif stat.S_ISREG(mode):
                out[f"{folder}/{name}"] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return out


def load(root: Path | str) -> Table | None:
    value = cache.read(root, TABLE_FILE)
    if value is None:
        return None
    try:
        loaded = marshal.loads(value)
    except (ValueError, EOFError, TypeError):
        return None
    if type(loaded) is not tuple or len(loaded) != 3:
        return None
    written, head, rows = loaded
    if type(written) is not int or type(head) is not str or type(rows) is not dict:
        return None
    return Table(written, head, rows)


def save(root: Path | str, started_ns: int, head: str, rows: dict[str, Row]) -> None:
    """Keep the table of the record `head` (never an error: a table not written costs one full pass)."""
    try:
        payload = marshal.dumps((started_ns, head, rows))
    except ValueError:
        return
    cache.write(root, TABLE_FILE, payload)


def unchanged(root: Path | str) -> tuple[bool, int, dict[str, Stamp], Table | None]:
    """Whether the tree is exactly as the last record holds it, by stamps alone; also the clock's start, the
    stamps and the table, for the record that follows when it is not."""
    started = cache.clock()  # before any file is looked at (`cache.fresh`)
    table = load(root)
    stamps = walk(root)
    if table is None or table.head != read_head(root) or len(stamps) != len(table.rows):
        return False, started, stamps, table
    for path, stamp in stamps.items():
        if table.blob_for(path, stamp) is None:
            return False, started, stamps, table
    return True, started, stamps, table
