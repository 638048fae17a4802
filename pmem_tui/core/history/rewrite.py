"""Changing what the history holds: forget a version's content, prune old versions, repack, and repair.

Forget and prune rewrite records (a record's id is the hash of its content and of its parent's id, so every
record after the first one changed is rewritten too), move the refs to the rewritten records, then repack:
one new pack with only what the refs reach, the old packs removed. The removed content is then gone from the
store: stock git (`git cat-file`) cannot find it. Both are previewed first (`plan_forget`, `plan_prune`) and
never touch a memory file. Every write goes through `FS` (pack, then index, then refs, then the old packs
removed): a crash leaves either the old records or the new ones, each complete.

`repair` is doctor's part: it checks that every record the ref reaches can be read and, when not, keeps what
it can (the newest record whose whole history reads, else none: the damaged store is moved aside, kept, and
a new one starts from the memory as it is now).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from dulwich.objects import ShaFile

from pmem_tui.core import safeio
from pmem_tui.core.errors import Refused
from pmem_tui.core.fsops import FS
from pmem_tui.core.history import log, names, record, stat_table, store
from pmem_tui.core.history.names import HISTORY_DIR, MAIN_REF, REVIEWED_REF
from pmem_tui.core.words import plural

__all__ = [
    "ForgetAllPlan",
    "ForgetPlan",
    "PrunePlan",
    "apply_forget",
    "apply_forget_all",
    "apply_prune",
    "check",
    "plan_forget",
    "plan_forget_all",
    "plan_prune",
    "repair",
    "replan_forget",
]

_REFS = (MAIN_REF, REVIEWED_REF)
DAY_S = 86_400


@dataclass(frozen=True)
class ForgetPlan:
    """Forget one content: every record holding a file with the blob `blob` is rewritten without it."""

    path: str
    version: str
    blob: str
    records: int  # how many records hold it (each is rewritten, and every record after the first)
    live_has_it: bool  # the memory file still holds this content now

    def lines(self) -> list[str]:
        out = [
            f"Forget the content of {self.path} at version {self.version[:12]} from the history:",
            f"  {plural(self.records, 'record')} {'holds' if self.records == 1 else 'hold'} it; "
            f"{'that record' if self.records == 1 else 'they'} and every later one are rewritten without it,",
            "  then the store is repacked so the content is gone from it. The memory file is not touched.",
        ]
        if self.live_has_it:
            out.append(
                "  The file still holds this content: the next record keeps it again unless you change it."
            )
        return out


@dataclass(frozen=True)
class PrunePlan:
    """Drop the records older than a cut-off: the newest of them becomes the first record (its tree kept)."""

    days: int
    cutoff: int
    dropped: int
    kept: int

    def lines(self) -> list[str]:
        if not self.dropped:
            return [f"No record is older than {plural(self.days, 'day')}; nothing to prune."]
        return [
            f"Prune the history older than {plural(self.days, 'day')} (before {log.iso_time(self.cutoff)}):",
            f"  {plural(self.dropped, 'record')} {'is' if self.dropped == 1 else 'are'} dropped; "
            "the memory as it stood then is kept as one record,",
            f"  and {plural(self.kept, 'later record')} {'is' if self.kept == 1 else 'are'} rewritten "
            "onto it. No memory file is touched.",
        ]


def plan_forget(root: Path, path: str, version: str) -> ForgetPlan:
    """What forgetting `path`'s content at `version` would rewrite (refused when it holds none)."""
    with log.reading():
        return _plan_forget(Path(root), path, version)


def _plan_forget(root: Path, path: str, version: str) -> ForgetPlan:
    commit_id = log.resolve(root, version)
    reader = log._Reader(root)
    files = log._tree_map(reader, commit_id)
    where = log._locate(files, path)
    if where is None:
        raise Refused(f"{path} is not in version {commit_id[:12]}; nothing to forget.")
    blob = files[where]
    holding = sum(1 for rec in log.records(root) if blob in log._tree_map(reader, rec.id).values())
    live = live_blob(root, where) == blob or live_blob(root, path) == blob
    return ForgetPlan(path, commit_id, blob, holding, live)


def replan_forget(root: Path, plan: ForgetPlan) -> ForgetPlan:
    """`plan` again, on the history as it is now. Another forget rewrites every record, so the version `plan`
    named may be gone; its content (the blob id) is not: this finds the newest version still holding it.
    Refused when no version does (a forget of the same content already removed it)."""
    root = Path(root)
    holding = next((v for v in log.versions(root, plan.path) if v.blob == plan.blob), None)
    if holding is None:
        raise Refused(
            f"The content of {plan.path} at version {plan.version[:12]} is no longer in the history; "
            "nothing to forget."
        )
    return plan_forget(root, plan.path, holding.id)


def live_blob(root: Path, rel: str) -> str | None:
    """The blob id of `rel` as it is on disk now (None: it cannot be read)."""
    try:
        return store.blob_id(safeio.read_under(root, rel))
    except OSError:
        return None


