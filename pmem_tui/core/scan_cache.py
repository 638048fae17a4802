"""The deep scan's per-file cache: `.pmem/cache/scan-v1.json`, never among memory files.

It holds the entries parsed from `_index.md`, keyed by a digest of its text (so never stale), and for each
active file what a deep read learned (title, summary, whether the bytes are valid UTF-8) with the key it was
learned for (path, size, mtime_ns). A scan with the cache reads only files whose key changed, or whose mtime
is within `meta_cache.RACY_NS` of the cache's write. The file is rewritten (atomically, through `meta_cache`)
only when something changed; a cache that cannot be read, parsed or written is ignored.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pmem_tui.core import meta_cache
from pmem_tui.core.model import IndexEntry, SummaryInfo, SummaryState

__all__ = ["SCAN_FILE", "Facts", "ScanCache"]

SCAN_FILE = f"{meta_cache.CACHE_DIR}/scan-v1.json"
_VERSION = 1

Facts = tuple[str | None, SummaryInfo, bool]  # (title, summary, valid_utf8)


class ScanCache:
    """Load once, `get` / `put` per file during one scan, then `save`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._written_ns = time.time_ns()  # taken before any file is read
        self._old: dict[str, Any] = {}
        self._old_written = 0
        self._new: dict[str, list[Any]] = {}
        self._changed = False
        self._index: dict[str, Any] = {}
        data = meta_cache.read(root, SCAN_FILE)
        if data is None:
            return
        try:
            loaded = json.loads(data)
            if loaded.get("version") == _VERSION and isinstance(loaded.get("files"), dict):
                self._old = loaded["files"]
                self._old_written = int(loaded["written_ns"])
                if isinstance(loaded.get("index"), dict):
                    self._index = loaded["index"]
        except (ValueError, TypeError, KeyError, AttributeError):
            self._old = {}

    def get(self, path: str, size: int, mtime_ns: int) -> Facts | None:
        row = self._old.get(path)
        if row is None or meta_cache.is_racy(mtime_ns, self._old_written):
            return None
        try:
            r_size, r_mtime, valid, title, state, heading, bullets, detail = row
            if r_size != size or r_mtime != mtime_ns:
                return None
            if (
                type(valid) is not bool
                or not (title is None or type(title) is str)
                or not (heading is None or type(heading) is str)
                or type(detail) is not str
                or type(bullets) is not list
                or not all(type(b) is str for b in bullets)
            ):
                return None
            info = SummaryInfo(SummaryState(state), heading, tuple(bullets), detail)
        except (ValueError, TypeError):
            return None
        self._new[path] = row
        return title, info, valid

    def index_entries(self, text: str, parse: Callable[[str], list[IndexEntry]]) -> list[IndexEntry]:
        """`parse(text)`, from the cache when it was made from the very same text."""
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        if self._index.get("digest") == digest:
            try:
                rows = self._index["entries"]
                entries = [IndexEntry(*row) for row in rows]
                if all(
                    isinstance(e.line_no, int)
                    and isinstance(e.raw, str)
                    and isinstance(e.route, str)
                    and (e.title is None or isinstance(e.title, str))
                    and (e.summary is None or isinstance(e.summary, str))
                    for e in entries
                ):
                    return entries
            except (TypeError, KeyError):
                pass
        entries = parse(text)
        rows = [[e.line_no, e.raw, e.route, e.title, e.summary] for e in entries]
        self._index = {"digest": digest, "entries": rows}
        self._changed = True
        return entries

    def put(self, path: str, size: int, mtime_ns: int, facts: Facts) -> None:
        title, info, valid = facts
        self._new[path] = [
            size,
            mtime_ns,
            valid,
            title,
            info.state.value,
            info.heading,
            list(info.bullets),
            info.detail,
        ]
        self._changed = True

    def save(self) -> bool:
        """Write the cache if anything changed (a file read anew, or one gone); False if not written."""
        if not self._changed and len(self._new) == len(self._old):
            return False
        folder = meta_cache.safe_dir(self.root, create=True)
        if folder is None:
            return False
        doc = {"version": _VERSION, "written_ns": self._written_ns, "index": self._index, "files": self._new}
        try:
            data = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
            meta_cache.write_atomic(folder, SCAN_FILE.rsplit("/", 1)[1], data)
        except (OSError, ValueError):
            return False
        return True
