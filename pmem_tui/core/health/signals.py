"""The signals, as one table: kind -> what finds it, how certain it is, what it proposes, and why.

Adding a signal is one row of `KINDS` and one function that finds it (`find`: the evidence of one run ->
(path, signal, fix or None)). A row's category is what the signal proposes on its own: "delete" and
"archive" are lifecycle evidence, combined into one certainty (``1 - Π(1 - c)``); "keep" is a fix to make
while the file stays (a secret, index drift), certain `FIX_CERTAINTY` when it comes alone. A proposal lists
its signals in table order, and takes the fix of the first of them that has one (a secret's redaction
before an orphan's index line: the next check then offers the other).

Of two duplicates, the one proposed is the one not in the index, else the older (by the date used for
inactivity), else the one whose path sorts later; in a group, every file is compared with the files kept, so
a proposal always names a file that stays. An inactive file whose status says it is still active is kept
(certainty `KEEP_CERTAINTY`).

A dead route listed once and an orphan that are one file (`moved_routes`: the route with backslashes made
slashes names the orphan, or nothing is at the route and the orphan is the one unlisted file with its name)
are one proposal on the orphan, fixed by rewriting that line's route ("reroute"): dropping the line and adding
a new one would lose the agent's title and summary.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pmem_tui.core.health.features import FileFeatures, IndexRow
from pmem_tui.core.health.kept import KeptSecret
from pmem_tui.core.health.report import CATEGORIES, Proposal, Signal
from pmem_tui.core.health.similarity import OVERLAP_THRESHOLD
from pmem_tui.core.index import orphan_said, slashed_route
from pmem_tui.core.model import CORE_DIR, INDEX_FILE
from pmem_tui.core.safeio import NO_SUCH_FILE

__all__ = ["DELETE_SIMILARITY", "KINDS", "SIGNAL_KINDS", "Evidence", "Kind", "propose"]

DELETE_SIMILARITY = 0.95
FIX_CERTAINTY = 0.9
KEEP_CERTAINTY = 0.3
_MAX_REASON = 240

Fix = tuple[str, str]  # (fix_action, fix)
Found = tuple[str, Signal, Fix | None]


@dataclass
class Evidence:
    """What one run found, for the signals' `find` functions."""

    today: dt.date
    inactive_days: int
    files: list[FileFeatures]
    entries: list[IndexRow]
    exact: list[list[int]]  # rows of exact duplicate groups
    pairs: list[tuple[int, int, float]]  # near-duplicate rows and similarity
    overlaps: dict[int, tuple[float, str]]  # row -> (share in _core/, core file)
    kept: list[KeptSecret] = field(default_factory=list)  # secrets in versions the history keeps
    # Why each listed route names no file (`dead_routes.why_dead`).
    dead: dict[str, str] = field(default_factory=dict)
    # The line naming an unlisted file without a list bullet (`index.unbulleted_routes`).
    unbulleted: dict[str, int] = field(default_factory=dict)
    # Active files a record still says are archived or in the trash -> the scan's sentence (`stale-record`).
    stale: dict[str, str] = field(default_factory=dict)

    @functools.cached_property
    def routes(self) -> Counter[str]:
        return Counter(r for r, _, _ in self.entries)

    @functools.cached_property
    def on_disk(self) -> set[str]:
        return {f.path for f in self.files}

    def last_activity(self, f: FileFeatures) -> tuple[dt.date, str]:
        modified = dt.datetime.fromtimestamp(f.mtime_ns / 1e9).date()
        stated = dt.date.fromisoformat(f.facts.stated) if f.facts.stated else None
        if stated is not None and stated > modified:
            return stated, f"the file states `{f.facts.stated_from}`"
        return modified, f"file modified {modified.isoformat()}"

    @functools.cached_property
    def closest_kept(self) -> dict[int, tuple[int, float, bool]]:
        """Row -> (the kept file it duplicates, similarity, identical?): keep the best of each group
        (indexed, newest, path first); every other file names a kept one."""
        neighbours: dict[int, list[tuple[int, float]]] = defaultdict(list)
        identical: set[tuple[int, int]] = set()
        for rows in self.exact:
            for a in rows:
                neighbours[a] += [(b, 1.0) for b in rows if b != a]
                identical.update((a, b) for b in rows if b != a)
        for a, b, s in self.pairs:
            neighbours[a].append((b, s))
            neighbours[b].append((a, s))

        def preference(row: int) -> tuple[bool, int, str]:
            f = self.files[row]
            return (f.path not in self.routes, -self.last_activity(f)[0].toordinal(), f.path)

        out: dict[int, tuple[int, float, bool]] = {}
        kept: set[int] = set()
        for row in sorted(neighbours, key=preference):
            keepers = [(b, s) for b, s in neighbours[row] if b in kept]
            if not keepers:
                kept.add(row)
                continue
            other, s = max(keepers, key=lambda t: (t[1], -preference(t[0])[1]))
            out[row] = (other, s, (row, other) in identical)
        return out


