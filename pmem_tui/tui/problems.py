"""One problem count: the app's scan is shallow (stat only), so what only a read finds (an invalid summary,
invalid UTF-8) is checked here, in a worker after each scan; the header then counts what `status` counts,
and `!` shows the Index rows those problems are about."""

from __future__ import annotations

from pathlib import Path

from pmem_tui.core.model import Problem, Snapshot, SummaryState

MAX_CHECKED = 20_000  # beyond this many active files the header says the summaries are not checked here


def check_contents(root: Path, snap: Snapshot) -> tuple[Problem, ...] | None:
    """The problems a deep read of the active files finds (None: too many files to read here)."""
    from pmem_tui.core import tree  # the scan's module: loaded by the worker, not for the first frame

    if len(snap.active) > MAX_CHECKED:
        return None
    found: list[Problem] = []
    for f in snap.active:
        if f.summary.state is not SummaryState.UNKNOWN:
            continue  # read by the scan already: its problems are in the snapshot
        try:
            content = tree.inspect_file(root / f.path)
        except OSError as err:
            found.append(Problem("unreadable", f.path, f"cannot be read: {err.strerror}"))
        else:
            found += tree.content_problems(f.path, content)
    return tuple(found)


def all_problems(snap: Snapshot, contents: tuple[Problem, ...] | None) -> tuple[Problem, ...]:
    return snap.problems + (contents or ())
