"""One problem count: the app's scan is shallow (stat only), so what only a read finds (an invalid summary,
invalid UTF-8) is checked here, in a worker: every active file after a full scan, only the changed ones
after a patch. The header then counts what `status` counts, and `!` shows the Index rows concerned."""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from pathlib import Path

from pmem_tui.core import columns
from pmem_tui.core.model import ActiveFile, Problem, Snapshot, SummaryState

MAX_CHECKED = 20_000  # beyond this many active files the header says the summaries are not read here
Found = dict[str, tuple[Problem, ...]]  # per file read, its problems (none: an empty tuple)


def check_contents(root: Path, snap: Snapshot, paths: Set[str] | None = None) -> Found | None:
    """What a read of the active files (or of `paths` only) finds; None: too many files to read here."""
    # The deep scan's reads: loaded by the worker, not for the first frame.
    from pmem_tui.core import scan_facts

    active = snap.active
    if paths is None:
        files: Sequence[ActiveFile] = active
    else:  # found by path, without making every file of a shallow scan's columns
        files = [active[i] for i, path in enumerate(columns.paths_of(active)) if path in paths]
    if len(files) > MAX_CHECKED:
        return None
    found: Found = {}
    for f in files:
        if f.summary.state is not SummaryState.UNKNOWN:
            continue  # read by the scan already: its problems are in the snapshot
        try:
            content = scan_facts.inspect_file(root, f.path)
        except OSError as err:
            found[f.path] = (Problem("unreadable", f.path, f"cannot be read: {err.strerror}"),)
        else:
            found[f.path] = tuple(scan_facts.content_problems(f.path, content))
    return found


class ContentProblems:
    """The reads' findings by path. A full check replaces them, a partial one updates its files; the
    result of a check started before the latest full one is dropped."""

    def __init__(self) -> None:
        self.by_path: Found | None = None  # the files whose read found problems (None: not read yet)
        self.too_many = False
        self.generation = 0

    def start(self, full: bool) -> int:
        """A check begins; the last findings stay shown until it ends (no count flickering by)."""
        if full:
            self.generation += 1
        return self.generation

    def merge(self, generation: int, found: Found | None, full: bool) -> bool:
        """Take a check's result; False if it came too late (a newer full check replaces it)."""
        if generation != self.generation:
            return False
        if found is None:
            self.too_many, self.by_path = True, {}
        elif full or self.by_path is None:
            self.too_many, self.by_path = False, {path: f for path, f in found.items() if f}
        elif self.too_many:
            return False  # the count is the scan's alone (the header says so): a patch's read stays out
        else:
            for path, f in found.items():
                if f:
                    self.by_path[path] = f
                else:
                    self.by_path.pop(path, None)
        return True

    def problems(self, snap: Snapshot) -> tuple[Problem, ...] | None:
        """Every problem of `snap`, the reads' included (None: not read yet). Called on every redraw of the
        header (each external save): the active files are listed only when a read found a problem."""
        if self.by_path is None:
            return None
        if not self.by_path:
            return snap.problems
        active = set(columns.paths_of(snap.active))
        return snap.problems + tuple(
            p for path, found in self.by_path.items() if path in active for p in found
        )

    def note(self) -> str:
        """What the header adds to its count while the reads' findings are not in it."""
        if self.by_path is None:
            return "summaries not checked yet"
        return f"summaries not read here: over {MAX_CHECKED:,} files; see `status`" if self.too_many else ""


def without_rows(problems: Iterable[Problem], row_paths: Set[str]) -> str:
    """The problems `!` cannot show as Index rows (a link, a special file: nothing to act on), each named
    with what it is; empty if every problem has its row. The count in the header includes them."""
    left = [p for p in problems if p.path not in row_paths]
    if not left:
        return ""
    what = "problem has" if len(left) == 1 else "problems have"
    return f"{len(left)} {what} no row in the list:\n" + "\n".join(f"• {p.path}: {p.detail}" for p in left)
