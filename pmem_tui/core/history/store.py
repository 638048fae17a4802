"""The history repository: a bare git repository at `.pmem/history`, read with dulwich, written through `FS`.

Writes go through the one door to the disk (`fsops.FS`: temp file, fsync, rename, fsync of the folder; the
step hook the fault campaign drives), in an order that keeps the store consistent at every step:

1. the new objects, as one pack: `objects/pack/pack-<sum>.pack`, then its `.idx` (a pack counts only once
   its index is there, for git and dulwich alike);
2. the ref, last (`refs/heads/main` holds the new commit id).

A crash before step 2 leaves the store at its last complete record (an unreferenced pack at worst, which
`rewrite.repair` drops by repacking). Reading never follows a link into the store: the folder is checked with
`safeio` before dulwich opens it.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from dulwich.object_format import DEFAULT_OBJECT_FORMAT
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree
from dulwich.pack import Pack, write_pack_index, write_pack_objects

from pmem_tui.core import safeio
from pmem_tui.core.fsops import FS
from pmem_tui.core.history.names import HISTORY_DIR, MAIN_REF, REVIEWED_REF
from pmem_tui.core.history.stat_table import read_head

__all__ = [
    "AUTHOR",
    "PACK_DIR",
    "DamagedStore",
    "Objects",
    "add_tree",
    "blob_id",
    "build_tree",
    "init",
    "make_blob",
    "make_commit",
    "merge_packs",
    "open_objects",
    "read_head",
    "repack",
    "set_ref",
    "write_objects",
]

AUTHOR = b"pmem-tui <pmem-tui@localhost>"
PACK_DIR = f"{HISTORY_DIR}/objects/pack"
DELTA_WINDOW = 4  # candidates each object is tried against as a delta base (each try costs ~1 ms)
_FILE_MODE = 0o100644
_DIR_MODE = 0o040000
_HEAD = b"ref: refs/heads/main\n"
_CONFIG = b"[core]\n\trepositoryformatversion = 0\n\tfilemode = false\n\tbare = true\n"
_DESCRIPTION = b"pmem-tui's history of this memory: read it with `git --git-dir=.pmem/history log -p`.\n"


class DamagedStore(Exception):
    """The store cannot be read or written as it is; the message is the reason, for one sentence."""


def blob_id(data: bytes) -> str:
    """The git blob id of `data` (what `git hash-object` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def init(fs: FS) -> None:
    """Make the bare repository if it is missing (each part through `fs`; an existing part is kept)."""
    for rel in ("objects/pack", "objects/info", "refs/heads", "refs/tags"):
        fs.makedirs(f"{HISTORY_DIR}/{rel}")
    for name, data in (("HEAD", _HEAD), ("config", _CONFIG), ("description", _DESCRIPTION)):
        rel = f"{HISTORY_DIR}/{name}"
        if not _exists(fs.root, rel):
            fs.write_atomic(rel, data)


def _exists(root: Path, rel: str) -> bool:
    try:
        safeio.lstat_under(root, rel)
    except FileNotFoundError:
        return False
    return True


def _oid(hex_id: str | bytes) -> ObjectID:
    return ObjectID(hex_id.encode("ascii") if isinstance(hex_id, str) else hex_id)


class Objects:
    """The store's objects, read by hex id (dulwich's store itself is `disk`)."""

    def __init__(self, disk: DiskObjectStore) -> None:
        self.disk = disk
        self._packs: list[Pack] | None = None

    def has(self, hex_id: str | bytes) -> bool:
        """Whether a pack holds the object (the packs listed once: dulwich lists the folder at every
        lookup, and a first record looks up ten thousand blobs). The store writes no loose objects."""
        if self._packs is None:
            self._packs = list(self.disk.packs)
        oid = _oid(hex_id)
        return any(oid in pack for pack in self._packs)

    def get(self, hex_id: str | bytes) -> ShaFile:
        return self.disk[_oid(hex_id)]

    def commit(self, hex_id: str) -> Commit:
        obj = self.get(hex_id)
        if not isinstance(obj, Commit):
            raise DamagedStore(f"{hex_id[:12]} is not a record")
        return obj

    def blob_bytes(self, hex_id: str) -> bytes:
        return self.get(hex_id).as_raw_string()

    def tree_files(self, commit_id: str | None) -> dict[str, str]:
        """The flat {path: blob id} of a record (empty for None)."""
        if commit_id is None:
            return {}
        tree = self.commit(commit_id).tree
        return {
            e.path.decode("utf-8", "surrogateescape"): e.sha.decode("ascii")
            for e in self.disk.iter_tree_contents(tree)
        }

    @property
    def pack_count(self) -> int:
        return len(self.disk.packs)


def open_objects(root: Path) -> Objects:
    """The store's objects, for reading. DamagedStore when the store is missing, a link, or not a store."""
    try:
        st = safeio.lstat_under(root, f"{HISTORY_DIR}/objects")
    except OSError as err:
        raise DamagedStore(f"there is no history store at {HISTORY_DIR} ({err.strerror})") from err
    if not stat.S_ISDIR(st.st_mode):
        raise DamagedStore(f"{HISTORY_DIR}/objects is not a folder")
    return Objects(DiskObjectStore(str(root / HISTORY_DIR / "objects")))


def write_objects(fs: FS, objects: list[ShaFile]) -> None:
    """Write `objects` as one pack (then its index), through `fs`. Nothing to write: nothing is written."""
    if objects:
        _write_pack(fs, objects, deltify=False)


def _write_pack(fs: FS, objects: list[ShaFile], *, deltify: bool) -> str:
    """One pack of `objects` and its index, through `fs` (the pack first: it counts once its index is
    there); returns the pack's base name. `deltify`: as deltas of each other where that is smaller, and
    compressed harder (merges and repacks); a record's own pack is compressed fast."""
    pack = io.BytesIO()
    entries, checksum = write_pack_objects(
        pack,
        objects,
        DEFAULT_OBJECT_FORMAT,
        deltify=deltify,
        delta_window_size=DELTA_WINDOW,
        compression_level=-1 if deltify else 1,
    )
    index = io.BytesIO()
    write_pack_index(index, sorted((sha, off, crc) for sha, (off, crc) in entries.items()), checksum)
    base = f"pack-{checksum.hex()}"
    fs.write_atomic(f"{PACK_DIR}/{base}.pack", pack.getvalue())
    fs.write_atomic(f"{PACK_DIR}/{base}.idx", index.getvalue())
    return base


def set_ref(fs: FS, ref: str, commit: str) -> None:
    """Point `ref` at `commit` (atomically, through `fs`): the last step of a record."""
    parent = f"{HISTORY_DIR}/{ref}".rsplit("/", 1)[0]
    fs.makedirs(parent)
    fs.write_atomic(f"{HISTORY_DIR}/{ref}", commit.encode("ascii") + b"\n")


def build_tree(files: dict[str, str]) -> tuple[str, list[Tree]]:
    """The trees of a flat {path: blob id}: the root tree's id and every tree object (root last)."""
    folders: dict[str, dict[str, tuple[int, str]]] = {"": {}}
    for path in files:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folders.setdefault("/".join(parts[:depth]), {})
    trees: list[Tree] = []
    # Files into their folders, then folders into their parents, deepest first.
    for path, blob in files.items():
        head, _, name = path.rpartition("/")
        folders[head][name] = (_FILE_MODE, blob)
    for folder in sorted((f for f in folders if f), key=lambda f: f.count("/"), reverse=True):
        tree = _tree(folders[folder])
        trees.append(tree)
        head, _, name = folder.rpartition("/")
        folders[head][name] = (_DIR_MODE, tree.id.decode("ascii"))
    root_tree = _tree(folders[""])
    trees.append(root_tree)
    return root_tree.id.decode("ascii"), trees


def _tree(entries: dict[str, tuple[int, str]]) -> Tree:
    tree = Tree()
    for name, (mode, sha) in entries.items():
        tree.add(name.encode("utf-8", "surrogateescape"), mode, _oid(sha))
    return tree


def make_commit(tree: str, parent: str | None, message: str, when: int | None = None) -> Commit:
    commit = Commit()
    commit.tree = _oid(tree)
    commit.parents = [_oid(parent)] if parent else []
    commit.author = commit.committer = AUTHOR
    commit.author_time = commit.commit_time = int(time.time()) if when is None else when
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode("utf-8", "surrogateescape")
    return commit


def make_blob(data: bytes) -> Blob:
    return Blob.from_string(data)


def repack(root: Path, fs: FS) -> None:
    """One pack of everything the refs reach (with deltas), then every other pack goes: what no record
    holds any more (`forget`, `prune`) is then gone from the store."""
    objects = open_objects(root)
    wanted: dict[bytes, ShaFile] = {}
    for ref in (MAIN_REF, REVIEWED_REF):
        head = read_head(root, ref)
        while head is not None and head.encode() not in wanted:
            commit = objects.commit(head)
            wanted[commit.id] = commit
            add_tree(objects, commit.tree, wanted)
            head = commit.parents[0].decode("ascii") if commit.parents else None
    if wanted:
        keep = _write_pack(fs, list(wanted.values()), deltify=True)
        _remove_packs(root, fs, lambda base: base != keep)


def merge_packs(root: Path, fs: FS) -> None:
    """Every pack but the largest merged into one, with deltas among their objects (a record writes one small
    pack; many of them would slow every read, and versions of one file stored whole would make the store
    grow with the file's size rather than with what changed)."""
    bases = sorted(
        (os.path.getsize(root / PACK_DIR / f"{name[:-4]}.pack"), name[:-4])
        for name in os.listdir(root / PACK_DIR)
        if name.endswith(".idx") and os.path.exists(root / PACK_DIR / f"{name[:-4]}.pack")
    )
    small = {base for _, base in bases[:-1]}
    if len(small) < 2:
        return
    merged: dict[bytes, ShaFile] = {}
    for base in sorted(small):
        pack = Pack(str(root / PACK_DIR / base), object_format=DEFAULT_OBJECT_FORMAT)
        try:
            for obj in pack.iterobjects():
                merged.setdefault(obj.id, obj)
        finally:
            pack.close()
    keep = _write_pack(fs, list(merged.values()), deltify=True)
    _remove_packs(root, fs, lambda base: base in small and base != keep)


def _remove_packs(root: Path, fs: FS, remove: Callable[[str], bool]) -> None:
    """Remove the packs `remove` names, and any pack left without its index by a crash (an index before
    its pack, so no index ever names a missing pack)."""
    names = set(os.listdir(root / PACK_DIR))
    for name in sorted(names, key=lambda n: not n.endswith(".idx")):
        base, dot, ext = name.rpartition(".")
        orphan = ext == "pack" and f"{base}.idx" not in names
        if dot and ext in ("pack", "idx") and (remove(base) or orphan):
            fs.remove(f"{PACK_DIR}/{name}", missing_ok=True)


def add_tree(objects: Objects, tree_id: bytes, wanted: dict[bytes, ShaFile]) -> None:
    """`tree_id` and everything below it into `wanted` (each read: a missing object raises)."""
    if tree_id in wanted:
        return
    tree = objects.get(tree_id)
    assert isinstance(tree, Tree)
    wanted[tree_id] = tree
    for entry in tree.iteritems():
        if entry.mode == 0o040000:
            add_tree(objects, entry.sha, wanted)
        elif entry.sha not in wanted:
            wanted[entry.sha] = objects.get(entry.sha)
