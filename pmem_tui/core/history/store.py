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
import struct
import time
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from dulwich.object_format import DEFAULT_OBJECT_FORMAT
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree, serialize_tree, sorted_tree_items
from dulwich.pack import Pack, pack_object_header, write_pack_index, write_pack_objects

from pmem_tui.core import safeio
from pmem_tui.core.fsops import FS
from pmem_tui.core.history.names import HISTORY_DIR, MAIN_REF, REVIEWED_REF
from pmem_tui.core.history.stat_table import read_head

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from dulwich.object_store import DiskObjectStore

__all__ = [
    "AUTHOR",
    "BLOB",
    "PACK_DIR",
    "TREE",
    "DamagedStore",
    "Entry",
    "Objects",
    "add_tree",
    "blob_digest",
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
    "update_tree",
    "write_entries",
]

AUTHOR = b"pmem-tui <pmem-tui@localhost>"
PACK_DIR = f"{HISTORY_DIR}/objects/pack"
DELTA_WINDOW = 4  # candidates each object is tried against as a delta base (each try costs ~1 ms)
# A record's pack is compressed fast (zlib level 1), unless its objects hold more than this: then they are
# stored (level 0). Compressing is ~40 us per 2 KB object here, the whole of a first record's budget at 10k
# files; the stored objects are compressed with deltas when a repack rewrites them (`repack`, `git gc`).
STORED_OVER_BYTES = 1 << 20
BLOB = Blob.type_num
TREE = Tree.type_num
Entry = tuple[int, bytes, bytes]  # an object to write: its type number, its raw content, its binary id
_FILE_MODE = 0o100644
_DIR_MODE = 0o040000
_HEAD = b"ref: refs/heads/main\n"
_CONFIG = b"[core]\n\trepositoryformatversion = 0\n\tfilemode = false\n\tbare = true\n"
_DESCRIPTION = b"pmem-tui's history of this memory: read it with `git --git-dir=.pmem/history log -p`.\n"


class DamagedStore(Exception):
    """The store cannot be read or written as it is; the message is the reason, for one sentence."""


def blob_id(data: bytes) -> str:
    """The git blob id of `data` (what `git hash-object` prints)."""
    return blob_digest(data).hex()


def blob_digest(data: bytes) -> bytes:
    """The git blob id of `data`, binary (its header hashed, then its bytes: no copy of them is made)."""
    sha = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    sha.update(data)
    return sha.digest()


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
    """The store's objects, read by hex id, from its packs (dulwich's `Pack`; the store writes no loose
    objects). dulwich's whole object store (`disk`, for its tree walks) is opened only when asked for: a
    record of one changed file reads its parent record and nothing else. `close` closes what was opened."""

    def __init__(self, path: str) -> None:
        self.path = path  # the store's objects folder
        self._disk: DiskObjectStore | None = None
        self._packs: list[Pack] | None = None

    @property
    def disk(self) -> DiskObjectStore:
        if self._disk is None:
            from dulwich.object_store import DiskObjectStore

            self._disk = DiskObjectStore(self.path)
        return self._disk

    def _pack_list(self) -> list[Pack]:
        """The packs with their index (as dulwich and git count them), listed once: dulwich lists the folder
        at every lookup, and a first record looks up ten thousand blobs. Newest first: the last record and
        the trees on a recently edited path are in the newest pack, and each pack asked loads its index."""
        if self._packs is None:
            folder = os.path.join(self.path, "pack")
            names = set(os.listdir(folder))
            bases = [n[:-5] for n in names if n.endswith(".pack") and f"{n[:-5]}.idx" in names]
            self._packs = [
                Pack(os.path.join(folder, base), object_format=DEFAULT_OBJECT_FORMAT)
                for _, base in sorted(((_mtime(folder, base), base) for base in bases), reverse=True)
            ]
        return self._packs

    def has(self, hex_id: str | bytes) -> bool:
        """Whether a pack holds the object."""
        packs = self._pack_list()
        return bool(packs) and any(_oid(hex_id) in pack for pack in packs)

    def get(self, hex_id: str | bytes) -> ShaFile:
        oid = _oid(hex_id)
        for pack in self._pack_list():
            if oid in pack:
                return pack[oid]
        return self.disk[oid]  # KeyError when no pack (nor a loose object git may have left) holds it

    def close(self) -> None:
        for pack in self._packs or ():
            pack.close()
        if self._disk is not None:
            self._disk.close()
        self._packs = self._disk = None

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

    def snapshot(self, commit_id: str | None) -> tuple[dict[str, str], dict[str, str]]:
        """A record's flat {path: blob id} and each folder's tree id ("" the root), both empty for None."""
        files: dict[str, str] = {}
        trees: dict[str, str] = {}
        if commit_id is None:
            return files, trees
        stack = [("", self.commit(commit_id).tree)]
        while stack:
            folder, tree_id = stack.pop()
            trees[folder] = tree_id.decode("ascii")
            tree = self.get(tree_id)
            if not isinstance(tree, Tree):
                raise DamagedStore(f"{tree_id.decode('ascii')[:12]} is not a folder")
            for entry in tree.iteritems():
                name = entry.path.decode("utf-8", "surrogateescape")
                path = f"{folder}/{name}" if folder else name
                if stat.S_ISDIR(entry.mode):
                    stack.append((path, entry.sha))
                else:
                    files[path] = entry.sha.decode("ascii")
        return files, trees

    @property
    def pack_count(self) -> int:
        return len(self._pack_list())


