"""The lifecycle services: plan_archive, plan_delete, plan_recover, plan_purge, plan_upgrade.

Each returns a Plan and changes nothing; `executor.apply` carries it out (`plan_save`, in `save_planner`, is
importable from here too). The `*_many` forms plan several items into one plan (one preview, one journal):
items that cannot be planned are listed in the preview as skipped, with their reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pmem_tui.core import index, index_places, journal, memory_root, records, safeio
from pmem_tui.core.archive_match import (
    Matching,
    Names,
    active_on_disk,
    contested_remark,
    match_files,
    newest,
    others_sentence,
    states,
)
from pmem_tui.core.clock import today as clock_today
from pmem_tui.core.draft import Draft, exists
from pmem_tui.core.errors import PmemError, Refused
from pmem_tui.core.layout import missing_lifecycle as missing_lifecycle
from pmem_tui.core.layout import propose_index_line as propose_index_line
from pmem_tui.core.layout import refuse_linked_lifecycle
from pmem_tui.core.layout import require_lifecycle as require_lifecycle
from pmem_tui.core.model import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    INDEX_FILE,
    TRASH_DIR,
    ArchiveRecord,
    IndexPlace,
)
from pmem_tui.core.paths import Area, check_memory_path
from pmem_tui.core.plan import Plan

# The save planner lives in its own module; these names stay importable from here.
from pmem_tui.core.save_planner import FIRST_SAVE_DIRS as FIRST_SAVE_DIRS
from pmem_tui.core.save_planner import is_unborn as is_unborn
from pmem_tui.core.save_planner import plan_save as plan_save
from pmem_tui.core.tree import locate_archived
from pmem_tui.core.user_input import one_line
from pmem_tui.core.words import plural


class NeedsIndexLine(Refused):
    """A legacy record has no saved index line: the person must confirm the proposed one."""

    def __init__(self, message: str, path: str, proposal: str) -> None:
        super().__init__(message)
        self.path = path
        self.proposal = proposal


class NeedsArchive(Refused):
    """Delete on an active file: only an archived file can be deleted; the front offers the archive."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def archive_location(rel: str) -> str:
    return f"{ARCHIVE_DIR}/{rel}"


def trash_location(rel: str) -> str:
    return f"{TRASH_DIR}/{rel}"


# -- archive ----------------------------------------------------------------------------------


def _archive_into(draft: Draft, path: str, reason: str, today: dt.date) -> None:
    root = draft.root
    rel = check_memory_path(root, path, Area.ACTIVE)
    dst = archive_location(rel)
    if not (root / rel).is_file():
        if exists(root, dst):
            raise Refused(f"{rel} is already archived (at {dst}).")
        raise Refused(f"{rel} does not exist.")
    if exists(root, dst):
        raise Refused(f"{dst} already exists; nothing is moved, overwritten or merged.")
    if exists(root, trash_location(rel)):
        raise Refused(
            f"{trash_location(rel)} already exists; recover or purge it before archiving another {rel}."
        )
    taking = draft.index_taking()  # (parsed once a batch: `Taking`)
    entries, places = taking.take_out(rel)
    if entries:
        draft.set_text(INDEX_FILE, taking.text)
        draft.index_removed.extend(p.line for p in places)
        if len(entries) > 1:
            draft.notes.append(
                f"{rel} is listed {len(entries)} times in {INDEX_FILE}: every line goes, and the record "
                "keeps each one to put it back at its place."
            )
    else:
        draft.notes.append(f"{rel} has no line in {INDEX_FILE}; recovering it will need one.")
    draft.move(rel, dst)
    first = places[0] if places else IndexPlace("")
    rec = ArchiveRecord(
        path=rel,
        index_line=first.line if places else None,
        archived=today,
        reason=reason,
        after=first.after,
        before=first.before,
        more_lines=tuple(places[1:]),
    )
    archive_text = draft.text(ARCHIVE_INDEX)
    if archive_text is None:
        archive_text = records.empty_archive_index()
    new_archive_text = records.add_record(archive_text, rec, draft.reading)  # (read once a batch)
    if rel in archive_text:  # an agent's record left from before stays: the preview says which one is used
        same = [r for r in draft.reading.records(new_archive_text) if r.path == rel]
        used = newest(same, today=today)
        if used is not None:
            _say_others(draft, used, same, "recovering it will use", lambda said: f"saying it is {said}")
    draft.set_text(ARCHIVE_INDEX, new_archive_text)
    draft.record_changes.append(f"Add the record of {rel}: archived {today.isoformat()}, reason: {reason}")
    lines = "its index line" if len(places) == 1 else f"its {len(places)} index lines"
    draft.recovery.append(
        f"{rel} stays recoverable: recovering it puts the file and {lines} back in their places."
        if places
        else f"{rel} stays recoverable: recovering it puts the file back, with an index line you confirm."
    )
    draft.outcomes.append(f"Archived {rel} to {dst}.")
    draft.items.append(rel)
    draft.reasons[rel] = reason


