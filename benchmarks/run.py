"""The pmem-tui benchmark: every target of issue 7, each figure next to a floor measured in the same run.

    python benchmarks/run.py [--files 10000] [--big 100000] [--runs 7] [--samples 40] [--out BENCHMARKS.md]

It generates synthetic memories (`benchmarks/generate.py`: `--files` notes, and `--big` notes unless
`--big 0`), then measures, on this machine and in this run:

1. process start to a usable screen (the Index rows and the preview of the first row drawn) at `--files` and
   `--big` notes, against an empty Textual app (one `Static`) measured the same way: a child process in a
   pseudo-terminal (the real Linux driver, 160x48), which reports the monotonic clock when the first frame
   showing the populated screen has been written (a patched `App._display`: no hook in the app is needed);
   plus a structural check: the memory files opened before that frame (audit hook), and the widgets in the
   DOM (the same at every size: the rows are virtual);
2. keypress to frame (cursor down, page down, a filter keystroke, cursor down repeated at 30 keys/s) at
   `--files` and `--big` rows, in-process (`App.run_test`, headless, 160x48): a key event is sent through the
   driver as a terminal would, and the latency runs until the first frame that shows its effect has been
   composed and encoded for the terminal (a wrapper of `App._display`; headless mode skips the encoding, so
   the wrapper does it). Floor: the same key to frame in a minimal app whose key updates one `Static`;
3. an external atomic save (temp file, fsync, `os.replace`) of a visible file, and of one line of
   `_index.md`, to its row updated on screen, with the app's real watcher. Floor: the first watchdog event
   of a bare observer after the same save; and the rows rebuilt per save (the target is one);
4. selection (cursor down) to the preview of a 2 KB file shown. Floor: reading the file and rendering it
   with Rich's `Markdown` to lines, in-process;
5. `status --json` against a plain Python process that reads every file (both as subprocesses), and whether
   `status` imported Textual or Rich (`-X importtime`);
6. `check_health` cold (cache deleted) against reading every active file, and warm (nothing changed)
   against a scandir+stat of them (in-process, interleaved round by round);
7. peak memory (max RSS of the process of target 1, the app settled) against the empty Textual app.

Medians over `--runs` runs (at least 7 for the recorded table) for process-level figures, and median and
p95 over `--samples` events for latencies. `--out FILE` writes the table into FILE (between the
`<!-- benchmark:begin -->` and `<!-- benchmark:end -->` markers when they exist, keeping the rest).
`--work DIR` keeps the generated memories in DIR and reuses them in later runs (the runner restores every
file it edits). Not part of the unit suite: `tests/test_benchmarks_smoke.py` runs it on 200 files.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import datetime as dt
import fcntl
import importlib.metadata
import json
import math
import os
import platform
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import TODAY, Memory, generate  # noqa: E402

COLS, LINES = 160, 48
FRAME_MS = 1000 / 60
KEY_MEDIAN_MS = 2 * FRAME_MS  # "median at most 2 frames (33 ms)"
KEY_P95_MS = 50.0
SAVE_P95_MS = 100.0
PREVIEW_P95_MS = 100.0
STARTUP_RATIO = 1.5
STARTUP_BIG_RATIO = 1.3
STATUS_RATIO = 2.0
HEALTH_COLD_RATIO = 5.0
HEALTH_WARM_RATIO = 2.0
MEMORY_RATIO = 1.5
MEMORY_BIG_RATIO = 3.0
REPEAT_HZ = 30
FILTER_QUERIES = ("standup", "billing", "decision", "2026", "retro", "atlas")
MARK_BEGIN = "<!-- benchmark:begin -->"
MARK_END = "<!-- benchmark:end -->"
ACTIVE_DIRS = ("projects", "notes")

# Row labels (the smoke test checks that each is produced).
L_EMPTY_START = "empty Textual app (one Static): process start → first frame"
L_START = "app: process start → Index rows + preview on screen"
L_FULL = "app: process start → every row listed (the full scan's rows on screen)"
INFO_LABELS = frozenset({L_FULL})  # rows shown for context, with no target of their own
L_OPENED = "active memory files opened before the first usable frame"
L_WIDGETS = "widgets in the DOM (rows are virtual)"
L_KEY_FLOOR = "minimal app: key → frame (one Static updated)"
L_KEYS = {
    "cursor_down": "cursor down → frame",
    "page_down": "page down → frame",
    "filter_key": "filter keystroke → frame (filtered rows)",
    "repeat": f"cursor down held ({REPEAT_HZ} keys/s) → frame",
}
L_WATCHDOG = "bare watchdog observer: atomic save → first event"
L_SAVES = {
    "save_file": "external atomic save of a file → its row updated",
    "save_index": "external atomic save of `_index.md` (one line) → row text updated",
}
L_REBUILT = "rows rebuilt per external save (median)"
L_PREVIEW_FLOOR = "read a 2 KB file + Rich `Markdown` → lines"
L_PREVIEW = "selection (cursor down) → preview of a 2 KB file shown"
L_READ_PROCESS = "plain Python process reading every file"
L_STATUS = "`status --json` (process)"
L_STATUS_UI = "UI toolkits imported by `status --json`"
L_STAT = "scandir+stat of the active files (in-process)"
L_READ = "read every active file (in-process)"
L_COLD = "`check_health` cold (no cache; writes it)"
L_WARM = "`check_health` warm (nothing changed)"
L_RSS_FLOOR = "empty Textual app: max RSS"
L_RSS = "app settled: max RSS"


def expected_rows(files: int, big: int) -> list[tuple[str, str, int | None]]:
    """(target, measure, files) of every row a run with these sizes produces."""
    sizes = [files] + ([big] if big else [])
    rows: list[tuple[str, str, int | None]] = [("1", L_EMPTY_START, None)]
    rows += [("1", L_START, n) for n in sizes] + [("1", L_FULL, n) for n in sizes]
    rows += [("1", L_OPENED, n) for n in sizes]
    rows += [("1", L_WIDGETS, max(sizes)), ("2", L_KEY_FLOOR, None)]
    rows += [("2", label, n) for n in sizes for label in L_KEYS.values()]
    rows += [("3", L_WATCHDOG, None)]
    rows += [("3", label, n) for n in sizes for label in [*L_SAVES.values(), L_REBUILT]]
    rows += [("4", L_PREVIEW_FLOOR, None)] + [("4", L_PREVIEW, n) for n in sizes]
    rows += [("5", L_READ_PROCESS, files), ("5", L_STATUS, files), ("5", L_STATUS_UI, files)]
    rows += [("6", L_STAT, files), ("6", L_READ, files), ("6", L_COLD, files), ("6", L_WARM, files)]
    rows += [("7", L_RSS_FLOOR, None)] + [("7", L_RSS, n) for n in sizes]
    return rows


# -- statistics and rows ---------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def p95(values: Sequence[float]) -> float:
    """Nearest-rank 95th percentile (the largest value for fewer than 20 samples)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


