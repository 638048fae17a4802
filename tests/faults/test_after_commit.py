"""Disk errors after the commit point: the action is done, and says so together with the disk's error.

For every action of the fault campaign, an EIO is injected at each fsync of its clean run (file and folder),
and EIO and EROFS at each step after the commit point (the last step of the action: from the
unlink of the intent on). Each run ends in exactly one of:
- a refusal whose sentence tells the truth (`test_boundaries._check_sentence`), or
- the action done (its after state) with `ApplyResult.warning` set, which says the action was done; it
  names doctor exactly when the journal is still there.
A fired fault is never a plain success, and after doctor the memory is settled in its before or after state.
A fault in one of the history's steps (issue 16) never stops the action: it is done, and `ApplyResult.history`
says in one sentence what the history could not record.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from pmem_tui import cli
from pmem_tui.cli.lifecycle import EXIT_DONE_WITH_DISK_ERROR
from pmem_tui.core import fsops, journal, lifecycle
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import DiskError, PmemError
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from tests.faults import harness
from tests.faults.harness import FIGURES, Counting, Fault, base_memory, capture, check_settled
from tests.faults.test_boundaries import SCENARIOS, Prepared, Scenario, _check_sentence, _prepare, _reset

FSYNCS = ("fsync-file", "fsync-dir")
LATE_ERRNOS = (errno.EIO, errno.EROFS)
# Faults an action may absorb with a plain success: a folder that is there already, a file system without
# hard links (it renames without replacing instead).
ABSORBED = {("mkdir", errno.EEXIST), ("link", errno.EXDEV), ("link", errno.EEXIST)}


def _commit_step(prep: Prepared) -> int:
    """1-based index of the unlink of the intent in the clean run: the first step after the commit point."""
    return prep.steps.index(("unlink", journal.INTENT)) + 1


def _run(scenario: Scenario, root: Path, prep: Prepared, fault: Fault) -> str:
    """One faulty run, checked; returns how it ended: refused, warned or absorbed."""
    label = f"{scenario.name}: {fault.kind} at step {fault.at} {prep.steps[fault.at - 1]}"
    _reset(root, prep.before, prep.history)
    try:
        result = apply(scenario.plan(root), root, hook=fault)
    except DiskError as err:
        _check_sentence(str(err), root, prep, label)
        ended = "refused"
    except PmemError as err:
        raise AssertionError(f"{label}: unexpected refusal {err}") from err
    else:
        assert fault.fired, label
        assert capture(root) == prep.after, f"{label}: reported done, but the memory is not the after state"
        if result.warning is None and result.history is not None:
            assert result.history.startswith("History could not record"), f"{label}: {result.history}"
            ended = "history"
        elif result.warning is None:
            absorbed = (prep.steps[fault.at - 1][0], fault.kind) in ABSORBED
            assert absorbed, f"{label}: a disk error became a plain success"
            ended = "absorbed"
        else:
            left = (root / journal.INTENT).exists()
            assert "was done" in result.warning or "so it was finished" in result.warning, label
            names_doctor = "run `pmem-tui doctor` to clear it" in result.warning
            assert left == names_doctor, f"{label}: {result.warning}"
            ended = "warned"
    FIGURES.runs[f"after-commit({scenario.name})"] += 1
    harness.run_doctor(root)
    check_settled(root, prep.before, prep.after, label)
    return ended


@pytest.mark.rule("PM-CORE-3")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.usefixtures("no_fsync")
def test_disk_error_at_every_fsync_and_after_the_commit_point(scenario: Scenario, tmp_path: Path) -> None:
    root = tmp_path / "mem"
    prep = _prepare(scenario, root)
    commit = _commit_step(prep)
    fsyncs = [k for k, (name, _rel) in enumerate(prep.steps, 1) if name in FSYNCS]
    late = range(commit, len(prep.steps) + 1)
    assert len(late) >= 2, f"{scenario.name}: nothing after the commit point"  # the unlink and its fsync
    ends: list[str] = []
    for k in fsyncs:
        ends.append(_run(scenario, root, prep, Fault(k, errno.EIO)))
    for k in late:
        for code in LATE_ERRNOS:
            ends.append(_run(scenario, root, prep, Fault(k, code)))
    # No failed fsync is absorbed; every error after the commit point is a warning on a done action.
    assert "absorbed" not in ends[: len(fsyncs)], (scenario.name, ends)
    assert ends[len(fsyncs) :] == ["warned"] * (len(late) * len(LATE_ERRNOS)), (scenario.name, ends)
    FIGURES.extra[f"after_commit_fsyncs({scenario.name})"] = len(fsyncs)


@pytest.mark.rule("PM-CORE-3")
@pytest.mark.usefixtures("no_fsync")
def test_cli_delete_eio_at_the_journal_fsync_after_the_intent_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported defect: EIO at the 12th fsync of a clean delete (the journal folder, right after the
    intent is unlinked) exited 0 with "Moved ..."."""
    root = tmp_path / "mem"
    base_memory(root)
    apply(lifecycle.plan_archive(root, "projects/beta.md", "done"), root)
    before = capture(root)
    history = harness.save_history(root)
    counting = Counting()
    apply(lifecycle.plan_delete(root, "projects/beta.md"), root, hook=counting)
    after = capture(root)
    # The delete's own fsyncs (the history's, issue 16, come between them and are counted apart).
    fsync_steps = [
        k
        for k, (name, rel) in enumerate(counting.steps, 1)
        if name in FSYNCS and not rel.startswith(harness.HISTORY)
    ]
    twelfth = fsync_steps[11]
    assert counting.steps[twelfth - 1] == ("fsync-dir", journal.JOURNAL_DIR)
    assert counting.steps[twelfth - 2] == ("unlink", journal.INTENT)
    harness.restore(root, before)
    harness.restore_history(root, history)
    monkeypatch.setattr(fsops, "env_fault_hook", lambda: Fault(twelfth, errno.EIO))
    code = cli.main(["--root", str(root), "delete", "projects/beta.md", "--yes"])
    out, err = capsys.readouterr()
    assert code == EXIT_DONE_WITH_DISK_ERROR == 3
    assert out.startswith("Moved projects/beta.md to _archive/_trash/projects/beta.md")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("pmem-tui: The action was done, but then the disk reported an I/O error")
    assert capture(root) == after