def apply_forget(root: Path, plan: ForgetPlan, fs: FS | None = None) -> str:
    """Rewrite without the content, repack, and say what was done (one sentence)."""
    _forget_blobs(Path(root), {plan.blob}, fs)
    return f"The content of {plan.path} at version {plan.version[:12]} is gone from the history."


@dataclass(frozen=True)
class ForgetAllPlan:
    """Forget several contents (blob ids) of one file at once. Forgetting works by content: every record's
    file holding one is rewritten without it, whatever its path, so `others` names the other files whose
    versions go too (a copy of the file, say)."""

    path: str
    versions: tuple[tuple[str, str], ...]  # (version id, blob): `path`'s newest version with each content
    records: int  # the records holding one of them (each is rewritten, and every record after the first)
    others: tuple[str, ...]  # other files (original paths) whose versions hold one of them
    live: tuple[str, ...]  # the files that hold one of them now (the next record keeps it again)

    @property
    def blobs(self) -> frozenset[str]:
        return frozenset(b for _, b in self.versions)

    def lines(self) -> list[str]:
        n = len(self.versions)
        what = "the content" if n == 1 else f"{n} contents"
        versions = ", ".join(v[:12] for v, _ in self.versions)
        it = "it" if n == 1 else "them"
        out = [
            f"Forget {what} of {self.path} from the history (version{'s' if n > 1 else ''} {versions}):",
            f"  {plural(self.records, 'record')} hold{'s' if self.records == 1 else ''} {it}; "
            f"{'that record' if self.records == 1 else 'they'} and every later one are rewritten "
            f"without {it},",
            f"  then the store is repacked so {'it is' if n == 1 else 'they are'} gone from it. "
            "No memory file is touched.",
        ]
        if self.others:
            out.append(
                f"  The same content was also kept as {', '.join(self.others)}: the versions of "
                f"{'that file' if len(self.others) == 1 else 'those files'} holding it go too."
            )
        if self.live:
            out.append(
                f"  {', '.join(self.live)} still hold{'s' if len(self.live) == 1 else ''} it now: the next "
                "record keeps it again unless you change it."
            )
        return out

    def outcome(self) -> str:
        n = len(self.versions)
        if n == 1:
            version = self.versions[0][0][:12]
            return f"The content of {self.path} at version {version} is gone from the history."
        return f"{n} contents of {self.path} are gone from the history."


def plan_forget_all(root: Path, path: str, blobs: Sequence[str]) -> ForgetAllPlan | None:
    """Forgetting the contents `blobs` of `path` (its original path); None when no version of `path` holds
    one. One pass over the records' changes (the log's cache: no tree is read)."""
    root = Path(root)
    with log.reading():
        wanted = set(blobs)
        newest: dict[str, str] = {}
        for v in log.versions(root, path):  # newest first
            if v.blob in wanted:
                newest.setdefault(v.blob, v.id)
        if not newest:
            return None
        held: dict[str, str] = {}  # the files holding one of the contents at the record (where they were)
        places: set[str] = set()
        records = 0
        for rec in reversed(log.records(root)):  # oldest first: each record's files, from its changes
            for ch in rec.changes:
                held.pop(ch.old_path, None)
                held.pop(ch.path, None)
                if ch.blob in newest:
                    held[ch.path] = ch.blob
                    places.add(ch.path)
            records += bool(held)
    others = sorted({names.original_path(p) for p in places} - {path})
    live = sorted(p for p in places if live_blob(root, p) in newest)
    return ForgetAllPlan(path, tuple((v, b) for b, v in newest.items()), records, tuple(others), tuple(live))


def apply_forget_all(
    root: Path,
    plan: ForgetAllPlan,
    replan: Callable[[], ForgetAllPlan | None] | None = None,
    fs: FS | None = None,
) -> str:
    """Forget every content `plan` names in one rewrite and one repack; say what was done (one sentence).
    What the preview saw is checked first, under the history's lock (no record is made meanwhile): `replan`
    (default: the same contents planned again) must give the same plan, else nothing is forgotten."""
    root = Path(root)

    def check() -> None:
        now = replan() if replan is not None else plan_forget_all(root, plan.path, sorted(plan.blobs))
        if now != plan:
            raise Refused(
                f"The history of {plan.path} changed since the preview; nothing was forgotten: "
                "preview it again."
            )

    _forget_blobs(root, plan.blobs, fs, check)
    return plan.outcome()


def _forget_blobs(
    root: Path, blobs: set[str] | frozenset[str], fs: FS | None, check: Callable[[], None] | None = None
) -> None:
    """Rewrite every record without `blobs`, then repack; `check` first, under the lock (it may refuse)."""
    fs = fs or FS(root)
    with log.reading(), _lock(root):
        if check is not None:
            check()
        _rewrite(root, fs, lambda files: {p: b for p, b in files.items() if b not in blobs}, keep_from=None)
    _drop_caches(root)