def _mtime(folder: str, base: str) -> int:
    try:
        return os.stat(os.path.join(folder, f"{base}.idx")).st_mtime_ns
    except OSError:
        return 0


def open_objects(root: Path) -> Objects:
    """The store's objects, for reading. DamagedStore when the store is missing, a link, or not a store."""
    try:
        st = safeio.lstat_under(root, f"{HISTORY_DIR}/objects")
    except OSError as err:
        raise DamagedStore(f"there is no history store at {HISTORY_DIR} ({err.strerror})") from err
    if not stat.S_ISDIR(st.st_mode):
        raise DamagedStore(f"{HISTORY_DIR}/objects is not a folder")
    return Objects(str(root / HISTORY_DIR / "objects"))


def entry_of(obj: ShaFile) -> Entry:
    return obj.type_num, obj.as_raw_string(), bytes.fromhex(obj.id.decode("ascii"))


def write_entries(fs: FS, entries: list[Entry]) -> None:
    """A record's pack: `entries` whole (no deltas: a record is written in one pass over its objects, each
    one header (dulwich's `pack_object_header`) and one zlib stream), then its index (dulwich's
    `write_pack_index`), through `fs`. An object given twice is written once; none: nothing is written."""
    if not entries:
        return
    stored = sum(len(raw) for _, raw, _ in entries) > STORED_OVER_BYTES
    parts: list[bytes] = [b""]  # the pack's header, once the count is known
    index: dict[bytes, tuple[int, int]] = {}
    heads: dict[tuple[int, int], tuple[bytes, int]] = {}  # by type and size: a head and its CRC-32
    offset = 12
    for type_num, raw, sha in entries:
        if sha in index:
            continue
        size = len(raw)
        if stored and size <= _STORED_BLOCK:
            known = heads.get((type_num, size))
            if known is None:  # the object's header and its stream's start (no copy of its bytes is made)
                head = bytes(pack_object_header(type_num, None, size, DEFAULT_OBJECT_FORMAT))
                head += _stored_head(size)
                known = heads[type_num, size] = (head, zlib.crc32(head))
            tail = struct.pack(">I", zlib.adler32(raw))
            index[sha] = (offset, zlib.crc32(tail, zlib.crc32(raw, known[1])))
            parts += (known[0], raw, tail)
            offset += len(known[0]) + size + 4
        else:
            head = bytes(pack_object_header(type_num, None, size, DEFAULT_OBJECT_FORMAT))
            body = zlib.compress(raw, 0 if stored else 1)
            index[sha] = (offset, zlib.crc32(body, zlib.crc32(head)))
            parts += (head, body)
            offset += len(head) + len(body)
    parts[0] = b"PACK" + struct.pack(">LL", 2, len(index))
    data = b"".join(parts)
    checksum = hashlib.sha1(data, usedforsecurity=False).digest()
    rows = sorted((sha, off, crc) for sha, (off, crc) in index.items())
    _write_pack_files(fs, [data, checksum], rows, checksum)


_STORED_BLOCK = 0xFFFF  # the most one stored deflate block holds


def _stored_head(size: int) -> bytes:
    """A zlib stream's start (RFC 1950: deflate, no preset dictionary, level "fastest") and one final
    stored deflate block's header (RFC 1951) for `size` bytes: what `zlib.compress(data, 0)` makes, less
    the data and the Adler-32 after it."""
    return b"\x78\x01\x01" + struct.pack("<HH", size, size ^ 0xFFFF)


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
    index = sorted((sha, off, crc) for sha, (off, crc) in entries.items())
    return _write_pack_files(fs, [pack.getvalue()], index, checksum)


def _write_pack_files(fs: FS, pack: list[bytes], index: list[tuple[bytes, int, int]], checksum: bytes) -> str:
    """The pack, then its index (sorted (binary id, offset, CRC-32) rows), through `fs`; its base name."""
    out = io.BytesIO()
    write_pack_index(out, index, checksum)
    base = f"pack-{checksum.hex()}"
    fs.write_atomic(f"{PACK_DIR}/{base}.pack", pack)
    fs.write_atomic(f"{PACK_DIR}/{base}.idx", out.getvalue())
    return base


