"""Record the memory tree in the history store: one commit per change set, only when something changed.

`record` is the one writer. It takes the store's own lock (`names.LOCK_NAME`: one recorder at a time, so a
`health` recording what it saw never moves the ref past an action's record), runs the cheap pass
(`stat_table`), hashes only the files whose stamp is not fresh, and, when the tree differs from the last
record, writes the new blobs and trees and the commit as one pack, then moves the ref (`store`).

It never raises for the store's sake: a missing, damaged or unwritable store comes back as `Recorded.problem`,
one sentence, and the caller goes on (an action is never blocked by its history). Only a simulated process
death (`fsops.HardStop`, a BaseException) passes through, as a real one would.

Who calls it: the executor around every action (`before_action`, `after_action`, through its `FS`, so its
steps are the fault campaign's steps too); `health` and the app's scan (`record_if_changed`: only
when a store exists, a read-only command never makes one); `pmem-tui snapshot` (makes the store if needed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from pmem_tui.core import cache, folder_reads, safeio
from pmem_tui.core.history import stat_table
from pmem_tui.core.history.names import (
    HISTORY_DIR,
    LOCK_NAME,
    MAIN_REF,
    ORIGIN_TRAILER,
    REVIEWED_REF,
    SEEN_ON_DISK,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pmem_tui.core.fsops import FS
    from pmem_tui.core.history import store
    from pmem_tui.core.plan import Plan

__all__ = [
    "ORIGIN_TRAILER",
    "Recorded",
    "after_action",
    "before_action",
    "mark_reviewed",
    "message_for",
    "record",
    "record_if_changed",
]

LOCK_TIMEOUT_S = 5.0  # `lock.TIMEOUT_S`
REPACK_AT = 24  # packs: past this many, a record merges the small ones into one (`store.merge_packs`)


class Recorded(NamedTuple):  # not a dataclass: making one costs a hook's `snapshot` a millisecond or two
    """What a record did: the new record's commit id (None when nothing had changed or it failed), and the
    sentence saying what history could not record (None when all went well)."""

    commit: str | None = None
    problem: str | None = None


def message_for(origin: str, title: str = "", detail: tuple[str, ...] = ()) -> str:
    """A record's commit message: what made the change on its first line, the plan's lines, the trailer."""
    first = f"{origin}: {title}" if title else origin
    body = "".join(f"{line}\n" for line in detail)
    return f"{first}\n\n{body}{'' if not body else chr(10)}{ORIGIN_TRAILER}{origin}\n"


def record(
    root: Path,
    origin: str = SEEN_ON_DISK,
    *,
    title: str = "",
    detail: tuple[str, ...] = (),
    fs: FS | None = None,
    create: bool = False,
    seen: stat_table.Pass | None = None,
) -> Recorded:
    """Record the tree if it changed since the last record. Without `create`, a root with no store records
    nothing (and says nothing). `seen`: the cheap pass a caller already made and found a change in (its
    clock's start, the stamps, the table), not made again. Never raises but a simulated process death."""
    root = Path(root)
    try:
        exists = stat_table.store_exists(root)
        if not exists and not create:
            return Recorded()
        if seen is None and exists:
            # The cheap pass first, without the lock or dulwich: nothing changed, nothing more to do.
            same, started, stamps, table = stat_table.unchanged(root)
            if same:
                return Recorded()
            seen = (started, stamps, table)
        from pmem_tui.core.fsops import FS  # only to write: the app's scans with nothing to record skip it
        from pmem_tui.core.history import store

        fs = fs or FS(root)
        if not exists:  # `snapshot` or R make `.pmem/` as an action would: git-ignored (found in trial)
            from pmem_tui.core import meta_dir

            meta_dir.ensure(fs)
        store.init(fs)  # also completes a store whose making was interrupted
        return _record_locked(root, fs, message_for(origin, title, detail), seen)
    except Exception as err:
        return Recorded(problem=sentence(err))


def record_if_changed(root: Path, listing: folder_reads.Listing | None = None) -> Recorded:
    """The ordinary commands' record: nothing (and no dulwich) when the cheap pass finds nothing changed.
    `listing`: filled with the tracked folders' entries as the cheap pass listed them (none without a store),
    for a scan that follows (`tree.scan(listed=...)`: the tree is not listed twice)."""
    try:
        if not stat_table.store_exists(root):
            return Recorded()
        same, started, stamps, table = stat_table.unchanged(root, listing)
        if same:
            return Recorded()
    except Exception as err:
        return Recorded(problem=sentence(err))
    return record(root, seen=(started, stamps, table))


def before_action(root: Path, fs: FS) -> str | None:
    """Under the action's lock, before its journal: what changed on disk since the last record, as "seen on
    disk" (making the store on a first action: its preview named it). The sentence when it could not."""
    done = record(root, fs=fs, create=True)
    return (
        None
        if done.problem is None
        else f"History could not record the memory before this action: {done.problem}."
    )


def after_action(root: Path, fs: FS, plan: Plan) -> str | None:
    """After the action's last step, before its journal is cleared: the tree it made, its origin the action.
    A crash before this record leaves the journal, and doctor records the finished action."""
    detail = tuple(plan.preview.record_changes) + ((plan.outcome,) if plan.outcome else ())
    done = record(root, plan.action, title=plan.title, detail=detail, fs=fs)
    if done.problem is None:
        return None
    return f"History could not record this action: {done.problem}; run `pmem-tui doctor` to rebuild it."


def mark_reviewed(root: Path, fs: FS | None = None, *, start: bool = False) -> str | None:
    """Mark the newest record reviewed (`changes` then starts from it); returns its id (None: no record).
    `start`: a memory with no history yet is recorded first (its first version), so there is one to mark;
    `OSError` or `ValueError` (the store's sentence) when that record cannot be made."""
    root = Path(root)
    if start and not stat_table.store_exists(root):
        from pmem_tui.core import memory_root

        if not memory_root.is_memory(root):  # a wrong root (`~`) gets no history store (found in trial)
            raise ValueError(f"{memory_root.not_a_memory(root)}: no history is started there")
        done = record(root, fs=fs, create=True)
        if done.problem is not None:
            raise ValueError(done.problem)
    head = stat_table.read_head(root)
    if head is not None:
        from pmem_tui.core.fsops import FS
        from pmem_tui.core.history import store

        store.set_ref(fs or FS(root), REVIEWED_REF, head)
    return head


def sentence(err: BaseException) -> str:
    """What went wrong with the store, as the middle of a sentence."""
    if isinstance(err, OSError):
        from pmem_tui.core.errors import describe_os_error

        return describe_os_error(err)
    text = str(err) or type(err).__name__
    if isinstance(err, KeyError) and len(err.args) == 1 and isinstance(err.args[0], bytes):
        # dulwich's missing object: its id, not `b'4b90…'` (found in trial: a pack file deleted by hand)
        text = f"object {err.args[0].decode('ascii', 'replace')[:12]} is missing"
    return f"the history store at {HISTORY_DIR} is damaged ({text})"


def _record_locked(root: Path, fs: FS, message: str, seen: stat_table.Pass | None) -> Recorded:
    from pmem_tui.core.history import lock

    with lock.held(root / HISTORY_DIR / LOCK_NAME, LOCK_TIMEOUT_S):
        return _record(root, fs, message, seen)


def _record(root: Path, fs: FS, message: str, seen: stat_table.Pass | None) -> Recorded:
    """Under the store's lock: the ref as it is now (another recorder may have moved it since the stat
    pass, and the table with it: the pass's table serves only while it is the ref's), the files whose stamp
    the table does not vouch for read and hashed. No pass (`seen` None: there was no store): a first record
    reads every file in one walk, with no stat pass before it."""
    from pmem_tui.core.history import store  # dulwich: only when something may have changed

    head = head_or_damaged(root)
    stamps: dict[str, stat_table.Stamp] | None = None
    if seen is not None:
        started, stamps, table = seen
    else:
        started, table = cache.clock(), None
        if head is not None:  # another recorder made the first record meanwhile
            stamps = stat_table.walk(root)
    if stamps is not None and (table is None or table.head != head):
        table = stat_table.load(root)
    objects = store.open_objects(root)
    try:
        if head is not None:
            objects.commit(head)  # the last record must read: one on a lost parent would hide the damage
        if stamps is not None and table is not None and head is not None:
            done = _record_rows(root, fs, message, started, stamps, table, head, objects)
            if done is not None:
                return done
        return _record_on(root, fs, message, started, stamps, table, head, objects)
    finally:
        objects.close()


def _record_rows(
    root: Path,
    fs: FS,
    message: str,
    started: int,
    stamps: dict[str, stat_table.Stamp],
    table: stat_table.Table,
    head: str,
    objects: store.Objects,
) -> Recorded | None:
    """`_record_on` when the table is the ref's record's and the files are its files in its order, a few of
    them changed (an edit): those read and compared with their row, nothing done per file for the others
    (no map of every path). None when that is not the case (files came or went, many changed, one of them
    could not be read): the whole way then."""
    from pmem_tui.core.history import store

    rows = table.stale_rows(stamps) if table.head == head and table.trees else None
    if rows is None or len(rows) > stat_table.FEW:
        return None
    read = list(_read_all(root, rows))
    if len(read) != len(rows):  # one went away since the stat pass
        return None
    seen = dict(stamps)
    blobs: dict[str, str] = {}  # every row read, as the table keeps it
    changed: dict[str, str] = {}  # the rows whose content differs from the record's
    new_blobs: dict[str, tuple[bytes, bytes]] = {}
    newest = table.newest_ns
    for path, data, st in read:
        digest = store.blob_digest(data)
        blobs[path] = blob = digest.hex()
        seen[path] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
        if blob != table.blob_of(path):
            changed[path] = blob
            new_blobs[blob] = (data, digest)
    if not changed:
        stat_table.save(root, started, head, seen, blobs, table.trees, newest, like=table, rows=rows)
        return Recorded()
    tree_id, trees, tree_ids = store.update_tree(objects, changed, table.trees, list(changed))
    # Not asked whether the store has them: a few objects, new but for a reverted edit (then a second
    # copy, which git allows and a repack drops), where asking would load every pack's index.
    commit_id = _write_record(fs, objects, head, message, new_blobs, tree_id, trees, ask=False)
    stat_table.save(root, started, commit_id, seen, blobs, tree_ids, newest, like=table, rows=rows)
    _merge_if_many(root, fs, objects)
    return Recorded(commit=commit_id)


def _record_on(
    root: Path,
    fs: FS,
    message: str,
    started: int,
    stamps: dict[str, stat_table.Stamp] | None,
    table: stat_table.Table | None,
    head: str | None,
    objects: store.Objects,
) -> Recorded:
    """`stamps` None: every file read in one walk (`stat_table.read_all`), their stamps the reads' fstat."""
    from pmem_tui.core.history import store

    files: dict[str, str] = {}
    unread: list[str] = []
    seen: dict[str, stat_table.Stamp] = {}
    if stamps is None:
        reads = stat_table.read_all(root)
    else:
        files, unread = table.vouched(stamps) if table is not None else ({}, list(stamps))
        seen = dict(stamps)  # walk order, as the next cheap pass compares them
        reads = _read_all(root, unread)
    new_blobs: dict[str, tuple[bytes, bytes]] = {}  # by hex id: the bytes and the binary id
    newest = table.newest_ns if table is not None else None  # an upper bound of the vouched stamps'
    for path, data, st in reads:
        digest = store.blob_digest(data)
        blob = digest.hex()
        new_blobs[blob] = (data, digest)
        files[path] = blob
        seen[path] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if newest is not None:
            newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    for path in unread:
        if path not in files:  # gone, or not a regular file, since the stat pass: not in this record
            del seen[path]
    ours = table is not None and head is not None and table.head == head  # the table is the ref's record's
    if table is not None and ours and table.trees:
        last, reuse = table.blobs, table.trees
    else:
        last, reuse = objects.snapshot(head)
    for path in _kept_unread(root, last.keys() - files.keys()):
        files[path] = last[path]  # kept as it was: it is not recorded as deleted
    rows = unread if ours else None  # the only rows of the table that may differ
    if files == last and head is not None:
        stat_table.save(root, started, head, seen, files, reuse, newest, like=table, rows=rows)
        return Recorded()
    if head is None:
        changed = list(files)
    elif table is not None and last is table.blobs:  # `files` is that, but for the files read again
        changed = [path for path in unread if path in files and files[path] != last.get(path)]
    else:
        changed = [path for path, _ in files.items() - last.items()]
    if table is not None:  # a blob the table names but a rewrite removed: read the file again
        last_blobs = set(last.values())
        for path in changed:
            blob = files[path]
            if blob not in new_blobs and blob not in last_blobs and not objects.has(blob):
                new_blobs[blob] = (safeio.read_under(root, path), bytes.fromhex(blob))
    changed += last.keys() - files.keys()
    if head is None:
        tree_id, trees, tree_ids = store.build_tree(files)
    else:  # only the trees on a changed path
        tree_id, trees, tree_ids = store.update_tree(objects, files, reuse, changed)
        if tree_id == objects.commit(head).tree.decode("ascii"):  # what the table missed, back as it was
            stat_table.save(root, started, head, seen, files, tree_ids, newest, like=table, rows=rows)
            return Recorded()
    commit_id = _write_record(fs, objects, head, message, new_blobs, tree_id, trees)
    stat_table.save(root, started, commit_id, seen, files, tree_ids, newest, like=table, rows=rows)
    _merge_if_many(root, fs, objects)
    return Recorded(commit=commit_id)


def _write_record(
    fs: FS,
    objects: store.Objects,
    head: str | None,
    message: str,
    new_blobs: dict[str, tuple[bytes, bytes]],
    tree_id: str,
    trees: list[store.Entry],
    *,
    ask: bool = True,
) -> str:
    """The new blobs and trees the store lacks (`ask`: else all of them) and the commit, as one pack, then
    the ref: the commit id."""
    from pmem_tui.core.history import store

    has = objects.has if ask and objects.pack_count else lambda _: False  # a first record: 10k lookups
    wanted = [(store.BLOB, data, digest) for blob, (data, digest) in new_blobs.items() if not has(blob)]
    wanted += [tree for tree in trees if not has(tree[2].hex())]
    commit = store.make_commit(tree_id, head, message)
    wanted.append(store.entry_of(commit))
    store.write_entries(fs, wanted)
    commit_id = commit.id.decode("ascii")
    store.set_ref(fs, MAIN_REF, commit_id)
    return commit_id


def _merge_if_many(root: Path, fs: FS, objects: store.Objects) -> None:
    if objects.pack_count + 1 > REPACK_AT:
        from pmem_tui.core.history import store

        store.merge_packs(root, fs)


def _kept_unread(root: Path, paths: Iterable[str]) -> list[str]:
    """Of `paths` (in the last record, not read now), those still there that cannot be read for lack of
    permission, on them or on their folder (found in trial: `chmod 000` on a folder recorded its files as
    deleted, then as added again). Each folder is opened once: a removed folder costs one look."""
    kept: list[str] = []
    folders: dict[str, bool | None] = {}  # True: no permission; False: gone; None: it opens
    for path in paths:
        head = path.rpartition("/")[0]
        if head not in folders:
            folders[head] = _refused(root, head, folder=True)
        state = folders[head]
        if state is None:
            state = _refused(root, path, folder=False)
        if state:
            kept.append(path)
    return kept


def _refused(root: Path, rel: str, *, folder: bool) -> bool | None:
    """True when opening `rel` is refused for lack of permission, False when it fails otherwise (gone, a
    link, over the cap), None when it opens."""
    try:
        fd = safeio.open_dir(root, rel) if folder else safeio.open_regular(root, rel)[0]
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False
    os.close(fd)
    return None


def _read_all(root: Path, paths: list[str]) -> Iterator[tuple[str, bytes, os.stat_result]]:
    """Each of `paths` that is (still) a regular file, with its bytes and its fstat, each folder opened once
    (`safeio`: no link followed, no FIFO opened, the memory cap). One that cannot be read now is left out of
    this record."""
    by_folder: dict[str, list[str]] = {}
    for path in paths:
        head, _, name = path.rpartition("/")
        by_folder.setdefault(head, []).append(name)
    for head, names in by_folder.items():
        try:
            parent = safeio.open_dir(root, head)
        except OSError:
            continue
        try:
            yield from folder_reads.read_each_at(parent, head, names, safeio.MEMORY_CAP)
        finally:
            os.close(parent)


def head_or_damaged(root: Path) -> str | None:
    """The newest record's id; None when there is none yet; DamagedStore when the ref names no record."""
    from pmem_tui.core.history import store

    head = stat_table.read_head(root)
    if head is None and os.path.lexists(root / HISTORY_DIR / MAIN_REF):
        raise store.DamagedStore(f"{MAIN_REF} does not name a record")
    return head
