"""The deep scan's per-file cache: `scan-v3.bin` in the root's cache folder (`meta_cache`), never in the root.

It holds the entries parsed from `_index.md`, keyed by a digest of its text (so never stale), and for each
active file what a deep read learned (title, summary, whether the bytes are valid UTF-8) with the key it was
learned for (path, size, mtime_ns, ctime_ns: an edit that keeps the size and puts the mtime back, as
`rsync -t` or `cp -p` do, still moves the ctime). A scan with the cache reads only files whose key changed,
or whose mtime is within `meta_cache.RACY_NS` of the cache's write. The file is rewritten
(atomically, through `meta_cache`) only when something changed; a cache that cannot be read, parsed or
written is ignored.

Format: a magic line, the CRC-32 of the payload on the second line, then the payload in `marshal` format
(6-10x faster than JSON both ways, which is most of a scan that reads nothing). A file whose magic or
checksum does not match (truncated, damaged, another version's) is ignored before it is unmarshalled, and
every value is type-checked before use. Like the interpreter's own `__pycache__`, it trusts what its own
folder holds: that folder is the user's own (`cache_home`), and only they can write there.
"""

from __future__ import annotations

import hashlib
import marshal
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pmem_tui.core import meta_cache
from pmem_tui.core.model import IndexEntry, SummaryInfo, SummaryState

__all__ = ["SCAN_FILE", "Facts", "ScanCache"]

SCAN_FILE = "scan-v3.bin"  # in the root's cache folder
_MAGIC = b"pmem-scan-v3\n"
_STATES = {state.value: state for state in SummaryState}
_OPTIONAL_STR = (str, type(None))

Facts = tuple[str | None, SummaryInfo, bool]  # (title, summary, valid_utf8)


def _unpack(data: bytes | None) -> tuple[Any, ...] | None:
    """The payload if `data` is an intact cache file of this version, else None."""
    if data is None or not data.startswith(_MAGIC):
        return None
    end = data.find(b"\n", len(_MAGIC))
    if end < 0:
        return None
    payload = memoryview(data)[end + 1 :]
    try:
        if int(data[len(_MAGIC) : end]) != zlib.crc32(payload):
            return None
        loaded = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return loaded if type(loaded) is tuple and len(loaded) == 4 else None


class ScanCache:
    """Load once, `get` / `put` per file during one scan, then `save`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._written_ns = time.time_ns()  # taken before any file is read
        self._old: dict[str, Any] = {}
        self._old_written = 0
        self._new: dict[str, tuple[Any, ...]] = {}
        self._changed = False
        self._index_digest: str | None = None
        self._index_rows: Any = None
        loaded = _unpack(meta_cache.read(root, SCAN_FILE))
        if loaded is None:
            return
        written, digest, rows, files = loaded
        if type(written) is int and type(files) is dict:
            self._old, self._old_written = files, written
            if type(digest) is str and type(rows) is list:
                self._index_digest, self._index_rows = digest, rows

    def get(self, path: str, size: int, mtime_ns: int, ctime_ns: int) -> Facts | None:
        row = self._old.get(path)
        if row is None or meta_cache.is_racy(mtime_ns, self._old_written):
            return None
        try:
            r_size, r_mtime, r_ctime, valid, title, state, heading, bullets, detail = row
            if (
                r_size != size
                or r_mtime != mtime_ns
                or r_ctime != ctime_ns
                or type(valid) is not bool
                or type(title) not in _OPTIONAL_STR
                or type(heading) not in _OPTIONAL_STR
                or type(detail) is not str
                or type(bullets) is not tuple
                or state not in _STATES
            ):
                return None
        except (ValueError, TypeError):  # not a 9-item row, or an unhashable state
            return None
        for bullet in bullets:
            if type(bullet) is not str:
                return None
        self._new[path] = row
        return title, SummaryInfo(_STATES[state], heading, bullets, detail), valid

    def index_entries(self, text: str, parse: Callable[[str], list[IndexEntry]]) -> list[IndexEntry]:
        """`parse(text)`, from the cache when it was made from the very same text."""
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        if self._index_digest == digest:
            entries = self._cached_entries()
            if entries is not None:
                return entries
        entries = parse(text)
        self._index_digest = digest
        self._index_rows = [(e.line_no, e.raw, e.route, e.title, e.summary) for e in entries]
        self._changed = True
        return entries

    def _cached_entries(self) -> list[IndexEntry] | None:
        entries = []
        try:
            for line_no, raw, route, title, summary in self._index_rows:
                if (
                    type(line_no) is not int
                    or type(raw) is not str
                    or type(route) is not str
                    or type(title) not in _OPTIONAL_STR
                    or type(summary) not in _OPTIONAL_STR
                ):
                    return None
                entries.append(IndexEntry(line_no, raw, route, title, summary))
        except (ValueError, TypeError):
            return None
        return entries

    def put(self, path: str, size: int, mtime_ns: int, ctime_ns: int, facts: Facts) -> None:
        title, info, valid = facts
        self._new[path] = (
            size,
            mtime_ns,
            ctime_ns,
            valid,
            title,
            info.state.value,
            info.heading,
            tuple(info.bullets),
            info.detail,
        )
        self._changed = True

    def save(self) -> bool:
        """Write the cache if anything changed (a file read anew, or one gone); False if not written."""
        if not self._changed and len(self._new) == len(self._old):
            return False
        folder = meta_cache.safe_dir(self.root, create=True)
        if folder is None:
            return False
        try:
            payload = marshal.dumps((self._written_ns, self._index_digest, self._index_rows, self._new))
            head = _MAGIC + b"%d\n" % zlib.crc32(payload)
            meta_cache.write_atomic(folder, SCAN_FILE, head + payload)
        except (OSError, ValueError):
            return False
        return True
