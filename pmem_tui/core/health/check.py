"""Memory health (PM-HEALTH-1..6): find what to archive, say why, never act.

`check_health(root)` scans the active on-demand files (``projects/`` and ``notes/``; never ``_core/``, the
indexes, the archive or hidden metadata) and returns numbered proposals, most certain first, each with its
signals (`signals.KINDS`: the table of every signal, its certainty, category and meaning), a one-line reason
and, for a fixable signal, the exact fix. Nothing is moved, written or deleted: each proposal is acted on
later through the planners (`lifecycle.plan_archive`, then `plan_delete` for a "delete";
`fix_planner.plan_fix` for a fix), each with its own preview and confirmation. Expired trash (as `tree`
finds it) is listed apart; only `purge` removes it, with its own confirmation (PM-DEL-5, PM-HEALTH-6).

Performance
-----------
Each file is read at most once per run (through `safeio`). Per-file features are cached by path, trusted
while fresh (`cache.fresh`: size, mtime_ns and ctime_ns unchanged, not racy), in the root's folder of the
user's cache folder (`health_cache` stores the bytes, `codec` says what they hold); numpy and the sketch load
only for a run that reads files. A run in which nothing changed (the files it lists, `_archive/`'s included:
which file a record finds says whether it is stale) reuses the whole last report and reads no file; a run
after a change reads only the changed files (and `_core/`, and the candidates a comparison
needs).
``use_cache=False`` neither reads nor writes the cache. Nothing under the root is ever written.
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import os
import stat
import time
from array import array
from dataclasses import dataclass, field, replace
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from pmem_tui.core import (
    archive_match,
    folder_reads,
    folder_walk,
    health_cache,
    settled,
    textio,
    tree,
    user_input,
)
from pmem_tui.core import cache as cache_layer
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.dead_routes import dead_reasons
from pmem_tui.core.errors import Busy
from pmem_tui.core.health import codec
from pmem_tui.core.health.report import HealthReport, HealthStats, NearPair, Proposal
from pmem_tui.core.health.run import Run
from pmem_tui.core.history import stat_table
from pmem_tui.core.layout import require_lifecycle
from pmem_tui.core.model import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CORE_DIR,
    DEFAULT_INACTIVE_DAYS,
    INDEX_FILE,
    TRASH_DIR,
    FileInfo,
    TrashItem,
)

if TYPE_CHECKING:  # the engine (and numpy) loads only for a run that reads files, never for a warm one
    import numpy as np
    import numpy.typing as npt

    from pmem_tui.core.health.features import FeatureCache

__all__ = ["ENGINE", "check_health"]

# Bump when features, normalization, sketches or a stored record change: old caches are then ignored.
ENGINE = "health-11"


# -- listing ------------------------------------------------------------------------------------------------


def _stat(root: Path, rel: str) -> FileInfo | None:
    try:
        st = os.stat(root / rel, follow_symlinks=False)
    except OSError:
        return None
    return FileInfo(rel, st.st_size, st.st_mtime_ns, st.st_ctime_ns) if stat.S_ISREG(st.st_mode) else None


# A listed file: (path, size, mtime_ns, ctime_ns). Plain tuples, because a warm run only hashes them: a
# `FileInfo` is built for a run that reads files (`_Listing.files`).
Stamp = tuple[str, int, int, int]


@dataclass
class _Listing:
    active: list[Stamp]  # sorted by path, like each group
    core: list[Stamp]
    trash: list[Stamp]
    index: FileInfo | None
    archive_index: FileInfo | None
    # The other files under `_archive/`: which file a record finds (the stale-record signal) depends on them.
    archived: list[Stamp] = field(default_factory=list)

    def key(self, today: dt.date, inactive_days: int) -> str:
        h = hashlib.blake2b(digest_size=16)
        h.update(
            f"{ENGINE}\0{today.isoformat()}\0{inactive_days}\0{self.index}\0{self.archive_index}\n".encode()
        )
        for group in (self.active, self.core, self.trash, self.archived):
            h.update("\0".join([s[0] for s in group]).encode("utf-8", "surrogatepass"))
            h.update(b"\1")
            for column in (1, 2, 3):  # sizes, mtimes, ctimes: machine ints, no text made per file
                h.update(array("q", map(itemgetter(column), group)).tobytes())
        return h.hexdigest()

    def newest_ns(self) -> int:
        groups = (self.active, self.core, self.trash, self.archived)
        newest = [max(map(itemgetter(column), g), default=0) for g in groups for column in (2, 3)]
        newest += [max(f.mtime_ns, f.ctime_ns) for f in (self.index, self.archive_index) if f is not None]
        return max(newest, default=0)

    @staticmethod
    def files(group: list[Stamp]) -> list[FileInfo]:
        return [FileInfo(*s) for s in group]


def _list(root: Path, listed: folder_walk.Listed | None = None) -> _Listing:
    """What the check depends on, listed and stat'ed only (no link followed, no hidden entry, regular files
    only); `listed`: a listing of the root taken just before, walked instead of listing its folders again."""

    def stamps(
        folder: str, suffix: str = "", skip: frozenset[str] = frozenset(), spare: bool = False
    ) -> list[Stamp]:
        if listed is None:  # the cheap walk: each folder opened once, from the one above it
            return sorted(folder_reads.stamps_below(root, folder, suffix=suffix, skip=skip))
        # `spare`: the folders stay in the listing (a walk uses them up) for a later walk of the same ones
        files = folder_walk.walk_files(root, folder, skip=skip, listed=dict(listed) if spare else listed)[0]
        return [(f.path, f.size, f.mtime_ns, f.ctime_ns) for f in files if f.path.endswith(suffix)]

    return _Listing(
        active=sorted(s for folder in ACTIVE_DIRS for s in stamps(folder, ".md")),
        core=stamps(CORE_DIR),
        trash=stamps(TRASH_DIR),
        index=_stat(root, INDEX_FILE),
        archive_index=_stat(root, ARCHIVE_INDEX),
        # (the record match, `tree.locate_archived`, walks these folders again: they are spared for it)
        archived=stamps(ARCHIVE_DIR, skip=frozenset({TRASH_DIR, ARCHIVE_INDEX}), spare=True),
    )


# -- the run ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredReport:
    """The report file of the cache: the last report and the key of everything it depends on."""

    engine: str
    key: str
    written_ns: int
    proposals: tuple[Proposal, ...]
    trash: tuple[TrashItem, ...]
    near: tuple[NearPair, ...]
    dead: dict[str, str]  # why each dead route names no file: the report is stale when that changes


def check_health(
    root: Path,
    *,
    inactive_days: int = DEFAULT_INACTIVE_DAYS,
    today: dt.date | None = None,
    use_cache: bool = True,
    listed: folder_walk.Listed | None = None,
    listed_ns: int = 0,
) -> HealthReport:
    """Scan the active memory and propose what to keep, archive or delete. Reads only (plus its own cache).

    `listed`: a listing of the root taken just before (`status_cache.Probe.folders`), when the cache clock
    read `listed_ns` (`cache.clock`, before the listing's first stat): the first look walks it, so a cold
    `health` lists the tree once, not twice.

    Raises `LifecycleIncomplete` (naming `upgrade`) while the lifecycle structure is incomplete (PM-UPG-4).
    """
    # Allocation-heavy and short: collections would only walk the same young objects again and again.
    collect = gc.isenabled()
    gc.disable()
    shared = [] if listed is None else [(listed, listed_ns)]  # for the first look only

    def check(before: settled.Mark) -> HealthReport:
        prior = shared.pop() if shared else None
        return _check(Path(root), inactive_days, today, use_cache, before, prior)

    try:  # never a report (or a cache) made while an action ran: `settled`
        report, quiet, _ = settled.read(Path(root), check)
        if not quiet:
            raise Busy("Another pmem-tui action is changing this memory right now; try again in a moment.")
        return report
    finally:
        if collect:
            gc.enable()


def _check(
    root: Path,
    inactive_days: int,
    today: dt.date | None,
    use_cache: bool,
    before: settled.Mark,
    prior: tuple[folder_walk.Listed, int] | None = None,
) -> HealthReport:
    started = time.perf_counter()
    require_lifecycle(root, "run a health check")
    user_input.check_days(inactive_days)
    day = today or clock_today()
    written_at = cache_layer.clock()  # before any file is listed: see `cache.fresh`
    if prior is not None:
        written_at = min(written_at, prior[1])  # the listing walked here was taken from then on
    listed = prior[0] if prior is not None else None
    listing = _list(root, listed)
    # The newest history record: a forget changes only the history, and with it the kept secrets.
    key = listing.key(day, inactive_days) + (stat_table.read_head(root) or "")
    if use_cache:
        cached = _cached_report(root, key, listing, day, inactive_days)
        if cached is not None:
            stats = HealthStats(
                files=len(listing.active),
                cache="report",
                cache_hits=len(listing.active),
                seconds=time.perf_counter() - started,
            )
            return replace(cached, stats=stats)
    from pmem_tui.core.health import features, kept, signals, similarity
    from pmem_tui.core.health.features import FeatureCache, IndexCache

    run = Run(root, day, inactive_days)
    cache, old_sig = _cached_features(root) if use_cache else (None, None)
    active = listing.files(listing.active)
    entries, orphan_lines, unbulleted = features.index_job(run, active, listing.index, cache)
    trash, stale = _archive_findings(run, listing, listed)
    feats = features.features(run, active, cache, old_sig)
    features.with_index_lines(feats.files, orphan_lines)
    checked = similarity.checked_pairs(cache, feats)
    norm: dict[str, bytes] = {}
    exact = similarity.exact_groups(run, feats, norm)
    pairs, checked_now = similarity.near_pairs(run, feats, checked, exact, norm)
    overlaps = similarity.core_overlaps(run, listing.files(listing.core), feats)
    evidence = signals.Evidence(
        day, inactive_days, feats.files, entries, exact, pairs, overlaps, kept.kept_secrets(root)
    )
    dead = dead_reasons(root, (route for route in evidence.routes if route not in evidence.on_disk))
    evidence.dead = dead
    evidence.unbulleted = unbulleted or {}
    evidence.stale = stale
    proposals = signals.propose(evidence)
    files = feats.files
    near = tuple(
        sorted((NearPair(files[i].path, files[j].path, s) for i, j, s in pairs), key=lambda p: (p.a, p.b))
    )
    written = False
    if use_cache and settled.quiet(root, before):
        index = None
        if listing.index is not None:
            index = IndexCache(
                listing.index.size,
                listing.index.mtime_ns,
                listing.index.ctime_ns,
                tuple(entries),
                None if unbulleted is None else tuple(unbulleted.items()),
            )
        pairs_now = tuple((a, b, s) for (a, b), s in checked_now.items())
        header = FeatureCache(ENGINE, written_at, tuple(files), index, pairs_now)
        stored = StoredReport(ENGINE, key, written_at, proposals, trash, near, dead)
        written = health_cache.write(root, codec.dumps(header), feats.sig, codec.dumps(stored))
    stats = HealthStats(
        files=len(files),
        read=run.read,
        cache="off" if not use_cache else ("features" if cache is not None else "cold"),
        cache_hits=len(files) - len(feats.fresh),
        cache_written=written,
        candidates=run.candidates,
        compared=run.compared,
        seconds=time.perf_counter() - started,
    )
    return HealthReport(root, day, inactive_days, proposals, trash, near, stats)


def _archive_findings(
    run: Run, listing: _Listing, listed: folder_walk.Listed | None
) -> tuple[tuple[TrashItem, ...], dict[str, str]]:
    """The trash past its deadline, as the scan finds it (`tree.expired_trash`), and the active files a
    record in `_archive/_index.md` still says are archived or in the trash (moved back by hand or by an
    agent): path -> the scan's sentence for it (its `stale-record` problem). The records are parsed once and
    the archive matched once, only when there is trash or a record names an active path."""
    from pmem_tui.core.records import parse_records

    data = run.read_file(ARCHIVE_INDEX) if listing.archive_index is not None else None
    recs = parse_records(textio.decode(data)) if data else []
    active = {s[0] for s in listing.active}
    named = any(r.path in active for r in recs)
    if not listing.trash and not named:
        return (), {}
    matching, files, _ = tree.locate_archived(run.root, recs, active.__contains__, listed, run.today)
    trash = tree.expired_trash(matching, files, recs, run.today) if listing.trash else ()
    if not named:
        return trash, {}
    problems = archive_match.record_problems(matching, recs)
    return trash, {p.path: p.detail for p in problems if p.kind == "stale-record" and p.path in active}


# -- the cache ----------------------------------------------------------------------------------------------


def _cached_features(root: Path) -> tuple[FeatureCache | None, npt.NDArray[np.uint32] | None]:
    from pmem_tui.core.health.features import FeatureCache
    from pmem_tui.core.health.sketch import NUM_BINS

    loaded = health_cache.read_features(root, NUM_BINS)
    if loaded is None:
        return None, None
    head, sig = loaded
    try:
        cache = codec.loads(FeatureCache, head)
    except (ValueError, TypeError, KeyError):
        return None, None
    if cache.engine != ENGINE or len(cache.files) != len(sig):
        return None, None
    return cache, sig


def _cached_report(
    root: Path, key: str, listing: _Listing, today: dt.date, inactive_days: int
) -> HealthReport | None:
    data = health_cache.read_report(root)
    if data is None:
        return None
    try:
        stored = codec.loads(StoredReport, data)
    except (ValueError, TypeError, KeyError):
        return None
    if (
        stored.engine != ENGINE
        or stored.key != key
        or cache_layer.is_racy(listing.newest_ns(), stored.written_ns)
        or dead_reasons(root, stored.dead) != stored.dead  # a FIFO, link or folder where none was
    ):
        return None
    return HealthReport(root, today, inactive_days, stored.proposals, stored.trash, stored.near)