@dataclass
class Row:
    """One line of the table. `kind`: "floor", "time" (a figure with a ratio to its floor), "check"
    (a structural count) or "pending" (the code to measure does not exist yet)."""

    target: str
    measure: str
    files: int | None
    kind: str = "time"
    unit: str = "ms"
    median: float | None = None
    p95: float | None = None
    n: int = 0
    floor: str = ""  # the measure this one is divided by
    ratio: float | None = None
    limit: str = ""
    met: bool | None = None
    miss: str = ""
    note: str = ""


def _fmt(value: float | None, unit: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "timeout"
    if unit == "ms":
        return f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"
    if unit == "MB":
        return f"{value:.0f} MB"
    return f"{value:,.0f}{unit}"


@dataclass
class Results:
    rows: list[Row] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    def find(self, target: str, measure: str) -> Row | None:
        return next((r for r in self.rows if r.target == target and r.measure == measure), None)

    def table(self) -> list[str]:
        lines = [
            "| # | measure | files | median | p95 | n | ratio to floor | target | met |",
            "|---|---|---:|---:|---:|---:|---|---|---|",
        ]
        for r in self.rows:
            files = f"{r.files:,}" if r.files else ""
            if r.kind == "pending":
                lines.append(f"| {r.target} | {r.measure} | {files} | pending | | | | {r.limit} | {r.note} |")
                continue
            if r.kind == "floor":
                ratio = "floor"
            elif r.ratio is None:
                ratio = ""
            else:
                ratio = "timeout" if math.isinf(r.ratio) else f"{r.ratio:.2f}x {r.floor}"
            miss = f" ({r.miss})" if r.miss else ""
            met = "" if r.met is None else ("yes" if r.met else f"**no**{miss}")
            if r.note and r.kind != "check":
                met = f"{met} {r.note}".strip()
            value = _fmt(r.median, r.unit)
            if r.kind == "check" and r.note:
                value = r.note
            lines.append(
                f"| {r.target} | {r.measure} | {files} | {value} | {_fmt(r.p95, r.unit)} | {r.n or ''} | "
                f"{ratio} | {r.limit} | {met} |"
            )
        return lines


def _miss(value: float, limit: float) -> str:
    return f"{value / limit - 1:.0%} over" if limit > 0 and value > limit else ""


def timed_row(
    res: Results,
    target: str,
    measure: str,
    files: int | None,
    values: Sequence[float],
    *,
    floor: Row | None = None,
    floor_label: str = "",
    ratio_limit: float | None = None,
    median_limit: float | None = None,
    p95_limit: float | None = None,
    unit: str = "ms",
    timeouts: int = 0,
    note: str = "",
) -> Row:
    finite = [v for v in values if math.isfinite(v)]
    all_values = [*finite, *([math.inf] * timeouts)]
    row = Row(
        target,
        measure,
        files,
        unit=unit,
        median=median(all_values),
        p95=p95(all_values),
        n=len(all_values),
        floor=floor_label,
        note=note,
    )
    if timeouts:
        row.note = f"{timeouts} timeouts {note}".strip()
    if floor is not None and floor.median:
        row.ratio = row.median / floor.median if row.median is not None else None
    limits: list[str] = []
    met = True
    misses: list[str] = []
    if ratio_limit is not None:
        limits.append(f"≤ {ratio_limit:g}x {floor_label}")
        if row.ratio is None or not row.ratio <= ratio_limit:
            met = False
            misses.append(_miss(row.ratio or math.inf, ratio_limit))
    if median_limit is not None:
        limits.append(f"median ≤ {median_limit:.0f} {unit}")
        if not (row.median is not None and row.median <= median_limit):
            met = False
            misses.append("median " + _miss(row.median or math.inf, median_limit))
    if p95_limit is not None:
        limits.append(f"p95 ≤ {p95_limit:.0f} {unit}")
        if not (row.p95 is not None and row.p95 <= p95_limit):
            met = False
            misses.append("p95 " + _miss(row.p95 or math.inf, p95_limit))
    row.limit = ", ".join(limits)
    row.met = met if limits else None
    row.miss = "; ".join(m for m in misses if m.strip())
    return res.add(row)


def floor_row(
    res: Results, target: str, measure: str, files: int | None, values: Sequence[float], unit: str = "ms"
) -> Row:
    return res.add(
        Row(
            target,
            measure,
            files,
            kind="floor",
            unit=unit,
            median=median(values),
            p95=p95(values),
            n=len(values),
        )
    )


def check_row(
    res: Results,
    target: str,
    measure: str,
    files: int | None,
    value: float,
    text: str,
    limit: str,
    met: bool | None,
) -> Row:
    return res.add(
        Row(target, measure, files, kind="check", unit="", median=value, limit=limit, met=met, note=text)
    )


def pending_row(res: Results, target: str, measure: str, files: int | None, limit: str, why: str) -> Row:
    return res.add(Row(target, measure, files, kind="pending", limit=limit, note=why))


# -- the memories ----------------------------------------------------------------------------------


def prepare(work: Path, n: int, seed: int) -> Memory:
    """The generated memory for `n` notes in `work`, generated once and reused when its record exists."""
    root = work / f"memory-{n}-s{seed}"
    record = work / f"memory-{n}-s{seed}.json"
    if root.is_dir() and record.is_file():
        data = json.loads(record.read_text())
        data["root"] = root
        data["today"] = dt.date.fromisoformat(data["today"])
        data["near_pairs"] = [tuple(p) for p in data["near_pairs"]]
        data["exact_pairs"] = [tuple(p) for p in data["exact_pairs"]]
        return Memory(**data)
    if root.exists():
        shutil.rmtree(root)
    mem = generate(root, n, seed=seed, today=TODAY)
    data = asdict(mem)
    data["root"] = str(root)
    data["today"] = mem.today.isoformat()
    record.write_text(json.dumps(data))
    return mem


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "PYTEST"))}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PMEM_TUI_TODAY"] = TODAY.isoformat()
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    env.pop("NO_COLOR", None)
    # Measure the app as installed: with its bytecode cached (pip compiles it; an environment that forbids
    # writing bytecode would make every timed process recompile pmem_tui's ~50 modules, ~45 ms).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# -- 1 and 7: process start to a usable screen, peak memory ----------------------------------------