def plan_archive(root: Path, path: str, reason: str, today: dt.date | None = None) -> Plan:
    return plan_archive_many(root, [path], reason, today, strict=True)


def plan_archive_many(
    root: Path,
    paths: Sequence[str],
    reason: str,
    today: dt.date | None = None,
    *,
    strict: bool = False,
    reasons: Mapping[str, str] | None = None,
) -> Plan:
    """`reasons`: an item's own reason (the health check's), instead of the shared `reason`."""
    require_lifecycle(root, "archive")
    journal.check_quiet(root)
    own = {p: one_line(r, "reason for archiving") for p, r in (reasons or {}).items()}
    if any(p not in own for p in paths):
        reason = one_line(reason, "reason for archiving")
    day = today or clock_today()
    return _plan_items(
        root, paths, "archive", lambda d, p: _archive_into(d, p, own.get(p, reason), day), strict
    )


def _matching(root: Path, recs: list[ArchiveRecord], path: str) -> Matching:
    """Which file under `_archive/` each record is about, for an action on `path`. A file at the tool's own
    place for `path` is its file, so the archive is walked only when there is none there."""
    active = active_on_disk(root)
    places = (f"{ARCHIVE_DIR}/{path}", f"{TRASH_DIR}/{path}")
    here = [loc for loc in places if safeio.entry_kind(root, loc) == "file"]
    if here:
        trash = [loc for loc in here if loc.startswith(TRASH_DIR + "/")]
        return match_files(recs, [loc for loc in here if loc not in trash], trash, active)
    return locate_archived(root, recs, active)[0]


# -- delete -----------------------------------------------------------------------------------


def _delete_into(draft: Draft, path: str, today: dt.date) -> None:
    root = draft.root
    rel = check_memory_path(root, path, Area.ACTIVE)
    dst = trash_location(rel)
    text = draft.text(ARCHIVE_INDEX) or records.empty_archive_index()
    every = draft.reading.records(text)  # (read once a batch, then only what each item changed)
    matching = _matching(draft.root, every, rel)
    placed = [p for p in matching.of(rel) if not p.in_trash]
    if not placed:
        if (root / rel).is_file():
            raise NeedsArchive(
                f"{rel} is active: archive it first (`pmem-tui archive {rel} --reason ...`), then delete it.",
                rel,
            )
        if exists(root, dst):
            raise Refused(f"{rel} is already in the trash (at {dst}).")
        raise Refused(matching.ambiguity(rel) or f"{rel} is not in the archive.")
    src = placed[0].location
    if exists(root, dst):
        raise Refused(f"{dst} already exists; nothing is moved, overwritten or merged.")
    draft.move(src, dst)
    same = [r for r in every if r.path == rel]
    recs = [r for r in same if r.deleted is None]
    old = (placed[0].record if placed[0].record in recs else newest(recs, today=today)) if recs else None
    if old is not None:
        _say_others(
            draft,
            old,
            same,
            "the deletion date goes to",
            lambda said: f"still saying it is {said} while it is in the trash",
        )
    new_text, deadline = records.record_deletion(text, rel, old, today, parse=draft.reading.records)
    draft.set_text(ARCHIVE_INDEX, new_text)
    if old is None:
        draft.notes.append(f"{src} had no record; a new one is written with its deletion date.")
    draft.record_changes.append(
        f"Record of {rel}: deleted {today.isoformat()}, recoverable until {deadline.isoformat()}"
    )
    draft.recovery.append(
        f"{rel} is recoverable until {deadline.isoformat()}; after that a purge of expired trash may "
        "remove it."
    )
    draft.outcomes.append(f"Moved {rel} to {dst}; recoverable until {deadline.isoformat()}.")
    draft.items.append(rel)


