"""`health`'s stored output: a run whose listing is unchanged prints it, without argparse or the engine.

A plain ``[--root DIR]... health [--json]`` (argparse's defaults: `--inactive-days` and the cache as they
come) goes through `quick`: the history's cheap pass (`health` records what changed first: when the root has
a store and the pass finds a change, the full run does it), one listing and one cache read
(`status_cache`'s key: every entry's stamp below the root, `.pmem/` included, the control files' bytes, the
day, the reader, the code), then the output. A miss goes on to the full run (`health.run_plain`) with the
key already taken, and the run stores its output under it (`keep`): never while the listing is racy, nor
when an action ran.

What is stored is the output without its `stats` (run figures), preceded by the number of active files; a
hit's stats are a reused report's (`HealthStats(files, cache="report", cache_hits=files, seconds=...)`).
Imports only the standard library and `status_cache` on the hit path.
"""

from __future__ import annotations

import sys
import time

from pmem_tui.cli.root import root_str
from pmem_tui.cli.status import plain_command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pmem_tui.core.health import HealthReport
    from pmem_tui.core.settled import Mark
    from pmem_tui.core.status_cache import Probe

_STATS = '\n  "stats": '  # the last member of `health --json`'s object (`cli.health.health_dict`)


class Served:
    """The key a full run stores its output under (`probe`; None: no caching) and the mark taken first."""

    __slots__ = ("before", "probe")

    def __init__(self, probe: Probe | None, before: Mark | None) -> None:
        self.probe = probe
        self.before = before


def quick(argv: list[str]) -> int | tuple[str, bool, Served] | None:
    """For a plain `health` command: 0 when its stored output was printed, else (root, --json, the key
    taken) for the full run (`health.run_plain`); None when `argv` is not that plain, or history has
    something to record first."""
    plain = plain_command(argv, "health", ("--json",))
    if plain is None:
        return None
    started = time.perf_counter()
    root = root_str(plain[0])
    from pmem_tui.core.history import stat_table

    try:
        if stat_table.store_exists(root) and not stat_table.unchanged(root)[0]:
            return None  # the full run records it first
    except OSError:
        return None
    as_json = "--json" in plain[1]
    served = serve(root, as_json, started)
    return 0 if served is None else (root, as_json, served)


def serve(root: str, as_json: bool, started: float) -> Served | None:
    """Print the output stored for the root as it is now and return None; else what the full run needs to
    store its own."""
    from pmem_tui.core import settled, status_cache

    before = settled.mark(root)  # before the key: an action between them must not be stored
    probe = status_cache.probe(root, _fmt(as_json))
    if probe is not None and probe.cached is not None:
        count, _, body = probe.cached.partition(b"\n")
        if count.isdigit():
            tail = _stats_text(int(count), time.perf_counter() - started) if as_json else b""
            write(body + tail + b"\n", as_json)
            return None
    return Served(probe, before)


def keep(served: Served, report: HealthReport, text: str) -> None:
    """Store `text`, the output of `report` made for `served`'s key, when nothing moved meanwhile."""
    from pmem_tui.core import settled, status_cache

    probe = served.probe
    if probe is None or served.before is None or not settled.quiet(report.root, served.before):
        return
    if probe.fmt == _fmt(True):
        at = text.rfind(_STATS)
        if at < 0:
            return
        text = text[:at]
    try:
        status_cache.store(probe, b"%d\n" % report.stats.files + text.encode("utf-8"))
    except UnicodeEncodeError:  # cannot happen: the output is cleaned (`display`)
        return


def _fmt(as_json: bool) -> str:
    return "health-json" if as_json else "health-text"


def _stats_text(files: int, seconds: float) -> bytes:
    """`_STATS` and the stats object of a reused report, as `json_text.dumps_indented` writes them, and
    the object's closing brace."""
    from pmem_tui.cli.json_text import dumps_indented

    stats = {
        "files": files,
        "read": 0,
        "cache": "report",
        "cache_hits": files,
        "cache_written": False,
        "candidates": 0,
        "compared": 0,
        "seconds": seconds,
    }
    return dumps_indented({"stats": stats})[1:].encode("utf-8")


def write(data: bytes, as_json: bool) -> None:
    """UTF-8 bytes to standard output, as `health` writes its output (JSON in ASCII when standard output
    declared another encoding: `streams.use_utf8`)."""
    if as_json:
        from pmem_tui.cli import streams

        data = streams.json_bytes(data)
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
