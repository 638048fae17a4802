"""Small changes to a Snapshot without a rescan: the watcher's common case, row by row.

An agent or an editor rewrote a few known memory files, or edited a few lines of `_index.md` in place:
stat those files, diff the index against the snapshot's entries, and return the new snapshot with the
rows that changed. Anything structural (a file or folder created, deleted or moved, an index line added,
removed or turned into something else, a control file) returns None: the caller rescans.

Pure functions on plain data (no widget): they run in a worker thread.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, replace
from itertools import compress
from operator import attrgetter, itemgetter, ne
from pathlib import Path

from pmem_tui.core import index as index_mod
from pmem_tui.core import textio
from pmem_tui.core.model import ACTIVE_DIRS, INDEX_FILE, ActiveFile, IndexEntry, Snapshot
from pmem_tui.core.report import Baseline
from pmem_tui.core.tokens import estimate_tokens
from pmem_tui.tui.rows import Row, entry_row, orphan_row

# Beyond this many changed paths, a rescan is as cheap as a patch.
MAX_PATCHED_PATHS = 200
_RAW = attrgetter("raw")


class IndexSignature:
    """What the scanned `_index.md` looked like apart from its entries (its line count, a hash of the other
    lines), and lookup tables of the scanned snapshot. A patch keeps every path, route and line number, so
    one signature and its tables serve every patch until the next full scan."""

    __slots__ = ("_first", "_folders", "_positions", "entry_nos", "lines", "other_nos", "others")

    def __init__(self, lines: int, others: int, other_nos: list[int], entry_nos: list[int]) -> None:
        self.lines = lines  # -1: no index
        self.others = others
        self.other_nos = other_nos  # the lines that are not entries
        self.entry_nos = entry_nos  # each entry's line, in entry order
        self._positions: dict[str, int] | None = None
        self._folders: frozenset[str] | None = None
        self._first: dict[str, int] | None = None

    def __repr__(self) -> str:
        return f"IndexSignature(lines={self.lines})"

    def positions(self, active: tuple[ActiveFile, ...]) -> dict[str, int]:
        """Active path -> its position in `snapshot.active`."""
        if self._positions is None:
            self._positions = {a.path: i for i, a in enumerate(active)}
        return self._positions

    def folders(self, active: tuple[ActiveFile, ...]) -> frozenset[str]:
        """Every folder that holds an active file, at any depth."""
        if self._folders is None:
            found: set[str] = set()
            for path in self.positions(active):
                cut = path.rfind("/")
                while cut > 0 and path[:cut] not in found:
                    found.add(path[:cut])
                    cut = path.rfind("/", 0, cut)
            self._folders = frozenset(found)
        return self._folders

    def first_entry(self, entries: tuple[IndexEntry, ...]) -> dict[str, int]:
        """Route -> the position of its first entry."""
        if self._first is None:
            first: dict[str, int] = {}
            for k, e in enumerate(entries):
                first.setdefault(e.route, k)
            self._first = first
        return self._first


@dataclass(frozen=True, slots=True)
class Patch:
    snapshot: Snapshot
    baseline: Baseline | None
    signature: IndexSignature | None
    rows: list[Row]  # the Index rows that changed (keys already in the pane)


def _body_lines(text: str) -> list[str]:
    _bom, body = textio.split_bom(text)
    return body.split("\n")


def _pick(items: list[str], indices: list[int]) -> list[str]:
    if len(indices) > 1:
        return list(itemgetter(*indices)(items))
    return [items[i] for i in indices]


def index_signature(root: Path, snap: Snapshot) -> IndexSignature:
    """The signature of the `_index.md` on disk now, for the snapshot just scanned."""
    entry_nos = [e.line_no for e in snap.index_entries]
    try:
        text = textio.decode((root / INDEX_FILE).read_bytes())
    except OSError:
        return IndexSignature(-1, 0, [], entry_nos)
    lines = _body_lines(text)
    numbers = set(entry_nos)
    other_nos = [i for i in range(len(lines)) if i not in numbers]
    return IndexSignature(len(lines), hash(tuple(_pick(lines, other_nos))), other_nos, entry_nos)


def _raw(lines: list[str], n: int) -> str:
    line = lines[n]
    if n < len(lines) - 1 and line.endswith("\r"):
        return line[:-1]
    return line


def _duplicates(snap: Snapshot) -> set[str]:
    return {p.path for p in snap.problems if p.kind == "duplicate-route"}


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
    positions = signature.positions(active)
    updated: dict[int, ActiveFile] = {}
    index_changed = False
    for rel in changed:
        if rel == INDEX_FILE:
            index_changed = True
            continue
        if not rel:
            continue  # the root's own event: its entries are reported one by one
        top = rel.split("/", 1)[0]
        if rel in ACTIVE_DIRS:
            continue  # the folder's own event: its files are reported one by one
        if top not in ACTIVE_DIRS:
            return None  # _core/, _archive/, another control file...: rescan
        try:
            st = (root / rel).lstat()
        except FileNotFoundError:
            if rel in positions or rel in signature.folders(active):
                return None  # a memory file (or a folder of them) went away
            continue  # an editor's temporary file, already renamed
        except OSError:
            return None
        if stat.S_ISDIR(st.st_mode):
            if rel in signature.folders(active):
                continue  # a known folder: its files are reported one by one
            return None
        if not rel.endswith(".md"):
            continue  # not memory (a temp or swap file)
        if rel not in positions or not stat.S_ISREG(st.st_mode):
            return None  # a new memory file, or a symlink
        i = positions[rel]
        old = active[i]
        if (old.size, old.mtime_ns) != (st.st_size, st.st_mtime_ns):
            updated[i] = replace(old, size=st.st_size, mtime_ns=st.st_mtime_ns)

    entries = snap.index_entries
    changed_entries: dict[int, IndexEntry] = {}
    if index_changed:
        if signature.lines < 0:
            return None
        try:
            data = (root / INDEX_FILE).read_bytes()
        except OSError:
            return None
        lines = _body_lines(textio.decode(data))
        if len(lines) != signature.lines:
            return None  # lines added or removed
        if hash(tuple(_pick(lines, signature.other_nos))) != signature.others:
            return None  # a heading, a comment or a fence changed: which lines are entries may differ
        if any(line.endswith("\r") for line in _pick(lines, signature.entry_nos)):
            differ = [k for k, e in enumerate(entries) if _raw(lines, e.line_no) != e.raw]
        else:  # compared in C: the common case, nothing or one line changed
            picked = _pick(lines, signature.entry_nos)
            differ = list(compress(range(len(entries)), map(ne, picked, map(_RAW, entries))))
        for k in differ:
            entry = entries[k]
            raw = _raw(lines, entry.line_no)
            parsed = index_mod.parse_line(raw)
            if parsed is None or parsed[0] != entry.route:
                return None  # no longer an entry, or another route
            changed_entries[k] = IndexEntry(entry.line_no, raw, parsed[0], parsed[1], parsed[2])
        if changed_entries:
            dups = _duplicates(snap)
            if any(e.route in dups for e in changed_entries.values()):
                return None
            if base is not None:
                tokens = estimate_tokens(data.decode("utf-8-sig", errors="replace"))
                base = replace(base, tokens=base.tokens - base.index_tokens + tokens, index_tokens=tokens)
    if not updated and not changed_entries:
        return Patch(snap, base, signature, [])

    new_entries = entries
    if changed_entries:
        as_list = list(entries)
        for k, entry in changed_entries.items():
            as_list[k] = entry
        new_entries = tuple(as_list)
        for k, entry in changed_entries.items():
            at = positions.get(entry.route)
            if at is None:
                continue  # a dead route
            file = updated.get(at, active[at])
            old_entry = entries[k]
            title = entry.title if file.title == old_entry.title else file.title
            updated[at] = replace(file, index_line=entry.raw, index_summary=entry.summary, title=title)
    new_active = active
    if updated:
        as_active = list(active)
        for i, file in updated.items():
            as_active[i] = file
        new_active = tuple(as_active)
    new_snap = replace(snap, index_entries=new_entries, active=new_active)

    rows: list[Row] = []
    done: set[str] = set()
    first = signature.first_entry(entries)
    dups = _duplicates(snap)
    for file in updated.values():
        if file.path in dups:
            return None  # listed more than once: the pane numbers its copies, rebuild it
        at = first.get(file.path)
        rows.append(orphan_row(file) if at is None else entry_row(new_entries[at], file))
        done.add(file.path)
    for entry in changed_entries.values():
        if entry.route not in done:  # a dead route: its row has no file
            rows.append(entry_row(entry, None))
    return Patch(new_snap, base, signature, rows)