def _pct(x: float) -> int:
    """A share as a whole percentage that never rounds a difference away (99.7% -> 99)."""
    return min(99, int(x * 100)) if x < 1.0 else 100


# -- finding each signal -----------------------------------------------------------------------------------


def _duplicates(ev: Evidence) -> Iterator[Found]:
    for row, (other, _, same) in ev.closest_kept.items():
        if same:
            o = ev.files[other].path
            yield ev.files[row].path, Signal("duplicate", f"identical to {o}", o, 1.0), None


def _near_duplicates(ev: Evidence) -> Iterator[Found]:
    for row, (other, s, same) in ev.closest_kept.items():
        if not same:
            o = ev.files[other].path
            yield ev.files[row].path, Signal("near-duplicate", f"{_pct(s)}% similar to {o}", o, s), None


def _concluded(ev: Evidence) -> Iterator[Found]:
    for f in ev.files:
        facts = f.facts
        if facts.status:
            yield f.path, Signal("concluded", f"says it is {facts.status} (`{facts.status_from}`)"), None
        elif facts.checklist_done:
            detail = f"every checklist item is ticked ({facts.ticked} of {facts.checklist})"
            yield f.path, Signal("concluded", detail), None


def _overlaps_core(ev: Evidence) -> Iterator[Found]:
    for row, (share, core_file) in ev.overlaps.items():
        detail = f"{_pct(share)}% of its text is already in {CORE_DIR}/ ({core_file})"
        yield ev.files[row].path, Signal("overlaps-core", detail, core_file, share), None


def _inactive(ev: Evidence) -> Iterator[Found]:
    # Inactive when the newest of the mtime and the stated date is on or before the cut-off day; the cheap
    # comparison first, the dates only for the files it keeps.
    cutoff = ev.today - dt.timedelta(days=ev.inactive_days)
    cutoff_iso = cutoff.isoformat()
    cutoff_ns = int(dt.datetime.combine(cutoff + dt.timedelta(days=1), dt.time()).timestamp()) * 1_000_000_000
    for f in ev.files:
        if f.mtime_ns < cutoff_ns and (f.facts.stated is None or f.facts.stated <= cutoff_iso):
            last, source = ev.last_activity(f)
            days = (ev.today - last).days
            yield f.path, Signal("inactive", f"no change for {days} days ({source})", None, float(days)), None


def _orphans(ev: Evidence) -> Iterator[Found]:
    for f in ev.files:
        if f.path not in ev.routes:
            line = ev.unbulleted.get(f.path)  # a second line would name it twice: no fix but by hand
            fix = ("add", f.index_line) if f.index_line is not None and line is None else None
            detail, at = orphan_said(line)
            yield f.path, Signal("orphan", detail, None, at), fix


def _stale_records(ev: Evidence) -> Iterator[Found]:
    for path, detail in ev.stale.items():
        yield path, Signal("stale-record", detail), None


def _dead_routes(ev: Evidence) -> Iterator[Found]:
    first_line: dict[str, str] = {}
    for r, raw, _ in ev.entries:
        first_line.setdefault(r, raw)
    for route in ev.routes:
        if route not in ev.on_disk:
            yield (
                route,
                Signal("dead-route", f"in {INDEX_FILE} but {ev.dead.get(route, NO_SUCH_FILE)}"),
                ("drop", first_line[route]),
            )


def _duplicate_routes(ev: Evidence) -> Iterator[Found]:
    for route, count in ev.routes.items():
        if count > 1:
            fix = None
            if route in ev.on_disk:
                fix = ("drop", [raw for r, raw, _ in ev.entries if r == route][1])
            yield route, Signal("duplicate-route", f"listed {count} times in {INDEX_FILE}"), fix


def _invalid_summaries(ev: Evidence) -> Iterator[Found]:
    for f in ev.files:
        if f.facts.summary_state == "invalid":
            yield f.path, Signal("invalid-summary", f"its summary is invalid: {f.facts.summary_detail}"), None


def _secrets(ev: Evidence) -> Iterator[Found]:
    """A line that looks like a secret (`secrets.find_secrets`): named by line and kind, never by value."""
    for f in ev.files:
        if f.secrets:
            lines = [hit.line_no for hit in f.secrets]
            where = f"line {lines[0]}" if len(lines) == 1 else "lines " + ", ".join(map(str, lines))
            for hit in f.secrets:
                detail = f"line {hit.line_no} looks like a secret ({hit.kind})"
                yield f.path, Signal("secret", detail, None, float(hit.line_no)), ("redact", where)