# Runs in a child process (`python -c PROBE MODE ROOT OUT`). Patches `App._display` (no hook in the app):
# after each frame written to the terminal, it checks whether the screen is usable; the first time it is,
# it notes the monotonic clock, lets the app settle (workers done, then 0.25 s), records max RSS, the
# widgets in the DOM and the memory files opened so far, and exits.
PROBE = r"""
import json, os, resource, sys, time
mode, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
opened = []
state = {"ready": None, "full": None}
if os.environ.get("PMEM_BENCH_AUDIT") == "1":
    prefix = root.rstrip(os.sep) + os.sep
    def _audit(event, args):
        if event == "open" and state["ready"] is None and args and not isinstance(args[0], int):
            try:
                path = os.fsdecode(os.fspath(args[0]))
            except TypeError:
                return
            rel = path[len(prefix):] if path.startswith(prefix) else ""
            if rel.endswith(".md") and rel.startswith(("projects" + os.sep, "notes" + os.sep)):
                opened.append(rel)
    sys.addaudithook(_audit)

import asyncio
from textual.app import App
from textual.worker import WorkerState

_display = App._display

def _usable(app):
    if mode == "empty":
        return True
    try:
        from pmem_tui.tui.screens.main import MainScreen
        screen = app.screen
        if not isinstance(screen, MainScreen):
            return False
        lst = screen.view("index").list
        row = lst.current_row
        if row is None or not lst.all_rows:
            return False
        text = screen.preview.text
        return text.count("\n") >= 3 and "".join(row.path.split()) in "".join(text[:8000].split())
    except Exception:
        return False

def _peak_kb():
    # VmHWM: this process image's peak RSS (ru_maxrss would include the parent's, kept across exec).
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

async def _finish(app):
    for _ in range(6000):  # the full scan starts after the first usable frame
        if mode == "empty" or state["full"] is not None:
            break
        await asyncio.sleep(0.01)
    for _ in range(1000):
        busy = [w for w in app.workers if w.name != "bench-finish"
                and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if not busy:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.25)
    result = {
        "ready": state["ready"],
        "full": state["full"],
        "maxrss_kb": _peak_kb(),
        "widgets": sum(1 for _ in app.screen.walk_children(with_self=True)),
        "opened": len(set(opened)),
        "opened_sample": sorted(set(opened))[:5],
        "watcher": getattr(getattr(app, "watcher", None), "mode", None),
    }
    with open(out, "w") as fh:
        json.dump(result, fh)
    app.exit()

def _patched(self, screen, renderable):
    _display(self, screen, renderable)
    if state["full"] is None and state["ready"] is not None and getattr(self, "scans_done", 0):
        state["full"] = time.monotonic()  # the first frame after the full scan's rows replaced the head
    if state["ready"] is None and renderable is not None and not self._batch_count and _usable(self):
        state["ready"] = time.monotonic()
        self.run_worker(_finish(self), name="bench-finish")

App._display = _patched
if mode == "empty":
    from textual.widgets import Static

    class Empty(App):
        def compose(self):
            yield Static("pmem-tui benchmark floor: an empty Textual app")

    Empty().run()
else:
    from pmem_tui.cli import main
    sys.exit(main(["--root", root]))
"""


