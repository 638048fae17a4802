"""The benchmark's table: its rows and targets, the statistics, and the report written into BENCHMARKS.md.

Every figure is a `Row`; `timed_row` divides a figure by its floor (measured in the same run) and judges it
against its target; `report` renders the table with the machine and the load it ran under; `write_out` puts
it between the markers of BENCHMARKS.md, keeping the notes around them.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.metadata
import json
import math
import os
import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COLS, LINES = 160, 48
FRAME_MS = 1000 / 60
KEY_MEDIAN_MS = 2 * FRAME_MS  # "median at most 2 frames (33 ms)"
KEY_P95_MS = 50.0
SAVE_P95_MS = 100.0
PREVIEW_P95_MS = 100.0
STARTUP_RATIO = 1.5
STARTUP_BIG_RATIO = 1.3
FULL_BIG_RATIO = 5.0  # every row listed at the big size, to the empty app
STATUS_RATIO = 2.0  # cold and warm, to the read-all process
HEALTH_COLD_RATIO = 4.0  # to the read-all process
HEALTH_WARM_RATIO = 2.0  # to the scandir+stat process
MEMORY_RATIO = 1.5
MEMORY_BIG_RATIO = 3.0
SEARCH_FIRST_RATIO = 3.0
SEARCH_REFRESH_RATIO = 1.5
SEARCH_CLI_RATIO = 2.0
SEARCH_QUERY_P95_MS = 50.0
SEARCH_KEY_P95_MS = 50.0
HISTORY_SAME_RATIO = 1.5
HISTORY_ONE_RATIO = 2.0
HISTORY_FIRST_RATIO = 3.0
HISTORY_LIST_MS = 300.0
HISTORY_SIZE_RATIO = 10.0
REPEAT_HZ = 30  # key repeat rate of the held-key figure
MARK_BEGIN = "<!-- benchmark:begin -->"
MARK_END = "<!-- benchmark:end -->"

# Row labels (the smoke test checks that each is produced).
L_EMPTY_START = "empty Textual app (one Static): process start → first frame"
L_START = "app: process start → Index rows + preview on screen"
L_FULL = "app: process start → every row listed (the full scan's rows on screen)"
L_ROWS_FLOOR = "plain Python process: stat every file, split every `_index.md` line (the rows' inputs)"
L_WATCH_FLOOR = "bare watchdog observer: watches set on every folder (in-process)"
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
L_READ_PROCESS = "plain Python process reading every file (fresh copy)"
L_STAT_PROCESS = "plain Python process that scandirs and stats every file"
L_STATUS_COLD = "`status --json` cold (process; fresh copy, no cache)"
L_STATUS = "`status --json` warm (process; again, nothing changed)"
L_STATUS_UI = "UI toolkits imported by `status --json`"
L_HEALTH_COLD = "`health --json` cold (process; fresh copy, no cache)"
L_HEALTH_WARM = "`health --json` warm (process; again, nothing changed)"
L_STAT = "diagnostic: scandir+stat of the active files (in-process)"
L_READ = "diagnostic: read every active file (in-process)"
L_COLD = "diagnostic: `check_health` cold (in-process; no cache)"
L_WARM = "diagnostic: `check_health` warm (in-process; nothing changed)"
L_RSS_FLOOR = "empty Textual app: max RSS"
L_RSS = "app settled: max RSS"
L_SEARCH_READ = "plain Python process reading every file (active, core, archive, trash)"
L_SEARCH_FIRST = "`search` process, first index (empty cache: reads and indexes every file)"
L_SEARCH_FIRST_BIG = "`search` process, first index at the big size (one run; its figure stated)"
L_SEARCH_STAT = "plain Python process: scandir+stat of every file"
L_SEARCH_REFRESH = "search index brought up to date, nothing changed (process)"
L_SEARCH_IMPORTS = "`python -c pass` + the import floor (argparse, json, sqlite3, one query)"
L_SEARCH_CLI = "`search QUERY --json` (process, index up to date)"
L_SEARCH_QUERY_FLOOR = "open index: count its files (in-process)"
L_SEARCH_QUERY = "a query on the index (in-process; words, pairs, 2-letter, path:, in:)"
L_SEARCH_KEY = "search screen: keystroke → its results on screen"
# Rows shown for context, with no target of their own (every row listed at the big size has one).
INFO_LABELS = frozenset({L_FULL, L_ROWS_FLOOR, L_WATCH_FLOOR, L_COLD, L_WARM, L_SEARCH_FIRST_BIG})
L_HISTORY_READ_FLOOR = "plain Python process reading every file (history floor)"
L_HISTORY_STAT_FLOOR = "plain Python process: scandir+stat of every file (history floor)"
L_HISTORY_FIRST = "history: first record of the memory (`snapshot`, process, cold)"
L_HISTORY_SAME = "history: record when nothing changed (`snapshot`, process, warm)"
L_HISTORY_ONE = "history: record one changed file (`snapshot`, process, warm)"
L_HISTORY_LIST = "`history PATH --json`, a file with {versions} versions (process, warm)"
L_HISTORY_SIZE = "history store after {versions} one-line edits of a 2 KB file"


def expected_rows(files: int, big: int, versions: int = 1000) -> list[tuple[str, str, int | None]]:
    """(target, measure, files) of every row a run with these sizes produces."""
    sizes = [files] + ([big] if big else [])
    rows: list[tuple[str, str, int | None]] = [("1", L_EMPTY_START, None)]
    rows += [("1", L_START, n) for n in sizes] + [("1", L_FULL, n) for n in sizes]
    rows += [("1", L_ROWS_FLOOR, n) for n in sizes] + [("1", L_WATCH_FLOOR, n) for n in sizes]
    rows += [("1", L_OPENED, n) for n in sizes]
    rows += [("1", L_WIDGETS, max(sizes)), ("2", L_KEY_FLOOR, None)]
    rows += [("2", label, n) for n in sizes for label in L_KEYS.values()]
    rows += [("3", L_WATCHDOG, None)]
    rows += [("3", label, n) for n in sizes for label in [*L_SAVES.values(), L_REBUILT]]
    rows += [("4", L_PREVIEW_FLOOR, None)] + [("4", L_PREVIEW, n) for n in sizes]
    rows += [("5", label, files) for label in (L_READ_PROCESS, L_STAT_PROCESS, L_STATUS_COLD, L_STATUS)]
    rows += [("5", L_STATUS_UI, files), ("6", L_HEALTH_COLD, files), ("6", L_HEALTH_WARM, files)]
    rows += [("6", L_STAT, files), ("6", L_READ, files), ("6", L_COLD, files), ("6", L_WARM, files)]
    rows += [("7", L_RSS_FLOOR, None)] + [("7", L_RSS, n) for n in sizes]
    rows += [("8", L_SEARCH_READ, n) for n in sizes] + [("8", L_SEARCH_FIRST, files)]
    rows += [("8", L_SEARCH_FIRST_BIG, big)] if big else []
    rows += [("8", L_SEARCH_STAT, files), ("8", L_SEARCH_REFRESH, files), ("8", L_SEARCH_IMPORTS, None)]
    rows += [("8", label, n) for n in sizes for label in (L_SEARCH_CLI, L_SEARCH_QUERY_FLOOR, L_SEARCH_QUERY)]
    rows += [("8", L_SEARCH_KEY, n) for n in sizes]
    rows += [("9", label, files) for label in (L_HISTORY_READ_FLOOR, L_HISTORY_FIRST, L_HISTORY_STAT_FLOOR)]
    rows += [("9", L_HISTORY_SAME, files), ("9", L_HISTORY_ONE, files)]
    rows += [("9", L_HISTORY_LIST.format(versions=versions), None)]
    rows += [("9", L_HISTORY_SIZE.format(versions=versions), None)]
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
