"""``snapshot``'s quick path: when nothing changed since the last record, answer without argparse or dulwich.

A hook runs `pmem-tui snapshot --quiet` at the end of every agent session and every answer: most of those
runs find nothing changed, and then the run is the stat pass (`core/history/stat_table.py`) and little else.
Anything but a plain ``[--root DIR]... snapshot [--quiet]`` (and any change) goes the usual way.
"""

from __future__ import annotations

from pmem_tui.cli.root import root_str

NOTHING = "Nothing changed since the last record."


def quick(argv: list[str]) -> int | None:
    """0 when `argv` is plainly a `snapshot` and nothing changed (said unless --quiet); else None."""
    root: str | None = None
    seen = quiet = False
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--root" and i + 1 < len(argv) and argv[i + 1] and not argv[i + 1].startswith("-"):
            root = argv[i + 1]
            i += 2
            continue
        if tok == "snapshot" and not seen:
            seen = True
        elif seen and tok == "--quiet":
            quiet = True
        else:
            return None
        i += 1
    if not seen or (root is not None and "\0" in root):
        return None
    from pmem_tui.core.history import stat_table

    where = root_str(root)
    try:
        if not stat_table.store_exists(where) or not stat_table.unchanged(where)[0]:
            return None
    except OSError:
        return None
    if not quiet:
        print(NOTHING)
    return 0
