"""Reading the history back: the versions of a path, a version's bytes, diffs, what changed since the review.

A version is a record (a commit) in which a file changed. Each record's changes are worked out once, by
comparing its tree with its parent's, and kept in the user's cache folder (`LOG_FILE`: a record never
changes, so what was learned of it stays true; a record rewritten by `forget` or `prune` is a new one). A
file's history follows it into `_archive/` and back: a path's versions are those of every record where a file
whose original path (`names.original_path`) is that path was added, changed, moved or deleted.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import hashlib
import marshal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pmem_tui.core import cache, textio
from pmem_tui.core.errors import PmemError, Refused
from pmem_tui.core.history import stat_table
from pmem_tui.core.history.names import ORIGIN_TRAILER, REVIEWED_REF, original_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pmem_tui.core.history import store

__all__ = [
    "REVIEWED_REF",
    "Change",
    "Changed",
    "Record",
    "Version",
    "changes_since_review",
    "diff",
    "records",
    "resolve",
    "version_bytes",
    "versions",
]

LOG_FILE = "history-log-v2.bin"  # v2: `original_path` keeps an archive path that mirrors no active place
ADDED, MODIFIED, DELETED, MOVED = "added", "modified", "deleted", "moved"


@dataclass(frozen=True)
class Change:
    """One file's change in one record. `path`: where it is after (before, for a deletion); `old_path`: where
    it was before a move; `blob`: its git blob id after ("" when deleted)."""

    kind: str
    path: str
    old_path: str
    blob: str


@dataclass(frozen=True)
class Record:
    """One record (commit): its id, parent, time (seconds, UTC), origin, first line and changes."""

    id: str
    parent: str | None
    time: int
    origin: str
    title: str
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class Version:
    """One version of a file: the record it was made in, and the file as that record holds it."""

    id: str  # the record's commit id (40 hex)
    time: int  # seconds since the epoch, UTC
    path: str  # where the file was (`_archive/projects/a.md` once archived)
    kind: str  # added / modified / deleted / moved
    origin: str  # the pmem-tui action (`archive`, `restore`...) or "seen on disk"
    bytes: int  # its size (0 when deleted)
    sha256: str  # of its bytes ("" when deleted)
    blob: str  # its git blob id ("" when deleted)
    title: str  # the record's first line

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "time": iso_time(self.time),
            "path": self.path,
            "kind": self.kind,
            "origin": self.origin,
            "bytes": self.bytes,
            "sha256": self.sha256,
        }


@dataclass(frozen=True)
class Changed:
    """A file changed since the last review: its original path, where it is now, how it changed, the newest
    record that changed it (time, origin, id), the size of its diff in lines, and the record it is compared
    with (`since`: the one marked reviewed, else the first record)."""

    path: str
    now_path: str
    kind: str
    time: int
    origin: str
    version: str
    lines_added: int
    lines_removed: int
    since: str

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "now_path": self.now_path,
            "kind": self.kind,
            "time": iso_time(self.time),
            "origin": self.origin,
            "version": self.version,
            "lines_added": self.lines_added,
            "lines_removed": self.lines_removed,
        }


def iso_time(seconds: int) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Reader:
    """The records, newest first, each from the cache or worked out from the store (opened only then)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._objects: store.Objects | None = None
        self._cache: dict[str, tuple[object, ...]] = {}
        self._blobs: dict[str, tuple[int, str]] = {}
        self._changed = False
        value = cache.read(root, LOG_FILE)
        try:
            loaded = marshal.loads(value) if value is not None else None
        except (ValueError, EOFError, TypeError):
            loaded = None
        if type(loaded) is tuple and len(loaded) == 2 and all(type(x) is dict for x in loaded):
            self._cache, self._blobs = loaded

    @property
    def objects(self) -> store.Objects:
        if self._objects is None:
            from pmem_tui.core.history import store  # dulwich: only when a record is not in the cache

            self._objects = store.open_objects(self.root)
        return self._objects

    def save(self) -> None:
        if self._changed:
            cache.write(self.root, LOG_FILE, marshal.dumps((self._cache, self._blobs)))

    def record(self, commit_id: str) -> Record:
        row = self._cache.get(commit_id)
        if row is None:
            row = self._work_out(commit_id)
            self._cache[commit_id] = row
            self._changed = True
        parent, when, origin, title, changes = row
        return Record(
            commit_id,
            parent,  # type: ignore[arg-type]
            when,  # type: ignore[arg-type]
            origin,  # type: ignore[arg-type]
            title,  # type: ignore[arg-type]
            tuple(Change(*c) for c in changes),  # type: ignore[attr-defined]
        )

    def _work_out(self, commit_id: str) -> tuple[object, ...]:
        from dulwich.diff_tree import tree_changes

        commit = self.objects.commit(commit_id)
        parent = commit.parents[0].decode("ascii") if commit.parents else None
        old_tree = self.objects.commit(parent).tree if parent else None
        gone: dict[str, str] = {}
        came: dict[str, str] = {}
        changes: list[tuple[str, str, str, str]] = []
        for ch in tree_changes(self.objects.disk, old_tree, commit.tree):
            old = ch.old.path.decode("utf-8", "surrogateescape") if ch.old and ch.old.path else None
            new = ch.new.path.decode("utf-8", "surrogateescape") if ch.new and ch.new.path else None
            if old is not None and new is not None:
                changes.append((MODIFIED, new, new, ch.new.sha.decode("ascii")))  # type: ignore[union-attr]
            elif new is not None:
                came[new] = ch.new.sha.decode("ascii")  # type: ignore[union-attr]
            elif old is not None:
                gone[old] = ""
        changes += _pair(gone, came)
        message = commit.message.decode("utf-8", "surrogateescape")
        return (parent, commit.commit_time, origin_of(message), message.split("\n", 1)[0], changes)

    def blob_facts(self, blob: str) -> tuple[int, str]:
        """(size, sha256) of a blob's bytes."""
        facts = self._blobs.get(blob)
        if facts is None:
            data = self.blob(blob)
            facts = (len(data), hashlib.sha256(data).hexdigest())
            self._blobs[blob] = facts
            self._changed = True
        return facts

    def blob(self, blob: str) -> bytes:
        return self.objects.blob_bytes(blob)

    def chain(self, head: str | None, stop: str | None = None) -> list[Record]:
        out: list[Record] = []
        seen: set[str] = set()
        while head is not None and head != stop and head not in seen:
            seen.add(head)
            rec = self.record(head)
            out.append(rec)
            head = rec.parent
        return out


