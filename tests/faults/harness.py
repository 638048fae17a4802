"""Shared machinery of the fault campaign: memory states, fault hooks, the invariants, the figures.

A *state* is everything a person could see in the memory: every file's bytes and every folder, the
tool's hidden `.pmem/` metadata excluded. After a fault and `doctor`, the memory must be in the
state before the action or the state after it, byte for byte.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import shutil
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pmem_tui.core import journal, records
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import TEMP_PREFIX, HardStop
from pmem_tui.core.meta_dir import GITIGNORE, GITIGNORE_BYTES
from pmem_tui.core.model import ARCHIVE_INDEX, INDEX_FILE, META_DIR, ArchiveRecord
from pmem_tui.core.plan import Plan
from pmem_tui.core.settled import scan_once as scan  # the scan, with what the journal says is unfinished

ERRNOS = (errno.ENOSPC, errno.EIO, errno.EACCES, errno.EROFS, errno.EXDEV, errno.EEXIST)
CONTROL = (INDEX_FILE, ARCHIVE_INDEX)
HISTORY = f"{META_DIR}/history"


@dataclass(frozen=True)
class State:
    files: dict[str, bytes]
    dirs: frozenset[str]

    def memory_contents(self) -> Counter[bytes]:
        """The multiset of memory files' contents (control files excluded)."""
        return Counter(data for rel, data in self.files.items() if rel not in CONTROL)


def capture(root: Path) -> State:
    files: dict[str, bytes] = {}
    dirs: set[str] = set()
    if root.is_dir():
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
            if rel_dir == ".":
                dirnames[:] = [d for d in dirnames if d != META_DIR]
                rel_dir = ""
            for d in dirnames:
                dirs.add(f"{rel_dir}/{d}" if rel_dir else d)
            for name in filenames:
                rel = f"{rel_dir}/{name}" if rel_dir else name
                files[rel] = (Path(dirpath) / name).read_bytes()
    return State(files, frozenset(dirs))


def restore(root: Path, state: State, *, journal_dir: bool = True) -> None:
    """Make `root` hold exactly `state` and an empty journal folder; a state without anything means no root.

    Only what differs is touched (fast), and a file with several names (a half-done move) is unlinked before
    it is rewritten, so rewriting one name never changes another.
    """
    if not state.files and not state.dirs:
        if root.exists():
            shutil.rmtree(root)
        return
    root.mkdir(parents=True, exist_ok=True)
    if journal_dir:  # every run starts alike: the tool's own folder complete, its journal empty
        (root / journal.JOURNAL_DIR).mkdir(parents=True, exist_ok=True)
        if not (root / GITIGNORE).exists():
            (root / GITIGNORE).write_bytes(GITIGNORE_BYTES)
    for name in journal_files(root):
        (root / journal.JOURNAL_DIR / name).unlink()
    have_dirs: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d != META_DIR]
            rel_dir = ""
        have_dirs += [f"{rel_dir}/{d}" if rel_dir else d for d in dirnames]
        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            path = Path(dirpath) / name
            want = state.files.get(rel)
            if want is None or path.is_symlink() or path.stat().st_nlink > 1 or path.read_bytes() != want:
                path.unlink()
    for d in sorted(have_dirs, reverse=True):
        if d not in state.dirs:
            (root / d).rmdir()
    for d in sorted(state.dirs):
        (root / d).mkdir(exist_ok=True)
    for rel, data in state.files.items():
        if not (root / rel).exists():
            (root / rel).write_bytes(data)


def save_history(root: Path) -> dict[str, bytes | None] | None:
    """The history store's files and folders (None for a folder; None: no store), to start every run of a
    campaign from the same store."""
    store = root / HISTORY
    if not store.is_dir():
        return None
    return {p.relative_to(store).as_posix(): _bytes_or_none(p) for p in store.rglob("*")}


