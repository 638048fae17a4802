"""Scan a memory root into an immutable Snapshot. Reading only: the scan never writes. It reads the memory's
files only: an action left unfinished is the journal's to say (`settled.scan_once` attaches it).

A shallow scan (`deep=False`) only lists and stats files, so the app can draw its first frame
without reading every file; a deep scan also reads each active file for its title and summary.
With `cache=True`, a deep scan reuses what it learned about unchanged files (title, summary, valid UTF-8)
and the entries parsed from the very same `_index.md` text, from its cache (`scan_facts.SCAN_FILE`, through
the cache layer `core/cache.py`: outside the root, each file trusted by `cache.fresh`), and rewrites that
cache when something changed: the only write a scan ever makes, and never under the root. The folders are
listed by `folder_walk`; what one file's read learns, and what the cache keeps of it, is `scan_facts`'s.
"""

from __future__ import annotations

import datetime as dt
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path

from pmem_tui.core import archive_match, columns, folder_reads, folder_walk, paths, safeio, scan_facts, textio
from pmem_tui.core import cache as cache_mod
from pmem_tui.core import index as index_mod
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.dead_routes import dead_reasons
from pmem_tui.core.model import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CORE_DIR,
    INDEX_FILE,
    LIFECYCLE_PATHS,
    TRASH_DIR,
    ActiveFile,
    ArchivedItem,
    ArchiveRecord,
    FileInfo,
    IndexEntry,
    Problem,
    Snapshot,
    SummaryInfo,
    SummaryState,
    TrashItem,
)
from pmem_tui.core.record_read import parse_records  # the parser alone: the edits load with an action

# A shallow scan's summary of every active file (frozen: one shared object, not one per file).
_UNKNOWN = SummaryInfo(SummaryState.UNKNOWN)


def _markdown(
    rows: Iterable[tuple[str, int, int, int]], problems: list[Problem]
) -> Iterator[tuple[str, int, int, int]]:
    """The `.md` files among a walk's; a name ending in another case of it is said (found in trial: an
    agent's `notes/UPPER.MD`, and its index line, showed nowhere and nothing said why)."""
    for row in rows:
        path = row[0]
        if path.endswith(".md"):
            yield row
        elif path[-3:].lower() == ".md":
            detail = f"its name ends in '{path[-3:]}', not '.md', so pmem-tui neither lists it nor reads "
            detail += "a route to it"
            problems.append(Problem("wrong-suffix", path, detail))


def _read_control(root: Path, rel: str, problems: list[Problem]) -> str | None:
    """An index's text; None when it is missing or is not a regular file that can be read (a problem)."""
    try:
        return textio.decode(safeio.read_under(root, rel))
    except FileNotFoundError:
        return None
    except OSError as err:
        problems.append(_read_problem(rel, err))
        return None


def _read_problem(rel: str, err: OSError) -> Problem:
    if isinstance(err, safeio.UnsafeFile):
        return Problem(err.kind, rel, err.detail)
    return Problem("unreadable", rel, f"cannot be read: {err.strerror}")