def _pair(gone: dict[str, str], came: dict[str, str]) -> list[tuple[str, str, str, str]]:
    """Deletions and additions of one record; a file gone from one place and come to another with the same
    original path is a move (archive, delete, recover)."""
    out: list[tuple[str, str, str, str]] = []
    by_original = {original_path(p): p for p in gone}
    for new, blob in sorted(came.items()):
        old = by_original.pop(original_path(new), None)
        if old is not None and old != new:
            del gone[old]
            out.append((MOVED, new, old, blob))
        else:
            out.append((ADDED, new, new, blob))
    out += [(DELETED, old, old, "") for old in sorted(gone)]
    return out


def origin_of(message: str) -> str:
    for line in reversed(message.rstrip("\n").split("\n")):
        if line.startswith(ORIGIN_TRAILER):
            return line[len(ORIGIN_TRAILER) :]
    return message.split("\n", 1)[0].split(":", 1)[0]


def _records(root: Path) -> list[Record]:
    """Every record, newest first (empty when there is no store). DamagedStore when one cannot be read."""
    reader = _Reader(Path(root))
    try:
        return reader.chain(_head(reader.root))
    finally:
        reader.save()


def _head(root: Path) -> str | None:
    head = stat_table.read_head(root)
    if head is not None:
        return head
    from pmem_tui.core.history.record import head_or_damaged  # none, or a damaged ref: which

    return head_or_damaged(root)