def plan_delete(root: Path, path: str, today: dt.date | None = None) -> Plan:
    return plan_delete_many(root, [path], today, strict=True)


def plan_delete_many(
    root: Path, paths: Sequence[str], today: dt.date | None = None, *, strict: bool = False
) -> Plan:
    require_lifecycle(root, "delete")
    journal.check_quiet(root)
    day = today or clock_today()
    return _plan_items(root, paths, "delete", lambda d, p: _delete_into(d, p, day), strict)


# -- recover ----------------------------------------------------------------------------------


def _recover_into(draft: Draft, path: str, index_line: str | None, fallback: str | None = None) -> None:
    """`fallback`: the line to put back when the record has none (an undo knows the line it removed)."""
    root = draft.root
    rel = check_memory_path(root, path, Area.ACTIVE)
    archive_text = draft.text(ARCHIVE_INDEX) or ""
    every = draft.reading.records(archive_text)  # (read once a batch, then only what each item changed)
    matching = _matching(draft.root, every, rel)
    placed = matching.of(rel)
    in_archive, in_trash = any(not p.in_trash for p in placed), any(p.in_trash for p in placed)
    if in_archive and in_trash:
        raise Refused(
            f"{rel} is both in the archive and in the trash; move one aside by hand so the right one "
            "comes back."
        )
    same = [r for r in every if r.path == rel]
    if in_archive or in_trash:
        src = placed[0].location
        rec = placed[0].record or newest(same, deleted=in_trash) or newest(same)
    else:
        src, rec = _namesake(draft, rel, matching, every)
    if exists(root, rel):
        raise Refused(f"{rel} already exists; nothing is moved, overwritten or merged.")
    if rec is not None:
        _say_others(draft, rec, same, "using", lambda said: f"saying {rel} is {said} while it is active")
    line = rec.index_line if rec else None
    if index_line is None and line is None and not (rec and rec.more_lines):
        index_line = fallback  # the record keeps no line: the one an undo knows it removed, if any
    if index_line is not None:
        line = one_line(index_line, "index line")
        parsed = index.parse_line(line)
        if parsed is None or parsed[0] != rel:
            raise Refused(f"The index line given does not name {rel}: {line}")
    if line is None:
        holder = newest([r for r in same if r.index_line is not None])
        if holder is not None and holder.index_line is not None:  # another record keeps the exact line
            raise NeedsIndexLine(
                f"The record of {rel} used ({records.line_span(rec) if rec else 'none'}) has no saved index "
                f"line, but the one at {records.line_span(holder)} keeps it; confirm it with --index-line: "
                f"{holder.index_line}",
                rel,
                holder.index_line,
            )
        proposal = propose_index_line(root, src, rel)
        raise NeedsIndexLine(
            f"The record of {rel} has no saved index line; confirm one with --index-line, "
            f"for example: {proposal}",
            rel,
            proposal,
        )
    draft.move(src, rel)
    if index_line is not None or rec is None:  # a line given by the person stands for the record's lines
        places = [IndexPlace(line, rec.after if rec else None, rec.before if rec else None)]
    else:
        places = index_places.record_places(rec)
    putting = draft.index_putting()  # (parsed once a batch: `Putting`)
    added, kept = putting.put_back(rel, places)
    for line in kept:
        draft.notes.append(f"{INDEX_FILE} already has the line `{line}` of {rel}; it is not added twice.")
    if added:
        draft.set_text(INDEX_FILE, putting.text)
        draft.index_added.extend(added)
    if rec is not None:
        draft.set_text(ARCHIVE_INDEX, records.remove_record(archive_text, rec, draft.reading.records))
        draft.record_changes.append(f"Remove the record of {rel}, {records.line_span(rec)}")
    draft.recovery.append(f"{rel} is active again; it can be archived again at any time.")
    draft.outcomes.append(f"Recovered {rel} from {src} to {rel}.")
    draft.items.append(rel)
    if rec is not None and rec.reason:
        draft.reasons[rel] = rec.reason


