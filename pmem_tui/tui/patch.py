"""Small changes to a Snapshot without a rescan: the watcher's common case, row by row.

An agent or an editor rewrote a few known memory files, or edited a few lines of `_index.md` in place:
stat those files, diff the index against the signature of the scanned one, and return the new snapshot with
the rows that changed. Anything structural (a file or folder created, deleted or moved, an index line added,
removed or turned into something else, a control file) returns None: the caller rescans.

Pure functions on plain data (no widget): they run in a worker thread.
"""

from __future__ import annotations

import os
import stat
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, compress, count
from operator import attrgetter, ne
from pathlib import Path

from pmem_tui.core import columns, report, safeio, textio
from pmem_tui.core import index as index_mod
from pmem_tui.core.model import ACTIVE_DIRS, INDEX_FILE, ActiveFile, IndexEntry, Snapshot
from pmem_tui.core.report import Baseline
from pmem_tui.core.tokens import tokens_for_chars
from pmem_tui.tui.rows import Row, entry_row, orphan_details, orphan_row

# Beyond this many changed paths, a rescan is as cheap as a patch.
MAX_PATCHED_PATHS = 200
# Lines of `_index.md` hashed together as one chunk (~8 KB): finding the changed chunks hashes the file once,
# in C, and leaves a few dozen lines to split and compare; the chunk table stays ~25 KB at 100k lines.
CHUNK_LINES = 64
_BLOCK = 1 << 16  # bytes per step when the signature is built
_BOM = textio.BOM.encode("utf-8")
_LINE_NO = attrgetter("line_no")


Stamp = tuple[int, int, int, int, int]  # see `_stamp`


class IndexSignature:
    """The scanned `_index.md` byte for byte, without its bytes: a hash of each line and of each chunk of
    CHUNK_LINES lines, where each chunk starts, and its loader character count. The hashes are renewed by
    each patch of the index (`patch` returns the new signature). Hashes are Python's own (per process, never
    stored): 64-bit, so a change that keeps a chunk's hash is not a practical risk."""

    __slots__ = ("bom", "chars", "chunk_hashes", "line_hashes", "lines", "offsets", "stamp")

    def __init__(
        self,
        lines: int,
        offsets: array[int] | None = None,
        chunk_hashes: array[int] | None = None,
        line_hashes: array[int] | None = None,
        bom: bool = False,
        chars: int = 0,
    ) -> None:
        self.lines = lines  # -1: no index (or nothing a patch can use)
        self.offsets = offsets if offsets is not None else array("q")  # each chunk's start, then the size
        self.chunk_hashes = chunk_hashes if chunk_hashes is not None else array("q")
        self.line_hashes = line_hashes if line_hashes is not None else array("q")  # line 0 with its BOM
        self.bom = bom
        self.chars = chars  # characters as the loader decodes the file (no BOM, bad bytes as U+FFFD)
        self.stamp: Stamp | None = None  # the file's `_stamp` when it was read

    def __repr__(self) -> str:
        return f"IndexSignature(lines={self.lines})"

    def _renewed(
        self, offsets: array[int], chunk_hashes: array[int], line_hashes: array[int], chars: int
    ) -> IndexSignature:
        """The signature of the patched file (the same lines)."""
        return IndexSignature(self.lines, offsets, chunk_hashes, line_hashes, self.bom, chars)


# Lookups in the snapshot without tables (a dict of 10^5 paths is ~10 MB): `tree.scan` lists the active files
# folder by folder in ACTIVE_DIRS order, each sorted by path, and a patch keeps that order, so a path is
# found by bisection on (its folder's rank, path).
_RANK = {name: rank for rank, name in enumerate(ACTIVE_DIRS)}


def _order(path: str) -> tuple[int, str]:
    return _RANK.get(path.split("/", 1)[0], len(ACTIVE_DIRS)), path


def _order_of(file: ActiveFile) -> tuple[int, str]:
    return _order(file.path)


def position(active: Sequence[ActiveFile], path: str) -> int | None:
    """The position of `path` in `snapshot.active`, None when it is not an active file."""
    i = bisect_left(active, _order(path), key=_order_of)
    return i if i < len(active) and active[i].path == path else None


def holds_active(active: Sequence[ActiveFile], folder: str) -> bool:
    """Whether `folder` holds an active file, at any depth (the paths below it sort together, from it)."""
    prefix = folder + "/"
    i = bisect_left(active, _order(prefix), key=_order_of)
    return i < len(active) and active[i].path.startswith(prefix)


# The paths the walk said it did not read (a link, a special file, a folder it could not list) and the folders
# above them, for the last snapshot's problems: a patch keeps that tuple, so it is gathered once, not on
# every editor's temporary file (10^5 problems take ~10 ms to go through).
_SAID: tuple[object, frozenset[str]] = ((), frozenset())
_WALK_KINDS = frozenset({"symlink", "unreadable"})