@contextlib.contextmanager
def reading() -> Iterator[None]:
    """A store that cannot be read is one sentence (a `Refused`), whatever dulwich raised."""
    try:
        yield
    except PmemError:
        raise
    except Exception as err:
        from pmem_tui.core.history.record import sentence

        raise Refused(f"{sentence(err)}; `pmem-tui doctor --yes` rebuilds what it can.") from err


def _versions(root: Path, path: str | None = None) -> list[Version]:
    """The versions of the file whose original path is `path` (every file's, for None), newest first."""
    reader = _Reader(Path(root))
    try:
        out: list[Version] = []
        for rec in reader.chain(_head(reader.root)):
            for ch in rec.changes:
                if path is not None and original_path(ch.path) != path:
                    continue
                size, digest = reader.blob_facts(ch.blob) if ch.blob else (0, "")
                out.append(
                    Version(rec.id, rec.time, ch.path, ch.kind, rec.origin, size, digest, ch.blob, rec.title)
                )
        return out
    finally:
        reader.save()


def _resolve(root: Path, version: str) -> str:
    """The record id a version names (its full id or a unique prefix of at least 4 hex digits). Refused, in
    one sentence, for anything else."""
    text = version.strip().lower()
    if not 4 <= len(text) <= 40 or any(c not in "0123456789abcdef" for c in text):
        shown = textio.printable(version)[:60]
        raise Refused(f"{shown!r} is not a version id: versions are the hex ids `history` lists.")
    found = [rec.id for rec in _records(root) if rec.id.startswith(text)]
    if not found:
        raise Refused(f"There is no version {text} in this memory's history.")
    if len(found) > 1:
        raise Refused(f"Version {text} is ambiguous ({len(found)} records start with it); give more digits.")
    return found[0]


def _tree_map(reader: _Reader, commit_id: str | None) -> dict[str, str]:
    return reader.objects.tree_files(commit_id)


def _locate(files: dict[str, str], path: str) -> str | None:
    """Where the file whose original path is `path` is in a record's files: its own place first."""
    if path in files:
        return path
    return next((p for p in sorted(files) if original_path(p) == path), None)


def _version_bytes(root: Path, version: str, path: str) -> bytes:
    """The exact bytes of `path` (an original path, or where the file was) at `version`. Refused when that
    record holds no such file."""
    commit_id = _resolve(root, version)
    reader = _Reader(Path(root))
    where = _locate(_tree_map(reader, commit_id), path)
    if where is None:
        raise Refused(f"{textio.printable(path)} is not in version {commit_id[:12]}.")
    return reader.blob(_tree_map(reader, commit_id)[where])


def _diff(root: Path, path: str, from_version: str | None = None, to_version: str | None = None) -> str:
    """A unified diff of `path` between two versions: by default its newest version and the one before it;
    with only --from, from there to the newest. Refused when the path has no versions."""
    found = _versions(root, path)
    if not found:
        raise Refused(f"{textio.printable(path)} has no versions in this memory's history.")
    to_id = _resolve(root, to_version) if to_version else found[0].id
    if from_version:
        from_id: str | None = _resolve(root, from_version)
    else:
        ids = [v.id for v in found]
        later = ids.index(to_id) if to_id in ids else 0
        from_id = ids[later + 1] if later + 1 < len(ids) else None
    old = _bytes_or_empty(root, from_id, path)
    new = _bytes_or_empty(root, to_id, path)
    return unified(path, old, new, from_id, to_id)


def _bytes_or_empty(root: Path, commit_id: str | None, path: str) -> bytes:
    if commit_id is None:
        return b""
    reader = _Reader(Path(root))
    files = _tree_map(reader, commit_id)
    where = _locate(files, path)
    return reader.blob(files[where]) if where is not None else b""