def set_ref(fs: FS, ref: str, commit: str) -> None:
    """Point `ref` at `commit` (atomically, through `fs`): the last step of a record."""
    parent = f"{HISTORY_DIR}/{ref}".rsplit("/", 1)[0]
    fs.makedirs(parent)
    fs.write_atomic(f"{HISTORY_DIR}/{ref}", commit.encode("ascii") + b"\n")


def build_tree(files: dict[str, str]) -> tuple[str, list[Entry], dict[str, str]]:
    """The trees of a flat {path: blob id}: the root tree's id, every tree to write (root last), and each
    folder's tree id ("" for the root)."""
    folders: dict[str, dict[str, tuple[int, str]]] = {"": {}}
    for path, blob in files.items():
        head, _, name = path.rpartition("/")
        into = folders.get(head)
        if into is None:
            into = folders[head] = {}
            above = head.rpartition("/")[0]
            while above not in folders:  # its folders up to one already known
                folders[above] = {}
                above = above.rpartition("/")[0]
        into[name] = (_FILE_MODE, blob)
    return _build(folders)


def update_tree(
    objects: Objects, files: dict[str, str], last: dict[str, str], changed: Iterable[str]
) -> tuple[str, list[Entry], dict[str, str]]:
    """`build_tree` of `files`, from the record whose folders' tree ids are `last`, where only the paths
    `changed` (added, modified, removed) differ: the trees on a changed path are read, changed and built
    again; every other folder keeps its id. Their entries are kept as they are (a mode git wrote too)."""
    folders: dict[str, dict[str, tuple[int, str]]] = {}
    for path in changed:
        folder = path.rpartition("/")[0]
        while folder not in folders:
            folders[folder] = _entries(objects, last[folder]) if folder in last else {}
            if not folder:
                break
            folder = folder.rpartition("/")[0]
    for path in changed:  # the files first: a folder that became a file (or the reverse) is seen below
        head, _, name = path.rpartition("/")
        blob = files.get(path)
        if blob is not None:
            folders[head][name] = (_FILE_MODE, blob)
        elif folders[head].get(name, (_DIR_MODE,))[0] != _DIR_MODE:
            del folders[head][name]
    ids = {folder: tree for folder, tree in last.items() if folder not in folders}
    root_id, trees, built = _build(folders)
    ids.update(built)
    return root_id, trees, ids


def _entries(objects: Objects, tree_id: str) -> dict[str, tuple[int, str]]:
    tree = objects.get(tree_id)
    if not isinstance(tree, Tree):
        raise DamagedStore(f"{tree_id[:12]} is not a folder")
    return {
        e.path.decode("utf-8", "surrogateescape"): (e.mode, e.sha.decode("ascii")) for e in tree.iteritems()
    }


def _build(folders: dict[str, dict[str, tuple[int, str]]]) -> tuple[str, list[Entry], dict[str, str]]:
    """The trees of `folders` (each folder's entries; a folder's own entry in its parent is set here,
    deepest first; a folder left empty goes, as git keeps no empty tree, but the root)."""
    trees: list[Entry] = []
    ids: dict[str, str] = {}
    for folder in sorted(folders, key=lambda f: -1 if not f else f.count("/"), reverse=True):
        entries = folders[folder]
        head, _, name = folder.rpartition("/")
        if folder and not entries:
            if folders[head].get(name, (0,))[0] == _DIR_MODE:
                del folders[head][name]
            continue
        tree = _tree(entries)
        trees.append(tree)
        ids[folder] = tree[2].hex()
        if folder:
            folders[head][name] = (_DIR_MODE, ids[folder])
    return ids[""], trees, ids


def _tree(entries: dict[str, tuple[int, str]]) -> Entry:
    """A tree of `entries` as an object to write: dulwich's own order and form (`sorted_tree_items`,
    `serialize_tree`), no `Tree` object made (a first record builds hundreds of trees of 10k entries)."""
    items: dict[bytes, Any] = {  # (mode, ObjectID): an ObjectID is the hex id's bytes (no call per entry)
        name.encode("utf-8", "surrogateescape"): (mode, sha.encode("ascii"))
        for name, (mode, sha) in entries.items()
    }
    raw = b"".join(serialize_tree(sorted_tree_items(items, False)))
    sha1 = hashlib.sha1(b"tree %d\0" % len(raw), usedforsecurity=False)
    sha1.update(raw)
    return TREE, raw, sha1.digest()


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