def plan_prune(root: Path, days: int, now: float | None = None) -> PrunePlan:
    cutoff = int((time.time() if now is None else now) - days * DAY_S)
    recs = log.records(Path(root))
    old = [r for r in recs if r.time < cutoff]
    dropped = max(len(old) - 1, 0)  # the newest old record stays, as the new first record
    return PrunePlan(days, cutoff, dropped, len(recs) - len(old))


def apply_prune(root: Path, plan: PrunePlan, fs: FS | None = None) -> str:
    if not plan.dropped:
        return "Nothing was pruned."
    root = Path(root)
    fs = fs or FS(root)
    with log.reading(), _lock(root):
        recs = log.records(root)
        keep_from = next(r.id for r in recs if r.time < plan.cutoff)
        _rewrite(root, fs, lambda files: files, keep_from=keep_from)
    _drop_caches(root)
    return f"Pruned {plural(plan.dropped, 'record')} older than {plural(plan.days, 'day')} from the history."


def _lock(root: Path) -> AbstractContextManager[None]:
    from pmem_tui.core.history import lock
    from pmem_tui.core.history.names import LOCK_NAME

    return lock.held(root / HISTORY_DIR / LOCK_NAME, record.LOCK_TIMEOUT_S)


def _drop_caches(root: Path) -> None:
    """The stat table names blob ids a rewrite may have removed: the next record hashes every file anew."""
    from pmem_tui.core import cache

    cache.write(root, stat_table.TABLE_FILE, b"")


def _rewrite(root: Path, fs: FS, keep, keep_from: str | None) -> None:  # type: ignore[no-untyped-def]
    """Rewrite every record oldest first, each tree's files through `keep`; `keep_from`: the record that
    becomes the first (those before it are dropped). Then move the refs and repack what they reach."""
    objects = store.open_objects(root)
    reader = log._Reader(root)
    chain = list(reversed(reader.chain(stat_table.read_head(root))))
    if keep_from is not None:
        chain = chain[[r.id for r in chain].index(keep_from) :]
    mapping: dict[str, str] = {}
    new_objects: list[store.Entry] = []
    parent: str | None = None
    for rec in chain:
        old = objects.commit(rec.id)
        files = keep(log._tree_map(reader, rec.id))
        tree_id, trees, _ = store.build_tree(files)
        new_objects += trees
        commit = store.make_commit(
            tree_id, parent, old.message.decode("utf-8", "surrogateescape"), old.commit_time
        )
        new_objects.append(store.entry_of(commit))
        parent = mapping[rec.id] = commit.id.decode("ascii")
    store.write_entries(fs, new_objects)  # each object once
    for ref in _REFS:
        target = stat_table.read_head(root, ref)
        if target is None:
            continue
        # A reviewed mark on a dropped record moves to the first record kept.
        new = mapping.get(target) or next(iter(mapping.values()), None)
        if new is not None:
            store.set_ref(fs, ref, new)
    store.repack(root, fs)


def check(root: Path) -> str | None:
    """What is wrong with the store (one sentence), or None when every record the ref reaches reads whole
    (or there is no store)."""
    root = Path(root)
    if not stat_table.store_exists(root):
        return f"{HISTORY_DIR} is not a folder" if os.path.lexists(root / HISTORY_DIR) else None
    try:
        head = record.head_or_damaged(root)
        if head is None:
            return None
        objects = store.open_objects(root)
        _readable_chain(objects, head)
    except Exception as err:
        return record.sentence(err)
    return None


def _readable_chain(objects: store.Objects, head: str) -> None:
    wanted: dict[bytes, ShaFile] = {}
    current: str | None = head
    while current is not None:
        commit = objects.commit(current)
        store.add_tree(objects, commit.tree, wanted)
        for obj in wanted.values():
            obj.as_raw_string()
        current = commit.parents[0].decode("ascii") if commit.parents else None


def repair(root: Path, fs: FS | None = None) -> str | None:
    """Doctor's repair: None when the store is sound (or absent); else what was done, one sentence."""
    root = Path(root)
    problem = check(root)
    if problem is None:
        return None
    fs = fs or FS(root)
    aside = f"{HISTORY_DIR}.damaged-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    fs.makedirs(aside.rsplit("/", 1)[0])
    os.rename(root / HISTORY_DIR, root / aside)  # a folder: `FS.move` moves files only
    fs.fsync_dir(aside.rsplit("/", 1)[0])
    done = record.record(
        root, "doctor", title="history rebuilt from the memory as it is now", fs=fs, create=True
    )
    damaged = f"The history store was damaged ({problem})"
    if done.problem is not None:
        return f"{damaged}; it was moved to {aside}, and a new one could not be started: {done.problem}."
    return f"{damaged}; it was kept at {aside} and a new one starts from the memory as it is now."
