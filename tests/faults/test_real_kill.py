"""The real CLI process, killed with SIGKILL at its system calls, then doctor.

How: a traced run (`strace -f -y`) of `python -m pmem_tui --root R <action> ... --yes` lists every system
call that changes something below the root: `openat` with O_CREAT/O_WRONLY/O_RDWR, `mkdir`, `write`,
`fsync`, `rename`/`renameat2`, `linkat`, `unlink`, `rmdir` (reads, and `fchmod` right after an `openat`,
are not boundaries).
For each of them, with N its rank among all calls of that name (Python's start-up included), the action is
run again under `strace -f -e trace=NAME -e inject=NAME:signal=KILL:when=N`: the kernel kills the process
as it enters that call, so its effect never happens. Then doctor runs and the invariants of the campaign are
checked. (`--seccomp-bpf` is not used: strace 6.1 does not deliver injected signals with it.)

Where strace cannot trace (no strace, ptrace forbidden), the same loop runs with `PMEM_TUI_FAULT_AT=k`: the
shim kills its own process with SIGKILL (`os.kill(os.getpid(), SIGKILL)`) right before step k.
`PMEM_TUI_KILL_MODE=env` forces that mode.
"""

from __future__ import annotations

import compileall
import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from pmem_tui.core import cache_home, lifecycle
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import ENV_FAULT_AT
from tests.campaign import full_campaign
from tests.faults.harness import FIGURES, base_memory, capture, check_settled, restore

REPO = Path(__file__).resolve().parents[2]
STRACE = shutil.which("strace")
SYSCALLS = ("openat", "mkdir", "write", "fsync", "rename", "renameat2", "linkat", "unlink", "rmdir")
WORKERS = 2


def _env(root: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The runs' environment. The cache folder is the root itself, which turns the caches off: a cache is
    written only outside a racy window after the files' last change, so a run that started later under
    load made other calls than the traced one (found once: the last kill of a save never came)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PYTHONDONTWRITEBYTECODE": "1",  # no byte-code writes: every run makes the same calls
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",  # no helper threads
        "OMP_NUM_THREADS": "1",
    }
    env.pop(ENV_FAULT_AT, None)
    env[cache_home.ENV_CACHE_DIR] = str(root)
    env.update(extra or {})
    return env


def _strace_works() -> bool:
    if STRACE is None or os.environ.get("PMEM_TUI_KILL_MODE") == "env":
        return False
    try:
        proc = subprocess.run(
            [STRACE, "-f", "-qq", "-o", os.devnull, "-e", "trace=getpid", "-e", "inject=getpid:signal=KILL",
             sys.executable, "-c", "import os; os.getpid(); print('survived')"],
            capture_output=True, text=True, timeout=30, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "survived" not in proc.stdout and proc.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL)


MODE = "strace" if _strace_works() else "env"


@dataclass(frozen=True)
class Action:
    name: str
    setup: Callable[[Path], None]
    argv: tuple[str, ...]


def _archived(root: Path) -> None:
    base_memory(root)
    apply(lifecycle.plan_archive(root, "projects/alpha.md", "done"), root)


def _trashed(root: Path) -> None:
    _archived(root)
    apply(lifecycle.plan_delete(root, "projects/alpha.md"), root)


ACTIONS = [
    Action("archive", base_memory, ("archive", "projects/alpha.md", "--reason", "shipped", "--yes")),
    Action("delete", _archived, ("delete", "projects/alpha.md", "--yes")),
    Action("recover", _trashed, ("recover", "projects/alpha.md", "--yes")),
    Action("save", base_memory, ("save", "notes/new/idea.md", "--from", "{src}", "--yes")),
]


def _cli(root: Path, action: Action, src: Path) -> list[str]:
    argv = [a.replace("{src}", str(src)) for a in action.argv]
    return [sys.executable, "-m", "pmem_tui", "--root", str(root), *argv]