def plan_recover(root: Path, path: str, index_line: str | None = None, fallback: str | None = None) -> Plan:
    require_lifecycle(root, "recover")
    journal.check_quiet(root)
    return _plan_items(root, [path], "recover", lambda d, p: _recover_into(d, p, index_line, fallback), True)


def recover_target(root: Path, location: str) -> str | None:
    """The active path recovering `location` (a file under `_archive/` with no record of its own, moved there
    by hand) means: the one record whose file is at none of its places and has its name; None: there is
    none, or more than one. Walks the archive: asked only when the person acts on that file."""
    from pmem_tui.core.textio import decode

    try:
        recs = records.parse_records(decode(safeio.read_under(root, ARCHIVE_INDEX)))
    except OSError:
        return None
    return Names(locate_archived(root, recs, active_on_disk(root))[0], recs).claimant(location)


def plan_recover_many(root: Path, paths: Sequence[str], fallbacks: Mapping[str, str] | None = None) -> Plan:
    """`fallbacks`: per path, the line to put back when its record has none."""
    require_lifecycle(root, "recover")
    journal.check_quiet(root)
    lines = fallbacks or {}
    return _plan_items(
        root,
        paths,
        "recover",
        lambda d, p: _recover_into(d, p, None, lines.get(p)),
        False,
        _last_archived_first,
    )


def _last_archived_first(draft: Draft, paths: Sequence[str]) -> list[str]:
    """Each record's neighbour lines were taken when it was archived: its line finds them once the files
    archived after it are back (two adjacent lines come back in place)."""
    rank = {rec.path: n for n, rec in enumerate(draft.reading.records(draft.text(ARCHIVE_INDEX) or ""))}
    return sorted(paths, key=lambda p: -rank.get(p, -1))


def _namesake(
    draft: Draft, rel: str, matching: Matching, recs: Sequence[ArchiveRecord]
) -> tuple[str, ArchiveRecord | None]:
    """A record whose file is at none of its places: the one file under `_archive/` with its name that no
    record claims (an agent moved it by hand), named in the preview, else the refusal (`Names.namesake`:
    the rule status says its stale-record detail from)."""
    if (draft.root / rel).is_file():
        raise Refused(f"{rel} is already active.")
    ambiguity = matching.ambiguity(rel)
    if ambiguity is not None:
        raise Refused(ambiguity)
    rec = newest([r for r in recs if r.path == rel])
    if rec is None:
        refuse_linked_lifecycle(draft.root, f"recover {rel}")
        raise Refused(f"{rel} is neither in the archive nor in the trash{contested_remark(matching, rel)}.")
    found = Names(matching, recs).namesake(rec)
    if found.location is None:
        refuse_linked_lifecycle(draft.root, f"recover {rel}")
        raise Refused(found.refusal())
    draft.notes.append(found.note())
    return found.location, rec


def _say_others(
    draft: Draft, rec: ArchiveRecord, same: Sequence[ArchiveRecord], acting: str, after: Callable[[str], str]
) -> None:
    """The other records of `rec`'s path are left as they are (an agent's text is never dropped unseen), and
    the preview says so; `after`: what they will say then, given what they say of the file."""
    others = [r for r in same if r != rec]
    if others:
        one, other = others_sentence(rec, others)
        stay = "stays" if len(others) == 1 else "stay"
        draft.notes.append(
            f"{len(same)} records name {rec.path}: {acting} {one}; {other} {stay} in {ARCHIVE_INDEX}, "
            f"{after(states(others))}: remove {'it' if len(others) == 1 else 'them'} by hand once read."
        )


# -- purge ------------------------------------------------------------------------------------


