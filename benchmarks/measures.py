"""The measures: run the probes (`benchmarks/probes/`, each a whole process) and turn their figures into rows.

Each figure is measured next to its floor in the same run: process figures `runs` times, interleaved with
their floors round by round after one untimed round (bytecode, page cache); latencies over `samples` events.
Process start-up runs in a pseudo-terminal (the real Linux driver); every child gets its own cache folder
(`PMEM_TUI_CACHE_DIR`), so "cold" is an empty folder and "warm" the one the previous run filled.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import math
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from generate import TODAY, Memory, generate
from report import (
    COLS,
    FULL_BIG_RATIO,
    HEALTH_COLD_RATIO,
    HEALTH_WARM_RATIO,
    KEY_MEDIAN_MS,
    KEY_P95_MS,
    L_COLD,
    L_EMPTY_START,
    L_FULL,
    L_HEALTH_COLD,
    L_HEALTH_WARM,
    L_KEY_FLOOR,
    L_KEYS,
    L_OPENED,
    L_PREVIEW,
    L_PREVIEW_FLOOR,
    L_READ,
    L_READ_PROCESS,
    L_REBUILT,
    L_ROWS_FLOOR,
    L_RSS,
    L_RSS_FLOOR,
    L_SAVES,
    L_SEARCH_CLI,
    L_SEARCH_FIRST,
    L_SEARCH_FIRST_BIG,
    L_SEARCH_IMPORTS,
    L_SEARCH_KEY,
    L_SEARCH_QUERY,
    L_SEARCH_QUERY_FLOOR,
    L_SEARCH_READ,
    L_SEARCH_REFRESH,
    L_SEARCH_STAT,
    L_START,
    L_STAT,
    L_STAT_PROCESS,
    L_STATUS,
    L_STATUS_COLD,
    L_STATUS_UI,
    L_WARM,
    L_WATCH_FLOOR,
    L_WATCHDOG,
    L_WIDGETS,
    LINES,
    MEMORY_BIG_RATIO,
    MEMORY_RATIO,
    PREVIEW_P95_MS,
    REPEAT_HZ,
    SAVE_P95_MS,
    SEARCH_CLI_RATIO,
    SEARCH_FIRST_RATIO,
    SEARCH_KEY_P95_MS,
    SEARCH_QUERY_P95_MS,
    SEARCH_REFRESH_RATIO,
    STARTUP_BIG_RATIO,
    STARTUP_RATIO,
    STATUS_RATIO,
    Results,
    Row,
    check_row,
    floor_row,
    median,
    timed_row,
)

REPO = Path(__file__).resolve().parent.parent
PROBES = Path(__file__).resolve().parent / "probes"
SIZE = f"{COLS}x{LINES}"


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


def child_env(cache: Path) -> dict[str, str]:
    """The environment of every child: the generator's date, a colour terminal, caches in `cache`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "PYTEST"))}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PMEM_TUI_TODAY"] = TODAY.isoformat()
    env["PMEM_TUI_CACHE_DIR"] = str(cache)  # never the user's cache folder
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    env.pop("NO_COLOR", None)
    # Measure the app as installed: with its bytecode cached (pip compiles it; an environment that forbids
    # writing bytecode would make every timed process recompile pmem_tui's ~50 modules, ~45 ms).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# -- running probes --------------------------------------------------------------------------------


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
                raise TimeoutError(f"{args[1:3]} did not finish in {timeout:.0f} s")
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