_LINE = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?(?P<name>\w+)\((?P<args>.*)")


def _boundaries(log: str, root: Path) -> list[tuple[str, int]]:
    """(syscall, rank) of every call in the trace that changes something below the root."""
    ranks: Counter[str] = Counter()
    out: list[tuple[str, int]] = []
    for line in log.splitlines():
        m = _LINE.match(line)
        if not m or m.group("name") not in SYSCALLS:
            continue
        name, args = m.group("name"), m.group("args")
        ranks[name] += 1
        if str(root) not in args:
            continue
        if name == "openat" and not re.search(r"O_CREAT|O_WRONLY|O_RDWR", args):
            continue
        if name == "write" and f"<{root}" not in args.split(",", 1)[0]:
            continue  # a write to stdout that merely mentions the root
        out.append((name, ranks[name]))
    return out


def _campaign_boundaries(boundaries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The kills of this campaign's size: every boundary in the full one; in the quick one, the first and
    the last call of each kind and every third in between (each kind of call is still killed)."""
    if full_campaign():
        return boundaries
    names = [name for name, _ in boundaries]
    ends = {names.index(n) for n in set(names)} | {len(names) - 1 - names[::-1].index(n) for n in set(names)}
    return [b for i, b in enumerate(boundaries) if i in ends or i % 3 == 0]


def _kill_run(
    cmd: list[str], boundary: tuple[str, int] | int, root: Path
) -> subprocess.CompletedProcess[str]:
    if isinstance(boundary, int):
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False,
                              env=_env(root, {ENV_FAULT_AT: str(boundary)}), cwd=str(REPO))
    name, rank = boundary
    assert STRACE is not None
    strace = [STRACE, "-f", "-qq", "-o", os.devnull, "-e", f"trace={name}",
              "-e", f"inject={name}:signal=KILL:when={rank}"]
    return subprocess.run([*strace, *cmd], capture_output=True, text=True, timeout=120, check=False,
                          env=_env(root), cwd=str(REPO))


def _killed(proc: subprocess.CompletedProcess[str]) -> bool:
    return proc.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a.name)
def test_sigkill_at_every_syscall_then_doctor(action: Action, tmp_path: Path) -> None:
    src = tmp_path / "idea.md"
    src.write_bytes(b"# Idea\n\n- A new idea.\n")
    # The before and after states, and the boundaries of one clean traced run.
    base = tmp_path / "trace" / "mem"
    action.setup(base)
    shutil.rmtree(base / ".pmem", ignore_errors=True)  # the run also creates the metadata folder and journal
    # and its history store: the setup's own record left a stat table in the root's cache folder, which the
    # killed runs' fresh roots do not have (one more file opened in the traced run).
    shutil.rmtree(cache_home.folder_for(base) or base / ".none", ignore_errors=True)
    before = capture(base)
    # Every run must make the same system calls as the traced one, or a kill at its last ranks never comes.
    # So the package's bytecode is written now (with the suite on several workers, another process may write
    # it between the traced run and the kills, and a run that finds it opens fewer files), the runs have no
    # cache (`_env`), and one untraced run on a copy first makes whatever else a first run makes once.
    compileall.compile_dir(str(REPO / "pmem_tui"), quiet=1)
    warm = tmp_path / "warm" / "mem"
    restore(warm, before, journal_dir=False)
    subprocess.run(_cli(warm, action, src), capture_output=True, timeout=120, check=False, env=_env(warm),
                   cwd=str(REPO))
    if MODE == "strace":
        assert STRACE is not None
        log = tmp_path / "trace.log"
        done = subprocess.run(
            [STRACE, "-f", "-qq", "-y", "-s", "0", "-o", str(log), "-e", f"trace={','.join(SYSCALLS)}",
             *_cli(base, action, src)],
            capture_output=True, text=True, timeout=120, check=False, env=_env(base), cwd=str(REPO),
        )
        boundaries: list[tuple[str, int]] | list[int] = _boundaries(log.read_text(errors="replace"), base)
    else:
        done = subprocess.run(_cli(base, action, src), capture_output=True, text=True, timeout=120,
                              check=False, env=_env(base), cwd=str(REPO))
        boundaries = list(range(1, 200))
    assert done.returncode == 0, done.stderr
    after = capture(base)
    assert after != before
    if MODE == "strace":
        assert len(boundaries) >= 30, boundaries

    def one(job: tuple[int, tuple[str, int] | int]) -> tuple[str, bool]:
        n, boundary = job
        root = tmp_path / f"w{n % WORKERS}-{n}" / "mem"
        restore(root, before, journal_dir=False)  # as the traced run: no .pmem/ yet
        proc = _kill_run(_cli(root, action, src), boundary, root)
        label = f"{action.name} killed at {boundary}"
        killed = _killed(proc)
        if not killed:
            assert proc.returncode == 0, f"{label}: {proc.stderr}"
            assert capture(root) == after, label
        assert "Traceback" not in proc.stderr, proc.stderr
        check_settled(root, before, after, label)
        shutil.rmtree(root.parent)
        return label, killed

    kills = 0
    if MODE == "strace":
        chosen = _campaign_boundaries([b for b in boundaries if isinstance(b, tuple)])
        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(one, enumerate(chosen)))
        kills = sum(1 for _, k in results if k)
        assert kills == len(chosen), [label for label, k in results if not k]
    else:
        for n, k in enumerate(boundaries):
            _, killed = one((n, k))
            if not killed:
                break
            kills += 1
        assert kills >= 20
    per_call = Counter(b[0] for b in boundaries if isinstance(b, tuple)) if MODE == "strace" else {}
    FIGURES.extra[f"sigkill_{action.name}"] = kills
    FIGURES.extra.setdefault("sigkill_mode_strace", int(MODE == "strace"))
    print(f"{action.name}: {kills} real SIGKILLs ({MODE}); per call: {dict(per_call)}")
