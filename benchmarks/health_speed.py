"""Speed of `pmem-tui health` against the floors of the same machine, measured in the same run.

    python benchmarks/health_speed.py [--files 10000] [--size 2000] [--runs 7] [--keep DIR]

Generates a memory of N notes of about `--size` bytes (projects/ and notes/, nested folders, an index, an
archive, a trash item, planted duplicates and near duplicates, a fifth of the notes older than 90 days; see
`near_duplicates.build_memory`) in a temporary folder, then measures, interleaved round by round:

* **scandir+stat floor**: walking the whole root with `os.scandir` and stat-ing every entry;
* **read-all floor**: the same walk, plus opening and reading every file;
* **health cold**: `check_health` with its cache folder deleted first (it reads everything and writes the
  cache, which is part of the figure);
* **health warm**: `check_health` again with nothing changed (it reuses the cached report);
* **health, next day** (for information): nothing changed but the date, so the report cannot be reused and
  is rebuilt from the per-file cache without reading any memory file;
* **health, no cache** (for information): `use_cache=False`, which never reads or writes the cache.

The OS page cache is warm for every measurement alike (the files were just written and are read on every
round), so the ratios compare computation with computation. Everything runs in this process; interpreter
start-up and imports are not counted for any row. Targets (issue 7, target 6): cold <= 5x the read-all floor,
warm <= 2x the scandir+stat floor. `--check` makes the exit status say whether both are met.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from near_duplicates import TODAY, build_memory

from pmem_tui.core import cache_home
from pmem_tui.core.health import check_health

COLD_TARGET = 5.0
WARM_TARGET = 2.0


def _walk(root: str) -> list[str]:
    files: list[str] = []
    stack = [root]
    while stack:
        current = stack.pop()
        with os.scandir(current) as it:
            for entry in it:
                if entry.name == ".pmem":
                    continue
                st = entry.stat(follow_symlinks=False)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif st.st_size >= 0:
                    files.append(entry.path)
    return files


def stat_floor(root: Path) -> int:
    return len(_walk(str(root)))


def read_floor(root: Path) -> int:
    total = 0
    for path in _walk(str(root)):
        with open(path, "rb") as f:
            total += len(f.read())
    return total


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(root: Path, runs: int) -> dict[str, list[float]]:
    cache = cache_home.folder_for(root)  # the root's caches, in the user's cache folder
    assert cache is not None
    next_day = TODAY + dt.timedelta(days=1)
    times: dict[str, list[float]] = {k: [] for k in ("stat", "read", "cold", "warm", "next", "nocache")}
    check_health(root, today=TODAY)  # one untimed run: imports, first-touch of every page
    for _ in range(runs):
        times["stat"].append(_timed(lambda: stat_floor(root)))
        times["read"].append(_timed(lambda: read_floor(root)))
        shutil.rmtree(cache, ignore_errors=True)
        times["cold"].append(_timed(lambda: check_health(root, today=TODAY)))
        times["warm"].append(_timed(lambda: check_health(root, today=TODAY)))
        report = check_health(root, today=TODAY)
        assert report.stats.cache == "report" and report.stats.read == 0, report.stats
        times["next"].append(_timed(lambda: check_health(root, today=next_day)))
        check_health(root, today=TODAY)  # leave the report of TODAY in the cache for the next round's floor
        times["nocache"].append(_timed(lambda: check_health(root, today=TODAY, use_cache=False)))
    return times


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def table(times: dict[str, list[float]]) -> tuple[list[str], float, float]:
    med = {k: statistics.median(v) for k, v in times.items()}
    cold_ratio = med["cold"] / med["read"]
    warm_ratio = med["warm"] / med["stat"]
    rows = [
        ("scandir+stat floor", "stat", "1.00x stat"),
        ("read-all floor", "read", f"{med['read'] / med['stat']:.2f}x stat"),
        (
            "health cold (no cache; writes it)",
            "cold",
            f"**{cold_ratio:.2f}x read-all** (target <= {COLD_TARGET:g}x)",
        ),
        ("health warm (nothing changed)", "warm", f"**{warm_ratio:.2f}x stat** (target <= {WARM_TARGET:g}x)"),
        ("health next day (per-file cache)", "next", f"{med['next'] / med['stat']:.2f}x stat"),
        ("health without cache", "nocache", f"{med['nocache'] / med['read']:.2f}x read-all"),
    ]
    lines = ["| measure | median ms | p95 ms | ratio |", "|---|---:|---:|---|"]
    for label, key, ratio in rows:
        lines.append(f"| {label} | {med[key] * 1000:.1f} | {_p95(times[key]) * 1000:.1f} | {ratio} |")
    return lines, cold_ratio, warm_ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=2000, help="approximate bytes per file")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", metavar="DIR", help="build the memory in DIR (must not exist) and keep it")
    parser.add_argument("--check", action="store_true", help="exit 1 unless both targets are met")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pmem-health-speed-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp) / "memory"
        root.mkdir(parents=True)
        start = time.perf_counter()
        build_memory(
            root,
            args.files,
            near_pairs=args.files // 50,
            exact_pairs=args.files // 200,
            seed=args.seed,
            size=args.size,
        )
        generated = time.perf_counter() - start
        total = sum(f.stat().st_size for f in root.rglob("*.md"))
        times = measure(root, args.runs)
        report = check_health(root, today=TODAY)
    lines, cold_ratio, warm_ratio = table(times)
    print(
        f"health speed: {args.files} active files, {total / 1e6:.1f} MB, {args.runs} runs (medians), "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; generated in {generated:.1f} s; "
        f"{len(report.proposals)} proposals, {len(report.near_pairs)} near-duplicate pairs"
    )
    print("\n".join(lines))
    ok = cold_ratio <= COLD_TARGET and warm_ratio <= WARM_TARGET
    print(
        f"targets (cold <= {COLD_TARGET:g}x read-all, warm <= {WARM_TARGET:g}x stat): "
        f"{'met' if ok else 'MISSED'}"
    )
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