def plan_purge(root: Path, today: dt.date | None = None) -> Plan:
    """Permanently remove expired trash items only, with their records."""
    from pmem_tui.core.tree import scan

    require_lifecycle(root, "purge")
    refuse_linked_lifecycle(root, "purge")
    journal.check_quiet(root)
    day = today or clock_today()
    snap = scan(root, deep=False, today=day)
    draft = Draft(root)
    text = draft.text(ARCHIVE_INDEX) or ""
    expired = snap.expired_trash
    for item in expired:
        draft.remove(item.location)
        if item.record is not None:
            same = [r for r in draft.reading.records(text) if r.path == item.path]  # (read once a purge)
            used = newest([r for r in same if r.deleted is not None], deleted=True, today=day)
            if used is not None:
                _say_others(
                    draft,
                    used,
                    same,
                    "removing",
                    lambda said: f"still saying it is {said} once the file is gone for good",
                )
                text = records.remove_record(text, used, draft.reading.records)
        draft.record_changes.append(f"Remove the record of {item.path} (deadline {item.deadline})")
        draft.items.append(item.path)
    if expired:
        draft.set_text(ARCHIVE_INDEX, text)
        gone = "is removed for good: it cannot" if len(expired) == 1 else "are removed for good: they cannot"
        draft.recovery.append(f"{plural(len(expired), 'file')} {gone} be recovered afterwards.")
        draft.outcomes.append(f"Purged {plural(len(expired), 'expired trash item')}.")
    else:
        draft.outcomes.append("No expired trash to purge.")
    return draft.plan("purge", f"Purge {plural(len(expired), 'expired trash item')}")


# -- upgrade ----------------------------------------------------------------------------------


def plan_upgrade(root: Path) -> Plan:
    """Create only the missing lifecycle paths; move, rewrite and summarise nothing."""
    if is_unborn(root):  # missing, or empty: the first save makes it all
        raise Refused(f"There is no memory at {root}; the first save creates the whole structure.")
    if not memory_root.is_memory(root, places=True):  # a wrong root (`~`) gets no lifecycle folders
        raise Refused(f"Cannot upgrade: {memory_root.not_a_memory(root, places=True)}; nothing was changed.")
    journal.check_quiet(root)
    draft = Draft(root)
    missing = missing_lifecycle(root)
    for rel in missing:
        if rel == ARCHIVE_INDEX:
            draft.text(ARCHIVE_INDEX)
            draft.set_text(ARCHIVE_INDEX, records.empty_archive_index())
        else:
            draft.saw(rel)
            draft.make_dir(rel)
    if missing:
        draft.notes.append(f"Missing lifecycle paths: {', '.join(missing)}.")
        draft.notes.append(
            "Upgrade creates only what is listed; no memory file is moved, rewritten, summarised or deleted."
        )
        draft.outcomes.append(f"Created {', '.join(missing)}.")
    else:
        draft.outcomes.append("The lifecycle structure is complete; nothing to upgrade.")
    return draft.plan("upgrade", "Upgrade the lifecycle structure")


# -- batches ----------------------------------------------------------------------------------


def _plan_items(
    root: Path,
    paths: Sequence[str],
    action: str,
    add: Callable[[Draft, str], None],
    strict: bool,
    order: Callable[[Draft, Sequence[str]], Sequence[str]] | None = None,
) -> Plan:
    draft = Draft(root)
    skipped: list[str] = []
    for path in order(draft, paths) if order is not None else paths:  # (`order` reads through the draft)
        mark = draft.checkpoint()
        try:
            add(draft, path)
        except PmemError as err:
            if strict or len(paths) == 1:
                raise
            draft.rollback(mark)  # nothing of a skipped item stays in the plan
            skipped.append(f"Skipped {path}: {err}")
    if not draft.items:
        raise Refused(" ".join(skipped) or f"Nothing to {action}.")
    draft.notes.extend(skipped)
    what = draft.items[0] if len(draft.items) == 1 else f"{len(draft.items)} files"
    return draft.plan(action, f"{action.capitalize()} {what}")
