"""Which file under `_archive/` each archive record is about, wherever an agent put it (PM-AGENT-1).

pmem-tui moves `projects/old.md` to `_archive/projects/old.md` (and `_archive/_trash/projects/old.md`), but an
agent told to "move the file to `_archive/`" may leave it at `_archive/old.md` or `_archive/2026/old.md`. A
file at the tool's own place is matched to its record by path. A record that no file matches that way is then
matched to the one file not otherwise claimed, in the archive (or the trash, for a deleted record), that
stands where the record's ``Location`` field says, or else has the same file name as the record's path (and
is not at the tool's own place for another active path, such as `_archive/notes/old.md`). When
there are several such files, or several records claim the same file, nothing is guessed: the record is
ambiguous and the candidates are named.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pmem_tui.core.model import ACTIVE_DIRS, ARCHIVE_DIR, TRASH_DIR, ArchiveRecord

__all__ = ["Matching", "Placed", "claimed", "match_files"]


@dataclass(frozen=True)
class Placed:
    location: str  # where the file is, e.g. _archive/old.md
    path: str  # the original active path it came from (its record's path when it has one)
    record: ArchiveRecord | None
    in_trash: bool


@dataclass(frozen=True)
class Matching:
    placed: tuple[Placed, ...]  # every file under _archive/ (archive first, then trash), input order
    # record path -> (candidate locations, other record paths claiming the same file)
    ambiguous: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)

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


def _latest(matching: Sequence[ArchiveRecord], *, deleted: bool) -> ArchiveRecord | None:
    """The newest of one path's records in the right state (a delete record for trash, else any)."""
    if deleted:
        matching = [r for r in matching if r.deleted is not None]
    else:
        matching = [r for r in matching if r.deleted is None] or matching
    return matching[-1] if matching else None


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def match_files(
    records: Iterable[ArchiveRecord], archive_files: Sequence[str], trash_files: Sequence[str]
) -> Matching:
    """Match the files under `_archive/` (given as root-relative paths) to the records (module notes)."""
    by_path: dict[str, list[ArchiveRecord]] = {}
    for record in records:
        by_path.setdefault(record.path, []).append(record)
    files = [(loc, loc[len(ARCHIVE_DIR) + 1 :], False) for loc in archive_files]
    files += [(loc, loc[len(TRASH_DIR) + 1 :], True) for loc in trash_files]
    exact: dict[str, ArchiveRecord] = {}
    for loc, original, trash in files:
        rec = _latest(by_path.get(original, []), deleted=trash)
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
        rec = recs[-1]
        trash = rec.deleted is not None
        if rec.location is not None:
            candidates = [rec.location] if rec.location in free and free[rec.location] == trash else []
        else:
            candidates = by_name.get((_name(path), trash), [])
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
    return Matching(tuple(placed), ambiguous)


def claimed(records: Iterable[ArchiveRecord], trash_files: Sequence[str]) -> set[str]:
    """The trash files that a deletion record is about (the others need one rebuilt)."""
    placed = match_files(records, (), trash_files).placed
    return {p.location for p in placed if p.record is not None and p.record.deleted is not None}