def scan(
    root: Path,
    *,
    deep: bool = True,
    today: dt.date | None = None,
    cache: bool = False,
    listed: folder_walk.Listed | None = None,
) -> Snapshot:
    """The snapshot of `root`; `listed`: a listing of it taken just before (`folder_walk.walk_files`)."""
    today = today or clock_today()
    root = Path(root)
    if not root.is_dir():
        return Snapshot(root, False, today, LIFECYCLE_PATHS, (), (), (), (), (), (), ())
    facts_cache = (
        cache_mod.FileEntries(root, scan_facts.SCAN_FILE) if deep and cache else None
    )  # clock starts here
    problems: list[Problem] = []
    missing = tuple(p for p in LIFECYCLE_PATHS if not os.path.lexists(root / p))

    core: list[FileInfo] = []
    if folder_walk.walkable(root, CORE_DIR):
        core, core_problems = folder_walk.walk_files(root, CORE_DIR, listed=listed)
        problems += core_problems

    # The active folders are listed before the index is read: a listing taken before (`listed`) is used up,
    # and freed, before the index's 10^5 entries are made (their problems are said in the same place). No
    # object per file (10^5 of them were a quarter of the scan's peak memory).
    on_disk = columns.FileColumns(ctime=deep)
    walk_problems: list[Problem] = []
    for folder in ACTIVE_DIRS:
        if folder_walk.walkable(root, folder):
            on_disk.add_sorted(
                _markdown(folder_walk.walk(root, folder, walk_problems, listed=listed), walk_problems)
            )
    # Each file's position by its path, made before the entries: a listed route keeps the walk's string
    # (one copy, not two), and no table of every route is made beside the entries.
    at_file = dict(zip(on_disk.paths, range(len(on_disk.paths)), strict=True))

    entries: Sequence[IndexEntry] = []
    unbulleted: dict[str, int] | None = None  # lines naming a route without a bullet (the orphans' sentences)
    if facts_cache:
        index_text = _read_control(root, INDEX_FILE, problems)
        if index_text is not None:
            entries = scan_facts.index_entries(facts_cache, index_text)
            unbulleted = index_mod.unbulleted_routes(index_text)  # (one C search when there is none)
        del index_text
    else:
        try:
            # Parsed block by block, never held as one text; a shallow scan keeps the file's bytes, its
            # entries as columns (`columns.read_index`).
            found = (
                index_mod.read_index(root / INDEX_FILE)
                if deep
                else columns.read_index(root / INDEX_FILE, partial(_canonical, at_file, on_disk.paths))
            )
            entries = found if found is not None else []
        except OSError as err:
            problems.append(_read_problem(INDEX_FILE, err))
    if not isinstance(entries, columns.IndexColumns):
        entries = tuple(entries)  # the snapshot's own sequence (the files' columns read their entries there)
    # Each file's first entry; the dead routes; a route listed again, counted only then.
    routes = columns.routes_of(entries)
    entry_at = array("i", [-1]) * len(on_disk.paths)
    dead: list[int] = []
    first_dead: dict[str, int] = {}
    listed_again: dict[str, tuple[int, int]] = {}  # route -> (its first entry, times listed)
    for k, route in enumerate(routes):
        file_at = at_file.get(route, -1)
        if file_at >= 0:
            first = entry_at[file_at]
            if first < 0:
                entry_at[file_at] = k
                continue
        else:
            dead.append(k)
            first = first_dead.setdefault(route, k)
            if first == k:
                continue
        listed_again[route] = (first, listed_again.get(route, (first, 1))[1] + 1)
    del at_file
    for (_, times), route in sorted((again, r) for r, again in listed_again.items()):  # as routes first come
        problems.append(Problem("duplicate-route", route, f"listed {times} times in {INDEX_FILE}"))
    problems += walk_problems

    # In ACTIVE_DIRS order, each folder's files sorted by path: the app's patches find a file by bisection.
    active: list[ActiveFile] = []
    shallow = None
    orphans: list[str] = []  # their problems are said after the files' own (`index.orphan_problems`)
    if not deep:  # the files as columns; a listed route's string is the walk's already (`_canonical`)
        shallow = columns.ActiveColumns(entries, on_disk.paths, on_disk.sizes, on_disk.mtimes, entry_at)
        orphans = [on_disk.paths[i] for i in shallow.orphans()]
    else:
        with folder_reads.Reader(root) as reader:  # the files come folder by folder: one walk per folder
            for i, rel in enumerate(on_disk.paths):
                size, mtime_ns = on_disk.sizes[i], on_disk.mtimes[i]
                at = entry_at[i]
                path = routes[at] if at >= 0 else rel  # the route's string: one copy, not two
                found_entry = entries[at] if at >= 0 else None
                title: str | None = None
                info = _UNKNOWN
                stamp = (size, mtime_ns, on_disk.ctimes[i] if on_disk.ctimes is not None else 0)
                cached = scan_facts.facts_from(facts_cache.get(rel, stamp)) if facts_cache else None
                try:
                    content = cached or scan_facts.inspect_file(root, rel, reader)
                except OSError as err:  # a file that became a link, a FIFO, a folder... since the listing
                    problems.append(_read_problem(rel, err))
                else:
                    if facts_cache and cached is None:
                        facts_cache.put(rel, stamp, scan_facts.facts_row(content))
                    title, info = content.title, content.summary
                    problems += scan_facts.content_problems(rel, content)
                if found_entry is None:
                    orphans.append(rel)
                active.append(
                    ActiveFile(
                        path,
                        size,
                        mtime_ns,
                        entry=found_entry,
                        title=title or (found_entry.title if found_entry else None),
                        summary=info,
                    )
                )
    del on_disk
    held = entries.data if isinstance(entries, columns.IndexColumns) else b""  # the shallow scan's bytes
    if orphans and unbulleted is None:
        unbulleted = index_mod.unbulleted_in(root, held)  # (none held: read again)
    problems += index_mod.orphan_problems(orphans, unbulleted or {})
    if facts_cache:
        facts_cache.save()
    why = dead_reasons(root, [routes[k] for k in dead])
    for k in dead:
        problems.append(Problem("dead-route", routes[k], f"in {INDEX_FILE} but {why[routes[k]]}"))

    archive_text = _read_control(root, ARCHIVE_INDEX, problems)
    recs: list[ArchiveRecord] = parse_records(archive_text) if archive_text is not None else []
    current = archive_match.active_among(lambda: columns.paths_of(shallow if shallow is not None else active))
    matching, files, archive_problems = locate_archived(root, recs, current, listed, today)
    problems += archive_problems
    archived: list[ArchivedItem] = []
    trash: list[TrashItem] = []
    names: archive_match.Names | None = None  # built once, for a file with no record
    for placed in matching.placed:
        f, rec = files[placed.location], placed.record
        if not placed.in_trash:
            if rec is None:
                problems.append(
                    Problem("no-record", placed.path, f"{f.path} has no record in {ARCHIVE_INDEX}")
                )
            archived.append(ArchivedItem(placed.path, f.path, f.size, f.mtime_ns, rec))
            continue
        if rec is None:
            names = names or archive_match.Names(matching, recs)
            problem = paths.active_path_problem(placed.path)
            owner = names.claimant(placed.location)
            if owner is not None:  # doctor leaves it: the stale record's recover takes it
                fix = (
                    f"it has the name of {owner}'s file, whose record finds no file: "
                    f"`pmem-tui recover {owner}` takes it (doctor leaves it)"
                )
            elif problem is None:
                fix = "`pmem-tui doctor` rebuilds it"
            else:
                fix = f"{problem}, so move it by hand"
            problems.append(Problem("no-record", placed.path, f"{f.path} has no deletion record; {fix}"))
        trash.append(_trash_item(placed, f, today, recs))
    trash.sort(key=_trash_order)
    problems += archive_match.record_problems(matching, recs)

    return Snapshot(
        root=root,
        exists=True,
        today=today,
        lifecycle_missing=missing,
        core=tuple(core),
        index_entries=entries,
        active=shallow if shallow is not None else tuple(active),
        archived=tuple(archived),
        trash=tuple(trash),
        records=tuple(recs),
        problems=tuple(problems),
    )