def _bytes_or_none(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def restore_history(root: Path, saved: dict[str, bytes | None] | None) -> None:
    store = root / HISTORY
    if store.exists():
        shutil.rmtree(store)
    if saved is None:
        return
    store.mkdir(parents=True)
    for rel, data in sorted(saved.items()):
        if data is None:
            (store / rel).mkdir(parents=True, exist_ok=True)
        else:
            (store / rel).parent.mkdir(parents=True, exist_ok=True)
            (store / rel).write_bytes(data)


def temp_files(root: Path) -> list[str]:
    """Temp files anywhere below the root, the tool's metadata folder included."""
    out = []
    for dirpath, _dirnames, filenames in os.walk(root):
        out += [os.path.join(dirpath, n) for n in filenames if n.startswith(TEMP_PREFIX)]
    return out


def journal_files(root: Path) -> list[str]:
    try:
        return sorted(os.listdir(root / journal.JOURNAL_DIR))
    except FileNotFoundError:
        return []


def index_lines(data: bytes | None) -> list[bytes]:
    return (data or b"").splitlines(keepends=True)


# -- hooks ------------------------------------------------------------------------------------------------


class Counting:
    """Counts the shim's steps (and remembers them)."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, str]] = []

    def __call__(self, name: str, rel: str) -> None:
        self.steps.append((name, rel))


class Fault:
    """Fail step `at` (1-based) with `kind`: "stop" (a hard stop), an errno, or "disk-dies" (that errno at
    step `at` and at every later step). `then_stop`: also a hard stop `then_stop` steps after the first fault
    (a death during the immediate undo)."""

    def __init__(self, at: int, kind: str | int, then_stop: int | None = None) -> None:
        self.at = at
        self.kind = kind
        self.then_stop = then_stop
        self.count = 0
        self.fired = 0
        self.where: tuple[str, str] | None = None

    def __call__(self, name: str, rel: str) -> None:
        self.count += 1
        if self.count == self.at:
            self.where = (name, rel)
        if self.then_stop is not None and self.count == self.at + self.then_stop:
            self.fired += 1
            raise HardStop
        if self.count == self.at or (self.kind == "disk-dies" and self.count > self.at):
            self.fired += 1
            if self.kind == "stop":
                raise HardStop
            code = errno.EIO if self.kind == "disk-dies" else int(self.kind)
            raise OSError(code, f"injected {errno.errorcode[code]}", rel)


class Stepper:
    """An action in a thread, held before each shim step until `advance` lets it take more."""

    def __init__(self, root: Path, plan: Plan) -> None:
        self._go = threading.Semaphore(0)
        self._stopped = threading.Semaphore(0)
        self.done = False
        self.error: BaseException | None = None
        self.steps: list[tuple[str, str]] = []  # the last one is the step it is held before
        self._thread = threading.Thread(target=self._run, args=(root, plan), daemon=True)
        self._thread.start()
        self._stopped.acquire()  # at the first step, or done

    def _hook(self, name: str, rel: str) -> None:
        self.steps.append((name, rel))
        self._stopped.release()
        self._go.acquire()

    def _run(self, root: Path, plan: Plan) -> None:
        try:
            apply(plan, root, hook=self._hook)
        except BaseException as err:  # reported by the test
            self.error = err
        finally:
            self.done = True
            self._stopped.release()

    def advance(self, n: int) -> None:
        for _ in range(n):
            if self.done:
                return
            self._go.release()
            self._stopped.acquire()

    def finish(self) -> None:
        while not self.done:
            self.advance(1)
        self._thread.join(timeout=30)
        assert self.error is None, self.error


# -- invariants -------------------------------------------------------------------------------------------


def lost_files(before: State, after: State, final: State) -> int:
    """Memory files whose content should exist in either outcome but does not, plus duplicated contents."""
    keep = before.memory_contents() & after.memory_contents()
    have = final.memory_contents()
    lost = sum((keep - have).values())
    allowed = before.memory_contents() | after.memory_contents()
    duplicated = sum((have - allowed).values())
    return lost + duplicated


def check_settled(root: Path, before: State, after: State, label: str) -> State:
    """Run doctor until it has nothing left (`run_doctor`: it stops only on an empty plan), then the
    invariants: before-or-after, nothing lost or doubled, unrelated index lines byte-identical, no temp
    file, no journal, scan sees nothing unfinished."""
    run_doctor(root)  # doctor has nothing left: its last plan was empty
    final = capture(root)
    assert lost_files(before, after, final) == 0, f"{label}: a memory file was lost or duplicated"
    assert final in (before, after), (
        f"{label}: the memory is neither before nor after:\n{_diff(final, before, after)}"
    )
    b_lines, a_lines = index_lines(before.files.get(INDEX_FILE)), index_lines(after.files.get(INDEX_FILE))
    unrelated = [line for line in b_lines if line in a_lines]
    f_lines = index_lines(final.files.get(INDEX_FILE))
    it = iter(f_lines)
    assert all(line in it for line in unrelated), f"{label}: an unrelated index line changed"
    assert not temp_files(root), f"{label}: temp files remain: {temp_files(root)}"
    assert not journal_files(root), f"{label}: journal remains: {journal_files(root)}"
    if root.exists():
        snap = scan(root)
        assert snap.unfinished_action is None, label
    return final


def run_doctor(root: Path, rounds: int = 3) -> int:
    """Run doctor until it has nothing left (it may take a second run to sweep what the first resolves)."""
    if not root.exists():
        return 0
    for ran in range(rounds):
        plan = plan_doctor(root)
        if plan.is_empty:
            return ran
        apply(plan, root)
    raise AssertionError("doctor did not settle")


def _diff(final: State, before: State, after: State) -> str:
    out = []
    for name, ref in (("before", before), ("after", after)):
        keys = set(final.files) | set(ref.files)
        changed = sorted(k for k in keys if final.files.get(k) != ref.files.get(k))
        out.append(f"  vs {name}: files differ {changed}; dirs +{sorted(final.dirs - ref.dirs)} "
                   f"-{sorted(ref.dirs - final.dirs)}")
    return "\n".join(out)


# -- memories ---------------------------------------------------------------------------------------------

TODAY = dt.date(2026, 11, 30)

ALPHA = b"# Alpha project\n\n## Summary\n- Alpha ships in December.\n- Postgres chosen.\n- No network.\n"


def write(root: Path, rel: str, data: bytes | str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def base_memory(root: Path, *, eol: str = "\n", bom: str = "") -> None:
    """A realistic memory: core, several active files (CJK, spaces, brackets), an archived item, a trash item,
    index lines of several shapes and unrelated text around them."""
    write(root, "_core/profile.md", "# Profile\n\nI write Python.\n")
    lines = [
        "# Index",
        "",
        "Some words an agent wrote.",
        "- [Alpha](projects/alpha.md) — the importer project",
        "- projects/beta.md — beta",
        "* `projects/gamma [v2].md` — gamma with brackets",
        "",
        "## Notes",
        "- notes/standup.md: daily standup notes",
        "1. `notes/日本語 メモ.md` — CJK note with a space",
        "- notes/delta.md — delta",
    ]
    write(root, INDEX_FILE, bom + eol.join(lines) + eol)
    write(root, "projects/alpha.md", ALPHA)
    write(root, "projects/beta.md", "# Beta\n\nBeta text.\n")
    write(root, "projects/gamma [v2].md", "# Gamma\n\nGamma text.\n")
    write(root, "notes/standup.md", "# Standup\n\nNothing new.\n")
    write(root, "notes/日本語 メモ.md", "# メモ\n\n内容。\n")
    write(root, "notes/delta.md", "# Delta\n\nDelta.\n")
    write(root, "_archive/projects/old.md", "# Old\n\nOld stuff.\n")
    write(root, "_archive/_trash/notes/gone.md", "# Gone\n\nGone stuff.\n")
    text = records.empty_archive_index()
    text = records.add_record(text, ArchiveRecord(
        path="projects/old.md", index_line="- projects/old.md — old project",
        archived=TODAY - dt.timedelta(days=9), reason="finished", after="- projects/beta.md — beta",
        before=None,
    ))
    text = records.add_record(text, ArchiveRecord(
        path="notes/gone.md", index_line="- notes/gone.md — gone", archived=TODAY - dt.timedelta(days=20),
        reason="obsolete", deleted=TODAY - dt.timedelta(days=3), deadline=TODAY + dt.timedelta(days=27),
        after="- notes/standup.md: daily standup notes", before=None,
    ))
    write(root, ARCHIVE_INDEX, text)


# -- figures ----------------------------------------------------------------------------------------------


@dataclass
class Figures:
    """What the campaign exercised, per action: boundaries (shim steps of a clean run), faults injected,
    runs, files lost."""

    boundaries: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    runs: Counter[str] = field(default_factory=Counter)
    lost: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "boundaries": dict(sorted(self.boundaries.items())),
            "boundaries_total": sum(self.boundaries.values()),
            "faults": dict(sorted(self.faults.items())),
            "faults_total": sum(self.faults.values()),
            "runs_total": sum(self.runs.values()),
            "files_lost": self.lost,
            **self.extra,
        }

    def raw(self) -> dict[str, object]:
        """Plain data, for an xdist worker to hand its figures to the controller (`merge`)."""
        return {
            "boundaries": dict(self.boundaries),
            "faults": dict(self.faults),
            "runs": dict(self.runs),
            "lost": self.lost,
            "extra": dict(self.extra),
        }

    def merge(self, raw: dict[str, Any]) -> None:
        """Add a worker's figures: every figure is a count, and a test runs in one worker only."""
        self.boundaries.update(raw["boundaries"])
        self.faults.update(raw["faults"])
        self.runs.update(raw["runs"])
        self.lost += int(raw["lost"])
        for key, value in raw["extra"].items():
            self.extra[key] = self.extra.get(key, 0) + int(value)


FIGURES = Figures()


PlanMaker = Callable[[Path], Plan]
