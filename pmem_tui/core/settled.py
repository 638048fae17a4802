"""A scan that never presents a half-applied action as the truth.

Readers (`status`, the app's scans) take no lock: they must not block an action or write. Instead they take
a mark before and after their scan: whether `.pmem/journal/intent.json` exists, the journal folder's inode,
mtime_ns and ctime_ns, and the inode and mtime_ns of `_index.md` and `_archive/_index.md`. Every action
creates its intent before its first change and removes it after its last, so an action running at either
look shows there. One that started and finished in between changed the journal folder, and, if it changed
more than one file (the only way to a mix), it replaced a control file: atomically, under a new inode made
while the old one still existed, so that changes the mark even within one timestamp tick.

- The same mark and no intent: the scan saw one state (before or after every action), as it is.
- An intent at both looks, nobody applying it: an interrupted action, reported (run doctor): `scan_once`
  attaches what the journal says to what `tree.scan` saw.
- Otherwise (an action started, finished or is running): scan again, up to `ATTEMPTS` times. If actions
  keep running, the last snapshot is returned marked in progress: `unfinished_action` names the action and
  the "unfinished" problem says it is being applied, never a mixed state with `unfinished_action` null.

`mark` imports only `os`: `status` takes it before its cache probe, whose hit path stays light.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, TypeVar

    T = TypeVar("T")

    from pmem_tui.core.model import Snapshot

ATTEMPTS = 3
_JOURNAL = ".pmem/journal"  # kept equal to `journal.JOURNAL_DIR` (tested)
_INTENT = f"{_JOURNAL}/intent.json"
_CONTROL = ("_index.md", "_archive/_index.md")  # kept equal to `model.INDEX_FILE`, `ARCHIVE_INDEX` (tested)

Mark = tuple[object, ...]


def mark(root: str | os.PathLike[str]) -> Mark:
    """(an intent exists, then inode, mtime_ns and ctime_ns of the journal folder, inode and mtime_ns of each
    control file; zeros for what is missing)."""
    base = os.fspath(root)
    out: list[object] = [os.path.lexists(os.path.join(base, _INTENT))]
    for rel, times in ((_JOURNAL, 3), *((c, 2) for c in _CONTROL)):
        try:
            st = os.lstat(os.path.join(base, rel))
        except OSError:
            out += [0] * times
            continue
        out += (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)[:times]
    return tuple(out)


def quiet(root: Path, before: Mark) -> bool:
    """No action started or finished since `before`, and none is being applied now (an interrupted one, whose
    intent nobody holds, is a state like any other)."""
    end = mark(root)
    if end != before:
        return False
    if end[0]:
        from pmem_tui.core import journal

        return not journal.action_running(root) and mark(root) == end
    return True


def read(root: Path, reader: Callable[[Mark], T], before: Mark | None = None) -> tuple[T, bool, bool]:
    """Run `reader(mark taken just before it)` until it was quiet, at most `ATTEMPTS` times. Returns its last
    result, whether that one was quiet, and whether the first try was (from `before`, when given)."""
    start = mark(root) if before is None else before
    for attempt in range(ATTEMPTS):
        result = reader(start)
        if quiet(root, start):
            return result, True, attempt == 0
        start = mark(root)
    return result, False, False


def scan(root: Path, *, before: Mark | None = None, **kwargs: Any) -> tuple[Snapshot, bool]:
    """`tree.scan(root, **kwargs)` that shows one state or says an action is in progress. Returns the
    snapshot and whether it was quiet from `before` (default: the start of the scan) to its end: only then
    may its output be cached."""
    shared = [kwargs.pop("listed", None)]  # a listing taken before serves the first look only

    def once(_mark: Mark) -> Snapshot:
        return scan_once(root, listed=shared.pop() if shared else None, **kwargs)

    snap, settled, first_try = read(root, once, before)
    return (snap, first_try) if settled else (_in_progress(root, snap), False)


def scan_once(root: Path, **kwargs: Any) -> Snapshot:
    """One look: `tree.scan(root, **kwargs)`, then the action the journal says was left unfinished (the scan
    reads the memory only; the journal belongs to the layer that acts)."""
    from pmem_tui.core import tree

    snap = tree.scan(root, **kwargs)
    if not snap.exists or not os.path.exists(os.path.join(root, _INTENT)):
        return snap
    from dataclasses import replace

    from pmem_tui.core import journal
    from pmem_tui.core.model import META_DIR, Problem

    try:
        intent = journal.read_intent(root)
        title = intent.title if intent else None
    except (OSError, ValueError, KeyError, TypeError):
        title = "an action whose journal is unreadable"
    problem = Problem("unfinished", META_DIR, f"'{title}' was interrupted; run `pmem-tui doctor`")
    return replace(snap, unfinished_action=title, problems=(*snap.problems, problem))


def _in_progress(root: Path, snap: Snapshot) -> Snapshot:
    from dataclasses import replace

    from pmem_tui.core import journal
    from pmem_tui.core.model import META_DIR, Problem

    title = snap.unfinished_action
    try:
        intent = journal.read_intent(root)
    except (OSError, ValueError):
        intent = None
    if intent is not None:
        title = intent.title
    title = title or "an action"
    detail = f"'{title}' is being applied right now; what is shown may be part-way"
    kept = (p for p in snap.problems if p.kind != "unfinished")
    problems = (*kept, Problem("unfinished", META_DIR, detail))
    return replace(snap, unfinished_action=title, action_running=True, problems=problems)
