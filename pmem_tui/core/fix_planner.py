"""The planners' side of the health check: the plan a proposal's fix asks for, and the reason an archive
of it records. Each plan gets its own preview and confirmation; nothing here applies anything.

* "add" / "drop": one `_index.md` line added for an orphan, or dropped for a dead or duplicate route.
* "reroute": the one line of a dead route that names an unlisted file (backslashes for slashes, or a file
  moved to another folder) made to name it: only the route's text changes (`index_line.reroute_line`), so the
  agent's title and summary stay byte for byte.
* "redact": a save of the file with every secret `secrets.find_secrets` sees replaced by ``[redacted]``
  (`secrets.redact_secrets`: only those bytes change), through the save planner and its preview, whose
  old side shows ``<secret>`` where the secret was: no output ever holds it. The save leaves the secret in
  the history (`.pmem/history` keeps the version on disk now, recorded before the save if it is not yet, and
  any earlier one): the preview says so and how to forget them; once saved, `secret_forgets` plans forgetting
  every kept version of the file that holds a secret (the app offers it as the fix's second step).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pmem_tui.core import index, paths, safeio, textio
from pmem_tui.core.draft import Draft
from pmem_tui.core.errors import PmemError, Refused
from pmem_tui.core.health.report import Proposal
from pmem_tui.core.layout import require_lifecycle
from pmem_tui.core.model import INDEX_FILE
from pmem_tui.core.plan import Plan
from pmem_tui.core.save_planner import plan_save
from pmem_tui.core.secrets import find_secrets, redact_secrets
from pmem_tui.core.words import plural

if TYPE_CHECKING:
    from pmem_tui.core.history.rewrite import ForgetAllPlan

__all__ = [
    "archive_reason",
    "earlier_secrets",
    "history_note",
    "plan_fix",
    "removes_secret",
    "secret_forgets",
]

HIDDEN = "<secret>"  # what the save preview shows in place of the secret it removes


def archive_reason(proposal: Proposal) -> str:
    """The one-line reason to record when a proposal is archived (`lifecycle.plan_archive`'s reason)."""
    text = f"health check: {proposal.reason}"
    return text if len(text) <= 200 else text[:199] + "…"


def plan_fix(root: Path, proposal: Proposal) -> Plan:
    """The change a proposal's fix suggests, as a plan with its own preview (nothing applied)."""
    if proposal.fix is not None and proposal.fix_action == "redact":
        return _plan_redact(root, proposal)
    require_lifecycle(root, "fix the index")
    if proposal.fix is not None and proposal.fix_action == "reroute":
        return _plan_reroute(root, proposal.fix, proposal.path)
    if proposal.fix is None or proposal.fix_action not in ("add", "drop"):
        raise Refused(f"Proposal {proposal.n} ({proposal.path}) has no index fix.")
    draft = Draft(root)
    text = draft.text(INDEX_FILE) or ""
    route = proposal.path
    existing = index.find_entries(text, route)
    if paths.active_path_problem(route) is None:  # (never a look outside the root: `..` is refused)
        draft.saw(route)  # the fix rests on the file being there, or not (found in trial: an agent wrote it)
    if proposal.fix_action == "add":
        if existing:
            raise Refused(f"{route} is already in {INDEX_FILE}; nothing to add.")
        unlisted = index.named_without_bullet(text, route)
        if unlisted is not None:  # a second line would name the file twice to an agent
            raise Refused(f"{route} is {index.orphan_detail(unlisted)}.")
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
        draft.outcomes.append(f"Dropped {plural(len(drop), 'line')} for {route} from {INDEX_FILE}.")
    draft.recovery.append(f"Only {INDEX_FILE} changes; the line can be edited back at any time.")
    draft.items.append(route)
    return draft.plan("save", f"Fix {INDEX_FILE}: {proposal.fix_action} {route}")


def _plan_reroute(root: Path, old: str, new: str) -> Plan:
    """The one line naming `old` rewritten to name `new` (both checked again: the index or the files may have
    changed since the health check)."""
    draft = Draft(root)
    text = draft.text(INDEX_FILE) or ""
    entries = index.find_entries(text, old)
    if not entries:
        raise Refused(f"{INDEX_FILE} no longer lists {old}; nothing to rewrite.")
    if len(entries) > 1:
        raise Refused(f"{INDEX_FILE} lists {old} {len(entries)} times; rewrite the one you mean by hand.")
    if index.find_entries(text, new):
        raise Refused(f"{new} is already in {INDEX_FILE}; drop the line of {old} instead.")
    unlisted = index.named_without_bullet(text, new)
    if unlisted is not None:  # a second line would name the file twice to an agent
        raise Refused(f"{new} is {index.orphan_detail(unlisted)}.")
    if paths.active_path_problem(old) is None:  # (a backslash spelling is never looked at on the disk)
        draft.saw(old)  # the fix rests on nothing being there
        if safeio.entry_kind(root, old) != "missing":
            raise Refused(f"{old} is on the disk again; its line stays as it is.")
    slashed = index.slashed_route(old)  # `notes\a.md` means notes/a.md: a file there is the one it names
    if slashed is not None and slashed != new and paths.active_path_problem(slashed) is None:
        draft.saw(slashed)
        if safeio.entry_kind(root, slashed) != "missing":
            raise Refused(f"{old} names {slashed}, which is on the disk; its line stays as it is.")
    problem = paths.active_path_problem(new)
    if problem is not None:
        raise Refused(f"{new} is no memory file: {problem}.")
    draft.saw(new)
    if safeio.entry_kind(root, new) != "file":  # never a link, at any depth
        raise Refused(f"{new} no longer exists; nothing to rewrite the route to.")
    entry = entries[0]
    try:
        line = index.reroute_line(entry.raw, old, new)
    except ValueError as err:
        raise Refused(
            f"The line of {old} cannot be rewritten for you: {err}; edit {INDEX_FILE} by hand."
        ) from None
    draft.set_text(INDEX_FILE, index.replace_line(text, entry.line_no, line))
    draft.index_removed.append(entry.raw)
    draft.index_added.append(line)
    draft.outcomes.append(f"Rewrote the route {old} in {INDEX_FILE} to {new}.")
    draft.recovery.append(f"Only {INDEX_FILE} changes; the line can be edited back at any time.")
    draft.items.append(new)
    return draft.plan("save", f"Fix {INDEX_FILE}: reroute {old} to {new}")


def _plan_redact(root: Path, proposal: Proposal) -> Plan:
    """A save of the file as it is now with its secrets redacted (found again: the file may have changed)."""
    require_lifecycle(root, "redact a secret")
    try:
        data = safeio.read_under(root, proposal.path)
    except OSError as err:
        raise Refused(f"{proposal.path} cannot be read any more: {err.strerror or err}.") from None
    if not textio.is_valid_utf8(data):
        raise Refused(f"{proposal.path} is not valid UTF-8; redact its secret by hand in a text editor.")
    text = data.decode("utf-8")
    if not find_secrets(text):
        raise Refused(f"{proposal.path} holds no secret any more; nothing to redact.")
    plan = plan_save(root, proposal.path, redact_secrets(text).encode("utf-8"))
    # The preview never shows the secret either: its old side says where it was, not what it was.
    diffs = tuple(
        replace(d, old=redact_secrets(d.old, HIDDEN), masked=True) if d.path == proposal.path else d
        for d in plan.preview.diffs
    )
    notes = (*plan.preview.notes, history_note(root, proposal.path))
    recovery = "The previous content, secret included, stays in pmem-tui's history (see the note)."
    return replace(plan, preview=replace(plan.preview, diffs=diffs, notes=notes, recovery=recovery))


def earlier_secrets(root: Path, path: str) -> int:
    """How many contents of `path` the history keeps, other than the live one, that look like they hold a
    secret (0 without a history, or when it cannot be read: its own commands say so)."""
    from pmem_tui.core.history import rewrite

    try:
        live = rewrite.live_blob(root, path)  # read once, not once per kept content
        return sum(blob != live for blob in _secret_contents(root, path))
    except PmemError:
        return 0


def removes_secret(old: str, new: str) -> bool:
    """Whether `new` no longer has a line of `old` that looks like it holds a secret (a save that removed one,
    by hand or by a redaction). Lines are compared without their "\r": a save that only turned CRLF into LF
    (or back) removed nothing."""
    lines = old.split("\n")
    kept = {line.rstrip("\r") for line in new.split("\n")}
    return any(lines[hit.line_no - 1].rstrip("\r") not in kept for hit in find_secrets(old))


def history_note(root: Path, path: str) -> str:
    """What a redaction leaves in the history, and how to remove it (the redact preview's note)."""
    earlier = earlier_secrets(root, path)
    held = " still holds it"
    if earlier:
        held = f" and {earlier} earlier version{'s' if earlier != 1 else ''} of it still hold it"
    return (
        "The secret stays in pmem-tui's history (.pmem/history): the version on disk now (recorded before "
        f"this save){held}. To remove it, forget them from the history: "
        f"`pmem-tui history forget {path} --version V` for each V that `pmem-tui health` names."
    )


def secret_forgets(root: Path, path: str) -> ForgetAllPlan | None:
    """Forgetting every content of `path` the history keeps that looks like it holds a secret: what a
    redaction leaves behind (None when no version does). Each version of the file is looked at (a content
    another file also had included), each content screened once (cached by blob id). Previewed with
    `ForgetAllPlan.lines`, applied with `rewrite.apply_forget_all` (which plans it again to check)."""
    from pmem_tui.core.history import rewrite

    blobs = _secret_contents(root, path)
    return rewrite.plan_forget_all(root, path, blobs) if blobs else None


def _secret_contents(root: Path, path: str) -> list[str]:
    """The contents (blob ids) of `path`'s versions in the history that look like they hold a secret, newest
    first; none without a history. Refused (one sentence) when the history cannot be read."""
    from pmem_tui.core.health.kept import content_hits
    from pmem_tui.core.history import log, stat_table

    if stat_table.read_head(root) is None:
        return []
    with log.reading():
        blobs = list(dict.fromkeys(v.blob for v in log.versions(root, path) if v.blob))
        hits = content_hits(root, blobs)
    return [b for b in blobs if hits.get(b)]