def said(snap: Snapshot, rel: str) -> bool:
    """Whether the scan said a problem of the walk at `rel` or below it."""
    global _SAID
    problems, paths = _SAID
    if problems is not snap.problems:
        found: set[str] = set()
        for problem in snap.problems:
            if problem.kind in _WALK_KINDS:
                path = problem.path
                while path and path not in found:
                    found.add(path)
                    path = path.rpartition("/")[0]
        paths = frozenset(found)
        _SAID = (snap.problems, paths)
    return rel in paths


@dataclass(frozen=True, slots=True)
class Patch:
    snapshot: Snapshot
    baseline: Baseline | None
    signature: IndexSignature | None
    rows: list[Row]  # the Index rows that changed (keys already in the pane)


def _hashes(data: bytes, offsets: array[int], first: int, last: int) -> Iterator[int]:
    """The hashes of chunks first..last-1, lazily. Slices of the bytes, not of a memoryview: hashing a view
    first hashes the whole object it views (13 MB at 100k lines), and the ~8 KB copies cost less."""
    return map(hash, map(data.__getitem__, map(slice, offsets[first:last], offsets[first + 1 : last + 1])))


def signature_of(data: bytes, entries: Sequence[IndexEntry]) -> IndexSignature:
    """The signature of `_index.md` holding `data`, whose entries (as scanned) are `entries`."""
    line_hashes = array("q")
    offsets = array("q")
    chars = lines = pos = 0
    # Block by block (~64 KB of whole lines): the file is never held as 10^5 line objects or one decoded str.
    while True:
        end = data.find(b"\n", pos + _BLOCK)
        block = data[pos:] if end < 0 else data[pos:end]
        parts = block.split(b"\n")
        line_hashes.extend(map(hash, parts))
        # A line starts after the lines before it in the block and their "\n": their lengths summed, plus t.
        before = list(accumulate(map(len, parts), initial=0))
        offsets.extend(pos + before[t] + t for t in range(-lines % CHUNK_LINES, len(parts), CHUNK_LINES))
        lines += len(parts)
        chars += len(block.decode("utf-8", errors="replace"))  # a bad sequence never spans a "\n"
        if end < 0:
            break
        chars += 1
        pos = end + 1
    if entries and entries[-1].line_no >= lines:
        return IndexSignature(-1)  # the file is not the one scanned: nothing to patch against
    offsets.append(len(data))
    chunks = array("q", _hashes(data, offsets, 0, len(offsets) - 1))
    bom = data.startswith(_BOM)
    return IndexSignature(lines, offsets, chunks, line_hashes, bom, chars - bom)  # the loader drops a BOM


def index_signature(root: Path, snap: Snapshot) -> IndexSignature:
    """The signature of the `_index.md` on disk now, for the snapshot just scanned."""
    return checked(read_signature(root), snap.index_entries, root)


def read_signature(root: Path) -> IndexSignature:
    """The signature of the `_index.md` on disk now, not yet checked against scanned entries (`checked`).
    Taken before a scan, its copy of the file (13 MB at 10^5 lines) comes and goes while little else is
    alive, so it never adds to the peak on top of the new snapshot. A change between this read and the
    scan is caught by `checked`: the file's inode, size or times differ."""
    read = _read_stamped(root / INDEX_FILE)
    if read is None:
        return IndexSignature(-1)  # none, unreadable, or changed while read
    signature = signature_of(read[0], ())
    signature.stamp = read[1]
    return signature


def checked(
    signature: IndexSignature, entries: Sequence[IndexEntry], root: Path | None = None
) -> IndexSignature:
    """`signature`, or no signature when the scanned `entries` cannot be lines of its file, or (with `root`)
    when `_index.md` changed since the signature was read: the scan may then have read another version, and
    a later patch, which compares only the lines that change, could not tell (found in review)."""
    if entries and entries[-1].line_no >= signature.lines:
        return IndexSignature(-1)  # the file is not the one scanned: nothing to patch against
    if root is not None and signature.stamp is not None:
        try:
            same = _stamp(os.stat(root / INDEX_FILE)) == signature.stamp
        except OSError:
            same = False
        if not same:
            return IndexSignature(-1)
    return signature


