"""A reader during an action sees the before state, the after state, or the action in progress: never a mix
presented as the truth (`core/settled.py`).

The action runs in a thread that stops before each of its file-system steps until the test lets it go on;
the reader runs in the test's thread, and each folder it walks lets the action take `n` more steps. So the
action really progresses while the reader scans, at every offset, deterministically and without sleeps.
The bare `tree.scan` is run the same way to show the interleaving reaches mixed states at all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pmem_tui import cli
from pmem_tui.core import cache, folder_walk, journal, settled, status_cache, tree
from pmem_tui.core.errors import Busy
from pmem_tui.core.executor import apply
from pmem_tui.core.health import HealthReport, check
from pmem_tui.core.history import record
from pmem_tui.core.model import ARCHIVE_INDEX, INDEX_FILE, Snapshot
from tests.conftest import cache_file
from tests.faults.harness import FIGURES, Counting, Stepper, capture, restore, restore_history, save_history
from tests.faults.test_boundaries import SCENARIOS, Scenario

READ_SCENARIOS = ("archive", "archive-batch", "delete", "recover-archive", "recover-trash", "save-new")


def state_of(snap: Snapshot) -> tuple[Any, ...]:
    """What a reader presents as the memory's state."""
    return (
        tuple(a.path for a in snap.active),
        tuple(a.path for a in snap.archived),
        tuple(t.path for t in snap.trash),
        tuple(e.route for e in snap.index_entries),
        tuple(sorted((r.path, r.deleted is not None) for r in snap.records)),
        tuple(sorted((p.kind, p.path) for p in snap.problems)),
    )