def _canonical(at_file: dict[str, int], paths: list[str], route: str) -> str:
    """The walk's string for `route` when it is a file's path (one string, not two), else `route`."""
    i = at_file.get(route)
    return route if i is None else paths[i]


def _trash_item(
    placed: archive_match.Placed, f: FileInfo, today: dt.date, recs: Sequence[ArchiveRecord]
) -> TrashItem:
    rec = placed.record  # found from its record wherever it stands in the trash
    deadline = rec.deadline if rec else None
    if deadline is not None and today > deadline:
        # Another deletion record of the path (an agent's) may still say it is recoverable: then no purge
        # takes it (found in trial). A rule of its own, not `newest` (the one record an action uses): when a
        # file may go for good, the latest deadline any record promises wins (`scan`, `expired_trash`).
        others = [
            r.deadline for r in recs if r.path == placed.path and r.deleted is not None and r is not rec
        ]
        if any(other is None or other >= today for other in others):
            deadline = max((other for other in others if other is not None), default=None)
    return TrashItem(
        placed.path,
        f.path,
        f.size,
        f.mtime_ns,
        rec,
        deleted=rec.deleted if rec else None,
        deadline=deadline,
        expired=deadline is not None and today > deadline,
    )


def _trash_order(t: TrashItem) -> tuple[dt.date, str]:
    return (t.deadline or dt.date.max, t.path)


def expired_trash(
    matching: archive_match.Matching, files: dict[str, FileInfo], recs: list[ArchiveRecord], today: dt.date
) -> tuple[TrashItem, ...]:
    """The trash items past their recovery deadline among the files `locate_archived` matched to `recs`, as
    `scan` finds them (the health check lists them)."""
    items = [_trash_item(p, files[p.location], today, recs) for p in matching.placed if p.in_trash]
    return tuple(sorted((t for t in items if t.expired), key=_trash_order))


def locate_archived(
    root: Path,
    recs: list[ArchiveRecord],
    active: Callable[[str], bool],
    listed: folder_walk.Listed | None = None,
    today: dt.date | None = None,
) -> tuple[archive_match.Matching, dict[str, FileInfo], list[Problem]]:
    """Every file under `_archive/` (trash included), matched to its record wherever it stands."""
    problems: list[Problem] = []
    archive_files: list[FileInfo] = []
    trash_files: list[FileInfo] = []
    if folder_walk.walkable(root, ARCHIVE_DIR):
        skip = frozenset({TRASH_DIR, ARCHIVE_INDEX})
        archive_files, found = folder_walk.walk_files(root, ARCHIVE_DIR, skip=skip, listed=listed)
        problems += found
    if folder_walk.walkable(root, TRASH_DIR):
        trash_files, found = folder_walk.walk_files(root, TRASH_DIR, listed=listed)
        problems += found
    matching = archive_match.match_files(
        recs, [f.path for f in archive_files], [f.path for f in trash_files], active, today
    )
    return matching, {f.path: f for f in archive_files + trash_files}, problems
