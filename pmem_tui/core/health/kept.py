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
from dataclasses import dataclass
from pathlib import Path

from pmem_tui.core import cache, textio
from pmem_tui.core.history import stat_table
from pmem_tui.core.history.names import original_path
from pmem_tui.core.secrets import find_secrets

__all__ = ["CACHE_FILE", "KeptSecret", "kept_secrets"]

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
    known = _load(root)
    learned = False
    out: list[KeptSecret] = []
    seen: set[str] = set()
    for v in versions:  # newest first
        if not v.blob or v.blob in live or v.blob in seen:
            continue
        seen.add(v.blob)
        hits = known.get(v.blob)
        if hits is None:
            try:
                text = textio.decode(objects.blob_bytes(v.blob))
            except Exception:  # a blob that does not read: doctor's to repair, not health's
                continue
            hits = tuple((h.line_no, h.kind) for h in find_secrets(text, screened=True))
            known[v.blob] = hits
            learned = True
        if hits:
            out.append(KeptSecret(original_path(v.path), v.id, v.time, hits))
    if learned:
        cache.write(root, CACHE_FILE, marshal.dumps(known))
    return out


def _load(root: Path) -> dict[str, Hits]:
    data = cache.read(root, CACHE_FILE)
    try:
        loaded = marshal.loads(data) if data else {}
    except (ValueError, EOFError, TypeError):
        return {}
    return loaded if type(loaded) is dict else {}
