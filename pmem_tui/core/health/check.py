"""Memory health (PM-HEALTH-1..6): find what to archive, say why, never act.

`check_health(root)` scans the active on-demand files (``projects/`` and ``notes/``; never ``_core/``, the
indexes, the archive or hidden metadata) and returns numbered proposals, most certain first, each with its
signals, a one-line reason and, for index drift, the exact fix. Nothing is moved, written or deleted: each
proposal is acted on later through the lifecycle services (`lifecycle.plan_archive`, then `plan_delete` for a
"delete"; `plan_fix` for an index fix), each with its own preview and confirmation. Expired trash is listed
apart; only `purge` removes it, with its own confirmation (PM-DEL-5, PM-HEALTH-6).

Signals
-------
=================  ========================================================================================
inactive           no change for `inactive_days` (default 90) days or more: the newest of the file's mtime and
                   a date the file states (``Updated: …``, front matter ``updated:``/``date:``…); the detail
                   says which one was used.
duplicate          the same words in the same order as another file (case, spacing and punctuation ignored):
                   files with equal MinHash signatures and word counts, confirmed by the sha256 of their
                   normalized texts.
near-duplicate     at least `SIM_THRESHOLD` (85%) similar to another file: MinHash LSH over word 3-grams finds
                   candidates, rapidfuzz's Indel similarity of the normalized texts confirms them
                   (`sketch` documents the parameters and the probabilities).
concluded          a status line or front matter says done/closed/shipped/已完成… (`text`), or
                   every item of a checklist of two or more is ticked.
overlaps-core      at least `OVERLAP_THRESHOLD` (80%) of the file's word 3-grams are already in ``_core/``.
orphan             on disk but not in ``_index.md``; fix: the line to add (`lifecycle.propose_index_line`).
dead-route         in ``_index.md`` but no such file; fix: the line to drop.
duplicate-route    listed more than once; fix: the extra line to drop.
invalid-summary    a ``## Summary`` that is not 3 to 6 bullets (never rewritten automatically, PM-SAVE-5).
=================  ========================================================================================

Of two duplicates, the one proposed is the one not in the index, else the older (by the date used for
inactivity), else the one whose path sorts later; in a group, every file is compared with the files kept, so
a proposal always names a file that stays.

Categories (PM-ARC-2)
---------------------
* **delete** (archive first, then trash): an exact duplicate, or a near duplicate at least
  `DELETE_SIMILARITY` (95%) similar.
* **archive**: any other near duplicate, a concluded file, a file that repeats ``_core/``, an inactive file.
* **keep**: an inactive file whose status says it is still active (``Status: in progress``), and index drift
  alone (fix the index, keep the file).

Certainty combines the signals' own certainties as independent evidence (``1 - Π(1 - c)``): exact
duplicate 0.98; near duplicate its similarity minus 0.05; concluded by status 0.8, by checklist 0.6;
overlaps core 0.5 to 0.9 with the overlap; inactive 0.4 at the threshold rising to 0.7 at three times it;
index drift alone 0.9; keep despite inactivity 0.3.

Performance
-----------
Each file is read at most once per run. Per-file features are cached by (path, size, mtime_ns) in the
root's folder of the user's cache folder (`health_cache`); a run in which nothing changed reuses the whole
last report and reads no file; a run after a change reads only the changed files (and `_core/`, and the
candidates a comparison needs). ``use_cache=False`` neither reads nor writes the cache. Nothing under the
root is ever written.
"""

from __future__ import annotations

import datetime as dt
import functools
import gc
import hashlib
import os
import stat
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pmem_tui.core import (
    archive_match,
    health_cache,
    index,
    meta_cache,
    records,
    safeio,
    settled,
    textio,
    user_input,
)
from pmem_tui.core.health import sketch as sk
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.draft import Draft
from pmem_tui.core.errors import Busy, Refused
from pmem_tui.core.health.text import Facts, extract_facts, normalized_text
from pmem_tui.core.lifecycle import propose_index_line, require_lifecycle
from pmem_tui.core.model import (
    ACTIVE_DIRS,
    ARCHIVE_INDEX,
    CORE_DIR,
    DEFAULT_INACTIVE_DAYS,
    INDEX_FILE,
    TRASH_DIR,
    ArchiveRecord,
    IndexPlace,
    TrashItem,
)
from pmem_tui.core.plan import Plan

__all__ = [
    "CATEGORIES",
    "DEFAULT_INACTIVE_DAYS",
    "DELETE_SIMILARITY",
    "OVERLAP_THRESHOLD",
    "SIGNAL_KINDS",
    "SIM_THRESHOLD",
    "HealthReport",
    "HealthStats",
    "NearPair",
    "Proposal",
    "Signal",
    "archive_reason",
    "check_health",
    "health_dict",
    "health_lines",
    "plan_fix",
]

ENGINE = "health-1"  # bump when features, normalization or sketches change: old caches are then ignored
SIM_THRESHOLD = sk.SIM_THRESHOLD
DELETE_SIMILARITY = 0.95
OVERLAP_THRESHOLD = 0.8
SIGNAL_KINDS = (
    "duplicate",
    "near-duplicate",
    "concluded",
    "overlaps-core",
    "inactive",
    "orphan",
    "dead-route",
    "duplicate-route",
    "invalid-summary",
)
CATEGORIES = ("delete", "archive", "keep")
LIFECYCLE_KINDS = frozenset({"duplicate", "near-duplicate", "concluded", "overlaps-core", "inactive"})
DRIFT_KINDS = frozenset({"orphan", "dead-route", "duplicate-route", "invalid-summary"})
_DRIFT_CERTAINTY = 0.9
_KEEP_CERTAINTY = 0.3
_MAX_REASON = 240


