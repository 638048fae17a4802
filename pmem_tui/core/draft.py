"""A Draft gathers what a plan reads and changes, so several items can share one plan.

Control files (`_index.md`, `_archive/_index.md`) are read once, fingerprinted, edited in memory
by each item in turn (a batch that takes index lines out or puts them back parses `_index.md` once:
`index_taking`, `index_putting`; one that adds, changes or removes records reads again only what changed:
`reading`), and written once at the end: moves first, then the index, then the records (the
spec's order: the index entry goes only after the move), then permanent removals (purge), the only steps
that cannot be undone.
"""

from __future__ import annotations

import copy
import os
import stat
from dataclasses import dataclass, field, fields
from pathlib import Path

from pmem_tui.core import meta_dir, safeio, textio
from pmem_tui.core.errors import Refused
from pmem_tui.core.fingerprint import fingerprint, read_with_fingerprint
from pmem_tui.core.index_places import Putting, Taking
from pmem_tui.core.model import INDEX_FILE, META_DIR, Fingerprint
from pmem_tui.core.paths import check_existing_inside
from pmem_tui.core.plan import FileDiff, MakeDir, MoveFile, Op, Plan, Preview, RemoveFile, WriteFile
from pmem_tui.core.record_read import Reading

# What a draft parsed of its texts, not what it planned: kept by `rollback`.
_DERIVED = ("root", "taking", "putting", "reading")


@dataclass
class Draft:
    root: Path
    reads: dict[str, Fingerprint | None] = field(default_factory=dict)
    originals: dict[str, str | None] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    write_order: list[str] = field(default_factory=list)
    new_files: dict[str, bytes] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)
    moves: list[tuple[str, str]] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    index_removed: list[str] = field(default_factory=list)
    index_added: list[str] = field(default_factory=list)
    record_changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    recovery: list[str] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    taking: Taking | None = None
    putting: Putting | None = None
    reading: Reading = field(default_factory=Reading)  # the records of `_archive/_index.md` as edited

    # -- reading ------------------------------------------------------------------------------

    def read_bytes(self, rel: str) -> bytes | None:
        """Read a file as the plan will see it and fingerprint it (None: absent)."""
        try:
            data, fp = read_with_fingerprint(self.root, rel)
        except FileNotFoundError:
            self.reads[rel] = None
            return None
        self.reads[rel] = fp
        return data

    def text(self, rel: str) -> str | None:
        """A control file's text as edited so far in this draft."""
        if rel in self.texts:
            return self.texts[rel]
        if rel not in self.originals:
            data = self.read_bytes(rel)
            self.originals[rel] = None if data is None else textio.decode(data)
        original = self.originals[rel]
        return original

    def index_taking(self) -> Taking:
        """`_index.md` as edited so far, parsed once for the items that take lines out of it (`Taking`): the
        same while the text is the one it made, parsed again when anything else set it."""
        text = self.text(INDEX_FILE) or ""
        if self.taking is None or self.taking.text is not text:
            self.taking = Taking(text)
        return self.taking

    def index_putting(self) -> Putting:
        """`_index.md` as edited so far, parsed once for the items that put lines back in it (`Putting`),
        under the same rule as `index_taking`."""
        text = self.text(INDEX_FILE) or ""
        if self.putting is None or self.putting.text is not text:
            self.putting = Putting(text)
        return self.putting

    def saw(self, rel: str) -> None:
        """Record the state of a path the plan relies on (a source, or a free destination)."""
        if rel not in self.reads:
            self.reads[rel] = fingerprint(self.root / rel)

    # -- an item at a time ---------------------------------------------------------------------

    def checkpoint(self) -> dict[str, object]:
        """The draft as it is (its lists and maps copied), for `rollback`."""
        return {f.name: copy.copy(getattr(self, f.name)) for f in fields(self) if f.name not in _DERIVED}

    def rollback(self, mark: dict[str, object]) -> None:
        """The draft as at `mark`: an item refused half-way (its index line already taken out, a note
        already said, its file already moved) leaves nothing in the plan (found in review: a batch archive
        whose destination folder was a link took the skipped file's index line out all the same). What is
        parsed is kept: `index_taking` and `index_putting` parse again once the text is not theirs, and
        `reading` reads any text."""
        for name, value in mark.items():
            setattr(self, name, value)

    # -- changing -----------------------------------------------------------------------------

    def set_text(self, rel: str, text: str) -> None:
        if rel not in self.originals:
            self.text(rel)
        self.texts[rel] = text
        if rel not in self.write_order:
            self.write_order.append(rel)

    def create_file(self, rel: str, data: bytes) -> None:
        self.new_files[rel] = data

    def ensure_parents(self, rel: str) -> None:
        """Plan the missing folders above `rel`, outermost first (so a rollback can remove them)."""
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if sub not in self.dirs and not (self.root / sub).is_dir():
                self.dirs.append(sub)

    def make_dir(self, rel: str) -> None:
        if rel not in self.dirs:
            self.dirs.append(rel)

    def move(self, src: str, dst: str) -> None:
        for s, d in self.moves:  # (a batch naming a path twice: each spelling its own item)
            if src in (s, d) or dst in (s, d):
                raise Refused(f"{src} is already moved by this plan ({s} to {d}).")
        # The destination is the tool's own path, but a folder on its way may be an agent's link
        # (`_archive/_trash`, `_archive/projects`): refuse it in the preview, not only under the lock.
        check_existing_inside(self.root, dst)
        self.saw(src)
        self.saw(dst)
        self.ensure_parents(dst)
        self.moves.append((src, dst))

    def remove(self, rel: str) -> None:
        self.saw(rel)
        self.removes.append(rel)

    # -- the plan -----------------------------------------------------------------------------

    def plan(self, action: str, title: str) -> Plan:
        ops: list[Op] = [MakeDir(d) for d in self.dirs]
        ops += [MoveFile(s, d) for s, d in self.moves]
        diffs: list[FileDiff] = []
        for rel, data in self.new_files.items():
            old = self.originals.get(rel)
            ops.append(WriteFile(rel, data, create=old is None))
            diffs.append(FileDiff(rel, old or "", textio.decode(data), is_new=old is None))
        for rel in self.write_order:
            old = self.originals.get(rel)
            new = self.texts[rel]
            if old == new:
                continue
            ops.append(WriteFile(rel, textio.encode(new), create=old is None))
            diffs.append(FileDiff(rel, old or "", new, is_new=old is None))
        read_only = [note for d in diffs if not d.is_new and (note := _read_only(self.root, d.path))]
        # Permanent removals last: until the first one runs, a failed action can still be undone.
        ops += [RemoveFile(r) for r in self.removes]
        # Folders and control files this plan brings into being (first save, upgrade).
        creates = tuple(self.dirs) + tuple(r for r in self.write_order if self.originals.get(r) is None)
        preview = Preview(
            diffs=tuple(diffs),
            moves=tuple(self.moves),
            creates=creates,
            meta_creates=meta_dir.to_create(self.root, action, ops),
            removes=tuple(self.removes),
            index_removed=tuple(self.index_removed),
            index_added=tuple(self.index_added),
            record_changes=tuple(self.record_changes),
            recovery=" ".join(self.recovery),
            notes=(*self.notes, *read_only),
        )
        return Plan(
            action=action,
            title=title,
            ops=tuple(ops),
            reads=dict(self.reads),
            preview=preview,
            outcome=" ".join(self.outcomes),
            items=tuple(self.items),
            reasons=dict(self.reasons),
        )


