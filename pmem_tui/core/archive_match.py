"""Which file under `_archive/` each archive record is about, wherever an agent put it (PM-AGENT-1).

pmem-tui moves `projects/old.md` to `_archive/projects/old.md` (and `_archive/_trash/projects/old.md`), but an
agent told to "move the file to `_archive/`" may leave it at `_archive/old.md` or `_archive/2026/old.md`. A
file at the tool's own place is matched to its record by path. A record that no file matches that way is then
matched to the one file not otherwise claimed, in the archive (or the trash, for a deleted record), that
stands where the record's ``Location`` field says, or else has the same file name as the record's path (and
is not at the tool's own place for another active path, such as `_archive/notes/old.md`). When
there are several such files, or several records claim the same file, nothing is guessed: the record is
ambiguous and the candidates are named.

One path may have several records (an agent's own row beside pmem-tui's record, or two archive cycles): the
one every reader and action uses is `newest` (by its date, then the last in the file); the others are named
(`others_sentence`), never silently dropped nor silently left. A record whose file is at none of those places
may still have a namesake: the one file with its name that no record claims (`Names.namesake`, asked only when
the person acts on that record, or for a record already found stale): status's detail, recover's choice and
refusal, and the scan's and doctor's word on a file with no record (`Names.claimant`) all come from it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pmem_tui.core import safeio
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.model import ACTIVE_DIRS, ARCHIVE_DIR, ARCHIVE_INDEX, TRASH_DIR, ArchiveRecord, Problem
from pmem_tui.core.record_read import lines_of

__all__ = [
    "Matching",
    "Names",
    "Namesake",
    "Placed",
    "active_among",
    "active_on_disk",
    "contested_remark",
    "expected_place",
    "match_files",
    "namesake_sentence",
    "newest",
    "others_sentence",
    "record_problems",
    "states",
]


@dataclass(frozen=True)
class Placed:
    location: str  # where the file is, e.g. _archive/old.md
    path: str  # the original active path it came from (its record's path when it has one)
    record: ArchiveRecord | None
    in_trash: bool


@dataclass(frozen=True)
class Matching:
    placed: tuple[Placed, ...]  # every file under _archive/ (archive first, then trash), input order
    # whether a path is an active file now (`match_files`): the one check matching, `Names` and
    # `record_problems` ask, so that they never disagree on which record is a leftover
    active: Callable[[str], bool] = field(compare=False, repr=False)
    # record path -> (candidate locations, other record paths claiming the same file)
    ambiguous: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)

    def contested(self) -> set[str]:
        """The files several records could be about (an ambiguous record's candidates): nobody's file."""
        return {loc for locations, _ in self.ambiguous.values() for loc in locations}

    def of(self, path: str) -> list[Placed]:
        """The files placed for one original path."""
        return [p for p in self.placed if p.path == path]

    def ambiguity(self, path: str) -> str | None:
        """One sentence saying why `path` cannot be matched to one file, or None."""
        found = self.ambiguous.get(path)
        if found is None:
            return None
        locations, others = found
        if others:
            return (
                f"{locations[0]} may be the archived file of {path} or of {', '.join(others)}; move it to "
                f"the place its record names (for example {ARCHIVE_DIR}/{path}) by hand first."
            )
        return (
            f"Several files may be the archived {path}: {', '.join(locations)}; move the right one to "
            f"{ARCHIVE_DIR}/{path} by hand first."
        )


def newest(
    recs: Sequence[ArchiveRecord], *, deleted: bool | None = None, today: dt.date | None = None
) -> ArchiveRecord | None:
    """The record an action uses among one path's records: of those in the file's state (`deleted`: a
    deletion record for a trashed file; for an archived one a record without deletion, else any; None: any),
    the newest by its date (deleted, else archived; an undated one, or one dated after `today` (a typo),
    counts as the oldest), then one that keeps its index line, then the last in the file. The one rule every
    reader and action uses."""
    if deleted is True:
        recs = [r for r in recs if r.deleted is not None]
    elif deleted is False:
        recs = [r for r in recs if r.deleted is None] or recs
    if not recs:
        return None
    day = today or clock_today()
    return max(recs, key=lambda r: (_usable_date(r, day), _keeps_line(r), r.start))


def _date(rec: ArchiveRecord) -> dt.date | None:
    return rec.deleted or rec.archived


def _usable_date(rec: ArchiveRecord, today: dt.date) -> dt.date:
    date = _date(rec)
    return date if date is not None and date <= today else dt.date.min


def _keeps_line(rec: ArchiveRecord) -> bool:
    return rec.index_line is not None or bool(rec.more_lines)


def _described(rec: ArchiveRecord, today: dt.date | None = None) -> str:
    date = _date(rec)
    if date is None:
        return "no date read"
    said = f"{'deleted' if rec.deleted is not None else 'archived'} {date.isoformat()}"
    return f"{said}, a date after today" if date > (today or clock_today()) else said


def others_sentence(
    chosen: ArchiveRecord, others: Sequence[ArchiveRecord], today: dt.date | None = None
) -> tuple[str, str]:
    """One path's records, for a sentence: ("the one archived 2026-12-03 (lines 7-13)", "the other
    (archived 2026-10-15, line 17)"); on a tie of dates, why this one (`newest`'s rule)."""
    day = today or clock_today()
    listed = "; ".join(f"{_described(r, day)}, {lines_of(r)}" for r in sorted(others, key=lambda r: r.start))
    other = "the other" if len(others) == 1 else f"the {len(others)} others"
    tied = [r for r in others if _usable_date(r, day) == _usable_date(chosen, day)]
    why = ""
    if tied and _keeps_line(chosen) and not all(_keeps_line(r) for r in tied):
        why = ", chosen on a tie of dates as the one keeping its index line"
    elif tied:
        why = ", chosen on a tie of dates as the later in the file"
    return f"the one {_described(chosen, day)} ({lines_of(chosen)}{why})", f"{other} ({listed})"


def states(recs: Iterable[ArchiveRecord]) -> str:
    """What records say of their file: "archived", "deleted" or "archived or deleted"."""
    said = {"archived" if r.deleted is None else "deleted" for r in recs}
    return " or ".join(sorted(said))


def expected_place(rec: ArchiveRecord) -> str:
    """Where the record puts its file: its own ``Location``, else the tool's place in the archive or trash."""
    if rec.location is not None:
        return rec.location
    return f"{TRASH_DIR if rec.deleted is not None else ARCHIVE_DIR}/{rec.path}"


def namesake_sentence(rec: ArchiveRecord, found: Sequence[str]) -> str | None:
    """What the person is told of a record's namesakes (None: there is none)."""
    if not found:
        return None
    where = expected_place(rec)
    if len(found) == 1:
        return (
            f"{rec.path} is not at {where}, where its record puts it; {found[0]} has its name and no "
            "record of its own"
        )
    return (
        f"{rec.path} is not at {where}; several files have its name and no record: {', '.join(found)}; move "
        f"the right one to {where} by hand first"
    )


class Names:
    """`namesakes` and `claimants` for many records or files at once: both maps are built once, from the
    files and the records (O(records + files)), not one walk of either per stale record. A record of a path
    active now (`Matching.active`) is a leftover (its file was recovered by hand), with no archived file to
    claim: never a claimant, nor a rival of another record's namesake (nor matched by name: `match_files`)."""

    def __init__(self, matching: Matching, recs: Sequence[ArchiveRecord]) -> None:
        self.matching = matching
        contested = matching.contested()
        located = {p.path for p in matching.placed}
        self.files: dict[str, list[str]] = {}  # file name -> unclaimed locations
        for p in matching.placed:
            if p.record is None and p.location not in contested:
                self.files.setdefault(_name(p.location), []).append(p.location)
        missing: dict[str, set[str]] = {}  # file name -> paths whose records find no file
        for r in recs:
            if r.path not in located and r.path not in matching.ambiguous and not matching.active(r.path):
                missing.setdefault(_name(r.path), set()).add(r.path)
        self.missing = {name: sorted(paths) for name, paths in missing.items()}

    def namesakes(self, path: str) -> list[str]:
        """The files under `_archive/` (trash included) with `path`'s file name that no record claims, nor
        could (a file two records are ambiguous about is never anyone's)."""
        return self.files.get(_name(path), [])

    def claimants(self, location: str) -> list[str]:
        """The paths whose records find no file and have `location`'s file name, leaving out a record that
        is ambiguous: what recovering that file may mean (`namesakes` the other way round)."""
        return self.missing.get(_name(location), [])

    def claimant(self, location: str) -> str | None:
        """The one path recovering `location` means, or None (none, or several: nothing is guessed)."""
        found = self.claimants(location)
        return found[0] if len(found) == 1 and self.namesakes(found[0]) == [location] else None

    def namesake(self, rec: ArchiveRecord) -> Namesake:
        """What `rec` (a record whose file is at none of its places, not ambiguous) finds by its file name:
        the one rule status's stale-record detail and recover's choice or refusal are both said from."""
        found = tuple(self.namesakes(rec.path))
        rivals = tuple(p for p in self.claimants(found[0]) if p != rec.path) if len(found) == 1 else ()
        return Namesake(rec, found, rivals, contested_remark(self.matching, rec.path))


@dataclass(frozen=True)
class Namesake:
    """A record whose file is at none of its places, and the files with its name (`Names.namesake`)."""

    rec: ArchiveRecord
    found: tuple[str, ...]  # the files under `_archive/` with its name that no record claims, nor could
    rivals: tuple[str, ...]  # when one is found: the other records finding no file that have its name too
    contested: str  # a file with its name that other records are ambiguous about, said (`contested_remark`)

    @property
    def location(self) -> str | None:
        """The file recovering the record takes: the one namesake, which no other stale record could claim."""
        return self.found[0] if len(self.found) == 1 and not self.rivals else None

    @property
    def sentence(self) -> str | None:
        return namesake_sentence(self.rec, self.found)

    def detail(self) -> str:
        """What status adds to the stale record's problem (empty: no namesake)."""
        said = self.sentence
        if said is None:
            return ""
        if len(self.found) > 1:
            return f": {said}"
        if self.rivals:
            rivals = ", ".join(self.rivals)
            return f": {said}, but so has the file of {rivals}: move it by hand to the right place"
        return f": {said}: recover {self.rec.path} takes it from there, its preview says so"

    def refusal(self) -> str:
        """Why recover takes no file (`location` is None)."""
        said = self.sentence
        if len(self.found) != 1:
            return f"{said or f'{self.rec.path} is neither in the archive nor in the trash'}{self.contested}."
        return (
            f"{said}, but so has the file of {', '.join(self.rivals)}, whose record finds no file either; "
            f"move it to {expected_place(self.rec)} by hand first if it is {self.rec.path}'s."
        )

    def note(self) -> str:
        """What recover's preview says of the file it takes (`location`)."""
        return f"{self.sentence}, so it is the file recovered: cancel if it is not {self.rec.path}."


def contested_remark(matching: Matching, path: str) -> str:
    """A file with `path`'s file name that other records are ambiguous about: never taken, but named."""
    name = _name(path)
    for other, (locations, _) in sorted(matching.ambiguous.items()):
        for loc in locations:
            if _name(loc) == name:
                return (
                    f"; {loc} has its name, but the record of {other} may be about it too, so it is not taken"
                )
    return ""


def active_on_disk(root: Path) -> Callable[[str], bool]:
    """`match_files`'s `active` for a planner that has not scanned: a regular file at the path now (an lstat
    of each part: a link is never followed)."""
    return lambda path: safeio.entry_kind(root, path) == "file"


def active_among(paths: Callable[[], Iterable[str]]) -> Callable[[str], bool]:
    """`match_files`'s `active` from the scan's files: `paths` is listed once, when first asked (most scans
    never ask: every record finds its file at its place)."""
    listed: set[str] | None = None

    def active(path: str) -> bool:
        nonlocal listed
        if listed is None:
            listed = set(paths())
        return path in listed

    return active


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def match_files(
    records: Iterable[ArchiveRecord],
    archive_files: Sequence[str],
    trash_files: Sequence[str],
    active: Callable[[str], bool],
    today: dt.date | None = None,
) -> Matching:
    """Match the files under `_archive/` (given as root-relative paths) to the records (module notes).
    `active`: whether a path is an active file now; a record of one (its file moved back by hand) finds its
    file only at the places it names (the tool's, its ``Location``), never by a file name: it has none to
    guess, and would take another record's file."""
    day = today or clock_today()
    by_path: dict[str, list[ArchiveRecord]] = {}
    for record in records:
        by_path.setdefault(record.path, []).append(record)
    files = [(loc, loc[len(ARCHIVE_DIR) + 1 :], False) for loc in archive_files]
    files += [(loc, loc[len(TRASH_DIR) + 1 :], True) for loc in trash_files]
    exact: dict[str, ArchiveRecord] = {}
    for loc, original, trash in files:
        rec = newest(by_path.get(original, []), deleted=trash, today=day)
        if rec is not None:
            exact[loc] = rec
    located = {rec.path for rec in exact.values()}
    free = {loc: trash for loc, _, trash in files if loc not in exact}
    by_name: dict[tuple[str, bool], list[str]] = {}  # (file name, in trash) -> free files
    for loc, original, trash in files:
        # Guessed by name only when not at the tool's own place for another path (`_archive/notes/old.md`).
        if loc in free and original.split("/", 1)[0] not in ACTIVE_DIRS:
            by_name.setdefault((_name(loc), trash), []).append(loc)
    claims: dict[str, list[str]] = {}  # location -> record paths that may be about it
    wanted: dict[str, tuple[ArchiveRecord, list[str]]] = {}
    for path, recs in by_path.items():
        if path in located:
            continue
        rec = newest(recs, today=day)
        if rec is None:  # every path listed has a record
            continue
        trash = rec.deleted is not None
        if rec.location is not None:
            candidates = [rec.location] if rec.location in free and free[rec.location] == trash else []
        else:  # by its name, unless its file is active again (asked only when a namesake is there: an lstat)
            candidates = by_name.get((_name(path), trash), [])
            if candidates and active(path):
                candidates = []
        if candidates:
            wanted[path] = (rec, candidates)
            for loc in candidates:
                claims.setdefault(loc, []).append(path)
    found: dict[str, tuple[str, ArchiveRecord]] = {}
    ambiguous: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for path, (rec, candidates) in wanted.items():
        if len(candidates) == 1 and claims[candidates[0]] == [path]:
            found[candidates[0]] = (path, rec)
        elif len(candidates) > 1:
            ambiguous[path] = (tuple(candidates), ())
        else:
            ambiguous[path] = (tuple(candidates), tuple(p for p in claims[candidates[0]] if p != path))
    placed = []
    for loc, original, trash in files:
        if loc in exact:
            placed.append(Placed(loc, original, exact[loc], trash))
        elif loc in found:
            placed.append(Placed(loc, found[loc][0], found[loc][1], trash))
        else:
            placed.append(Placed(loc, original, None, trash))
    return Matching(tuple(placed), active, ambiguous)


def record_problems(matching: Matching, recs: Sequence[ArchiveRecord]) -> list[Problem]:
    """What `status` says of the records: a path several records name (the one actions use, the others),
    a record no file matches (an active path's leftover, `Matching.active`; a file moved by hand that has
    its name), a record that could be about several files."""
    problems: list[Problem] = []
    by_path: dict[str, list[ArchiveRecord]] = {}
    for rec in recs:
        by_path.setdefault(rec.path, []).append(rec)
    for p in matching.placed:
        same = by_path.get(p.path, []) if p.record is not None else []
        if p.record is not None and len(same) > 1:
            others = [r for r in same if r != p.record]
            one, other = others_sentence(p.record, others)
            verbs = f"recover and {'purge' if p.in_trash else 'delete'}"
            detail = (
                f"{len(same)} records name it: {verbs} use {one} and leave {other} in {ARCHIVE_INDEX} "
                f"untouched, still saying {p.path} is {states(others)} once the file is recovered: remove "
                f"{'it' if len(others) == 1 else 'them'} by hand once read"
            )
            problems.append(Problem("duplicate-record", p.path, detail))
    located = {p.path for p in matching.placed}
    names: Names | None = None
    for rec in recs:
        if rec.path in located:
            continue
        ambiguity = matching.ambiguity(rec.path)
        if ambiguity is not None:
            problems.append(Problem("ambiguous-record", rec.path, ambiguity))
            continue
        detail = f"a record in {ARCHIVE_INDEX} ({lines_of(rec)}) with no file"
        if matching.active(rec.path):
            detail += f": {rec.path} is active, yet it says {states([rec])}; remove it by hand once read"
        else:
            names = names or Names(matching, recs)
            detail += names.namesake(rec).detail()
        problems.append(Problem("stale-record", rec.path, detail))
    return problems
