"""Secrets in the kept versions of the memory's files (issue 16): a line that looks like a secret in a version
the history keeps, even when the live file no longer holds it (redacted since, or deleted).

Cheap by construction: only the blobs the history says are not the live content (not in the newest record,
which `health` makes first) are read, each once: what the secret screen found in a blob is kept in the user's
cache folder by blob id (a blob's bytes never change). A memory without a history, or with a damaged one,
has no kept secret (the history's own commands say what is wrong with it). The fix is `forget` (the
history's `rewrite.plan_forget`, previewed first); nothing here writes under the root.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pmem_tui.core import cache, textio
from pmem_tui.core.history import stat_table
from pmem_tui.core.history.names import original_path
from pmem_tui.core.secrets import find_secrets

if TYPE_CHECKING:
    from pmem_tui.core.history.store import Objects

__all__ = ["CACHE_FILE", "KeptSecret", "content_hits", "kept_secrets"]

CACHE_FILE = "health-kept-secrets-v1.bin"
Hits = tuple[tuple[int, str], ...]  # (line number, kind) of each hit


@dataclass(frozen=True)
class KeptSecret:
    """A kept version of `path` (its original path) whose bytes hold lines that look like secrets."""

    path: str
    version: str  # the record's id: `history forget PATH --version V` takes it
    time: int
    hits: Hits


def kept_secrets(root: Path) -> list[KeptSecret]:
    """Every kept content that looks like it holds a secret and is not the live content: the newest version
    holding each such content, newest first."""
    root = Path(root)
    head = stat_table.read_head(root)
    if head is None:
        return []
    from pmem_tui.core.history import log, store  # dulwich (~10 ms) only for a memory with a history

    try:
        versions = log.versions(root)
        objects = store.open_objects(root)
        live = set(objects.tree_files(head).values())
    except Exception:  # a damaged store never blocks health: the history's own commands say what is wrong
        return []
    screen = _Screen(root, objects)
    out: list[KeptSecret] = []
    seen: set[str] = set()
    for v in versions:  # newest first
        if not v.blob or v.blob in live or v.blob in seen:
            continue
        seen.add(v.blob)
        hits = screen.hits(v.blob)
        if hits:
            out.append(KeptSecret(original_path(v.path), v.id, v.time, hits))
    screen.save()
    return out


def content_hits(root: Path, blobs: Iterable[str]) -> dict[str, Hits]:
    """What the secret screen finds in each content (blob id) the history keeps, from the cache or read once
    (a content that does not read is left out). Raises when the store cannot be opened."""
    from pmem_tui.core.history import store

    screen = _Screen(Path(root), store.open_objects(Path(root)))
    out = {b: h for b in dict.fromkeys(blobs) if (h := screen.hits(b)) is not None}
    screen.save()
    return out


class _Screen:
    """The secret screen of kept contents, cached by blob id in the user's cache folder."""

    def __init__(self, root: Path, objects: Objects) -> None:
        self.root, self.objects = root, objects
        self.known = _load(root)
        self.learned = False

    def hits(self, blob: str) -> Hits | None:
        hits = self.known.get(blob)
        if hits is None:
            try:
                text = textio.decode(self.objects.blob_bytes(blob))
            except Exception:  # a blob that does not read: doctor's to repair, not health's
                return None
            hits = tuple((h.line_no, h.kind) for h in find_secrets(text, screened=True))
            self.known[blob] = hits
            self.learned = True
        return hits

    def save(self) -> None:
        if self.learned:
            cache.write(self.root, CACHE_FILE, marshal.dumps(self.known))


def _load(root: Path) -> dict[str, Hits]:
    data = cache.read(root, CACHE_FILE)
    try:
        loaded = marshal.loads(data) if data else {}
    except (ValueError, EOFError, TypeError):
        return {}
    return loaded if type(loaded) is dict else {}