def _kept_secrets(ev: Evidence) -> Iterator[Found]:
    """A version the history keeps (not the live content) with lines that look like secrets: forget it."""
    for k in ev.kept:
        lines = ", ".join(str(n) for n, _ in k.hits)
        kinds = ", ".join(sorted({kind for _, kind in k.hits}))
        detail = f"its kept version {k.version[:8]} has {'line' if len(k.hits) == 1 else 'lines'} {lines} "
        detail += f"that {'looks' if len(k.hits) == 1 else 'look'} like a secret ({kinds})"
        yield k.path, Signal("secret-in-history", detail, None, float(k.hits[0][0])), ("forget", k.version)


# -- the table ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    name: str
    category: str  # what it proposes on its own: "delete", "archive" or "keep" (a fix, the file stays)
    certainty: Callable[[Signal, int], float]  # (signal, inactive_days) -> 0..1
    find: Callable[[Evidence], Iterator[Found]]
    reason: str  # for people: what the signal means (the README's table says the same)
    delete_at: float | None = None  # a score from which it proposes "delete" instead


def _fixed(c: float) -> Callable[[Signal, int], float]:
    return lambda _s, _days: c


def _near_certainty(s: Signal, _days: int) -> float:
    return max(0.5, (s.score or 0.0) - 0.05)


def _concluded_certainty(s: Signal, _days: int) -> float:
    return 0.6 if s.detail.startswith("every checklist") else 0.8  # by status 0.8, by checklist 0.6


def _overlap_certainty(s: Signal, _days: int) -> float:
    return 0.5 + 2.0 * max(0.0, (s.score or 0.0) - OVERLAP_THRESHOLD)  # 0.5 to 0.9 with the overlap


def _inactive_certainty(s: Signal, days: int) -> float:
    over = ((s.score or 0.0) - days) / (2.0 * days)  # 0.4 at the threshold, 0.7 at three times it
    return 0.4 + 0.3 * min(1.0, max(0.0, over))


KINDS: tuple[Kind, ...] = (
    Kind(
        "duplicate", "delete", _fixed(0.98), _duplicates,
        "the same words in the same order as a kept file (case, spacing and punctuation ignored)",
    ),
    Kind(
        "near-duplicate", "archive", _near_certainty, _near_duplicates,
        "at least 85% similar to a kept file (MinHash LSH candidates, rapidfuzz confirms)",
        delete_at=DELETE_SIMILARITY,
    ),
    Kind(
        "concluded", "archive", _concluded_certainty, _concluded,
        "a status says done/closed/shipped/已完成…, or every item of a checklist is ticked",
    ),
    Kind(
        "overlaps-core", "archive", _overlap_certainty, _overlaps_core,
        "at least 80% of its word 3-grams are already in _core/",
    ),
    Kind(
        "inactive", "archive", _inactive_certainty, _inactive,
        "no change for `inactive_days` days: the newest of its mtime and a date it states",
    ),
    Kind(
        "stale-record", "keep", _fixed(FIX_CERTAINTY), _stale_records,
        "active, yet a record in _archive/_index.md says it is archived or in the trash; no fix: remove "
        "the record by hand once read",
    ),
    Kind(
        "secret", "keep", _fixed(FIX_CERTAINTY), _secrets,
        "a line that looks like a secret (its line and kind, never its value); fix: save it redacted",
    ),
    Kind(
        "secret-in-history", "keep", _fixed(FIX_CERTAINTY), _kept_secrets,
        "a version the history keeps (not the live file) has a line that looks like a secret; "
        "fix: forget that content from the history (`history forget`), through its preview",
    ),
    Kind(
        "orphan", "keep", _fixed(FIX_CERTAINTY), _orphans,
        "on disk but not in _index.md; fix: the line to add (none if a line without a list bullet names it)",
    ),
    Kind(
        "dead-route", "keep", _fixed(FIX_CERTAINTY), _dead_routes,
        "in _index.md but no such file; fix: the line to drop",
    ),
    Kind(
        "duplicate-route", "keep", _fixed(FIX_CERTAINTY), _duplicate_routes,
        "listed more than once in _index.md; fix: the extra line to drop",
    ),
    Kind(
        "invalid-summary", "keep", _fixed(FIX_CERTAINTY), _invalid_summaries,
        "a ## Summary that is not 3 to 6 bullets (never rewritten automatically, PM-SAVE-5)",
    ),
)  # fmt: skip
SIGNAL_KINDS = tuple(k.name for k in KINDS)
_BY_NAME = {k.name: k for k in KINDS}
_ORDER = {k.name: i for i, k in enumerate(KINDS)}


# -- proposals ---------------------------------------------------------------------------------------------


