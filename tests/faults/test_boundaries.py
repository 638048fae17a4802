"""The fault campaign: every action, a fault at every step of the file-system shim, then doctor.

For each action type and each step k of its clean run, the action is run again with
- a hard stop at step k (the process dies just before that system call),
- an OSError at step k, two errnos per k drawn in turn from ENOSPC, EIO, EACCES, EROFS, EXDEV, EEXIST,
- a disk that dies at step k (EIO at k and at every later step, so the immediate undo fails too),
- an OSError at step k followed by a hard stop during the immediate undo,
then doctor runs (on a healthy disk) and the invariants are checked (`harness.check_settled`): the
memory is byte-identical to its before or its after state, every memory file's content exists exactly
once, every unrelated `_index.md` line is byte-identical, no temp file and no journal remain.

The error sentence must tell the truth: "Nothing was changed" means the memory is exactly as before
(before doctor runs), "run `pmem-tui doctor`" means a journal was left, "was done" means after.

Doctor itself is crashed too: from interrupted states of every action, a hard stop or an OSError at
every step of doctor's own run, then doctor again.

History's steps are among them (issue 16): every run starts from the same history store (a first record of the
before state; none for the first save, whose run makes the store), so the action's records are the same steps
each time; after doctor the store must read whole (`rewrite.check`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pmem_tui.core import journal, lifecycle
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import DiskError, PmemError
from pmem_tui.core.executor import NOTHING_CHANGED, apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.history import record, rewrite
from pmem_tui.core.model import ARCHIVE_INDEX
from pmem_tui.core.plan import Plan
from tests.campaign import full_campaign, sized
from tests.faults import harness
from tests.faults.harness import (
    ERRNOS,
    FIGURES,
    TODAY,
    Counting,
    Fault,
    State,
    base_memory,
    capture,
    check_settled,
    restore,
    restore_history,
    run_doctor,
    save_history,
    write,
)

# One xdist worker runs this whole module: its last test checks the figures the others gathered here.
pytestmark = pytest.mark.xdist_group("boundaries")

FAULTS_PER_STEP = sized(quick=3, full=5)  # `_faults_for`


@dataclass(frozen=True)
class Scenario:
    name: str
    setup: Callable[[Path], None]
    plan: Callable[[Path], Plan]


def _archived(rel: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        base_memory(root)
        apply(lifecycle.plan_archive(root, rel, "done with it"), root)

    return setup


def _setup_recover_trash(root: Path) -> None:
    base_memory(root)
    write(root, "projects/deep/inner.md", "# Inner\n\nDeep.\n")
    index = root / "_index.md"
    index.write_bytes(index.read_bytes() + b"- projects/deep/inner.md - inner\n")
    apply(lifecycle.plan_archive(root, "projects/deep/inner.md", "later"), root)
    apply(lifecycle.plan_delete(root, "projects/deep/inner.md"), root)
    (root / "projects/deep").rmdir()  # recover must recreate the folder


def _setup_purge(root: Path) -> None:
    base_memory(root)
    for rel in ("notes/old1.md", "projects/old2.md"):
        write(root, rel, f"# {rel}\n\nexpired.\n")
        line = f"- {rel} — soon expired\n".encode()
        (root / "_index.md").write_bytes((root / "_index.md").read_bytes() + line)
        apply(lifecycle.plan_archive(root, rel, "old"), root)
        apply(lifecycle.plan_delete(root, rel, today=TODAY - dt.timedelta(days=40)), root)


def _setup_upgrade(root: Path) -> None:
    base_memory(root)
    import shutil

    shutil.rmtree(root / "_archive")


SCENARIOS = [
    Scenario(
        "save-new",
        base_memory,
        lambda r: lifecycle.plan_save(r, "projects/sub/new.md", b"# New\n\nA new file.\n"),
    ),
    Scenario(
        "save-update",
        base_memory,
        lambda r: lifecycle.plan_save(
            r, "projects/alpha.md", harness.ALPHA.replace(b"December", b"January"),
            "- [Alpha](projects/alpha.md) — ships in January",
        ),
    ),
    Scenario("save-first", lambda r: None, lambda r: lifecycle.plan_save(r, "notes/first.md", b"# First\n")),
    Scenario("archive", base_memory, lambda r: lifecycle.plan_archive(r, "projects/alpha.md", "shipped")),
    Scenario(
        "archive-crlf-bom",
        lambda r: base_memory(r, eol="\r\n", bom="\ufeff"),
        lambda r: lifecycle.plan_archive(r, "notes/日本語 メモ.md", "read"),
    ),
    Scenario(
        "archive-batch",
        base_memory,
        lambda r: lifecycle.plan_archive_many(
            r, ["projects/beta.md", "projects/gamma [v2].md", "notes/delta.md"], "tidy"
        ),
    ),
    Scenario("delete", _archived("projects/beta.md"), lambda r: lifecycle.plan_delete(r, "projects/beta.md")),
    Scenario(
        "recover-archive",
        _archived("notes/standup.md"),
        lambda r: lifecycle.plan_recover(r, "notes/standup.md"),
    ),
    Scenario(
        "recover-trash",
        _setup_recover_trash,
        lambda r: lifecycle.plan_recover(r, "projects/deep/inner.md"),
    ),
    Scenario("purge", _setup_purge, lambda r: lifecycle.plan_purge(r)),
    Scenario("upgrade", _setup_upgrade, lambda r: lifecycle.plan_upgrade(r)),
]


@dataclass
class Prepared:
    before: State
    after: State
    steps: list[tuple[str, str]]
    history: dict[str, bytes | None] | None  # the history store every run starts from


def _prepare(scenario: Scenario, root: Path) -> Prepared:
    scenario.setup(root)
    if root.exists():  # a store holding the before state (a setup that ran an action made it already)
        assert record.record(root, create=True).problem is None
        assert record.stat_table.read_head(root) is not None
    history = save_history(root)
    before = capture(root)
    counting = Counting()
    _reset(root, before, history)
    apply(scenario.plan(root), root, hook=counting)
    after = capture(root)
    assert after != before, scenario.name
    assert any(rel.startswith(harness.HISTORY) for _, rel in counting.steps), scenario.name
    return Prepared(before, after, counting.steps, history)


def _reset(root: Path, state: State, history: dict[str, bytes | None] | None) -> None:
    restore(root, state)
    if root.exists():
        restore_history(root, history)


def _in_history(rel: str) -> bool:
    return rel == harness.HISTORY or rel.startswith(harness.HISTORY + "/")


def _faults_for(k: int) -> list[tuple[str | int, int | None]]:
    """The faults tried at step k: a hard stop, two errnos in turn, a dying disk, an errno then a death in
    the undo. The quick campaign (`tests/campaign.py`) tries three at each step: the hard stop, one errno
    (the six in turn) and, in turn, the dying disk or an errno then a death in the undo (1 to 4 steps
    later): every kind of fault and every errno still meet every action (each has 8 steps or more)."""
    n = len(ERRNOS)
    if not full_campaign():
        last: tuple[str | int, int | None] = (
            ("disk-dies", None) if k % 2 == 0 else (ERRNOS[(k + 3) % n], 1 + (k // 2) % 4)
        )
        return [("stop", None), (ERRNOS[k % n], None), last]
    e1, e2 = ERRNOS[(2 * k) % n], ERRNOS[(2 * k + 1) % n]
    return [("stop", None), (e1, None), (e2, None), ("disk-dies", None), (ERRNOS[k % n], 1 + k % 4)]


def _run_one(scenario: Scenario, root: Path, prep: Prepared, fault: Fault) -> None:
    label = f"{scenario.name} fault {fault.kind} at step {fault.at}"
    _reset(root, prep.before, prep.history)
    plan = scenario.plan(root)
    try:
        apply(plan, root, hook=fault)
    except HardStop:
        pass
    except DiskError as err:
        _check_sentence(str(err), root, prep, label)
    except PmemError as err:  # a refusal must change nothing
        raise AssertionError(f"{label}: unexpected refusal {err}") from err
    else:
        if fault.fired:
            # The only fault an action may absorb: EEXIST on a folder that is there (mkdir is idempotent),
            # or a fallback (EXDEV/EPERM on link: rename without replacing instead).
            assert capture(root) == prep.after, label
    assert fault.where is not None, label
    FIGURES.faults[scenario.name] += fault.fired
    FIGURES.runs[scenario.name] += 1
    final = check_settled(root, prep.before, prep.after, label)
    assert rewrite.check(root) is None, label
    FIGURES.lost += harness.lost_files(prep.before, prep.after, final)


def _check_sentence(message: str, root: Path, prep: Prepared, label: str) -> None:
    """The error sentence tells the truth about where the memory stands."""
    state = capture(root)
    intent = (root / journal.INTENT).exists()
    if message.startswith(NOTHING_CHANGED):
        assert state == prep.before, f"{label}: said nothing changed, but: {message}"
        assert intent == ("pmem-tui doctor" in message), f"{label}: {message}"
    elif "stopped part-way" in message:
        assert intent, f"{label}: sent to doctor without a journal: {message}"
    elif "was done" in message or "so it was finished" in message:
        assert state == prep.after and ("was done" in message or not intent), f"{label}: {message}"
    else:
        raise AssertionError(f"{label}: unexpected sentence: {message}")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.usefixtures("no_fsync")
def test_fault_at_every_step(scenario: Scenario, tmp_path: Path) -> None:
    root = tmp_path / "mem"
    prep = _prepare(scenario, root)
    total = len(prep.steps)
    assert total >= 8, f"{scenario.name}: only {total} steps, the shim is not reached"
    for k in range(1, total + 1):
        faults = _faults_for(k)
        if _in_history(prep.steps[k - 1][1]):
            # A history step: a death and one errno. A history that cannot record is absorbed (no undo to
            # die in), and a dying disk fails the journal's steps next, which are faulted on their own.
            faults = faults[:2]
        for kind, then_stop in faults:
            _run_one(scenario, root, prep, Fault(k, kind, then_stop))
    FIGURES.boundaries[scenario.name] = total
    # Past the last step nothing fires: the action completes.
    _reset(root, prep.before, prep.history)
    apply(scenario.plan(root), root, hook=Fault(total + 1, "stop"))
    assert capture(root) == prep.after


# -- doctor itself ---------------------------------------------------------------------------------------


def _interrupted_points(prep: Prepared) -> list[int]:
    """Crash points that leave a journal with work in both directions: right after the intent is written,
    the middle of the steps, and the last step before the journal is cleared."""
    steps = prep.steps
    commit = next(i for i, (name, rel) in enumerate(steps, 1) if name == "replace" and rel == journal.INTENT)
    clear = next(
        i for i, (name, rel) in enumerate(steps, 1) if name == "unlink" and rel == journal.INTENT
    )
    return sorted({commit + 1, (commit + clear) // 2, clear})


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.usefixtures("no_fsync")
def test_crash_during_doctor_then_doctor_again(scenario: Scenario, tmp_path: Path) -> None:
    root = tmp_path / "mem"
    prep = _prepare(scenario, root)
    exercised = 0
    for k in _interrupted_points(prep):
        _reset(root, prep.before, prep.history)
        with pytest.raises(HardStop):
            apply(scenario.plan(root), root, hook=Fault(k, "stop"))
        interrupted = capture(root)
        pmem = {p.name: p.read_bytes() for p in (root / journal.JOURNAL_DIR).iterdir()}
        history = save_history(root)
        counting = Counting()
        apply(plan_doctor(root), root, hook=counting)
        doctor_steps = len(counting.steps)
        assert doctor_steps >= 2
        for j in range(1, doctor_steps + 1):
            for kind in ("stop", ERRNOS[j % len(ERRNOS)]):
                label = f"{scenario.name} crash at {k}, doctor fault {kind} at {j}"
                _reset_interrupted(root, interrupted, pmem)
                restore_history(root, history)
                fault = Fault(j, kind)
                with contextlib.suppress(HardStop, DiskError):
                    apply(plan_doctor(root), root, hook=fault)
                FIGURES.faults[f"doctor({scenario.name})"] += fault.fired
                FIGURES.runs[f"doctor({scenario.name})"] += 1
                final = check_settled(root, prep.before, prep.after, label)
                assert rewrite.check(root) is None, label
                FIGURES.lost += harness.lost_files(prep.before, prep.after, final)
        exercised += doctor_steps
    FIGURES.boundaries[f"doctor({scenario.name})"] = exercised


def _reset_interrupted(root: Path, state: State, pmem: dict[str, bytes]) -> None:
    restore(root, state)
    for name, data in pmem.items():
        write(root, f"{journal.JOURNAL_DIR}/{name}", data)


def _leftovers(root: Path) -> None:
    """What a crash can leave without a journal: temp files, a stray blob, a file under two names, a trash
    item without a record, a trash item whose record lacks its deletion."""
    base_memory(root)
    write(root, "notes/.pmem-tmp-standup.md-0a1b2c3d", "half a write")
    write(root, "_archive/.pmem-tmp-_index.md-deadbeef", "")
    write(root, f"{journal.JOURNAL_DIR}/0.new", "stray blob")
    (root / "_archive/_trash/projects").mkdir(parents=True)
    (root / "_archive/_trash/projects/beta.md").hardlink_to(root / "projects/beta.md")  # two names
    write(root, "_archive/_trash/notes/orphan.md", "# Orphan\n")
    (root / "_archive/projects/old.md").rename(root / "_archive/_trash/projects/old.md")


@pytest.mark.slow
@pytest.mark.usefixtures("no_fsync")
def test_crash_during_doctor_repairing_leftovers(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    _leftovers(root)
    before = capture(root)
    counting = Counting()
    plan = plan_doctor(root)
    assert len(plan.ops) >= 5, plan.preview.notes
    apply(plan, root, hook=counting)
    after = capture(root)
    # The hard-linked trash name went (the records say beta is active); the orphan got a record; old's record
    # got its deletion; nothing else changed.
    assert "_archive/_trash/projects/beta.md" not in after.files and "projects/beta.md" in after.files
    text = after.files[ARCHIVE_INDEX].decode()
    assert "notes/orphan.md" in text and text.count("Recovery deadline") == 3
    assert plan_doctor(root).is_empty
    total = len(counting.steps)
    for j in range(1, total + 1):
        for kind in ("stop", ERRNOS[j % len(ERRNOS)]):
            _leftovers_reset(root, before)
            fault = Fault(j, kind)
            with contextlib.suppress(HardStop, DiskError):
                apply(plan_doctor(root), root, hook=fault)
            run_doctor(root)
            assert capture(root) == after, f"doctor fault {kind} at {j}"
            assert not harness.temp_files(root) and not harness.journal_files(root)
            FIGURES.faults["doctor(leftovers)"] += fault.fired
            FIGURES.runs["doctor(leftovers)"] += 1
    FIGURES.boundaries["doctor(leftovers)"] = total


def _leftovers_reset(root: Path, before: State) -> None:
    restore(root, before)
    (root / "_archive/_trash/projects/beta.md").unlink()
    (root / "_archive/_trash/projects/beta.md").hardlink_to(root / "projects/beta.md")
    write(root, f"{journal.JOURNAL_DIR}/0.new", "stray blob")


# -- the figures ---------------------------------------------------------------------------------------


def test_zz_campaign_figures() -> None:
    """Runs last in this module: the campaign cannot pass by exercising nothing."""
    names = {s.name for s in SCENARIOS}
    if not names <= set(FIGURES.boundaries):
        pytest.skip("the campaign ran only in part (tests deselected)")
    figures = FIGURES.as_dict()
    per_action = {s.name: FIGURES.boundaries[s.name] for s in SCENARIOS}
    assert all(n >= 8 for n in per_action.values()), per_action
    assert sum(per_action.values()) >= 300, per_action
    assert FIGURES.boundaries["doctor(leftovers)"] >= 10
    assert sum(FIGURES.faults.values()) >= FAULTS_PER_STEP * sum(per_action.values())
    assert FIGURES.lost == 0
    print("\nfault campaign:", json.dumps(figures))
