"""The pmem-tui benchmark: every target of issue 7, each figure next to a floor measured in the same run.

    python benchmarks/run.py [--files 10000] [--big 100000] [--runs 7] [--samples 40] [--out BENCHMARKS.md]

It generates synthetic memories (`benchmarks/generate.py`: `--files` notes, and `--big` notes unless
`--big 0`), then runs the probes (`benchmarks/probes/`, each a small script run as a whole process) through
the measures (`benchmarks/measures.py`), and prints the table (`benchmarks/report.py`):

1. process start to a usable screen (the Index rows and the preview of the first row drawn) at `--files` and
   `--big` notes, against an empty Textual app (one `Static`) measured the same way, in a pseudo-terminal
   (the real Linux driver, 160x48); the memory files opened before that frame, and the widgets in the DOM
   (the same at every size: the rows are virtual);
2. keypress to frame (cursor down, page down, a filter keystroke, cursor down repeated at 30 keys/s) at
   `--files` and `--big` rows, in-process (`App.run_test`, headless), against the same key in a minimal app;
3. an external atomic save of a visible file, and of one line of `_index.md`, to its row updated on
   screen, with the app's real watcher, against the first event of a bare watchdog observer; and the rows
   rebuilt per save (the target is one);
4. selection (cursor down) to the preview of a 2 KB file shown, against reading and rendering it with Rich;
5. `status --json` as a process, cold (on a fresh copy of the memory, an empty cache folder) and warm (again,
   nothing changed), against a plain Python process that reads every file of the copy, and whether `status`
   imported Textual or Rich (`-X importtime`);
6. `health --json` as a process, cold against the same read-all process and warm against a process that
   scandirs and stats every file; `check_health` in one process (cold, warm, and its in-process floors) as
   diagnostics without targets;
7. peak memory (max RSS of the process of target 1, the app settled) against the empty Textual app;
8. search (issue 18): the first index against reading every file, the re-index when nothing changed against
   a scandir+stat process, the `search` process against an empty one plus its import floor, a query
   in-process (p95), and a keystroke in the search screen to its results (p95), at both sizes (the first
   index at `--big` once: its figure is stated, the target is at `--files`);
9. the history store (issue 16, `benchmarks/measures_history.py`): recording when nothing changed and when one
   file changed against a scandir+stat process, the first record against reading every file, `history PATH
   --json` with `--history-versions` versions, and the store's size after as many one-line edits.

Medians over `--runs` runs (at least 7 for the recorded table) for process-level figures, and median and
p95 over `--samples` events for latencies. `--out FILE` writes the table into FILE (between the
`<!-- benchmark:begin -->` and `<!-- benchmark:end -->` markers when they exist, keeping the rest).
`--work DIR` keeps the generated memories in DIR and reuses them in later runs (the probes restore every
file they edit). `--only start,cli,diagnostics,app,search,history` runs only some of the steps. Not part of
the unit suite: `tests/test_benchmarks_smoke.py` runs it on 200 files.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measures
import measures_history
from report import Results, machine, report, write_out


def run_all(args: argparse.Namespace, log: Callable[[str], None] = print) -> Results:
    res = Results()
    res.info["machine"] = machine()
    res.info["command"] = "python benchmarks/run.py " + " ".join(args.argv)
    start_load = f"{os.getloadavg()[0]:.2f}"
    compileall.compile_dir(measures.REPO / "pmem_tui", quiet=1)  # as `pip install` leaves it (see child_env)
    sizes = [args.files] + ([args.big] if args.big else [])
    with contextlib.ExitStack() as stack:
        if args.work:
            work = Path(args.work)
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pmem-bench-")))
        env = measures.child_env(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pmem-cache-"))))
        started = time.perf_counter()
        mems = [measures.prepare(work, n, args.seed) for n in sizes]
        res.info["sizes"] = " and ".join(f"{n:,}" for n in sizes)
        res.info["generated"] = ", ".join(f"{m.seconds:.1f} s" for m in mems)
        log(f"memories ready in {time.perf_counter() - started:.1f} s: {res.info['sizes']} notes in {work}")
        steps: dict[str, tuple[str, Callable[[], None]]] = {
            "start": (
                "1, 7: process start and memory",
                lambda: measures.measure_startup(res, mems, args.runs, env),
            ),
            "cli": (
                "5, 6: status and health as processes, cold and warm",
                lambda: measures.measure_cli(res, mems[0], args.runs, env, work),
            ),
            "diagnostics": (
                "6: health in-process (diagnostics)",
                lambda: measures.measure_health_in_process(res, mems[0], args.runs, env),
            ),
            "app": (
                "2, 3, 4: latencies in the app",
                lambda: measures.measure_tui(res, mems, args.samples, args.save_samples, env, args.big_saves),
            ),
            "history": (
                "9: history",
                lambda: measures_history.measure_history(res, mems[0], args.runs, env, args.history_versions),
            ),
            "search": ("8: search", lambda: measures.measure_search(res, mems, args.runs, args.samples, env)),
        }
        for key in args.only or list(steps):
            name, step = steps[key]
            t = time.perf_counter()
            log(f"measuring {name} ...")
            step()
            log(f"  done in {time.perf_counter() - t:.1f} s")
    order = {t: i for i, t in enumerate("123456789")}
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
    parser.add_argument(
        "--history-versions", type=int, default=1000, help="versions of the edited file (target 9)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", metavar="DIR", help="keep the generated memories in DIR and reuse them")
    parser.add_argument("--out", metavar="FILE", help="write the table into FILE (e.g. BENCHMARKS.md)")
    parser.add_argument("--json", metavar="FILE", help="write every row as JSON into FILE")
    parser.add_argument(
        "--only",
        type=lambda v: v.split(","),
        metavar="STEPS",
        help="only these steps, comma-separated: start, cli, diagnostics, app, search, history (default all)",
    )
    args = parser.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
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