@dataclass(frozen=True)
class Signal:
    """One piece of evidence. `other` names the related file (duplicates, core overlap); `score`: a share."""

    kind: str
    detail: str
    other: str | None = None
    score: float | None = None


@dataclass(frozen=True)
class Proposal:
    """A numbered proposal: keep / archive / delete, why, and for index drift the exact fix.

    `fix_action` says what to do with `fix`: "add" (an orphan's line to add to `_index.md`) or "drop" (a dead
    or duplicate route's line to remove). `plan_fix` turns it into a plan with its own preview.
    """

    n: int
    path: str
    category: str
    signals: tuple[Signal, ...]
    reason: str
    certainty: float
    fix: str | None = None
    fix_action: str | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(s.kind for s in self.signals)


@dataclass(frozen=True)
class NearPair:
    """Two active files confirmed as near duplicates (a < b), with their similarity (0..1)."""

    a: str
    b: str
    similarity: float


@dataclass(frozen=True)
class HealthStats:
    files: int = 0  # active files scanned
    read: int = 0  # files read in this run (active, core and control files)
    cache: str = "off"  # "off", "cold" (nothing usable), "features" (per-file cache used), "report" (reused)
    cache_hits: int = 0  # active files whose features came from the cache
    cache_written: bool = False
    candidates: int = 0  # LSH candidate pairs
    compared: int = 0  # pairs compared exactly in this run
    seconds: float = 0.0


@dataclass(frozen=True)
class HealthReport:
    root: Path
    today: dt.date
    inactive_days: int
    proposals: tuple[Proposal, ...]
    expired_trash: tuple[TrashItem, ...]
    near_pairs: tuple[NearPair, ...] = ()
    stats: HealthStats = field(default_factory=HealthStats)

    def proposal(self, path: str) -> Proposal | None:
        return next((p for p in self.proposals if p.path == path), None)


# -- listing ------------------------------------------------------------------------------------------------

Entry = tuple[str, int, int]  # (path relative to the root, size, mtime_ns)


def _walk(root: str, rel_dir: str) -> list[Entry]:
    """Every non-hidden regular file below `rel_dir`, never following symlinks (as `tree.walk_files`)."""
    out: list[Entry] = []
    stack = [rel_dir]
    while stack:
        current = stack.pop()
        try:
            entries = safeio.list_dir(root, current)  # reached without following a link
        except OSError:
            continue
        for name, st in entries:
            if name.startswith("."):
                continue
            mode = st.st_mode
            if stat.S_ISDIR(mode):
                stack.append(f"{current}/{name}")
            elif stat.S_ISREG(mode):
                out.append((f"{current}/{name}", st.st_size, st.st_mtime_ns))
    out.sort()
    return out


