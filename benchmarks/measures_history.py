"""Target 8 (issue 16): the history store's speed and size, each figure next to its floor in the same run.

* record when nothing changed (`snapshot --quiet`, a process, warm) against a scandir+stat process;
* record one changed file (the same, after one file was edited) against the same floor;
* the first record of the memory (no store, an empty cache folder) against a process reading every file;
* `history PATH --json` of a file with `versions` versions (warm: its records' changes cached);
* the store's size after `versions` one-line edits of a 2 KB file, against the bytes those edits changed.

The memory is a copy of the generated one (the probes make `.pmem/history` in it; the generated memory is
reused by the other targets and by later runs).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from generate import Memory
from measures import PROBES, run_probe, run_timed
from report import (
    HISTORY_FIRST_RATIO,
    HISTORY_LIST_MS,
    HISTORY_ONE_RATIO,
    HISTORY_SAME_RATIO,
    HISTORY_SIZE_RATIO,
    L_HISTORY_FIRST,
    L_HISTORY_LIST,
    L_HISTORY_ONE,
    L_HISTORY_READ_FLOOR,
    L_HISTORY_SAME,
    L_HISTORY_SIZE,
    L_HISTORY_STAT_FLOOR,
    Results,
    check_row,
    floor_row,
    median,
    timed_row,
)


def measure_history(res: Results, mem: Memory, runs: int, env: dict[str, str], versions: int) -> None:
    with tempfile.TemporaryDirectory(prefix="pmem-history-") as tmp:
        root = Path(tmp) / "mem"
        shutil.copytree(mem.root, root, ignore=shutil.ignore_patterns(".pmem"))
        n = len(mem.active)
        snapshot = [sys.executable, "-m", "pmem_tui", "--root", str(root), "snapshot", "--quiet"]
        read_all = [sys.executable, str(PROBES / "floor_read_all.py"), str(root)]
        stat_all = [sys.executable, str(PROBES / "floor_read_all.py"), str(root), "--stat"]
        # The first record: no store, an empty cache folder, each round.
        t_first: list[float] = []
        t_read: list[float] = []
        run_timed(read_all, env)
        for r in range(runs):
            shutil.rmtree(root / ".pmem", ignore_errors=True)
            cold = {**env, "PMEM_TUI_CACHE_DIR": str(Path(tmp) / f"cache-{r}")}
            t_read.append(run_timed(read_all, env))
            t_first.append(run_timed(snapshot, cold))
        warm = {**env, "PMEM_TUI_CACHE_DIR": str(Path(tmp) / f"cache-{runs - 1}")}
        read_floor = floor_row(res, "9", L_HISTORY_READ_FLOOR, n, t_read)
        timed_row(
            res,
            "9",
            L_HISTORY_FIRST,
            n,
            t_first,
            floor=read_floor,
            floor_label="read-all process",
            ratio_limit=HISTORY_FIRST_RATIO,
        )
        # Nothing changed, then one changed file each round.
        run_timed(stat_all, warm)
        run_timed(snapshot, warm)
        t_stat: list[float] = []
        t_same: list[float] = []
        t_one: list[float] = []
        edited = root / mem.active[0]
        for _ in range(runs):
            t_stat.append(run_timed(stat_all, warm))
            t_same.append(run_timed(snapshot, warm))
        for r in range(runs):
            with edited.open("a", encoding="utf-8") as f:
                f.write(f"- one more fact ({r})\n")
            t_one.append(run_timed(snapshot, warm))
        stat_floor = floor_row(res, "9", L_HISTORY_STAT_FLOOR, n, t_stat)
        timed_row(
            res,
            "9",
            L_HISTORY_SAME,
            n,
            t_same,
            floor=stat_floor,
            floor_label="scandir+stat process",
            ratio_limit=HISTORY_SAME_RATIO,
        )
        timed_row(
            res,
            "9",
            L_HISTORY_ONE,
            n,
            t_one,
            floor=stat_floor,
            floor_label="scandir+stat process",
            ratio_limit=HISTORY_ONE_RATIO,
        )
        # One file, `versions` one-line edits, each recorded.
        edits = Path(tmp) / "edits"
        built = run_probe("history_build.py", [str(edits), str(versions)], warm)
        listing = [
            sys.executable,
            "-m",
            "pmem_tui",
            "--root",
            str(edits),
            "history",
            "notes/edited.md",
            "--json",
        ]
        run_timed(listing, warm)
        t_list = [run_timed(listing, warm) for _ in range(runs)]
        ms = median(t_list)
        check_row(
            res,
            "9",
            L_HISTORY_LIST.format(versions=versions),
            None,
            ms,
            f"{ms:.0f} ms (median of {len(t_list)}; {versions} versions built in {built['seconds']:.0f} s)",
            f"median ≤ {HISTORY_LIST_MS:g} ms",
            ms <= HISTORY_LIST_MS,
        )
        ratio = built["store_bytes"] / built["bytes_changed"]
        check_row(
            res,
            "9",
            L_HISTORY_SIZE.format(versions=versions),
            None,
            built["store_bytes"],
            f"{built['store_bytes']:,} B for {built['bytes_changed']:,} B changed ({ratio:.1f}x; "
            f"{built['packs']} packs; the file is {built['file_bytes']:,} B)",
            f"≤ {HISTORY_SIZE_RATIO:g}x the bytes changed",
            ratio <= HISTORY_SIZE_RATIO,
        )