def start_probe(probe: str, args: list[str], env: dict[str, str], timeout: float = 180) -> dict[str, Any]:
    """A start-up probe in a terminal: its result, with the seconds from the spawn to its first usable
    frame (`seconds`) and to its full rows (`full_seconds`)."""
    with tempfile.TemporaryDirectory(prefix="pmem-probe-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, str(PROBES / probe), *args[:1], str(out), *args[1:]]
        start, code, tail = spawn_in_pty(cmd, env, timeout)
        if not out.exists():
            text = tail.decode("utf-8", "replace")[-1500:]
            raise RuntimeError(f"{probe} exited {code} without a result: {text}")
        result: dict[str, Any] = json.loads(out.read_text())
    result["seconds"] = result["ready"] - start
    result["full_seconds"] = result["full"] - start if result.get("full") is not None else None
    return result


def run_probe(probe: str, args: list[str], env: dict[str, str], timeout: float = 3600) -> dict[str, Any]:
    """A probe as a plain process: the JSON it prints."""
    proc = subprocess.run(
        [sys.executable, str(PROBES / probe), *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{probe} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def run_timed(args: list[str], env: dict[str, str]) -> float:
    """Milliseconds a whole process takes."""
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO, check=True)
    return (time.perf_counter() - start) * 1000


def finite(values: list[float]) -> tuple[list[float], int]:
    """The finite values, and how many timed out (infinite)."""
    return [v for v in values if math.isfinite(v)], sum(1 for v in values if not math.isfinite(v))


# -- 1 and 7: process start to a usable screen, peak memory ----------------------------------------


def measure_startup(res: Results, mems: list[Memory], runs: int, env: dict[str, str]) -> None:
    configs: list[tuple[str, list[str]]] = [("floor_empty_app.py", [])]
    configs += [("app_start.py", [str(m.root)]) for m in mems]
    times: list[list[float]] = [[] for _ in configs]
    full: list[list[float]] = [[] for _ in configs]
    rss: list[list[float]] = [[] for _ in configs]
    last: list[dict[str, Any]] = [{} for _ in configs]
    for probe, args in configs:  # one untimed round: bytecode, page cache
        start_probe(probe, args, env)
    rows_floor: list[list[float]] = [[] for _ in mems]  # the rows' inputs read by a bare process
    watch_floor: list[list[float]] = [[] for _ in mems]  # a bare observer's watches set on every folder
    for _ in range(runs):
        for i, (probe, args) in enumerate(configs):
            r = start_probe(probe, args, env)
            times[i].append(r["seconds"] * 1000)
            if r.get("full_seconds") is not None:
                full[i].append(r["full_seconds"] * 1000)
            rss[i].append(r["maxrss_kb"] / 1024)
            last[i] = r
        for j, mem in enumerate(mems):
            floor_cmd = [sys.executable, str(PROBES / "floor_read_all.py"), str(mem.root), "--rows"]
            rows_floor[j].append(run_timed(floor_cmd, env))
            watch_floor[j].append(run_probe("floor_watches.py", [str(mem.root)], env)["ms"])
    audits = [start_probe("app_start.py", [str(m.root), "--audit"], env) for m in mems]

    empty = floor_row(res, "1", L_EMPTY_START, None, times[0])
    first: Row | None = None
    for i, mem in enumerate(mems, start=1):
        n = len(mem.active)
        if first is None:
            first = timed_row(
                res,
                "1",
                L_START,
                n,
                times[i],
                floor=empty,
                floor_label="empty app",
                ratio_limit=STARTUP_RATIO,
            )
            continue
        row = timed_row(
            res,
            "1",
            L_START,
            n,
            times[i],
            floor=first,
            floor_label=f"{first.files or 0:,} files",
            ratio_limit=STARTUP_BIG_RATIO,
        )
        if empty.median and row.median:
            row.note = f"({row.median / empty.median:.2f}x empty app)"
    for i, mem in enumerate(mems, start=1):
        # The screen is usable from the first frame; this is when the last rows arrive (a target at the big
        # size only: it is the one that grows with the memory).
        limit, n = (FULL_BIG_RATIO if i > 1 else None), len(mem.active)
        timed_row(res, "1", L_FULL, n, full[i], floor=empty, floor_label="empty app", ratio_limit=limit)
        # No app can list every row sooner than a bare process reads their inputs: its ratio to the empty
        # app is the every-row figure's own floor (`notes/speed.md`).
        timed_row(res, "1", L_ROWS_FLOOR, n, rows_floor[i - 1], floor=empty, floor_label="empty app")
        # ... and the app sets its watches before that scan (a change in a folder read before its watch is
        # set would go unseen): their cost in a bare process is part of the same floor.
        timed_row(res, "1", L_WATCH_FLOOR, n, watch_floor[i - 1], floor=empty, floor_label="empty app")
    for audit, mem in zip(audits, mems, strict=True):
        n = len(mem.active)
        opened = audit["opened"]
        check_row(
            res,
            "1",
            L_OPENED,
            n,
            opened,
            f"{opened} of {n:,}",
            "not every file (≤ 1%)",
            opened <= max(2, n // 100),
        )
    widgets = {len(mem.active): last[i]["widgets"] for i, mem in enumerate(mems, start=1)}
    text = " / ".join(f"{w} at {n:,}" for n, w in widgets.items())
    same = len(set(widgets.values())) == 1
    check_row(res, "1", L_WIDGETS, max(widgets), max(widgets.values()), text, "same at every size", same)
    res.info["watcher_mode"] = {len(m.active): last[i].get("watcher") for i, m in enumerate(mems, start=1)}

    floor = floor_row(res, "7", L_RSS_FLOOR, None, rss[0], unit="MB")
    for i, mem in enumerate(mems, start=1):
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


# -- 5, 6: the CLI as whole processes, cold and warm -------------------------------------------------


RACY_WAIT_S = 2.2  # a cache is not trusted for files changed within 2 s of it (`core/cache.py`: racy)


def fresh_copy(src: Path, dst: Path) -> float:
    """Replace `dst` with a copy of `src` (new inodes and ctimes, the same bytes and mtimes: what an agent's
    rewrite of every file looks like to a cache); returns the monotonic clock when the copy was done."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    return time.monotonic()


def measure_cli(res: Results, mem: Memory, runs: int, env: dict[str, str], work: Path) -> None:
    """`status --json` and `health --json` as processes: cold (a fresh copy of the tree, an empty cache
    folder) and warm (the same command again, nothing changed), interleaved round by round with their
    floors on the same copy, after one untimed round."""
    copy = work / f"copy-{len(mem.active)}"
    cmd = [sys.executable, "-m", "pmem_tui", "--root", str(copy)]
    floors = {
        "read": [sys.executable, str(PROBES / "floor_read_all.py"), str(copy)],
        "stat": [sys.executable, str(PROBES / "floor_read_all.py"), str(copy), "--stat"],
    }
    commands = {"status": [*cmd, "status", "--json"], "health": [*cmd, "health", "--json"]}
    t: dict[str, list[float]] = {k: [] for k in ("read", "stat", "status0", "status1", "health0", "health1")}
    try:
        for round_no in range(runs + 1):  # round 0 is untimed: bytecode, page cache
            copied = fresh_copy(mem.root, copy)
            times = {name: run_timed(args, env) for name, args in floors.items()}
            # The cold run then stores its cache (a file changed within 2 s of it would not be trusted).
            time.sleep(max(0.0, copied + RACY_WAIT_S - time.monotonic()))
            for name, args in commands.items():
                with tempfile.TemporaryDirectory(prefix="pmem-cli-cache-") as cache:
                    cache_env = {**env, "PMEM_TUI_CACHE_DIR": cache}
                    times[name + "0"] = run_timed(args, cache_env)
                    times[name + "1"] = run_timed(args, cache_env)
            if round_no:
                for name, value in times.items():
                    t[name].append(value)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    n = len(mem.active)
    read = floor_row(res, "5", L_READ_PROCESS, n, t["read"])
    stat = floor_row(res, "5", L_STAT_PROCESS, n, t["stat"])
    for label, values in ((L_STATUS_COLD, t["status0"]), (L_STATUS, t["status1"])):
        timed_row(
            res, "5", label, n, values, floor=read, floor_label="read-all process", ratio_limit=STATUS_RATIO
        )
    timed_row(
        res,
        "6",
        L_HEALTH_COLD,
        n,
        t["health0"],
        floor=read,
        floor_label="read-all process",
        ratio_limit=HEALTH_COLD_RATIO,
    )
    timed_row(
        res,
        "6",
        L_HEALTH_WARM,
        n,
        t["health1"],
        floor=stat,
        floor_label="scandir+stat process",
        ratio_limit=HEALTH_WARM_RATIO,
    )
    status_imports(res, mem, env)


def status_imports(res: Results, mem: Memory, env: dict[str, str]) -> None:
    """Whether `status --json` imported Textual or Rich (`-X importtime`)."""
    args = ["-m", "pmem_tui", "--root", str(mem.root), "status", "--json"]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
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
    n = len(mem.active)
    check_row(
        res, "5", L_STATUS_UI, n, len(ui), ", ".join(ui) or "none", "never Textual", "textual" not in ui
    )


def measure_health_in_process(res: Results, mem: Memory, runs: int, env: dict[str, str]) -> None:
    """Diagnostics, no target: `check_health` in one process (no start-up, no imports, no output)."""
    with tempfile.TemporaryDirectory(prefix="pmem-health-cache-") as cache:
        data = run_probe("health.py", [str(mem.root), str(runs)], {**env, "PMEM_TUI_CACHE_DIR": cache})
    n = len(mem.active)
    stat = floor_row(res, "6", L_STAT, n, data["stat"])
    read = floor_row(res, "6", L_READ, n, data["read"])
    timed_row(res, "6", L_COLD, n, data["cold"], floor=read, floor_label="read-all")
    timed_row(res, "6", L_WARM, n, data["warm"], floor=stat, floor_label="stat")
    res.info["health"] = {
        "proposals": data["proposals"],
        "near_pairs_reported": data["near_pairs"],
        "near_pairs_planted": len({frozenset(p) for p in mem.near_pairs}),
    }


# -- 2, 3, 4: latencies inside the app -------------------------------------------------------------


def tui_session(mem: Memory, samples: int, saves: int, env: dict[str, str]) -> dict[str, Any]:
    keys = run_probe(
        "app_keys.py", [str(mem.root), str(samples), "--size", SIZE, "--repeat-hz", str(REPEAT_HZ)], env
    )
    return {**keys, **run_probe("app_saves.py", [str(mem.root), str(saves), "--size", SIZE], env)}


def tui_floors(
    first: dict[str, Any], samples: int, saves: int, root: Path, env: dict[str, str]
) -> dict[str, Any]:
    """The floors of the in-app latencies, on the first memory's files the saves used."""
    paths = first["sample_paths"]
    small = [p for p in paths if Path(p).stat().st_size <= 4096] or paths
    width = str(first["preview_width"] or 60)
    return {
        **run_probe("floor_keys.py", [str(samples), "--size", SIZE], env),
        **run_probe("floor_watchdog.py", [str(root), str(saves), *paths], env),
        **run_probe("floor_preview.py", [width, str(samples), *small], env),
    }


def measure_tui(
    res: Results, mems: list[Memory], samples: int, save_samples: int, env: dict[str, str], big_saves: bool
) -> None:
    sessions: list[tuple[Memory, dict[str, Any]]] = []
    floors: dict[str, Any] = {}
    for k, mem in enumerate(mems):
        saves = save_samples if k == 0 or big_saves else max(3, save_samples // 4)
        sessions.append((mem, tui_session(mem, samples, saves, env)))
        if k == 0:  # the floors right after the first memory's session, on the files it saved
            floors = tui_floors(sessions[0][1], samples, save_samples, mem.root, env)
    res.info["tui"] = {
        len(m.active): {"rows": d["rows"], "widgets": d["widgets"], "watcher": d["watcher"]}
        for m, d in sessions
    }
    key_floor = floor_row(res, "2", L_KEY_FLOOR, None, floors["floor_key"])
    latency_rows(
        res, "2", sessions, L_KEYS, key_floor, "minimal app", median_ms=KEY_MEDIAN_MS, p95_ms=KEY_P95_MS
    )
    wd_floor = floor_row(res, "3", L_WATCHDOG, None, finite(floors["floor_watchdog"])[0])
    for mem, d in sessions:
        latency_rows(res, "3", [(mem, d)], L_SAVES, wd_floor, "watchdog event", p95_ms=SAVE_P95_MS)
        rebuilt = median(d["rows_rebuilt"]) if d["rows_rebuilt"] else math.nan
        text = f"{rebuilt:,.0f} rows, {median(d['rescans']):.0f} full rescan(s)"
        check_row(res, "3", L_REBUILT, len(mem.active), rebuilt, text, "1 row, never the list", rebuilt <= 1)
    pv_floor = floor_row(res, "4", L_PREVIEW_FLOOR, None, floors["floor_preview"])
    latency_rows(res, "4", sessions, {"preview": L_PREVIEW}, pv_floor, "read+render", p95_ms=PREVIEW_P95_MS)


def latency_rows(
    res: Results,
    target: str,
    sessions: list[tuple[Memory, dict[str, Any]]],
    labels: dict[str, str],
    floor: Row,
    floor_label: str,
    median_ms: float | None = None,
    p95_ms: float | None = None,
) -> None:
    """A row per session and figure (`labels`: the figure's key in a session's result -> its label); the
    samples that never showed count as timeouts."""
    for mem, d in sessions:
        for name, label in labels.items():
            values, timeouts = finite(d[name])
            timed_row(
                res,
                target,
                label,
                len(mem.active),
                values,
                floor=floor,
                floor_label=floor_label,
                median_limit=median_ms,
                p95_limit=p95_ms,
                timeouts=timeouts,
            )


# -- 8: search --------------------------------------------------------------------------------------


def measure_search(res: Results, mems: list[Memory], runs: int, samples: int, env: dict[str, str]) -> None:
    """Each figure next to its floor, round by round; the search's own cache folder (cold: emptied)."""
    with tempfile.TemporaryDirectory(prefix="pmem-search-cache-") as tmp:
        cache = Path(tmp) / "cache"
        senv = {**env, "PMEM_TUI_CACHE_DIR": str(cache)}
        py = sys.executable
        imports = [py, str(PROBES / "floor_search_imports.py")]
        run_timed(imports, senv)
        t_imports = [run_timed(imports, senv) for _ in range(runs)]
        floor_imports = floor_row(res, "8", L_SEARCH_IMPORTS, None, t_imports)
        for k, mem in enumerate(mems):
            root = str(mem.root)
            n = len(mem.active)
            search = [py, "-m", "pmem_tui", "--root", root, "search", "the", "--json", "--archive"]
            read = [py, str(PROBES / "floor_read_all.py"), root]
            # The first index: the target is at the first size; at the big one, one run states its figure.
            rounds = runs if k == 0 else 1
            t_read, t_first = [], []
            run_timed(read, senv)
            for _ in range(rounds):
                t_read.append(run_timed(read, senv))
                shutil.rmtree(cache, ignore_errors=True)
                t_first.append(run_timed(search, senv))
            floor = floor_row(res, "8", L_SEARCH_READ, n, t_read)
            timed_row(
                res,
                "8",
                L_SEARCH_FIRST if k == 0 else L_SEARCH_FIRST_BIG,
                n,
                t_first,
                floor=floor,
                floor_label="read-all process",
                ratio_limit=SEARCH_FIRST_RATIO if k == 0 else None,
            )
            if k == 0:  # nothing changed: the index brought up to date, against a scandir+stat process
                stat_cmd = [py, str(PROBES / "floor_read_all.py"), root, "--stat"]
                refresh = [py, str(PROBES / "search_refresh.py"), root]
                run_timed(stat_cmd, senv)
                run_timed(refresh, senv)
                t_stat, t_refresh = [], []
                for _ in range(runs):
                    t_stat.append(run_timed(stat_cmd, senv))
                    t_refresh.append(run_timed(refresh, senv))
                stat_row = floor_row(res, "8", L_SEARCH_STAT, n, t_stat)
                timed_row(
                    res,
                    "8",
                    L_SEARCH_REFRESH,
                    n,
                    t_refresh,
                    floor=stat_row,
                    floor_label="scandir+stat process",
                    ratio_limit=SEARCH_REFRESH_RATIO,
                )
            t_cli = [run_timed(search, senv) for _ in range(runs)]
            timed_row(
                res,
                "8",
                L_SEARCH_CLI,
                n,
                t_cli,
                floor=floor_imports,
                floor_label="empty process + imports",
                ratio_limit=SEARCH_CLI_RATIO,
            )
            data = run_probe("search_query.py", [root, str(samples)], senv)
            qfloor = floor_row(res, "8", L_SEARCH_QUERY_FLOOR, n, data["floor"])
            timed_row(
                res,
                "8",
                L_SEARCH_QUERY,
                n,
                data["query"],
                floor=qfloor,
                floor_label="count",
                p95_limit=SEARCH_QUERY_P95_MS,
                note=f"({data['hits']:,} hits in {data['queries']} queries)",
            )
            keys = run_probe("app_search.py", [root, str(samples), "--size", SIZE], senv)
            key_floor = res.find("2", L_KEY_FLOOR) or floor_row(
                res,
                "2",
                L_KEY_FLOOR,
                None,
                run_probe("floor_keys.py", [str(samples), "--size", SIZE], env)["floor_key"],
            )
            timed_row(
                res,
                "8",
                L_SEARCH_KEY,
                n,
                keys["search_key"],
                floor=key_floor,
                floor_label="minimal app",
                p95_limit=SEARCH_KEY_P95_MS,
            )