def spawn_in_pty(args: list[str], env: dict[str, str], timeout: float) -> tuple[float, int, bytes]:
    """Run `args` with a pseudo-terminal as stdin/stdout/stderr, draining its output; returns the
    monotonic clock just before the spawn, the exit code and the output's tail."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLS, 0, 0))
    start = time.monotonic()
    proc = subprocess.Popen(
        args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO, start_new_session=True
    )
    os.close(slave)
    tail = b""
    deadline = start + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                raise TimeoutError(f"{args[-3:]} did not finish in {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], min(left, 1.0))
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            tail = (tail + chunk)[-4000:]
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return start, code, tail


def probe(
    mode: str, root: Path | None, env: dict[str, str], audit: bool = False, timeout: float = 180
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pmem-probe-") as tmp:
        out = Path(tmp) / "result.json"
        child = dict(env)
        if audit:
            child["PMEM_BENCH_AUDIT"] = "1"
        start, code, tail = spawn_in_pty(
            [sys.executable, "-c", PROBE, mode, str(root or tmp), str(out)], child, timeout
        )
        if not out.exists():
            text = tail.decode("utf-8", "replace")[-1500:]
            raise RuntimeError(f"the {mode} probe exited {code} without a result: {text}")
        result = json.loads(out.read_text())
    result["seconds"] = result["ready"] - start
    result["full_seconds"] = result["full"] - start if result.get("full") is not None else None
    return result


def measure_startup(res: Results, mems: list[Memory], runs: int, env: dict[str, str]) -> None:
    configs: list[tuple[str, Memory | None]] = [("empty", None), *(("app", m) for m in mems)]
    times: dict[int, list[float]] = {i: [] for i in range(len(configs))}
    full: dict[int, list[float]] = {i: [] for i in range(len(configs))}
    rss: dict[int, list[float]] = {i: [] for i in range(len(configs))}
    last: dict[int, dict[str, Any]] = {}
    for mode, mem in configs:  # one untimed round: bytecode, page cache
        probe(mode, mem.root if mem else None, env)
    for _ in range(runs):
        for i, (mode, mem) in enumerate(configs):
            r = probe(mode, mem.root if mem else None, env)
            times[i].append(r["seconds"] * 1000)
            if r.get("full_seconds") is not None:
                full[i].append(r["full_seconds"] * 1000)
            rss[i].append(r["maxrss_kb"] / 1024)
            last[i] = r
    audits = {i: probe("app", mem.root, env, audit=True) for i, (_m, mem) in enumerate(configs) if mem}

    empty = floor_row(res, "1", L_EMPTY_START, None, times[0])
    first_app: Row | None = None
    for i, (_mode, mem) in enumerate(configs[1:], start=1):
        assert mem is not None
        n = len(mem.active)
        if first_app is None:
            first_app = timed_row(
                res,
                "1",
                L_START,
                n,
                times[i],
                floor=empty,
                floor_label="empty app",
                ratio_limit=STARTUP_RATIO,
            )
        else:
            row = timed_row(
                res,
                "1",
                L_START,
                n,
                times[i],
                floor=first_app,
                floor_label=f"{first_app.files or 0:,} files",
                ratio_limit=STARTUP_BIG_RATIO,
            )
            if empty.median and row.median:
                row.note = f"({row.median / empty.median:.2f}x empty app)"
    for i, (_mode, mem) in enumerate(configs[1:], start=1):
        assert mem is not None
        # No target: the screen is usable from the first frame; this is when the last rows arrive.
        timed_row(res, "1", L_FULL, len(mem.active), full[i], floor=empty, floor_label="empty app")
    for i, (_mode, mem) in enumerate(configs[1:], start=1):
        assert mem is not None
        a = audits[i]
        check_row(
            res,
            "1",
            L_OPENED,
            len(mem.active),
            a["opened"],
            f"{a['opened']} of {len(mem.active):,}",
            "not every file (≤ 1%)",
            a["opened"] <= max(2, len(mem.active) // 100),
        )
    widgets = {len(mem.active): last[i]["widgets"] for i, (_m, mem) in enumerate(configs) if mem}
    same = len(set(widgets.values())) == 1
    check_row(
        res,
        "1",
        L_WIDGETS,
        max(widgets),
        max(widgets.values()),
        " / ".join(f"{w} at {n:,}" for n, w in widgets.items()),
        "same at every size",
        same,
    )
    res.info["watcher_mode"] = {
        len(m.active): last[i].get("watcher") for i, (_x, m) in enumerate(configs) if m
    }

    floor = floor_row(res, "7", L_RSS_FLOOR, None, rss[0], unit="MB")
    for i, (_mode, mem) in enumerate(configs[1:], start=1):
        assert mem is not None
        limit = MEMORY_RATIO if i == 1 else MEMORY_BIG_RATIO
        timed_row(
            res,
            "7",
            L_RSS,
            len(mem.active),
            rss[i],
            floor=floor,
            floor_label="empty app",
            ratio_limit=limit,
            unit="MB",
        )


# -- 5: status --json ------------------------------------------------------------------------------

READ_ALL = r"""
import os, sys
def walk(d):
    with os.scandir(d) as it:
        for e in it:
            if e.name.startswith("."):
                continue
            if e.is_dir(follow_symlinks=False):
                yield from walk(e.path)
            elif e.is_file(follow_symlinks=False):
                yield e.path
total = 0
for p in walk(sys.argv[1]):
    with open(p, "rb") as f:
        total += len(f.read())
