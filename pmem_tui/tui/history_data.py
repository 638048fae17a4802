"""What the Changes pane and the History view show, without their widgets: rows, diffs, the restore offer.

Plain functions over `core/history` (its readers; nothing here writes), run in the widgets' workers, never
on the UI thread. A version is shown by its row (`version_row`); the diffs come back as styled Rich `Text`
(`widgets/diff_view.unified_text`, as the plan previews draw theirs).
"""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from pmem_tui.core import safeio, textio
from pmem_tui.core.errors import PmemError
from pmem_tui.core.history import log, stat_table
from pmem_tui.core.report import human_size
from pmem_tui.tui.key_docs import with_keys
from pmem_tui.tui.keys import keymap
from pmem_tui.tui.rows import Row
from pmem_tui.tui.widgets.diff_view import unified_text

if TYPE_CHECKING:
    from pmem_tui.tui.planning import Offer

NO_STORE = (
    "No history yet for this memory: it starts with the first action made here, with "
    "`pmem-tui snapshot` (a one-line hook for an agent's session end), or now: press {changes.reviewed} on "
    "the Changes pane."
)
NOTHING_CHANGED = "Nothing changed since the last review."


def no_store() -> str:
    """`NO_STORE` with the user's key for starting the history."""
    return with_keys(NO_STORE, keymap())


_PLACES = ("", "_archive/", "_archive/_trash/")  # where a file with this original path may be now


def when(seconds: int) -> str:
    """A record's time, local, to the minute (as the panes write modification times)."""
    return dt.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")


# -- the Changes pane ---------------------------------------------------------------------------------------


Refs = tuple[str | None, str | None] | None  # the newest record and the reviewed one; None: no store


@dataclass(frozen=True)
class ChangesData:
    """One read of what changed since the review: the changes, newest first, and their rows; or why not."""

    changes: tuple[log.Changed, ...] = ()
    rows: tuple[Row, ...] = ()
    empty: str = NOTHING_CHANGED  # the pane's sentence when there is no row (no store, a damaged one...)
    refs: Refs = None  # the store's refs as this read began (`refs`)


def refs(root: Path) -> Refs:
    """The store's refs (two small files read: no record is opened), to tell whether a read is still new."""
    if not stat_table.store_exists(root):
        return None
    return stat_table.read_head(root), stat_table.read_head(root, log.REVIEWED_REF)


def diff_size(c: log.Changed) -> str:
    return f"+{c.lines_added} -{c.lines_removed}"


def change_row(c: log.Changed) -> Row:
    return Row(
        key=c.path,
        kind=c.kind,
        path=c.path,
        location=None,  # the preview shows its diff, not the file
        cells=(c.path, c.kind, when(c.time), c.origin, diff_size(c)),
    )


def read_changes(root: Path) -> ChangesData:
    now = refs(root)
    if now is None:
        return ChangesData(empty=no_store())
    try:
        changes = tuple(log.changes_since_review(root))
    except PmemError as err:
        return ChangesData(empty=str(err), refs=now)
    return ChangesData(changes, tuple(change_row(c) for c in changes), refs=now)


def _bytes_at(root: Path, version: str | None, path: str) -> bytes:
    """`path`'s bytes at `version` (empty when that record does not hold it, or for None)."""
    if version is None:
        return b""
    try:
        return log.version_bytes(root, version, path)
    except PmemError:
        return b""


def change_diff(root: Path, c: log.Changed) -> Text:
    """What changed in `c`'s file since the review: the bytes of the record it is compared with (`c.since`) ->
    the newest record's."""
    head = stat_table.read_head(root)
    old, new = _bytes_at(root, c.since, c.path), _bytes_at(root, head, c.path)
    shown = textio.printable(c.path)
    title = Text(f"{shown}  {c.kind} · {when(c.time)} · {c.origin} · {diff_size(c)}\n", style="bold")
    old_label = f"a/{c.path}@{c.since[:12]}" if c.kind != log.ADDED else "/dev/null"
    new_label = f"b/{c.now_path}@{head[:12]}" if head and c.kind != log.DELETED else "/dev/null"
    return Text.assemble(title, _diff(old, new, old_label, new_label))


def _diff(old: bytes, new: bytes, old_label: str, new_label: str) -> Text:
    lines = list(
        difflib.unified_diff(
            textio.lines_of(textio.decode(old)),
            textio.lines_of(textio.decode(new)),
            fromfile=old_label,
            tofile=new_label,
            lineterm="",
        )
    )
    if not lines:
        return Text("No difference.", style="dim")
    return unified_text(lines)


# -- the History view ---------------------------------------------------------------------------------------


def version_key(v: log.Version) -> str:
    return f"{v.id}:{v.path}"


def version_row(v: log.Version, path: str) -> Row:
    where = "" if v.path == path else v.path  # archived or in the trash then
    size = human_size(v.bytes) if v.kind != log.DELETED else "-"
    return Row(
        key=version_key(v),
        kind=v.kind,
        path=path,
        location=None,
        cells=(when(v.time), v.kind, v.origin, size, v.id[:8], where),
    )


@dataclass(frozen=True)
class VersionsData:
    versions: tuple[log.Version, ...] = ()
    rows: tuple[Row, ...] = ()
    empty: str = ""


def read_versions(root: Path, path: str) -> VersionsData:
    if not stat_table.store_exists(root):
        return VersionsData(empty=no_store())
    try:
        found = tuple(log.versions(root, path))
    except PmemError as err:
        return VersionsData(empty=str(err))
    if not found:
        return VersionsData(empty=f"{textio.printable(path)} has no versions in this memory's history.")
    return VersionsData(found, tuple(version_row(v, path) for v in found))


def live_bytes(root: Path, path: str) -> tuple[bytes, str | None]:
    """The file as it is now, wherever it is (active, archived, in the trash): its bytes and place."""
    for prefix in _PLACES:
        try:
            return safeio.read_under(root, prefix + path), prefix + path
        except OSError:
            continue
    return b"", None


def version_diff(root: Path, path: str, older: log.Version, newer: log.Version | None) -> Text:
    """The diff from `older` to `newer` (None: the file as it is now)."""
    old = _bytes_at(root, older.id, path) if older.kind != log.DELETED else b""
    old_label = f"a/{path}@{older.id[:12]}"
    if newer is None:
        new, where = live_bytes(root, path)
        new_label = f"b/{where} (now)" if where else "/dev/null (no such file now)"
        title = f"{textio.printable(path)}: version {older.id[:8]} ({when(older.time)}) -> the file now\n"
    else:
        new = _bytes_at(root, newer.id, path) if newer.kind != log.DELETED else b""
        new_label = f"b/{path}@{newer.id[:12]}"
        title = f"{textio.printable(path)}: version {older.id[:8]} ({when(older.time)})"
        title += f" -> {newer.id[:8]} ({when(newer.time)})"
        title += "\n"
    return Text.assemble(Text(title, style="bold"), _diff(old, new, old_label, new_label))


def restore_offer(root: Path, path: str, v: log.Version) -> Offer:
    """`r` in the History view: the save that puts `path` back to version `v` (a `PmemError` when not)."""
    from pmem_tui.core.history.plans import plan_restore
    from pmem_tui.tui.planning import Offer

    plan = plan_restore(root, path, v.id)
    return Offer(
        title=plan.title,
        plan=plan,
        explanation=f"The version of {when(v.time)} ({v.kind}, {v.origin}) is saved as the file's content; "
        "the restore is itself a new version in the history, and ctrl+z undoes it.",
    )