def _stat(root: str, rel: str) -> Entry | None:
    try:
        st = os.stat(f"{root}/{rel}", follow_symlinks=False)
    except OSError:
        return None
    return (rel, st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


@dataclass
class _Listing:
    active: list[Entry]
    core: list[Entry]
    trash: list[Entry]
    index: Entry | None
    archive_index: Entry | None

    def key(self, today: dt.date, inactive_days: int) -> str:
        h = hashlib.blake2b(digest_size=16)
        h.update(
            f"{ENGINE}\0{today.isoformat()}\0{inactive_days}\0{self.index}\0{self.archive_index}\n".encode()
        )
        for group in (self.active, self.core, self.trash):
            h.update("\n".join(f"{p}\0{s}\0{m}" for p, s, m in group).encode("utf-8", "surrogatepass"))
            h.update(b"\1")
        return h.hexdigest()

    def newest_ns(self) -> int:
        stamps = [m for group in (self.active, self.core, self.trash) for _, _, m in group]
        stamps += [e[2] for e in (self.index, self.archive_index) if e is not None]
        return max(stamps, default=0)


def _list(root: str) -> _Listing:
    active: list[Entry] = []
    for folder in ACTIVE_DIRS:
        active += [e for e in _walk(root, folder) if e[0].endswith(".md")]
    active.sort()
    return _Listing(
        active=active,
        core=_walk(root, CORE_DIR),
        trash=_walk(root, TRASH_DIR),
        index=_stat(root, INDEX_FILE),
        archive_index=_stat(root, ARCHIVE_INDEX),
    )


def _read(root: str, rel: str) -> bytes | None:
    """A file's bytes through `safeio` (no link at any depth, no FIFO or device, capped); None when it
    cannot be read."""
    try:
        return safeio.read_under(root, rel)
    except OSError:
        return None


# -- per-file features ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _File:
    path: str
    size: int
    mtime_ns: int
    tokens: int
    shingles: int
    facts: Facts
    index_line: str | None = None  # proposed line for an orphan (computed when needed, cached)
    fresh: bool = False  # computed in this run (not from the cache)
    row: int = 0  # row in the signature matrix


_NO_FACTS = Facts()
_FRONT_STARTS = (b"---", b"\xef\xbb\xbf---")


def _mtime_date(mtime_ns: int) -> dt.date:
    return dt.datetime.fromtimestamp(mtime_ns / 1e9).date()


# -- the check -----------------------------------------------------------------------------------------------


@dataclass
class _Run:
    root: Path
    today: dt.date
    inactive_days: int
    use_cache: bool
    read: int = 0
    compared: int = 0
    candidates: int = 0
    cache_state: str = "off"
    texts: dict[str, bytes] = field(default_factory=dict)  # raw bytes of files read in this run

    def __post_init__(self) -> None:
        self.prefix = os.fspath(self.root) + "/"

    def read_file(self, rel: str) -> bytes | None:
        data = self.texts.get(rel)
        if data is None:
            data = _read(self.prefix, rel)
            self.read += 1
            if data is not None:
                self.texts[rel] = data
        return data

    def read_many(self, entries: list[Entry]) -> list[bytes]:
        prefix = self.prefix
        out = [_read(prefix, rel) or b"" for rel, _, _ in entries]
        self.read += len(entries)
        return out


def check_health(
    root: Path,
    *,
    inactive_days: int = DEFAULT_INACTIVE_DAYS,
    today: dt.date | None = None,
    use_cache: bool = True,
) -> HealthReport:
    """Scan the active memory and propose what to keep, archive or delete. Reads only (plus its own cache).

    Raises `LifecycleIncomplete` (naming `upgrade`) while the lifecycle structure is incomplete (PM-UPG-4).
    """
    # Allocation-heavy and short: collections would only walk the same young objects again and again.
    collect = gc.isenabled()
    gc.disable()
    try:  # never a report (or a cache) made while an action ran: `settled`
        check = functools.partial(_check, Path(root), inactive_days, today, use_cache)
        report, quiet, _ = settled.read(Path(root), check)
        if not quiet:
            raise Busy("Another pmem-tui action is changing this memory right now; try again in a moment.")
        return report
    finally:
        if collect:
            gc.enable()


def _check(
    root: Path, inactive_days: int, today: dt.date | None, use_cache: bool, before: settled.Mark
) -> HealthReport:
    started = time.perf_counter()
    require_lifecycle(root, "run a health check")
    user_input.check_days(inactive_days)
    day = today or clock_today()
    listing = _list(os.fspath(root))
    key = listing.key(day, inactive_days)
    written_at = time.time_ns()
    if use_cache:
        cached = _cached_report(root, key, listing, day, inactive_days)
        if cached is not None:
            return _with_stats(
                cached,
                cache="report",
                files=len(listing.active),
                read=0,
                hits=len(listing.active),
                seconds=time.perf_counter() - started,
            )
    run = _Run(root, day, inactive_days, use_cache)
    header, old_sig = (None, None)
    if use_cache:
        loaded = health_cache.read_features(root, sk.NUM_BINS)
        if loaded is not None and loaded[0].get("engine") == ENGINE:
            header, old_sig = loaded
    run.cache_state = "off" if not use_cache else ("features" if header is not None else "cold")
    entries, orphan_lines = _index_job(run, listing, header)
    trash = _expired_trash(run, listing)
    files, sig, sketches_fresh = _features(run, listing, header, old_sig)
    for f in files:
        if f.path in orphan_lines:
            f.index_line = orphan_lines[f.path]
    checked = _checked_pairs(header, files)
    norm: dict[str, bytes] = {}
    exact = _exact_groups(run, files, sig, norm)
    pairs, checked_now = _near_pairs(run, files, sig, checked, exact, norm)
    overlaps = _core_overlaps(run, listing, files, sig, sketches_fresh)
    proposals = _propose(run, files, entries, exact, pairs, overlaps)
    near = tuple(
        sorted((NearPair(files[i].path, files[j].path, s) for i, j, s in pairs), key=lambda p: (p.a, p.b))
    )
    report = HealthReport(root, day, inactive_days, proposals, trash, near)
    hits = sum(1 for f in files if not f.fresh)
    written = False
    if use_cache and settled.quiet(root, before):
        written = health_cache.write(
            root,
            _features_header(files, listing, entries, checked_now, written_at),
            sig,
            _report_cache(report, key, written_at),
        )
    stats = HealthStats(
        files=len(files),
        read=run.read,
        cache=run.cache_state,
        cache_hits=hits,
        cache_written=written,
        candidates=run.candidates,
        compared=run.compared,
        seconds=time.perf_counter() - started,
    )
    return HealthReport(root, day, inactive_days, proposals, trash, near, stats)


def _with_stats(
    report: HealthReport, *, cache: str, files: int, read: int, hits: int, seconds: float
) -> HealthReport:
    stats = HealthStats(files=files, read=read, cache=cache, cache_hits=hits, seconds=seconds)
    return HealthReport(
        report.root,
        report.today,
        report.inactive_days,
        report.proposals,
        report.expired_trash,
        report.near_pairs,
        stats,
    )


_racy = meta_cache.is_racy


def _features(
    run: _Run, listing: _Listing, header: dict[str, Any] | None, old_sig: npt.NDArray[np.uint32] | None
) -> tuple[list[_File], npt.NDArray[np.uint32], dict[str, tuple[sk.Sketches, int]]]:
    """Every active file's features: from the cache when its (size, mtime_ns) match, else read anew."""
    cached: dict[str, tuple[int, list[Any]]] = {}
    if header is not None and old_sig is not None:
        try:
            cols = header["files"]
            written = int(header["written_ns"])
            facts_of, lines_of = cols["facts"], cols["lines"]
            tokens, shingles = cols["tokens"], cols["shingles"]
            for row, (p, s, m) in enumerate(zip(cols["paths"], cols["sizes"], cols["mtimes"], strict=True)):
                if not _racy(m, written):
                    key = str(row)
                    cached[p] = (
                        row,
                        [s, m, tokens[row], shingles[row], facts_of.get(key), lines_of.get(key)],
                    )
        except (KeyError, TypeError, ValueError, IndexError):
            cached = {}
    files: list[_File] = []
    rows: list[int] = []
    fresh_entries: list[Entry] = []
    for path, size, mtime in listing.active:
        hit = cached.get(path)
        if hit is not None and hit[1][0] == size and hit[1][1] == mtime:
            row, (_, _, tokens, shingles, facts_raw, line) = hit
            try:
                facts = _NO_FACTS if facts_raw is None else Facts.from_list(facts_raw)
            except (ValueError, TypeError):
                hit = None
            else:
                files.append(
                    _File(
                        path,
                        size,
                        mtime,
                        int(tokens),
                        int(shingles),
                        facts,
                        None if line is None else str(line),
                    )
                )
                rows.append(row)
                continue
        files.append(_File(path, size, mtime, 0, 0, _NO_FACTS, fresh=True))
        rows.append(-1)
        fresh_entries.append((path, size, mtime))
    fresh_data = run.read_many(fresh_entries)
    run.texts.update(zip((e[0] for e in fresh_entries), fresh_data, strict=True))
    sig = np.empty((len(files), sk.NUM_BINS), dtype=np.uint32)
    fresh: dict[str, tuple[sk.Sketches, int]] = {}
    if fresh_data:
        batch = sk.sketch(fresh_data)
        fresh_rows = [i for i, f in enumerate(files) if f.fresh]
        sig[fresh_rows] = batch.signatures
        tokens, shingles = batch.token_counts.tolist(), batch.shingle_counts.tolist()
        for k, (i, data, hints) in enumerate(zip(fresh_rows, fresh_data, batch.hints.tolist(), strict=True)):
            f = files[i]
            f.tokens, f.shingles = tokens[k], shingles[k]
            f.facts = extract_facts(data, hints) if hints or data.startswith(_FRONT_STARTS) else _NO_FACTS
            fresh[f.path] = (batch, k)
    if old_sig is not None:
        take = [i for i, r in enumerate(rows) if r >= 0]
        if take:
            sig[take] = old_sig[[rows[i] for i in take]]
    for i, f in enumerate(files):
        f.row = i
    return files, sig, fresh


def _index_entries(run: _Run, listing: _Listing, header: dict[str, Any] | None) -> list[tuple[str, str, int]]:
    """(route, raw line, line number) of every `_index.md` entry, from the cache when it is unchanged."""
    if listing.index is None:
        return []
    _, size, mtime = listing.index
    if header is not None:
        try:
            idx = header["index"]
            if (idx["size"], idx["mtime"]) == (size, mtime) and not _racy(mtime, int(header["written_ns"])):
                if not idx["lines"]:
                    return []
                routes, raws = str(idx["routes"]).split("\n"), str(idx["raws"]).split("\n")
                return list(zip(routes, raws, (int(n) for n in idx["lines"]), strict=True))
        except (KeyError, TypeError, ValueError):
            pass
    data = run.read_file(INDEX_FILE)
    if data is None:
        return []
    return index_routes(textio.decode(data))


def index_routes(text: str) -> list[tuple[str, str, int]]:
    """(route, raw line, line number) for every entry of an index text (`index.parse_index`, which has
    its own fast path for the shapes pmem-tui and most agents write)."""
    return [(e.route, e.raw, e.line_no) for e in index.parse_index(text)]


def _index_job(
    run: _Run, listing: _Listing, header: dict[str, Any] | None
) -> tuple[list[tuple[str, str, int]], dict[str, str | None]]:
    """The index entries, and the line each orphan would get (`lifecycle.propose_index_line`, or cached)."""
    entries = _index_entries(run, listing, header)
    routes = {r for r, _, _ in entries}
    orphans = [e for e in listing.active if e[0] not in routes]
    cached: dict[str, tuple[int, int, str]] = {}
    if orphans and header is not None:
        try:
            cols = header["files"]
            written = int(header["written_ns"])
            at = {p: i for i, p in enumerate(cols["paths"])}
            for path, _, _ in orphans:
                i = at.get(path)
                line = cols["lines"].get(str(i)) if i is not None else None
                if i is not None and line is not None and not _racy(cols["mtimes"][i], written):
                    cached[path] = (cols["sizes"][i], cols["mtimes"][i], str(line))
        except (KeyError, TypeError, ValueError, AttributeError):
            cached = {}
    lines: dict[str, str | None] = {}
    for path, size, mtime in orphans:
        hit = cached.get(path)
        if hit is not None and hit[:2] == (size, mtime):
            lines[path] = hit[2]
            continue
        try:
            lines[path] = propose_index_line(run.root, path, path)
        except ValueError:  # a path no index line can carry
            lines[path] = None
    return entries, lines


def _checked_pairs(header: dict[str, Any] | None, files: list[_File]) -> dict[tuple[str, str], float]:
    """Pairs compared in an earlier run whose files are both unchanged: (path a, path b) -> similarity."""
    if header is None:
        return {}
    unchanged = {f.path for f in files if not f.fresh}
    out: dict[tuple[str, str], float] = {}
    try:
        for a, b, s in header["pairs"]:
            if a in unchanged and b in unchanged:
                out[(str(a), str(b))] = float(s)
    except (KeyError, TypeError, ValueError):
        return {}
    return out


def _exact_groups(
    run: _Run, files: list[_File], sig: npt.NDArray[np.uint32], norm: dict[str, bytes]
) -> list[list[int]]:
    """Groups (of rows) of files with the same words in the same order (case, spacing, punctuation ignored).

    Candidates share a signature and a word count (or, without shingles, are tiny); each is confirmed by
    comparing the sha256 of its normalized text, read only for candidates.
    """
    by_key: dict[tuple[int, int], list[int]] = defaultdict(list)
    keys = sk.row_keys(sig).tolist() if len(files) else []
    for f, key in zip(files, keys, strict=True):
        if f.tokens > 0:
            by_key[(key if f.shingles else -f.tokens, f.tokens)].append(f.row)
    groups: list[list[int]] = []
    for rows in by_key.values():
        if len(rows) < 2:
            continue
        by_sha: dict[bytes, list[int]] = defaultdict(list)
        for row in rows:
            by_sha[hashlib.sha256(_normalized(run, files[row], norm)).digest()].append(row)
        groups += [g for g in by_sha.values() if len(g) > 1]
    return groups


def _normalized(run: _Run, f: _File, cache: dict[str, bytes]) -> bytes:
    got = cache.get(f.path)
    if got is None:
        got = normalized_text(run.read_file(f.path) or b"")
        cache[f.path] = got
    return got


def _near_pairs(
    run: _Run,
    files: list[_File],
    sig: npt.NDArray[np.uint32],
    checked: dict[tuple[str, str], float],
    exact: list[list[int]],
    norm: dict[str, bytes],
) -> tuple[list[tuple[int, int, float]], dict[tuple[str, str], float]]:
    """Confirmed near-duplicate pairs (row a, row b, similarity), and every pair compared (for the cache)."""
    eligible = np.array([f.shingles >= sk.MIN_SHINGLES for f in files], dtype=bool)
    cand = sk.candidate_pairs(sig, eligible) if len(files) > 1 else np.zeros((0, 2), dtype=np.int64)
    run.candidates = len(cand)
    if len(cand):
        est = sk.estimated_jaccard(sig, cand)
        cand = cand[est >= sk.JACCARD_FLOOR]
    group_of = {row: n for n, rows in enumerate(exact) for row in rows}
    found: list[tuple[int, int, float]] = []
    compared: dict[tuple[str, str], float] = {}
    for i, j in cand.tolist():
        fa, fb = files[i], files[j]
        if i in group_of and group_of[i] == group_of.get(j):
            continue  # an exact duplicate, reported as such
        key = (fa.path, fb.path)
        s = checked.get(key)
        if s is None:
            s = sk.similarity(_normalized(run, fa, norm), _normalized(run, fb, norm))
            run.compared += 1
        compared[key] = s
        if s >= SIM_THRESHOLD:
            found.append((i, j, s))
    return found, compared


def _core_overlaps(
    run: _Run,
    listing: _Listing,
    files: list[_File],
    sig: npt.NDArray[np.uint32],
    fresh: dict[str, tuple[sk.Sketches, int]],
) -> dict[int, tuple[float, str]]:
    """Row -> (share of its 3-grams found in `_core/`, the core file that holds most of them)."""
    core_data = [(p, run.read_file(p) or b"") for p, _, _ in listing.core if p.endswith(".md")]
    if not core_data or not files:
        return {}
    per_core = sk.sketch([d for _, d in core_data])
    union = np.unique(per_core.shingles)
    if len(union) == 0:
        return {}
    whole = sk.sketch([b"\n\n".join(d for _, d in core_data)])
    core_sig = whole.signatures[0]
    counts = np.array([f.shingles for f in files], dtype=np.float64)
    eligible = counts >= sk.MIN_SHINGLES
    jac = (sig == core_sig[None, :]).mean(axis=1)
    contain = jac * (counts + len(union)) / ((1.0 + jac) * np.maximum(counts, 1.0))
    screened = np.flatnonzero(eligible & (contain >= OVERLAP_THRESHOLD - 0.3))
    out: dict[int, tuple[float, str]] = {}
    if len(screened) == 0:
        return out
    need = [files[i] for i in screened if files[i].path not in fresh]
    extra = sk.sketch([run.read_file(f.path) or b"" for f in need]) if need else None
    extra_at = {f.path: k for k, f in enumerate(need)}
    core_sets = [np.unique(per_core.shingles_of(k)) for k in range(len(core_data))]
    for i in screened.tolist():
        f = files[i]
        if f.path in fresh:
            batch, k = fresh[f.path]
            mine = np.unique(batch.shingles_of(k))
        else:
            assert extra is not None
            mine = np.unique(extra.shingles_of(extra_at[f.path]))
        if len(mine) == 0:
            continue
        share = float(np.isin(mine, union, assume_unique=True).mean())
        if share >= OVERLAP_THRESHOLD:
            best = max(range(len(core_data)), key=lambda k: np.isin(mine, core_sets[k]).sum())
            out[i] = (share, core_data[best][0])
    return out


def _expired_trash(run: _Run, listing: _Listing) -> tuple[TrashItem, ...]:
    """Trash items past their recovery deadline, as the scan computes them (`tree.scan`'s expired_trash)."""
    if not listing.trash:
        return ()
    data = run.read_file(ARCHIVE_INDEX) if listing.archive_index is not None else None
    recs = records.parse_records(textio.decode(data)) if data is not None else []
    placed = archive_match.match_files(recs, (), [path for path, _, _ in listing.trash]).placed
    items: list[TrashItem] = []
    for (path, size, mtime), place in zip(listing.trash, placed, strict=True):
        rec = place.record  # found from its record wherever it stands in the trash, as the scan does
        deadline = rec.deadline if rec else None
        if deadline is not None and run.today > deadline:
            items.append(
                TrashItem(place.path, path, size, mtime, rec, rec.deleted if rec else None, deadline, True)
            )
    items.sort(key=lambda t: (t.deadline or dt.date.max, t.path))
    return tuple(items)


# -- proposals -----------------------------------------------------------------------------------------------


def _pct(x: float) -> int:
    """A share as a whole percentage that never rounds a difference away (99.7% -> 99)."""
    return min(99, int(x * 100)) if x < 1.0 else 100


def _last_activity(run: _Run, f: _File) -> tuple[dt.date, str]:
    modified = _mtime_date(f.mtime_ns)
    stated = dt.date.fromisoformat(f.facts.stated) if f.facts.stated else None
    if stated is not None and stated > modified:
        return stated, f"the file states `{f.facts.stated_from}`"
    return modified, f"file modified {modified.isoformat()}"


def _propose(
    run: _Run,
    files: list[_File],
    entries: list[tuple[str, str, int]],
    exact: list[list[int]],
    pairs: list[tuple[int, int, float]],
    overlaps: dict[int, tuple[float, str]],
) -> tuple[Proposal, ...]:
    signals: dict[str, list[Signal]] = defaultdict(list)
    fixes: dict[str, tuple[str, str]] = {}
    cutoff = run.today - dt.timedelta(days=run.inactive_days)
    cutoff_iso = cutoff.isoformat()
    cutoff_ns = int(dt.datetime.combine(cutoff + dt.timedelta(days=1), dt.time()).timestamp()) * 1_000_000_000
    routes = Counter(r for r, _, _ in entries)
    first_line: dict[str, str] = {}
    for r, raw, _ in entries:
        first_line.setdefault(r, raw)
    on_disk = {f.path for f in files}

    # Duplicates: keep the best of each group (indexed, newest, path first); the others name a kept file.
    neighbours: dict[int, list[tuple[int, float]]] = defaultdict(list)
    identical: set[tuple[int, int]] = set()
    for rows in exact:
        for a in rows:
            neighbours[a] += [(b, 1.0) for b in rows if b != a]
            identical.update((a, b) for b in rows if b != a)
    for a, b, s in pairs:
        neighbours[a].append((b, s))
        neighbours[b].append((a, s))
    if neighbours:

        def preference(row: int) -> tuple[bool, int, str]:
            f = files[row]
            return (f.path not in routes, -_last_activity(run, f)[0].toordinal(), f.path)

        kept: set[int] = set()
        for row in sorted(neighbours, key=preference):
            keepers = [(b, s) for b, s in neighbours[row] if b in kept]
            if not keepers:
                kept.add(row)
                continue
            other, s = max(keepers, key=lambda t: (t[1], -preference(t[0])[1]))
            f, o = files[row], files[other]
            if (row, other) in identical:
                signals[f.path].append(Signal("duplicate", f"identical to {o.path}", o.path, 1.0))
            else:
                signals[f.path].append(Signal("near-duplicate", f"{_pct(s)}% similar to {o.path}", o.path, s))

    for f in files:
        facts = f.facts
        if facts.status:
            signals[f.path].append(Signal("concluded", f"says it is {facts.status} (`{facts.status_from}`)"))
        elif facts.checklist_done:
            signals[f.path].append(
                Signal("concluded", f"every checklist item is ticked ({facts.ticked} of {facts.checklist})")
            )
        if f.row in overlaps:
            share, core_file = overlaps[f.row]
            signals[f.path].append(
                Signal(
                    "overlaps-core",
                    f"{_pct(share)}% of its text is already in {CORE_DIR}/ ({core_file})",
                    core_file,
                    share,
                )
            )
        # Inactive when the newest of the mtime and the stated date is on or before the cut-off day; the
        # cheap comparison first, the dates and words only for the files it keeps.
        if f.mtime_ns < cutoff_ns and (facts.stated is None or facts.stated <= cutoff_iso):
            last, source = _last_activity(run, f)
            days = (run.today - last).days
            signals[f.path].append(
                Signal("inactive", f"no change for {days} days ({source})", None, float(days))
            )
        if f.path not in routes:
            line = f.index_line
            signals[f.path].append(Signal("orphan", f"on disk but not in {INDEX_FILE}"))
            if line is not None:
                fixes[f.path] = ("add", line)
        if facts.summary_state == "invalid":
            signals[f.path].append(
                Signal("invalid-summary", f"its summary is invalid: {facts.summary_detail}")
            )
    for route, count in routes.items():
        if route not in on_disk:
            signals[route].append(Signal("dead-route", f"in {INDEX_FILE} but no such file"))
            fixes[route] = ("drop", first_line[route])
        if count > 1:
            signals[route].append(Signal("duplicate-route", f"listed {count} times in {INDEX_FILE}"))
            if route in on_disk:
                extra = [raw for r, raw, _ in entries if r == route][1]
                fixes.setdefault(route, ("drop", extra))

    open_status = {f.path: f.facts.open_status for f in files}
    drafts: list[tuple[float, int, str, str, list[Signal], str, tuple[str, str] | None]] = []
    for path, sigs in signals.items():
        sigs.sort(key=lambda s: SIGNAL_KINDS.index(s.kind))
        category, certainty, note = _classify(sigs, open_status.get(path), run.inactive_days)
        drafts.append(
            (
                certainty,
                CATEGORIES.index(category),
                path,
                category,
                sigs,
                _reason(sigs, note),
                fixes.get(path),
            )
        )
    drafts.sort(key=lambda d: (-d[0], d[1], d[2]))
    return tuple(
        Proposal(
            n,
            path,
            category,
            tuple(sigs),
            reason,
            certainty,
            fix[1] if fix else None,
            fix[0] if fix else None,
        )
        for n, (certainty, _, path, category, sigs, reason, fix) in enumerate(drafts, start=1)
    )


def _signal_certainty(s: Signal, inactive_days: int) -> float:
    if s.kind == "duplicate":
        return 0.98
    if s.kind == "near-duplicate":
        return max(0.5, (s.score or 0.0) - 0.05)
    if s.kind == "concluded":
        return 0.6 if s.detail.startswith("every checklist") else 0.8
    if s.kind == "overlaps-core":
        return 0.5 + 2.0 * max(0.0, (s.score or 0.0) - OVERLAP_THRESHOLD)
    if s.kind == "inactive":
        over = ((s.score or 0.0) - inactive_days) / (2.0 * inactive_days)
        return 0.4 + 0.3 * min(1.0, max(0.0, over))
    return _DRIFT_CERTAINTY


def _classify(sigs: list[Signal], open_status: str | None, inactive_days: int) -> tuple[str, float, str]:
    """(category, certainty, note for the reason)."""
    life = [s for s in sigs if s.kind in LIFECYCLE_KINDS]
    if not life:
        return "keep", _DRIFT_CERTAINTY, ""
    kinds = {s.kind for s in life}
    if kinds == {"inactive"} and open_status:
        return "keep", _KEEP_CERTAINTY, f"but it says its status is {open_status}: keep it active"
    doubt = 1.0
    for s in life:
        doubt *= 1.0 - _signal_certainty(s, inactive_days)
    certainty = round(min(0.99, 1.0 - doubt), 3)
    delete = "duplicate" in kinds or any(
        s.kind == "near-duplicate" and (s.score or 0.0) >= DELETE_SIMILARITY for s in life
    )
    return ("delete" if delete else "archive"), certainty, ""


def _reason(sigs: list[Signal], note: str) -> str:
    life = [s.detail for s in sigs if s.kind in LIFECYCLE_KINDS]
    drift = [s.detail for s in sigs if s.kind in DRIFT_KINDS]
    parts = life + drift
    text = "; ".join(parts)
    if note:
        text = f"{text}, {note}"
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


# -- cache records -------------------------------------------------------------------------------------------


def _features_header(
    files: list[_File],
    listing: _Listing,
    entries: list[tuple[str, str, int]],
    compared: dict[tuple[str, str], float],
    written_ns: int,
) -> dict[str, Any]:
    idx = listing.index
    return {
        "engine": ENGINE,
        "written_ns": written_ns,
        "files": {
            "paths": "\0".join(f.path for f in files),  # one string: much faster to encode than a list
            "sizes": [f.size for f in files],
            "mtimes": [f.mtime_ns for f in files],
            "tokens": [f.tokens for f in files],
            "shingles": [f.shingles for f in files],
            "facts": {str(i): f.facts.to_list() for i, f in enumerate(files) if f.facts != _NO_FACTS},
            "lines": {str(i): f.index_line for i, f in enumerate(files) if f.index_line is not None},
        },
        "index": None
        if idx is None
        else {
            "size": idx[1],
            "mtime": idx[2],
            "routes": "\n".join(r for r, _, _ in entries),  # neither routes nor lines hold a line break
            "raws": "\n".join(raw for _, raw, _ in entries),
            "lines": [n for _, _, n in entries],
        },
        "pairs": [[a, b, s] for (a, b), s in compared.items()],
    }


def _record_dict(rec: ArchiveRecord | None) -> dict[str, Any] | None:
    if rec is None:
        return None
    raw = asdict(rec)
    for k in ("archived", "deleted", "deadline"):
        raw[k] = raw[k].isoformat() if raw[k] is not None else None
    return raw


def _record_from(raw: dict[str, Any] | None) -> ArchiveRecord | None:
    if raw is None:
        return None
    values = dict(raw)
    for k in ("archived", "deleted", "deadline"):
        values[k] = dt.date.fromisoformat(values[k]) if values[k] else None
    values["more_lines"] = tuple(IndexPlace(**p) for p in values.get("more_lines", ()))  # JSON gave lists
    return ArchiveRecord(**values)


def _report_cache(report: HealthReport, key: str, written_ns: int) -> dict[str, Any]:
    return {
        "engine": ENGINE,
        "key": key,
        "written_ns": written_ns,
        "proposals": [
            [
                p.n,
                p.path,
                p.category,
                [[s.kind, s.detail, s.other, s.score] for s in p.signals],
                p.reason,
                p.certainty,
                p.fix,
                p.fix_action,
            ]
            for p in report.proposals
        ],
        "trash": [
            [
                t.path,
                t.location,
                t.size,
                t.mtime_ns,
                _record_dict(t.record),
                None if t.deleted is None else t.deleted.isoformat(),
                None if t.deadline is None else t.deadline.isoformat(),
            ]
            for t in report.expired_trash
        ],
        "near": [[p.a, p.b, p.similarity] for p in report.near_pairs],
    }


def _cached_report(
    root: Path, key: str, listing: _Listing, today: dt.date, inactive_days: int
) -> HealthReport | None:
    raw = health_cache.read_report(root)
    if raw is None or raw.get("engine") != ENGINE or raw.get("key") != key:
        return None
    try:
        if _racy(listing.newest_ns(), int(raw["written_ns"])):
            return None
        proposals = tuple(
            Proposal(
                int(n),
                str(path),
                str(cat),
                tuple(Signal(k, d, o, sc) for k, d, o, sc in sigs),
                str(reason),
                float(cert),
                fix,
                fa,
            )
            for n, path, cat, sigs, reason, cert, fix, fa in raw["proposals"]
        )
        trash = tuple(
            TrashItem(
                p,
                loc,
                int(size),
                int(mtime),
                _record_from(rec),
                dt.date.fromisoformat(deleted) if deleted else None,
                dt.date.fromisoformat(deadline) if deadline else None,
                True,
            )
            for p, loc, size, mtime, rec, deleted, deadline in raw["trash"]
        )
        near = tuple(NearPair(str(a), str(b), float(s)) for a, b, s in raw["near"])
    except (KeyError, TypeError, ValueError):
        return None
    return HealthReport(root, today, inactive_days, proposals, trash, near)


# -- output --------------------------------------------------------------------------------------------------


def health_dict(report: HealthReport) -> dict[str, Any]:
    """The JSON shape of `pmem-tui health --json`."""
    return {
        "root": str(report.root),
        "today": report.today.isoformat(),
        "inactive_days": report.inactive_days,
        "proposals": [
            {
                "n": p.n,
                "path": p.path,
                "category": p.category,
                "signals": [
                    {"kind": s.kind, "detail": s.detail, **({"other": s.other} if s.other else {})}
                    for s in p.signals
                ],
                "reason": p.reason,
                "certainty": p.certainty,
                "fix": p.fix,
                "fix_action": p.fix_action,
            }
            for p in report.proposals
        ],
        "expired_trash": [
            {
                "path": t.path,
                "location": t.location,
                "deadline": t.deadline.isoformat() if t.deadline else None,
            }
            for t in report.expired_trash
        ],
        "stats": asdict(report.stats),
    }


def health_lines(report: HealthReport) -> list[str]:
    """A readable numbered list (PM-HEALTH-4) and the expired trash apart (PM-HEALTH-6)."""
    props = report.proposals
    counts = Counter(p.category for p in props)
    lines = [
        f"Memory health of {report.root} ({report.today.isoformat()}, "
        f"inactive after {report.inactive_days} days): "
        f"{report.stats.files} active files",
    ]
    if props:
        summary = ", ".join(f"{counts[c]} {c}" for c in CATEGORIES if counts[c])
        lines.append(
            f"{len(props)} proposal{'s' if len(props) != 1 else ''} ({summary}), most certain first "
            "(delete = archive first, then move to the trash):"
        )
        width = len(str(len(props)))
        for p in props:
            lines.append(f"{p.n:>{width}}. {p.category:<7} {textio.display(p.path)} — {p.reason}")
            if p.fix is not None:
                verb = "add to" if p.fix_action == "add" else "drop from"
                lines.append(f"{'':>{width}}  fix: {verb} {INDEX_FILE}: {textio.display(p.fix)}")
    else:
        lines.append("Nothing to propose: every active file looks current and the index is in sync.")
    if report.expired_trash:
        lines.append(
            f"Expired trash ({len(report.expired_trash)}), removed only by `pmem-tui purge` after its own "
            "confirmation:"
        )
        for t in report.expired_trash:
            deadline = t.deadline.isoformat() if t.deadline else "?"
            lines.append(
                f"  {textio.display(t.path)}  at {textio.display(t.location)}  (deadline {deadline})"
            )
    lines.append(
        "Nothing was changed. Act item by item: `pmem-tui archive PATH --reason ...`, "
        "then `pmem-tui delete PATH` for a delete; each shows its preview first."
    )
    return lines


# -- fixes ---------------------------------------------------------------------------------------------------


def archive_reason(proposal: Proposal) -> str:
    """The one-line reason to record when a proposal is archived (`lifecycle.plan_archive`'s reason)."""
    text = f"health check: {proposal.reason}"
    return text if len(text) <= 200 else text[:199] + "…"


def plan_fix(root: Path, proposal: Proposal) -> Plan:
    """The `_index.md` change a drift proposal suggests, as a plan with its own preview (nothing applied)."""
    require_lifecycle(root, "fix the index")
    if proposal.fix is None or proposal.fix_action not in ("add", "drop"):
        raise Refused(f"Proposal {proposal.n} ({proposal.path}) has no index fix.")
    draft = Draft(root)
    text = draft.text(INDEX_FILE) or ""
    route = proposal.path
    existing = index.find_entries(text, route)
    if proposal.fix_action == "add":
        if existing:
            raise Refused(f"{route} is already in {INDEX_FILE}; nothing to add.")
        if safeio.entry_kind(root, route) != "file":  # never a link, at any depth
            raise Refused(f"{route} no longer exists; nothing to add.")
        draft.set_text(INDEX_FILE, index.append_line(text, proposal.fix))
        draft.index_added.append(proposal.fix)
        draft.outcomes.append(f"Added {route} to {INDEX_FILE}.")
    else:
        # A duplicate route keeps its first line; a dead route loses every line naming it.
        drop = existing[1:] if safeio.entry_kind(root, route) == "file" else existing
        if not drop:
            raise Refused(f"{INDEX_FILE} has nothing to drop for {route} any more.")
        for entry in sorted(drop, key=lambda e: e.line_no, reverse=True):
            text = index.remove_line(text, entry.line_no)
            draft.index_removed.append(entry.raw)
        draft.set_text(INDEX_FILE, text)
        draft.outcomes.append(f"Dropped {len(drop)} line(s) for {route} from {INDEX_FILE}.")
    draft.recovery.append(f"Only {INDEX_FILE} changes; the line can be edited back at any time.")
    draft.items.append(route)
    return draft.plan("save", f"Fix {INDEX_FILE}: {proposal.fix_action} {route}")