print(total)
"""


def _run_timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO, check=True)
    return (time.perf_counter() - start) * 1000


def measure_status(res: Results, mem: Memory, runs: int, env: dict[str, str]) -> None:
    root = str(mem.root)
    status = [sys.executable, "-m", "pmem_tui", "--root", root, "status", "--json"]
    floor_cmd = [sys.executable, "-c", READ_ALL, root]
    _run_timed(status, env)
    _run_timed(floor_cmd, env)
    t_status: list[float] = []
    t_floor: list[float] = []
    for _ in range(runs):
        t_floor.append(_run_timed(floor_cmd, env))
        t_status.append(_run_timed(status, env))
    floor = floor_row(res, "5", L_READ_PROCESS, len(mem.active), t_floor)
    timed_row(
        res,
        "5",
        L_STATUS,
        len(mem.active),
        t_status,
        floor=floor,
        floor_label="read-all process",
        ratio_limit=STATUS_RATIO,
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *status[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
        text=True,
        check=True,
    )
    modules = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    ui = sorted(modules & {"textual", "rich"})
    check_row(
        res,
        "5",
        L_STATUS_UI,
        len(mem.active),
        len(ui),
        ", ".join(ui) or "none",
        "never Textual",
        "textual" not in ui,
    )


# -- 6: health (runs in a child: `run.py --phase health`) -------------------------------------------


def _active_files(root: Path) -> list[str]:
    files: list[str] = []
    stack = [str(root / d) for d in ACTIVE_DIRS if (root / d).is_dir()]
    while stack:
        with os.scandir(stack.pop()) as it:
            for e in it:
                if e.name.startswith("."):
                    continue
                st = e.stat(follow_symlinks=False)
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif st.st_size >= 0:
                    files.append(e.path)
    return files


def _read_all(root: Path) -> int:
    total = 0
    for path in _active_files(root):
        with open(path, "rb") as fh:
            total += len(fh.read())
    return total


def phase_health(root: Path, runs: int) -> dict[str, Any]:
    try:
        from pmem_tui.core.health import check_health
    except ImportError as err:
        return {"pending": f"pmem_tui.core.health is not importable: {err}"}
    from pmem_tui.core import cache_home

    cache = cache_home.folder_for(root)  # the root's caches, in the user's cache folder
    assert cache is not None
    out: dict[str, list[float]] = {"stat": [], "read": [], "cold": [], "warm": []}

    def timed(fn: Callable[[], object]) -> float:
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1000

    check_health(root)  # untimed: imports, first touch of every page
    for _ in range(runs):
        out["stat"].append(timed(lambda: _active_files(root)))
        out["read"].append(timed(lambda: _read_all(root)))
        shutil.rmtree(cache, ignore_errors=True)
        out["cold"].append(timed(lambda: check_health(root)))
        out["warm"].append(timed(lambda: check_health(root)))
    report = check_health(root)
    return {**out, "proposals": len(report.proposals), "near_pairs": len(report.near_pairs)}


def measure_health(res: Results, mem: Memory, runs: int, env: dict[str, str]) -> None:
    data = run_phase(["--phase", "health", "--root", str(mem.root), "--runs", str(runs)], env, timeout=1800)
    n = len(mem.active)
    if "pending" in data:
        pending_row(res, "6", L_COLD, n, "≤ 5x read-all", data["pending"])
        pending_row(res, "6", L_WARM, n, "≤ 2x stat", data["pending"])
        return
    stat = floor_row(res, "6", L_STAT, n, data["stat"])
    read = floor_row(res, "6", L_READ, n, data["read"])
    timed_row(
        res, "6", L_COLD, n, data["cold"], floor=read, floor_label="read-all", ratio_limit=HEALTH_COLD_RATIO
    )
    timed_row(
        res, "6", L_WARM, n, data["warm"], floor=stat, floor_label="stat", ratio_limit=HEALTH_WARM_RATIO
    )
    found = {frozenset(p) for p in mem.near_pairs}
    res.info["health"] = {
        "proposals": data["proposals"],
        "near_pairs_reported": data["near_pairs"],
        "near_pairs_planted": len(found),
    }


def run_phase(args: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pmem-phase-") as tmp:
        out = Path(tmp) / "phase.json"
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), *args, "--out", str(out)],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"phase {args[:2]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        data: dict[str, Any] = json.loads(out.read_text())
        return data


# -- 2, 3, 4: latencies inside the app (runs in a child: `run.py --phase tui`) ----------------------


class Frames:
    """Wraps `app._display`: each composed frame is encoded as for a terminal, then the pending
    expectations are checked; an expectation is met by the first frame after which its predicate holds."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.count = 0
        self.waiters: list[tuple[dict[str, Callable[[], bool]], dict[str, float], asyncio.Future[None]]] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None or app._batch_count:
                return
            if app.is_headless and hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)  # the work a terminal driver would do
            now = time.perf_counter()
            self.count += 1
            for preds, got, fut in self.waiters:
                for name, pred in preds.items():
                    if name not in got and pred():
                        got[name] = now
                if len(got) == len(preds) and not fut.done():
                    fut.set_result(None)

        app._display = display

    def expect(self, preds: dict[str, Callable[[], bool]]) -> tuple[dict[str, float], asyncio.Future[None]]:
        got: dict[str, float] = {}
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append((preds, got, fut))
        return got, fut

    async def collect(
        self,
        got: dict[str, float],
        fut: asyncio.Future[None],
        start: float,
        names: Sequence[str],
        timeout: float,
    ) -> dict[str, float]:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(fut), timeout)
        self.waiters = [w for w in self.waiters if w[2] is not fut]
        return {name: (got[name] - start) * 1000 if name in got else math.inf for name in names}

    def send_key(self, key: str) -> float:
        from textual import events

        char = key if len(key) == 1 else {"backspace": "\x08", "slash": "/", "escape": "\x1b"}.get(key)
        if key == "/":
            key = "slash"
        event = events.Key(key, char)
        event.set_sender(self.app)
        start = time.perf_counter()
        self.app._driver.send_message(event)
        return start

    async def press(self, key: str, preds: dict[str, Callable[[], bool]], timeout: float) -> dict[str, float]:
        got, fut = self.expect(preds)
        start = self.send_key(key)
        return await self.collect(got, fut, start, list(preds), timeout)


async def _settle(app: Any, pilot: Any, quiet: float = 0.0) -> None:
    for _ in range(2):
        await app.workers.wait_for_complete()
        await pilot.pause()
    if quiet:
        await asyncio.sleep(quiet)
        await app.workers.wait_for_complete()
        await pilot.pause()