def unified(path: str, old: bytes, new: bytes, old_id: str | None, new_id: str | None) -> str:
    lines = difflib.unified_diff(
        textio.lines_of(textio.decode(old)),
        textio.lines_of(textio.decode(new)),
        fromfile=f"a/{path}@{old_id[:12]}" if old_id else "/dev/null",
        tofile=f"b/{path}@{new_id[:12]}" if new_id else "/dev/null",
        lineterm="",
    )
    return "".join(line + "\n" for line in lines)


def _changes_since_review(root: Path) -> list[Changed]:
    """Every file that changed between the record last marked reviewed and the newest, newest change first.
    Never marked: since the first record, the memory as history first found it (its files are where the
    person starts from, not changes to review)."""
    root = Path(root)
    reader = _Reader(root)
    try:
        head = _head(root)
        reviewed = stat_table.read_head(root, REVIEWED_REF)
        chain = reader.chain(head, stop=reviewed)
        if reviewed is None and chain:
            reviewed = chain.pop().id  # the first record is the baseline
        if not chain or reviewed is None:
            return []
        before, after = _tree_map(reader, reviewed), _tree_map(reader, head)
        newest: dict[str, Record] = {}
        for rec in reversed(chain):  # oldest first: the newest record touching a path wins
            for ch in rec.changes:
                newest[original_path(ch.path)] = rec
                newest[original_path(ch.old_path)] = rec
        out: list[Changed] = []
        for kind, now, old in _net(before, after):
            rec = newest.get(original_path(now)) or chain[0]
            old_bytes = reader.blob(before[old]) if old in before else b""
            new_bytes = reader.blob(after[now]) if now in after else b""
            added, removed = line_counts(old_bytes, new_bytes)
            out.append(
                Changed(original_path(now), now, kind, rec.time, rec.origin, rec.id, added, removed, reviewed)
            )
        out.sort(key=lambda c: (-c.time, c.path))
        return out
    finally:
        reader.save()


def _net(before: dict[str, str], after: dict[str, str]) -> list[tuple[str, str, str]]:
    """(kind, path now, path before) for each file that differs between two records' files."""
    out: list[tuple[str, str, str]] = []
    for path in sorted(set(before) & set(after)):
        if before[path] != after[path]:
            out.append((MODIFIED, path, path))
    gone = {p: "" for p in before if p not in after}
    came = {p: after[p] for p in after if p not in before}
    for kind, new, old, _ in _pair(gone, came):
        out.append((kind, new, old))
    return out


def line_counts(old: bytes, new: bytes) -> tuple[int, int]:
    """(lines added, lines removed) from `old` to `new`."""
    added = removed = 0
    for line in difflib.unified_diff(
        textio.lines_of(textio.decode(old)), textio.lines_of(textio.decode(new)), n=0
    ):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


# The public readers: a damaged store is one sentence.


def records(root: Path) -> list[Record]:
    """Every record, newest first (empty when there is no store)."""
    with reading():
        return _records(root)


def versions(root: Path, path: str | None = None) -> list[Version]:
    """The versions of the file whose original path is `path` (every file's, for None), newest first."""
    with reading():
        return _versions(root, path)


def resolve(root: Path, version: str) -> str:
    """The record id a version names (its full id or a unique prefix of at least 4 hex digits)."""
    with reading():
        return _resolve(root, version)


def version_bytes(root: Path, version: str, path: str) -> bytes:
    """The exact bytes of `path` (an original path, or where the file was) at `version`."""
    with reading():
        return _version_bytes(root, version, path)


def diff(root: Path, path: str, from_version: str | None = None, to_version: str | None = None) -> str:
    """A unified diff of `path` between two versions (default: its newest and the one before)."""
    with reading():
        return _diff(root, path, from_version, to_version)


def changes_since_review(root: Path) -> list[Changed]:
    """Every file changed since the record last marked reviewed, newest change first."""
    with reading():
        return _changes_since_review(root)