def moved_routes(ev: Evidence) -> dict[str, str]:
    """Dead route -> the orphan it meant, when that is certain: the route, listed once, with backslashes made
    slashes names the orphan; else nothing is at the route and exactly one orphan has its file name. An
    orphan two routes could mean (one listed twice included), or that a line without a list bullet names, is
    left alone."""
    orphans = {f.path for f in ev.files if f.path not in ev.routes and f.path not in ev.unbulleted}
    dead = [r for r in ev.routes if r not in ev.on_disk]  # each a claim; only one listed once is rewritten
    meant: dict[str, str] = {}
    for route in dead:
        slashed = slashed_route(route)
        if slashed is not None and slashed in orphans:
            meant[route] = slashed
    taken = set(meant.values())
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in orphans - taken:
        by_name[path.rpartition("/")[2]].append(path)
    for route in dead:
        if route in meant or not ("\\" in route or ev.dead.get(route, NO_SUCH_FILE) == NO_SUCH_FILE):
            continue
        if slashed_route(route) in ev.on_disk:  # `notes\a.md` means notes/a.md, there: no file elsewhere
            continue
        named = by_name.get(route.replace("\\", "/").rpartition("/")[2], [])
        if len(named) == 1:
            meant[route] = named[0]
    claims = Counter(meant.values())
    return {route: path for route, path in meant.items() if claims[path] == 1 and ev.routes[route] == 1}


def _moved_signal(route: str, path: str) -> Signal:
    """The dead route's signal on the file it meant (`other`: the route, the fix's old route)."""
    if slashed_route(route) == path:
        detail = f"{INDEX_FILE} lists it as {route} (backslashes for slashes), which names no file"
    else:
        detail = (
            f"{INDEX_FILE} lists {route}, where no file is, and this is the one unlisted file of that name"
        )
    return Signal("dead-route", f"{detail}; fix: rewrite that route", route)


def _classify(sigs: list[Signal], open_status: str | None, inactive_days: int) -> tuple[str, float, str]:
    """(category, certainty, note for the reason)."""
    life = [s for s in sigs if _BY_NAME[s.kind].category != "keep"]
    if not life:
        return "keep", FIX_CERTAINTY, ""
    if {s.kind for s in life} == {"inactive"} and open_status:
        return "keep", KEEP_CERTAINTY, f"but it says its status is {open_status}: keep it active"
    doubt = 1.0
    delete = False
    for s in life:
        kind = _BY_NAME[s.kind]
        doubt *= 1.0 - kind.certainty(s, inactive_days)
        at = kind.delete_at
        delete = delete or kind.category == "delete" or (at is not None and (s.score or 0.0) >= at)
    return ("delete" if delete else "archive"), round(min(0.99, 1.0 - doubt), 3), ""


def _reason(sigs: list[Signal], note: str) -> str:
    life = [s.detail for s in sigs if _BY_NAME[s.kind].category != "keep"]
    fixes = [s.detail for s in sigs if _BY_NAME[s.kind].category == "keep"]
    text = "; ".join(life + fixes)
    if note:
        text = f"{text}, {note}"
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


@dataclass
class _Draft:
    certainty: float
    category: str
    path: str
    signals: tuple[Signal, ...]
    reason: str
    fix: Fix | None


def propose(ev: Evidence) -> tuple[Proposal, ...]:
    """Every signal of every kind, one proposal per path, most certain first."""
    signals: dict[str, list[Signal]] = defaultdict(list)
    fixes: dict[str, Fix] = {}
    for kind in KINDS:
        for path, signal, fix in kind.find(ev):
            signals[path].append(signal)
            if fix is not None:
                fixes.setdefault(path, fix)  # the first fixable kind's, in table order
    for route, path in moved_routes(ev).items():  # one proposal on the file, its line's route rewritten
        signals[route] = [s for s in signals[route] if s.kind != "dead-route"]
        if not signals[route]:
            del signals[route]
        fixes.pop(route, None)
        signals[path].append(_moved_signal(route, path))
        if fixes.get(path, ("add", ""))[0] == "add":  # (a secret's redaction still comes first)
            fixes[path] = ("reroute", route)
    open_status = {f.path: f.facts.open_status for f in ev.files}
    drafts: list[_Draft] = []
    for path, sigs in signals.items():
        sigs.sort(key=lambda s: _ORDER[s.kind])
        category, certainty, note = _classify(sigs, open_status.get(path), ev.inactive_days)
        drafts.append(_Draft(certainty, category, path, tuple(sigs), _reason(sigs, note), fixes.get(path)))
    drafts.sort(key=lambda d: (-d.certainty, CATEGORIES.index(d.category), d.path))
    return tuple(
        Proposal(
            n,
            d.path,
            d.category,
            d.signals,
            d.reason,
            d.certainty,
            d.fix[1] if d.fix else None,
            d.fix[0] if d.fix else None,
        )
        for n, d in enumerate(drafts, start=1)
    )