async def _until(pilot: Any, pred: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if pred():
                return True
        await pilot.pause(0.02)
    return False


def _shows(preview: Any, row: Any) -> bool:
    """Does the preview show `row`? (Its path comes first; long paths are wrapped or folded.)"""
    return row is not None and "".join(row.path.split()) in "".join(preview.text[:8000].split())


def _atomic_write(path: Path, data: bytes, k: int) -> float:
    """Save as editors and agents do (temp file in the same folder, fsync, rename); returns the clock
    just before the rename."""
    tmp = path.with_name(f".{path.name}.bench-{k}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    start = time.perf_counter()
    os.replace(tmp, path)
    return start


async def _keypress_floor(samples: int, timeout: float) -> list[float]:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Floor(App[None]):
        BINDINGS = [("down", "bump", "")]  # noqa: RUF012
        count = 0

        def compose(self) -> ComposeResult:
            yield Static("0", id="n")

        def action_bump(self) -> None:
            self.count += 1
            self.query_one("#n", Static).update(str(self.count))

    app = Floor()
    frames = Frames(app)
    out: list[float] = []
    async with app.run_test(size=(COLS, LINES)) as pilot:
        await _settle(app, pilot)
        for _ in range(samples):
            want = app.count + 1
            r = await frames.press("down", {"frame": lambda w=want: app.count >= w}, timeout)
            out.append(r["frame"])
            await _settle(app, pilot)
    return out


def _watchdog_floor(root: Path, paths: list[Path], samples: int) -> list[float]:
    import threading

    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    seen: dict[str, float] = {}
    event = threading.Event()
    target: list[str] = [""]

    class Handler(FileSystemEventHandler):
        def on_any_event(self, ev: Any) -> None:
            if ev.event_type in ("opened", "closed_no_write"):  # reads are not changes (as in the app)
                return
            for p in (ev.src_path, getattr(ev, "dest_path", "")):
                if p and os.fsdecode(p) == target[0] and target[0] not in seen:
                    seen[target[0]] = time.perf_counter()
                    event.set()

    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    out: list[float] = []
    try:
        time.sleep(0.2)
        for k in range(samples):
            path = paths[k % len(paths)]
            original = path.read_bytes()
            st = path.stat()
            seen.clear()
            event.clear()
            target[0] = str(path)
            t0 = _atomic_write(path, original + b"\n", k)
            ok = event.wait(2.0)
            out.append((seen[str(path)] - t0) * 1000 if ok and str(path) in seen else math.inf)
            path.write_bytes(original)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            time.sleep(0.05)
    finally:
        observer.stop()
        observer.join(timeout=2)
    return out


def _preview_floor(root: Path, paths: list[Path], width: int, samples: int) -> list[float]:
    import io

    from rich.console import Console
    from rich.markdown import Markdown

    out: list[float] = []
    for k in range(samples):
        path = paths[k % len(paths)]
        start = time.perf_counter()
        text = path.read_bytes().decode("utf-8", "replace")
        console = Console(width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor")
        console.render_lines(Markdown(text), console.options.update_width(width), pad=True)
        out.append((time.perf_counter() - start) * 1000)
    return out


async def tui_session(root: Path, samples: int, save_samples: int, floors: bool) -> dict[str, Any]:
    from pmem_tui.tui.app import PmemApp

    timeout = 20.0
    out: dict[str, Any] = {}
    app = PmemApp(root, watch=True, root_label="benchmark")
    frames = Frames(app)
    touched: dict[Path, tuple[bytes, int, int]] = {}

    def remember(path: Path) -> None:
        if path not in touched:
            st = path.stat()
            touched[path] = (path.read_bytes(), st.st_atime_ns, st.st_mtime_ns)

    try:
        async with app.run_test(size=(COLS, LINES)) as pilot:
            main_ready = await _until(
                pilot,
                lambda: (
                    app.scans_done >= 1
                    and _shows(app.main_screen.preview, app.main_screen.view("index").list.current_row)
                ),
                timeout=300,
            )
            if not main_ready:
                raise RuntimeError("the app never showed the Index rows and the preview")
            await _settle(app, pilot)
            await _until(pilot, lambda: app.watcher.running, timeout=60)
            out["watcher"] = app.watcher.mode
            main = app.main_screen
            lst = main.view("index").list
            preview = main.preview
            out["rows"] = len(lst.all_rows)
            out["widgets"] = sum(1 for _ in app.screen.walk_children(with_self=True))
            out["preview_width"] = preview.scrollable_content_region.width

            # 2 and 4: cursor down, each press alone; the preview of the row reached.
            cursor: list[float] = []
            shown: list[float] = []
            for _ in range(samples):
                target = lst.cursor + 1
                if target >= len(lst.rows):
                    await frames.press("home", {"frame": lambda: lst.cursor == 0}, timeout)
                    await _settle(app, pilot)
                    target = 1
                row = lst.rows[target]
                r = await frames.press(
                    "down",
                    {
                        "frame": lambda t=target: lst.cursor == t,
                        "preview": lambda t=target, rw=row: lst.cursor == t and _shows(preview, rw),
                    },
                    timeout,
                )
                cursor.append(r["frame"])
                if row.kind == "entry" and row.size is not None and row.size <= 4096:
                    shown.append(r["preview"])
                await _settle(app, pilot)
            out["cursor_down"] = cursor
            out["preview"] = shown

            page: list[float] = []
            for _ in range(samples):
                old = lst.cursor
                if old + 2 * LINES >= len(lst.rows):
                    await frames.press("home", {"frame": lambda: lst.cursor == 0}, timeout)
                    await _settle(app, pilot)
                    old = 0
                r = await frames.press("pagedown", {"frame": lambda o=old: lst.cursor != o}, timeout)
                page.append(r["frame"])
                await _settle(app, pilot)
            out["page_down"] = page

            # Key repeat: 30 keys/s without waiting; each key's latency to the first frame showing it.
            await frames.press("home", {"frame": lambda: lst.cursor == 0}, timeout)
            await _settle(app, pilot, quiet=0.1)
            pending: list[tuple[dict[str, float], asyncio.Future[None], float]] = []
            for i in range(min(samples, len(lst.rows) - 1)):
                got, fut = frames.expect({"frame": lambda t=i + 1: lst.cursor >= t})
                pending.append((got, fut, frames.send_key("down")))
                await asyncio.sleep(1 / REPEAT_HZ)
            repeat = [(await frames.collect(g, f, s, ["frame"], timeout))["frame"] for g, f, s in pending]
            out["repeat"] = repeat
            await _settle(app, pilot, quiet=0.1)

            # Filter keystrokes: type a query, then delete it back to one character.
            await frames.press("home", {"frame": lambda: lst.cursor == 0}, timeout)
            await _settle(app, pilot)
            await frames.press("slash", {"frame": lambda: main.view("index").filter_input.has_focus}, timeout)
            await _settle(app, pilot)
            keys: list[float] = []
            typed = ""
            queries = list(FILTER_QUERIES)
            while len(keys) < samples and queries:
                query = queries.pop(0)
                queries.append(query)
                for ch in query:
                    typed += ch
                    r = await frames.press(ch, {"frame": lambda q=typed: lst.filter_query == q}, timeout)
                    keys.append(r["frame"])
                    await _settle(app, pilot)
                while len(typed) > 1:
                    typed = typed[:-1]
                    r = await frames.press(
                        "backspace", {"frame": lambda q=typed: lst.filter_query == q}, timeout
                    )
                    keys.append(r["frame"])
                    await _settle(app, pilot)
                await frames.press("backspace", {"frame": lambda: lst.filter_query == ""}, timeout)
                typed = ""
                await _settle(app, pilot)
            out["filter_key"] = keys
            await frames.press("escape", {"frame": lambda: lst.has_focus}, timeout)
            await frames.press("home", {"frame": lambda: lst.cursor == 0}, timeout)
            await _settle(app, pilot, quiet=0.2)

            # 3: external atomic saves of visible rows' files, then of their index lines.
            height = lst.scrollable_content_region.height
            visible = [
                i
                for i in range(1, min(height, len(lst.all_rows)))
                if lst.all_rows[i].kind == "entry"
                and lst.all_rows[i].index_line
                and " — " in lst.all_rows[i].index_line
            ]
            rebuilt: list[int] = []
            rescans: list[int] = []
            set_rows = lst.set_rows
            passed: list[int] = []

            def counting_set_rows(rows: list[Any]) -> None:
                passed.append(len(rows))
                set_rows(rows)

            lst.set_rows = counting_set_rows
            file_saves: list[float] = []
            for k in range(save_samples):
                i = visible[k % len(visible)]
                row = lst.all_rows[i]
                path = root / row.location
                remember(path)
                data = path.read_bytes() + f"\n- edited by the benchmark, save {k}\n".encode()
                before_scans = app.scans_done
                passed.clear()
                t0 = _atomic_write(path, data, k)
                mtime = path.stat().st_mtime_ns
                size = len(data)
                got, fut = frames.expect(
                    {
                        "frame": lambda i=i, key=row.key, n=size, m=mtime: (
                            lst.all_rows[i].key == key
                            and lst.all_rows[i].size == n
                            and lst.all_rows[i].mtime_ns == m
                        )
                    }
                )
                file_saves.append((await frames.collect(got, fut, t0, ["frame"], timeout))["frame"])
                await _settle(app, pilot, quiet=0.3)
                rescans.append(app.scans_done - before_scans)
                rebuilt.append(sum(passed))
            out["save_file"] = file_saves
            index_saves: list[float] = []
            index_path = root / "_index.md"
            remember(index_path)
            for k in range(save_samples):
                i = visible[k % len(visible)]
                row = lst.all_rows[i]
                old_line = row.index_line
                summary = f"summary edited by the benchmark ({k})"
                new_line = old_line[: old_line.index(" — ")] + " — " + summary
                text = index_path.read_bytes().decode("utf-8")
                text = text.replace(old_line + "\n", new_line + "\n", 1)
                before_scans = app.scans_done
                passed.clear()
                t0 = _atomic_write(index_path, text.encode("utf-8"), k)
                got, fut = frames.expect(
                    {
                        "frame": lambda i=i, key=row.key, s=summary: (
                            lst.all_rows[i].key == key and lst.all_rows[i].cells[2] == s
                        )
                    }
                )
                index_saves.append((await frames.collect(got, fut, t0, ["frame"], timeout))["frame"])
                await _settle(app, pilot, quiet=0.3)
                rescans.append(app.scans_done - before_scans)
                rebuilt.append(sum(passed))
            out["save_index"] = index_saves
            out["rows_rebuilt"] = rebuilt
            out["rescans"] = rescans
            lst.set_rows = set_rows
            sample_paths = [root / lst.all_rows[i].location for i in visible]
    finally:
        for path, (data, atime, mtime) in touched.items():
            path.write_bytes(data)
            os.utime(path, ns=(atime, mtime))
    if floors:
        out["floor_key"] = await _keypress_floor(samples, timeout)
        out["floor_watchdog"] = _watchdog_floor(root, sample_paths, save_samples)
        small = [p for p in sample_paths if p.stat().st_size <= 4096] or sample_paths
        out["floor_preview"] = _preview_floor(root, small, out["preview_width"] or 60, samples)
    return out


def measure_tui(
    res: Results, mems: list[Memory], samples: int, save_samples: int, env: dict[str, str], big_saves: bool
) -> None:
    sessions: list[tuple[Memory, dict[str, Any]]] = []
    for k, mem in enumerate(mems):
        args = [
            "--phase",
            "tui",
            "--root",
            str(mem.root),
            "--samples",
            str(samples),
            "--save-samples",
            str(save_samples if k == 0 or big_saves else max(3, save_samples // 4)),
        ]
        if k == 0:
            args.append("--floors")
        sessions.append((mem, run_phase(args, env, timeout=3600)))
    first = sessions[0][1]
    res.info["tui"] = {
        len(m.active): {"rows": d["rows"], "widgets": d["widgets"], "watcher": d["watcher"]}
        for m, d in sessions
    }
    key_floor = floor_row(res, "2", L_KEY_FLOOR, None, first["floor_key"])
    for mem, d in sessions:
        n = len(mem.active)
        for name, label in L_KEYS.items():
            values = d[name]
            timed_row(
                res,
                "2",
                label,
                n,
                [v for v in values if math.isfinite(v)],
                floor=key_floor,
                floor_label="minimal app",
                median_limit=KEY_MEDIAN_MS,
                p95_limit=KEY_P95_MS,
                timeouts=sum(1 for v in values if not math.isfinite(v)),
            )
    wd_floor = floor_row(res, "3", L_WATCHDOG, None, [v for v in first["floor_watchdog"] if math.isfinite(v)])
    for mem, d in sessions:
        n = len(mem.active)
        for name, label in L_SAVES.items():
            values = d[name]
            timed_row(
                res,
                "3",
                label,
                n,
                [v for v in values if math.isfinite(v)],
                floor=wd_floor,
                floor_label="watchdog event",
                p95_limit=SAVE_P95_MS,
                timeouts=sum(1 for v in values if not math.isfinite(v)),
            )
        rebuilt = median(d["rows_rebuilt"]) if d["rows_rebuilt"] else math.nan
        check_row(
            res,
            "3",
            L_REBUILT,
            n,
            rebuilt,
            f"{rebuilt:,.0f} rows, {median(d['rescans']):.0f} full rescan(s)",
            "1 row, never the list",
            rebuilt <= 1,
        )
    pv_floor = floor_row(res, "4", L_PREVIEW_FLOOR, None, first["floor_preview"])
    for mem, d in sessions:
        values = d["preview"]
        timed_row(
            res,
            "4",
            L_PREVIEW,
            len(mem.active),
            [v for v in values if math.isfinite(v)],
            floor=pv_floor,
            floor_label="read+render",
            p95_limit=PREVIEW_P95_MS,
            timeouts=sum(1 for v in values if not math.isfinite(v)),
        )


# -- the report ------------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break

    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "?"

    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "os": f"{platform.system()} {platform.release()}",
        "textual": version("textual"),
        "rich": version("rich"),
        "watchdog": version("watchdog"),
    }


def report(res: Results, args: argparse.Namespace) -> str:
    m = res.info["machine"]
    load = res.info.get("load", ("?", "?"))
    lines = [
        f"Run {m['date']} on {m['cpu']}, {m['cores']} cores, {m['os']}, Python {m['python']}, "
        f"Textual {m['textual']}, Rich {m['rich']}, watchdog {m['watchdog']}; load average "
        f"{load[0]} at the start, {load[1]} at the end.",
        "",
        f"`{res.info['command']}`: memories of {res.info['sizes']} notes of about 2 KB "
        f"(generated in {res.info['generated']}), {args.runs} runs for process figures, {args.samples} "
        f"events per latency ({args.save_samples} saves); terminal {COLS}x{LINES}.",
        "",
        *res.table(),
        "",
    ]
    missed = [r for r in res.rows if r.met is False]
    pending = [r for r in res.rows if r.kind == "pending"]
    judged = [r for r in res.rows if r.met is not None]
    summary = f"Targets met: {sum(1 for r in judged if r.met)} of {len(judged)}"
    if missed:
        summary += "; missed: " + "; ".join(
            f"{r.target} {r.measure} at {r.files or 0:,}" + (f" ({r.miss})" if r.miss else "") for r in missed
        )
    if pending:
        summary += "; pending: " + ", ".join(r.measure for r in pending)
    lines.append(summary + ".")
    shown = ("machine", "command", "sizes", "generated", "load")
    extra = {k: v for k, v in res.info.items() if k not in shown}
    if extra:
        lines += ["", f"Details: `{json.dumps(extra, ensure_ascii=False)}`"]
    return "\n".join(lines) + "\n"


def write_out(path: Path, text: str) -> None:
    block = f"{MARK_BEGIN}\n{text}{MARK_END}\n"
    if path.exists():
        old = path.read_text()
        if MARK_BEGIN in old and MARK_END in old:
            head, rest = old.split(MARK_BEGIN, 1)
            tail = rest.split(MARK_END, 1)[1].lstrip("\n")
            path.write_text(head + block + ("\n" + tail if tail else ""))
            return
    path.write_text(
        "# Benchmarks\n\nRecorded by `python benchmarks/run.py` (see `benchmarks/README.md`).\n\n" + block
    )


def run_all(args: argparse.Namespace, log: Callable[[str], None] = print) -> Results:
    res = Results()
    res.info["machine"] = machine()
    res.info["command"] = "python benchmarks/run.py " + " ".join(args.argv)
    start_load = f"{os.getloadavg()[0]:.2f}"
    env = child_env()
    compileall.compile_dir(REPO / "pmem_tui", quiet=1)  # as `pip install` leaves it (see child_env)
    sizes = [args.files] + ([args.big] if args.big else [])
    with contextlib.ExitStack() as stack:
        if args.work:
            work = Path(args.work)
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pmem-bench-")))
        started = time.perf_counter()
        mems = [prepare(work, n, args.seed) for n in sizes]
        res.info["sizes"] = " and ".join(f"{n:,}" for n in sizes)
        res.info["generated"] = ", ".join(f"{m.seconds:.1f} s" for m in mems)
        log(f"memories ready in {time.perf_counter() - started:.1f} s: {res.info['sizes']} notes in {work}")
        steps: list[tuple[str, Callable[[], None]]] = [
            ("1, 7: process start and memory", lambda: measure_startup(res, mems, args.runs, env)),
            ("5: status --json", lambda: measure_status(res, mems[0], args.runs, env)),
            ("6: health", lambda: measure_health(res, mems[0], args.runs, env)),
            (
                "2, 3, 4: latencies in the app",
                lambda: measure_tui(res, mems, args.samples, args.save_samples, env, args.big_saves),
            ),
        ]
        for name, step in steps:
            t = time.perf_counter()
            log(f"measuring {name} ...")
            step()
            log(f"  done in {time.perf_counter() - t:.1f} s")
    order = {t: i for i, t in enumerate("1234567")}
    res.rows.sort(key=lambda r: order.get(r.target, 9))
    res.info["load"] = (start_load, f"{os.getloadavg()[0]:.2f}")
    return res


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000, help="notes in the main memory (default 10000)")
    parser.add_argument("--big", type=int, default=100_000, help="notes in the big memory (0: none)")
    parser.add_argument("--runs", type=int, default=7, help="runs of each process-level figure (default 7)")
    parser.add_argument("--samples", type=int, default=40, help="events per latency figure (default 40)")
    parser.add_argument("--save-samples", type=int, default=20, help="external saves per figure (default 20)")
    parser.add_argument(
        "--big-saves",
        action="store_true",
        help="as many external saves on the big memory as on the main one (default: 1/4)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", metavar="DIR", help="keep the generated memories in DIR and reuse them")
    parser.add_argument("--out", metavar="FILE", help="write the table into FILE (e.g. BENCHMARKS.md)")
    parser.add_argument("--json", metavar="FILE", help="write every row as JSON into FILE")
    parser.add_argument("--phase", choices=("tui", "health"), help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--floors", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.argv = [a for a in (argv if argv is not None else sys.argv[1:])]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.phase:
        root = Path(args.root)
        if args.phase == "health":
            data = phase_health(root, args.runs)
        else:
            data = asyncio.run(tui_session(root, args.samples, args.save_samples, args.floors))
        Path(args.out).write_text(json.dumps(data))
        return 0
    res = run_all(args, log=lambda s: print(s, file=sys.stderr, flush=True))
    text = report(res, args)
    print(text)
    if args.out:
        write_out(Path(args.out), text)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rows": [asdict(r) for r in res.rows], "info": res.info}, default=str, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
