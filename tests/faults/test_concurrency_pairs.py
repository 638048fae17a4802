"""Two actors on one root, for every pair of mutating commands (archive, delete, recover, save, purge,
upgrade, doctor; 28 pairs, each command against itself included).

Each pair runs under five schedules: both plan, then apply in either order (the loser's plan is stale); one
applies while the other is held inside its action right after its intent is written (the other plans and
applies then: refused as busy, at planning or at the lock); the same with the other's plan made before; and
two threads released together. After each run the memory must equal the serial run of the commands that
succeeded, in some order; every refusal is one sentence; no temp file or journal is left. Real processes
(`test_concurrency.py`, and one CLI process per command against another below) check the same across
processes.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
import shutil
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from pmem_tui.core import doctor, executor, journal, lifecycle
from pmem_tui.core.errors import PmemError
from pmem_tui.core.executor import apply
from pmem_tui.core.plan import Plan
from tests.faults.harness import (
    ALPHA,
    FIGURES,
    TODAY,
    State,
    Stepper,
    base_memory,
    capture,
    journal_files,
    restore,
    write,
)
from tests.faults.test_concurrency import REPO

LATER = TODAY + dt.timedelta(days=40)  # notes/gone.md's deadline has passed: purge has work
COMMANDS: dict[str, Callable[[Path], Plan]] = {
    "archive": lambda r: lifecycle.plan_archive(r, "projects/alpha.md", "race"),
    "delete": lambda r: lifecycle.plan_delete(r, "projects/old.md"),
    "recover": lambda r: lifecycle.plan_recover(r, "notes/gone.md"),
    "save": lambda r: lifecycle.plan_save(r, "projects/alpha.md", ALPHA.replace(b"December", b"March")),
    "purge": lifecycle.plan_purge,
    "upgrade": lifecycle.plan_upgrade,
    "doctor": doctor.plan_doctor,
}
ARGV = {
    "archive": ("archive", "projects/alpha.md", "--reason", "race"),
    "delete": ("delete", "projects/old.md"),
    "recover": ("recover", "notes/gone.md"),
    "save": ("save", "projects/alpha.md", "--from", "{alpha}"),
    "purge": ("purge",),
    "upgrade": ("upgrade",),
    "doctor": ("doctor",),
}
PAIRS = list(itertools.combinations_with_replacement(COMMANDS, 2))
SENTENCE = re.compile(r"[^\n]+[.)]")


def _setup(root: Path, pair: tuple[str, str]) -> None:
    """A memory where each command has work: leftovers for doctor; without `_archive/_trash/` (and so
    without the trash item) when upgrade takes part, which then has work too."""
    base_memory(root)
    write(root, "notes/.pmem-tmp-standup.md-0a1b2c3d", "half a write")
    if "upgrade" in pair:
        shutil.rmtree(root / "_archive/_trash")
    shutil.rmtree(root / ".pmem", ignore_errors=True)


def _serial(root: Path, before: State, order: tuple[str, ...]) -> State | None:
    """The memory after running `order` one after the other, each planned at its turn; None if one of them
    is refused there (that order cannot be what happened)."""
    restore(root, before, journal_dir=False)
    try:
        for name in order:
            apply(COMMANDS[name](root), root)
    except PmemError:
        return None
    return capture(root)


def _check(root: Path, before: State, ok: list[str], errors: list[str], label: str) -> None:
    for err in errors:
        assert SENTENCE.fullmatch(err) and "Traceback" not in err, f"{label}: not one sentence: {err!r}"
    assert ok, f"{label}: both refused: {errors}"
    assert not journal_files(root), f"{label}: journal left: {journal_files(root)}"
    final = capture(root)
    scratch = root.parent / f"{root.name}-serial"
    outcomes = [_serial(scratch, before, order) for order in set(itertools.permutations(ok))]
    shutil.rmtree(scratch, ignore_errors=True)
    assert final in outcomes, f"{label}: {ok} succeeded, refused {errors}: not a serial outcome"


def _attempt(root: Path, name: str, ok: list[str], errors: list[str], plan: Plan | None = None) -> None:
    try:
        apply(plan if plan is not None else COMMANDS[name](root), root)
    except PmemError as err:
        errors.append(str(err))
    else:
        ok.append(name)


def _plan_or_refuse(root: Path, name: str, errors: list[str]) -> Plan | None:
    try:
        return COMMANDS[name](root)
    except PmemError as err:
        errors.append(str(err))
        return None


def _held_at_commit(root: Path, name: str, ok: list[str], errors: list[str]) -> Stepper | None:
    """`name` applying in a thread, held at the step right after its intent is written (None if its plan is
    refused, or empty: it then succeeds at once)."""
    plan = _plan_or_refuse(root, name, errors)
    if plan is None:
        return None
    ok.append(name)  # checked when it finishes
    if plan.is_empty:
        return None
    stepper = Stepper(root, plan)
    while not stepper.done and not (root / journal.INTENT).exists():
        stepper.advance(1)
    return stepper


def _run(root: Path, pair: tuple[str, str], schedule: str) -> tuple[list[str], list[str]]:
    a, b = pair if schedule != "b-first" else pair[::-1]
    ok: list[str] = []
    errors: list[str] = []
    if schedule in ("a-first", "b-first"):
        plans = [_plan_or_refuse(root, a, errors), _plan_or_refuse(root, b, errors)]
        for name, plan in zip((a, b), plans, strict=True):
            if plan is not None:
                _attempt(root, name, ok, errors, plan)
    elif schedule in ("b-during-a", "b-planned-before-a"):
        early = _plan_or_refuse(root, b, errors) if schedule == "b-planned-before-a" else None
        stepper = _held_at_commit(root, a, ok, errors)
        if schedule == "b-during-a":
            _attempt(root, b, ok, errors)
        elif early is not None:
            _attempt(root, b, ok, errors, early)
        if stepper is not None:
            stepper.finish()
    else:  # two threads released together
        gate = threading.Barrier(2)

        def actor(name: str) -> None:
            gate.wait()
            _attempt(root, name, ok, errors)

        threads = [threading.Thread(target=actor, args=(n,)) for n in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    return ok, errors


SCHEDULES = ("a-first", "b-first", "b-during-a", "b-planned-before-a", "threads")


@pytest.mark.rule("PM-SAFE-4")
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}+{p[1]}")
@pytest.mark.usefixtures("no_fsync")
def test_every_pair_of_commands_ends_in_a_serial_outcome(
    pair: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", LATER.isoformat())
    monkeypatch.setattr(executor, "LOCK_TIMEOUT_S", 0.05)  # a refusal as busy without waiting 3 s
    root = tmp_path / "mem"
    _setup(root, pair)
    before = capture(root)
    for schedule in SCHEDULES:
        restore(root, before, journal_dir=False)
        shutil.rmtree(root / ".pmem", ignore_errors=True)
        ok, errors = _run(root, pair, schedule)
        _check(root, before, ok, errors, f"{pair} {schedule}")
        REFUSALS.update(_kind(e) for e in errors)
        FIGURES.extra["concurrency_pair_runs"] = FIGURES.extra.get("concurrency_pair_runs", 0) + 1
    FIGURES.extra["concurrency_pairs"] = len(PAIRS)
    FIGURES.extra.update({f"concurrency_refused_{k}": v for k, v in REFUSALS.items()})


REFUSALS: Counter[str] = Counter()


def _kind(err: str) -> str:
    if "Another pmem-tui action" in err:
        return "busy"
    if "since the preview" in err or "since the doctor" in err:
        return "stale"
    return "by_state"  # planned after the other: already archived, no longer there, run upgrade...


# -- real processes ---------------------------------------------------------------------------------------

# Each child says it is ready on one pipe and waits for one byte on another: both start applying together.
GATED = """
import os, sys
from pmem_tui import cli
ready, go = int(sys.argv[1]), int(sys.argv[2])
os.write(ready, b"r")
os.read(go, 1)
sys.exit(cli.main(sys.argv[3:]))
"""
# Every command against another, each at least once, most on the same file or the same record.
PROCESS_PAIRS = [
    ("archive", "save"), ("delete", "recover"), ("recover", "purge"), ("purge", "doctor"),
    ("upgrade", "save"), ("doctor", "archive"), ("save", "delete"),
]


def _processes(root: Path, pair: tuple[str, str], alpha: Path) -> list[tuple[int, str]]:
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}  # PMEM_TUI_TODAY: LATER
    procs = []
    for name in pair:
        argv = [a.replace("{alpha}", str(alpha)) for a in ARGV[name]]
        procs.append(subprocess.Popen(
            [sys.executable, "-c", GATED, str(ready_w), str(go_r), "--root", str(root), *argv, "--yes"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO),
            pass_fds=(ready_w, go_r),
        ))
    os.close(ready_w)
    os.close(go_r)
    got = b""
    while len(got) < len(procs):
        chunk = os.read(ready_r, 2)
        assert chunk, "a child died before its gate"
        got += chunk
    os.write(go_w, b"gg")
    os.close(go_w)
    os.close(ready_r)
    out = []
    for proc in procs:
        _stdout, stderr = proc.communicate(timeout=60)
        out.append((proc.returncode, stderr))
    return out


@pytest.mark.slow
@pytest.mark.rule("PM-SAFE-4")
def test_two_processes_for_each_command_end_in_a_serial_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", LATER.isoformat())
    alpha = tmp_path / "alpha.md"
    alpha.write_bytes(ALPHA.replace(b"December", b"March"))
    for pair in PROCESS_PAIRS:
        root = tmp_path / f"{pair[0]}+{pair[1]}"
        _setup(root, pair)
        before = capture(root)
        results = _processes(root, pair, alpha)
        ok = [name for name, (code, _) in zip(pair, results, strict=True) if code == 0]
        errors = []
        for code, stderr in results:
            assert code in (0, 1) and "Traceback" not in stderr, (pair, results)
            if code == 1:
                assert stderr.startswith("pmem-tui: ") and stderr.count("\n") == 1, (pair, stderr)
                errors.append(stderr[len("pmem-tui: ") :].strip())
        _check(root, before, ok, errors, f"{pair} processes")
    FIGURES.extra["concurrency_process_pairs"] = len(PROCESS_PAIRS)
