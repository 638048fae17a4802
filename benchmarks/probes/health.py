"""Probe: `check_health` cold (no cache) and warm (nothing changed), interleaved round by round with its
floors: a scandir+stat of the active files, and reading every one of them (all in this process).

    PMEM_TUI_CACHE_DIR=DIR python benchmarks/probes/health.py ROOT RUNS

Cold empties DIR, the cache folder the measure gave this process, so the probe needs no knowledge of where
or how the product keeps its caches. Prints JSON: the times in ms, and the proposals and near pairs found.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

ACTIVE_DIRS = ("projects", "notes")


def active_files(root: Path) -> list[str]:
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


def read_all(root: Path) -> int:
    total = 0
    for path in active_files(root):
        with open(path, "rb") as fh:
            total += len(fh.read())
    return total


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main(root: Path, runs: int) -> None:
    from pmem_tui.core.health import check_health  # the health check's public function

    cache = Path(os.environ["PMEM_TUI_CACHE_DIR"])
    out: dict[str, list[float]] = {"stat": [], "read": [], "cold": [], "warm": []}
    check_health(root)  # untimed: imports, first touch of every page
    for _ in range(runs):
        out["stat"].append(timed(lambda: active_files(root)))
        out["read"].append(timed(lambda: read_all(root)))
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir()
        out["cold"].append(timed(lambda: check_health(root)))
        out["warm"].append(timed(lambda: check_health(root)))
    report = check_health(root)
    print(json.dumps({**out, "proposals": len(report.proposals), "near_pairs": len(report.near_pairs)}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