def diffs_of_writes(root: Path, ops: tuple[Op, ...] | list[Op]) -> tuple[FileDiff, ...]:
    """The diffs of a hand-built plan's writes (doctor's): each memory text file a `WriteFile` replaces, as
    it is now against what it will hold. Not the tool's own files, nor bytes that are not UTF-8 text."""
    out: list[FileDiff] = []
    for op in ops:
        if not isinstance(op, WriteFile) or op.path.split("/", 1)[0] == META_DIR:
            continue
        try:
            old: bytes | None = safeio.read_under(root, op.path)
        except FileNotFoundError:
            old = None
        except OSError:
            continue
        if textio.is_valid_utf8(op.content) and (old is None or textio.is_valid_utf8(old)):
            before = "" if old is None else textio.decode(old)
            out.append(FileDiff(op.path, before, textio.decode(op.content), is_new=old is None))
    return tuple(out)


def exists(root: Path, rel: str) -> bool:
    return os.path.lexists(root / rel)


def _read_only(root: Path, rel: str) -> str:
    """A note when `rel` has no write permission (found in trial: a `chmod 444` `_index.md` was rewritten
    without a word); "" otherwise. The write replaces it all the same, keeping its mode."""
    try:
        mode = safeio.lstat_under(root, rel).st_mode
    except OSError:
        return ""
    if mode & stat.S_IWUSR:
        return ""
    shown = f"{stat.S_IMODE(mode):03o}"
    return f"{rel} is read-only (mode {shown}); confirming replaces it all the same, keeping that mode."