def _stamp(st: os.stat_result) -> Stamp:
    """What changes whenever the file does: a rename onto it changes the inode, a write the ctime."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def baseline(snap: Snapshot, signature: IndexSignature | None) -> Baseline:
    """`report.baseline(snap)`, with the index's share from the signature just taken of it (`chars`): the
    13 MB index of 10^5 lines is not read and decoded whole once more, on top of the new snapshot."""
    chars = signature.chars if signature is not None and signature.lines >= 0 else None
    return report.baseline(snap, chars)


def _read_stamped(path: Path) -> tuple[bytes, Stamp] | None:
    """The file's bytes and stamp, or None when it cannot be read or changed (or was replaced) while it was
    read."""
    try:
        fd, st = safeio.open_path(path)  # never a link, a FIFO or a device; over the cap: refused
        try:
            before, data = _stamp(st), safeio.read_fd(fd, st, path.name, safeio.MEMORY_CAP)
        finally:
            os.close(fd)
        after = _stamp(os.lstat(path))
    except OSError:
        return None
    return (data, before) if before == after and len(data) == before[2] else None


def diff_index(
    data: bytes, entries: Sequence[IndexEntry], sig: IndexSignature
) -> tuple[dict[int, IndexEntry], IndexSignature] | None:
    """The entries (by position) whose lines `data` edits in place, and the signature of `data`; None when
    `data` is not `entries`' file with entry lines edited in place, each keeping its route, as valid UTF-8.

    The chunks before the first changed one are found equal at their old offsets, those after the last
    changed one at their offsets shifted by the change in size; only the lines between are split, and only
    those whose hash changed are decoded and parsed."""
    offsets, chunk_hashes = sig.offsets, sig.chunk_hashes
    chunks = len(chunk_hashes)
    if sig.lines < 0 or not chunks:
        return None  # no index when scanned
    shift = len(data) - offsets[-1]
    unequal = map(ne, _hashes(data, offsets, 0, chunks), chunk_hashes)  # lazy: stops at the first change
    i = next(compress(count(), unequal), None)
    if i is None:
        if not shift:
            return {}, sig  # the very same bytes
        i = chunks - 1  # bytes appended
    start = offsets[i]
    # The chunks after the change: only those that, shifted, still start after the unchanged head.
    lowest = bisect_left(offsets, start - shift, i, chunks)
    j = max(lowest - 1, i)
    for k in range(chunks - 1, lowest - 1, -1):
        if hash(data[offsets[k] + shift : offsets[k + 1] + shift]) != chunk_hashes[k]:
            j = k
            break
    end = offsets[j + 1] + shift
    region = data[start:end]
    first, last = i * CHUNK_LINES, min((j + 1) * CHUNK_LINES, sig.lines)
    parts = region.split(b"\n")
    if j < chunks - 1 and parts.pop():
        return None  # the region no longer ends a line: lines were joined or split
    if len(parts) != last - first:
        return None  # lines added or removed
    hashes = list(map(hash, parts))
    differ = list(compress(range(len(parts)), map(ne, hashes, sig.line_hashes[first:last])))
    if not differ:
        return None  # cannot be (a chunk differs): do not trust the signature
    line_hashes = array("q", sig.line_hashes)
    chars = sig.chars
    changed: dict[int, IndexEntry] = {}
    for t in differ:
        n = first + t
        k = bisect_left(entries, n, key=_LINE_NO)
        if k == len(entries) or entries[k].line_no != n:
            return None  # a heading, a comment or a fence changed: which lines are entries may differ
        entry = entries[k]
        seg, lead = parts[t], b""
        if n == 0 and sig.bom:
            if not seg.startswith(_BOM):
                return None  # the BOM went away
            seg, lead = seg[len(_BOM) :], _BOM
        elif n == 0 and seg.startswith(_BOM):
            return None  # a BOM came
        try:
            text = seg.decode("utf-8")
        except UnicodeDecodeError:
            return None  # not UTF-8: the scan decides what it shows
        old = textio.encode(entry.raw)
        if hash(lead + old) == sig.line_hashes[n]:
            old_chars = len(old.decode("utf-8", errors="replace"))
        elif n < sig.lines - 1 and hash(lead + old + b"\r") == sig.line_hashes[n]:
            old_chars = len(old.decode("utf-8", errors="replace")) + 1
        else:
            return None  # the signature does not describe the shown entries
        chars += len(text) - old_chars
        line_hashes[n] = hashes[t]
        raw = text[:-1] if n < sig.lines - 1 and text.endswith("\r") else text
        if raw == entry.raw:
            continue  # only its line ending changed: the same entry
        parsed = index_mod.parse_line(raw)
        if parsed is None or parsed[0] != entry.route:
            return None  # no longer an entry, or another route
        changed[k] = IndexEntry(n, raw, parsed[0], parsed[1], parsed[2])
    # The renewed chunk table: the changed chunks re-hashed, the later ones moved by `shift`.
    new_offsets = offsets[: i + 1]
    ends = list(accumulate(map(len, parts), initial=0))
    new_offsets.extend(start + ends[m] + m for m in range(CHUNK_LINES, len(parts), CHUNK_LINES))
    new_offsets.extend([o + shift for o in offsets[j + 1 :]] if shift else offsets[j + 1 :])
    new_chunks = array("q", chunk_hashes)
    new_chunks[i : j + 1] = array("q", _hashes(data, new_offsets, i, j + 1))
    return changed, sig._renewed(new_offsets, new_chunks, line_hashes, chars)


def patch(
    root: Path,
    snap: Snapshot,
    base: Baseline | None,
    signature: IndexSignature | None,
    changed: frozenset[str],
) -> Patch | None:
    """The snapshot after `changed` (paths relative to the root), or None when only a rescan can tell."""
    if not snap.exists or signature is None or len(changed) > MAX_PATCHED_PATHS:
        return None
    active = snap.active
    updated: dict[int, ActiveFile] = {}
    index_changed = False
    for rel in changed:
        if rel == INDEX_FILE:
            index_changed = True
            continue
        if not rel:
            continue  # the root's own event: its entries are reported one by one
        top = rel.split("/", 1)[0]
        if top not in ACTIVE_DIRS or (rel[-3:].lower() == ".md" and not rel.endswith(".md")):
            return None  # _core/, _archive/, another control file, a file the scan says ends in '.MD'
        try:
            st = safeio.lstat_under(root, rel)  # a link among its folders: UnsafeFile, so a rescan
        except FileNotFoundError:
            if position(active, rel) is not None or holds_active(active, rel) or said(snap, rel):
                return None  # a memory file (or a folder of them, or a link or FIFO the scan said) went away
            continue  # an editor's temporary file, already renamed
        except OSError:
            return None
        if stat.S_ISDIR(st.st_mode):
            if rel in ACTIVE_DIRS or holds_active(active, rel):
                continue  # a known folder: its files are reported one by one
            return None
        if rel in ACTIVE_DIRS or holds_active(active, rel) or said(snap, rel):
            # A folder of memory files replaced by a file, a link or a FIFO (its files are not reported one
            # by one: found in trial, the view kept them until a rescan), or a link or special file the scan
            # said replaced: only a rescan can tell what is there now.
            return None
        if not rel.endswith(".md"):
            if stat.S_ISREG(st.st_mode):
                continue  # not memory (a temp or swap file)
            return None  # a new link or special file: a problem the scan says
        i = position(active, rel)
        if i is None or not stat.S_ISREG(st.st_mode):
            return None  # a new memory file, or a symlink
        old = active[i]
        if (old.size, old.mtime_ns) != (st.st_size, st.st_mtime_ns):
            updated[i] = replace(old, size=st.st_size, mtime_ns=st.st_mtime_ns)

    entries = snap.index_entries
    changed_entries: dict[int, IndexEntry] = {}
    dups = snap.routes_listed_again()  # the pane numbers their copies: a change to one rebuilds it
    if index_changed:
        if signature.lines < 0:
            return None
        read = _read_stamped(root / INDEX_FILE)
        data = read[0] if read is not None else None
        found = None if data is None else diff_index(data, entries, signature)
        if found is None:
            return None
        changed_entries, new_signature = found
        if any(e.route in dups for e in changed_entries.values()):
            return None
        if base is not None and new_signature.chars != signature.chars:
            tokens = tokens_for_chars(new_signature.chars)
            base = replace(base, tokens=base.tokens - base.index_tokens + tokens, index_tokens=tokens)
        signature = new_signature
    if not updated and not changed_entries:
        return Patch(snap, base, signature, [])

    new_entries = columns.replaced_entries(entries, changed_entries)
    if changed_entries:
        for k, entry in changed_entries.items():
            at = position(active, entry.route)
            if at is None:
                continue  # a dead route
            file = updated.get(at, active[at])
            old_entry = entries[k]
            title = entry.title if file.title == old_entry.title else file.title
            updated[at] = replace(file, entry=entry, title=title)
    new_snap = replace(
        snap, index_entries=new_entries, active=columns.replaced_files(active, updated, new_entries)
    )

    rows: list[Row] = []
    done: set[str] = set()
    details: dict[str, str] | None = None
    for file in updated.values():
        if file.path in dups:
            return None
        if file.entry is None:
            details = orphan_details(snap.problems) if details is None else details
            rows.append(orphan_row(file, details.get(file.path)))
        else:  # its entry, as patched (the scan gives each listed file its first entry)
            at = bisect_left(new_entries, file.entry.line_no, key=_LINE_NO)
            rows.append(entry_row(new_entries[at], file))
        done.add(file.path)
    for entry in changed_entries.values():
        if entry.route not in done:  # a dead route: its row has no file
            rows.append(entry_row(entry, None))
    return Patch(new_snap, base, signature, rows)
