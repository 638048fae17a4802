"""``snapshot``'s quick path: a plain ``[--root DIR]... snapshot [--quiet]`` answered without argparse.

A hook runs `pmem-tui snapshot --quiet` at the end of every agent session and every answer: most of those
runs find nothing changed, and then the run is the stat pass (`core/history/stat_table.py`) and little else
(no dulwich). When something changed (or there is no store yet), the record is made here from that same pass
(`record.record(seen=...)`): one walk of the tree, not two; the first record (no store yet) reads every file
in one walk with no stat pass at all. Anything else goes the usual way, as does a root
that is not a memory folder (the usual refusal: `memory_root`).
"""

from __future__ import annotations

from pmem_tui.cli.root import root_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pmem_tui.core.history import stat_table

NOTHING = "Nothing changed since the last record."


def answer(argv: list[str]) -> int | None:
    """The exit code when `argv` is plainly a `snapshot` (said unless --quiet); else None (argparse)."""
    from pmem_tui.cli.status import plain_command

    plain = plain_command(argv, "snapshot", ("--quiet",))
    if plain is None:
        return None
    root, flags = plain
    quiet = "--quiet" in flags
    from pmem_tui.core import memory_root
    from pmem_tui.core.history import stat_table

    where = root_str(root)
    if not memory_root.is_memory(where):
        return None
    if not stat_table.store_exists(where):
        return _record(where, None, quiet)  # the first record: every file read in one walk, no stat pass
    try:
        same, started, stamps, table = stat_table.unchanged(where)
    except OSError:
        return None
    if same:
        if not quiet:
            print(NOTHING)
        return 0
    return _record(where, (started, stamps, table), quiet)


def _record(where: str, seen: stat_table.Pass | None, quiet: bool) -> int:
    """The record from the quick path's stat pass (None: there is no store yet): as `cli.history`'s
    `snapshot` says it (a problem: the same refusal on stderr, exit 1)."""
    import sys
    from pathlib import Path

    from pmem_tui.core.history import record

    done = record.record(Path(where), create=True, seen=seen)
    if done.problem is not None:
        from pmem_tui.core.textio import printable

        said = f"History could not record the memory: {done.problem}."
        print(f"pmem-tui: {printable(said)}", file=sys.stderr)
        return 1
    if not quiet:
        print(f"Recorded {done.commit[:12]}." if done.commit else NOTHING)
    return 0