def _interleaved(
    monkeypatch: pytest.MonkeyPatch, stepper: Stepper, n: int, read: Callable[[], Snapshot], only: int = 0
) -> Snapshot:
    """`read()` while each folder walk lets the action take `n` steps (with `only`: just the walk of that
    number, so a whole action can run in the middle of one scan)."""
    real = folder_walk.walk  # every folder walked, through `walk_files` or not
    calls = [0]

    def walk(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if not only or calls[0] == only:
            stepper.advance(n)
        return real(*args, **kwargs)

    monkeypatch.setattr(folder_walk, "walk", walk)
    try:
        return read()
    finally:
        monkeypatch.setattr(folder_walk, "walk", real)
        stepper.finish()


def _prepare(scenario: Scenario, root: Path) -> tuple[Any, Any, Any, int]:
    """The states and the step count; every run then starts from the same history store (issue 16: one
    holding the before state, so the action's own record is the only history step in the interleaving)."""
    scenario.setup(root)
    record.record(root, create=True)
    global _HISTORY
    _HISTORY = save_history(root)
    before = capture(root)
    truth_before = state_of(tree.scan(root))
    counting = Counting()
    apply(scenario.plan(root), root, hook=counting)
    truth_after = state_of(tree.scan(root))
    return before, truth_before, truth_after, len(counting.steps)


_HISTORY: dict[str, bytes | None] | None = None


def _restore(root: Path, before: Any) -> None:
    restore(root, before)
    restore_history(root, _HISTORY)


@pytest.mark.rule("PM-STATUS-1")
@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.name in READ_SCENARIOS], ids=lambda s: s.name)
@pytest.mark.usefixtures("no_fsync")
def test_a_reader_during_an_action_never_presents_a_mix(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mem"
    before, truth_before, truth_after, steps = _prepare(scenario, root)
    assert truth_before != truth_after
    mixed_bare = runs = in_progress = 0
    # Every third offset, one or three steps per folder walked; and the whole action within one walk.
    combos = [(offset, n, 0) for offset in range(0, steps + 1, 3) for n in (1, 3)]
    combos += [(0, steps, only) for only in (2, 3, 4)]
    for offset, n, only in combos:
        for reader in ("bare", "settled"):
            _restore(root, before)
            stepper = Stepper(root, scenario.plan(root))
            stepper.advance(offset)
            if reader == "bare":
                snap = _interleaved(monkeypatch, stepper, n, lambda: settled.scan_once(root), only)
            else:
                snap = _interleaved(monkeypatch, stepper, n, lambda: settled.scan(root)[0], only)
            seen = state_of(snap)
            shown_as_truth = snap.unfinished_action is None
            label = f"{scenario.name} offset {offset} n {n} only {only} {reader}"
            if reader == "bare":
                mixed_bare += shown_as_truth and seen not in (truth_before, truth_after)
                continue
            runs += 1
            in_progress += snap.action_running
            truthful = not shown_as_truth or seen in (truth_before, truth_after)
            assert truthful, f"{label}: a mix shown as truth"
            if snap.unfinished_action is not None:
                assert snap.action_running, f"{label}: a running action reported as interrupted"
                assert not (root / journal.INTENT).exists()  # it has finished since
    # The interleaving is real: the bare scan shows mixed states as the truth at some offsets.
    assert mixed_bare > 0, scenario.name
    FIGURES.extra[f"readers({scenario.name})"] = runs
    FIGURES.extra[f"readers_bare_mixed({scenario.name})"] = mixed_bare
    FIGURES.extra[f"readers_in_progress({scenario.name})"] = in_progress


def test_the_marked_paths_are_the_journals_and_the_control_files() -> None:
    assert settled._JOURNAL == journal.JOURNAL_DIR and settled._INTENT == journal.INTENT
    assert settled._CONTROL == (INDEX_FILE, ARCHIVE_INDEX)


@pytest.mark.usefixtures("no_fsync")
def test_status_does_not_cache_what_it_read_while_an_action_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The key is taken before the scan; an action that moved during it must not leave its output stored."""
    import time

    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10**10)  # out of the racy window
    scenario = next(s for s in SCENARIOS if s.name == "archive")
    root = tmp_path / "mem"
    before, _, _, steps = _prepare(scenario, root)
    stored = cache_file(root, status_cache.STATUS_FILES["json"])
    for offset in range(0, steps, 2):
        _restore(root, before)
        stored.unlink(missing_ok=True)
        stepper = Stepper(root, scenario.plan(root))
        stepper.advance(offset)
        # Once the intent is removed the memory is in its after state: only the journal's blobs go.
        committed = ("unlink", journal.INTENT) in stepper.steps[:-1]

        def read() -> Snapshot:
            assert cli.main(["--root", str(root), "status", "--json"]) == 0
            return tree.scan(root)

        _interleaved(monkeypatch, stepper, 1, read)
        assert committed or not stored.exists(), f"offset {offset}: stored what was read while the action ran"
    capsys.readouterr()
    # Once quiet, status is stored as usual.
    assert cli.main(["--root", str(root), "status", "--json"]) == 0
    assert stored.exists()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.usefixtures("no_fsync")
def test_every_action_changes_the_mark_even_within_one_tick(scenario: Scenario, tmp_path: Path) -> None:
    """Without the journal folder's times (one tick may hold a whole action), the control files' inodes still
    change: an action that came and went between a reader's two looks is never missed."""
    root = tmp_path / "mem"
    scenario.setup(root)
    first = settled.mark(root)
    apply(scenario.plan(root), root)
    last = settled.mark(root)
    assert first[0] is last[0] is False
    assert first[4:] != last[4:], scenario.name


def _health_state(report: HealthReport) -> tuple[Any, ...]:
    return (
        tuple((p.path, p.category, tuple(s.kind for s in p.signals)) for p in report.proposals),
        tuple(t.path for t in report.expired_trash),
    )


@pytest.mark.rule("PM-HEALTH-1")
@pytest.mark.usefixtures("no_fsync")
def test_health_during_an_action_reports_before_or_after_or_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`health` lists, then reads: the action takes steps in between. The bare engine shows mixes; the
    command answers with the before or the after report, or says an action is running."""
    scenario = next(s for s in SCENARIOS if s.name == "archive-batch")
    root = tmp_path / "mem"
    before, _, _, steps = _prepare(scenario, root)
    truth_after = _health_state(check.check_health(root, use_cache=False))
    restore(root, before)
    truth_before = _health_state(check.check_health(root, use_cache=False))
    real = check._list
    busy = mixed_bare = 0
    for offset in range(0, steps + 1, 3):
        for bare in (True, False):
            restore(root, before)
            stepper = Stepper(root, scenario.plan(root))
            stepper.advance(offset)

            def listed(*args: Any, stepper: Stepper = stepper) -> Any:
                found = real(*args)
                stepper.advance(3)
                return found

            monkeypatch.setattr(check, "_list", listed)
            try:
                if bare:
                    mark = settled.mark(root)
                    seen = _health_state(check._check(root, 90, None, False, mark))
                    mixed_bare += seen not in (truth_before, truth_after)
                    continue
                try:
                    seen = _health_state(check.check_health(root))
                except Busy as err:
                    assert "\n" not in str(err)
                    busy += 1
                else:
                    assert seen in (truth_before, truth_after), f"offset {offset}: a mixed health report"
            finally:
                monkeypatch.setattr(check, "_list", real)
                stepper.finish()
        # What the cache kept is never a mix: a cached run agrees with a fresh one.
        cached = _health_state(check.check_health(root))
        assert cached == _health_state(check.check_health(root, use_cache=False)) == truth_after
    assert mixed_bare > 0
    FIGURES.extra["readers_health_busy"] = busy
    FIGURES.extra["readers_health_bare_mixed"] = mixed_bare
