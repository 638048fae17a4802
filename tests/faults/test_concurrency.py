"""Two real processes acting on the same file of the same root at once.

Each round starts two actors as close together as possible: two CLI processes, or the app's path (plan,
then `executor.apply` in a worker thread, as the TUI does) against a CLI process. In half the rounds the
actors wait at a start gate (a file the test creates) after their imports, so their plans and applies
really overlap; the other half start `python -m pmem_tui` cold. Exactly one wins; the
other is refused cleanly (exit 1, one sentence: changed since the preview, busy, or no longer there) and
nothing is lost: the memory equals the state after one single action. The rounds start without the
`.pmem/` metadata folder, so the two also race to create it. Every pair of mutating commands:
`test_concurrency_pairs.py`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pmem_tui.core import lifecycle
from pmem_tui.core.errors import PmemError
from pmem_tui.core.executor import apply
from pmem_tui.core.plan import Plan
from tests.campaign import sized
from tests.faults.harness import FIGURES, base_memory, capture, journal_files, temp_files

REPO = Path(__file__).resolve().parents[2]
# Round n: kind n % 3, a gate when n is odd, the app against a CLI when n % 4 == 3: 12 rounds hold every
# combination once (the quick campaign), the full one repeats them.
ROUNDS = sized(quick=12, full=20)
REFUSALS = re.compile(
    r"changed since the preview|changed since the doctor|Another pmem-tui action is (?:running|changing)|"
    r"does not exist|already archived|is not in the archive|already in the trash|neither in the archive"
    r"|is already active|appeared since the preview"
    # The executor's checks before it makes .pmem/ (outside the lock) can see the winner's move already done.
    r"|already exists; nothing is moved"
)


GATED = """
import os, sys, time
from pmem_tui import cli
while not os.path.exists(sys.argv[1]):
    time.sleep(0.0005)
sys.exit(cli.main(sys.argv[2:]))
"""


def cli(root: Path, *argv: str, gate: Path | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    head = ["-m", "pmem_tui"] if gate is None else ["-c", GATED, str(gate)]
    return subprocess.Popen(
        [sys.executable, *head, "--root", str(root), *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO),
    )


def _setup(kind: str, root: Path) -> None:
    base_memory(root)
    if kind in ("delete", "recover"):
        apply(lifecycle.plan_archive(root, "projects/alpha.md", "done"), root)
    if kind == "recover":
        apply(lifecycle.plan_delete(root, "projects/alpha.md"), root)
    shutil.rmtree(root / ".pmem", ignore_errors=True)


ARGS = {
    "archive": ("archive", "projects/alpha.md", "--reason", "race", "--yes"),
    "delete": ("delete", "projects/alpha.md", "--yes"),
    "recover": ("recover", "projects/alpha.md", "--yes"),
}
PLANS: dict[str, Callable[[Path], Plan]] = {
    "archive": lambda r: lifecycle.plan_archive(r, "projects/alpha.md", "race"),
    "delete": lambda r: lifecycle.plan_delete(r, "projects/alpha.md"),
    "recover": lambda r: lifecycle.plan_recover(r, "projects/alpha.md"),
}


def _app_actor(root: Path, kind: str, out: dict[str, object], gate: Path | None) -> threading.Thread:
    def work() -> None:
        while gate is not None and not gate.exists():
            time.sleep(0.0005)
        try:
            apply(PLANS[kind](root), root)
        except PmemError as err:
            out["rc"], out["err"] = 1, str(err)
        else:
            out["rc"], out["err"] = 0, ""

    return threading.Thread(target=work)


@pytest.mark.slow
def test_two_actors_on_one_file_exactly_one_wins(tmp_path: Path) -> None:
    kinds = ["archive", "delete", "recover"]
    outcomes: list[tuple[int, int]] = []
    for n in range(ROUNDS):
        kind = kinds[n % len(kinds)]
        # The expected after state: the same action, once.
        ref = tmp_path / f"ref-{kind}"
        if not ref.exists():
            _setup(kind, ref)
            apply(PLANS[kind](ref), ref)
        after = capture(ref)
        root = tmp_path / f"round-{n}"
        _setup(kind, root)
        before = capture(root)
        app_side = n % 4 == 3
        gate = tmp_path / f"gate-{n}" if n % 2 == 1 else None
        results: list[tuple[int, str, str]] = []
        if app_side:
            out: dict[str, object] = {}
            thread = _app_actor(root, kind, out, gate)
            proc = cli(root, *ARGS[kind], gate=gate)
            time.sleep(0.4)  # both are at the gate (or the cold CLI is starting)
            thread.start()
            if gate is not None:
                gate.touch()
            stdout, stderr = proc.communicate(timeout=60)
            thread.join(timeout=60)
            results.append((proc.returncode, stdout, stderr))
            results.append((int(str(out["rc"])), "", str(out["err"]) + ("\n" if out["err"] else "")))
        else:
            procs = [cli(root, *ARGS[kind], gate=gate), cli(root, *ARGS[kind], gate=gate)]
            if gate is not None:
                time.sleep(0.4)
                gate.touch()
            for proc in procs:
                stdout, stderr = proc.communicate(timeout=60)
                results.append((proc.returncode, stdout, stderr))
        codes = sorted(rc for rc, _, _ in results)
        assert codes == [0, 1], f"round {n} ({kind}): {results}"
        loser = next(r for r in results if r[0] == 1)
        err = loser[2]
        assert "Traceback" not in err and err.count("\n") == 1, f"round {n}: {err!r}"
        assert REFUSALS.search(err), f"round {n}: unexpected refusal {err!r}"
        assert capture(root) == after != before, f"round {n} ({kind}): the memory is not the one-action state"
        assert not temp_files(root) and not journal_files(root)
        overlapped = bool(re.search(r"changed since|Another pmem-tui action|appeared since", err))
        outcomes.append((1 if app_side else 0, 1 if overlapped else 0))
        print(f"round {n} {kind} {'app+cli' if app_side else 'cli+cli'}: loser said {err.strip()!r}")
    FIGURES.extra["concurrency_rounds"] = len(outcomes)
    FIGURES.extra["concurrency_app_vs_cli_rounds"] = sum(a for a, _ in outcomes)
    # Rounds where the loser had planned before the winner applied (refused as stale or busy, not "gone").
    FIGURES.extra["concurrency_overlapping_rounds"] = sum(o for _, o in outcomes)