@pytest.mark.rule("PM-CORE-3")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.usefixtures("no_fsync")
def test_doctor_reports_a_disk_error_at_every_fsync(scenario: Scenario, tmp_path: Path) -> None:
    """Doctor's own run, from an action stopped right after its intent: EIO at each of its fsyncs is said
    ("Doctor stopped ...; run it again"), never a plain success, and the next doctor settles the memory."""
    root = tmp_path / "mem"
    prep = _prepare(scenario, root)
    crash = prep.steps.index(("replace", journal.INTENT)) + 2  # the first step after the intent is in place
    _reset(root, prep.before, prep.history)
    with pytest.raises(HardStop):
        apply(scenario.plan(root), root, hook=Fault(crash, "stop"))
    interrupted = capture(root)
    blobs = {p.name: p.read_bytes() for p in (root / journal.JOURNAL_DIR).iterdir()}
    # pmem-tui's own files as the interrupted action left them: doctor's steps (and so the k-th fsync) are
    # the counted ones only when each run starts from them.
    own = {rel: (root / rel).read_bytes() for rel in (".pmem/.gitignore",) if (root / rel).is_file()}
    history = harness.save_history(root)
    counting = Counting()
    apply(plan_doctor(root), root, hook=counting)
    fsyncs = [k for k, (name, _) in enumerate(counting.steps, 1) if name in FSYNCS]
    assert len(fsyncs) >= 3
    for k in fsyncs:
        harness.restore(root, interrupted)
        harness.restore_history(root, history)
        for name, data in blobs.items():
            harness.write(root, f"{journal.JOURNAL_DIR}/{name}", data)
        for rel, data in own.items():
            harness.write(root, rel, data)
        if counting.steps[k - 1][1].startswith(harness.HISTORY + "/"):
            # Doctor's record of the finished action: the repair is done; the history says what it could not.
            result = apply(plan_doctor(root), root, hook=Fault(k, errno.EIO))
            assert result.history is not None and result.history.startswith("History could not record")
        else:
            with pytest.raises(DiskError, match=r"^Doctor stopped because the disk reported an I/O error"):
                apply(plan_doctor(root), root, hook=Fault(k, errno.EIO))
        harness.run_doctor(root)
        check_settled(root, prep.before, prep.after, f"doctor({scenario.name}) EIO at fsync {k}")
    FIGURES.extra[f"after_commit_doctor_fsyncs({scenario.name})"] = len(fsyncs)
