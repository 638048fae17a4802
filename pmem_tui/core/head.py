"""The head of the index: its first entries and their files, read before the full scan.

The app shows these as soon as it starts, so its first usable frame costs the same at 100 files and at
100,000: a bounded read of `_index.md` (whole lines of its first `HEAD_BYTES`) and an `lstat` per path
component of each route. The full scan then replaces them. The rules match the scan's: a route is an
active file only when it is a regular `.md` file in `projects/` or `notes/`, reached without a link or a
hidden name; anything else shows as a dead route until the scan says otherwise.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pmem_tui.core import index, safeio, textio
from pmem_tui.core.model import ACTIVE_DIRS, INDEX_FILE, FileInfo, IndexEntry

HEAD_BYTES = 32 * 1024
HEAD_ENTRIES = 120  # more than a tall terminal shows


def index_head(
    root: Path, *, max_bytes: int = HEAD_BYTES, max_entries: int = HEAD_ENTRIES
) -> list[tuple[IndexEntry, FileInfo | None]] | None:
    """The first entries of `_index.md`, each with its file's stat (None: not an active file).

    None when the head cannot stand for the file's beginning: no index, an unreadable one, a first line
    longer than `max_bytes`, or front matter that does not close within the head (lines inside it are
    not entries, and only the end of the front matter says where it ends).
    """
    try:
        with safeio.open_file(root / INDEX_FILE) as fh:  # never a link, a FIFO or a device
            data = fh.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) > max_bytes:  # more follows: keep whole lines only
        cut = data.rfind(b"\n", 0, max_bytes)
        if cut < 0:
            return None
        data = data[: cut + 1]
    text = textio.decode(data)
    lines = textio.split_bom(text)[1].split("\n")
    if lines[0].rstrip() == "---" and not any(line.rstrip() in ("---", "...") for line in lines[1:]):
        return None  # the parser's own test for the end of front matter (`index._entry_bodies`)
    entries = index.parse_index(text)[:max_entries]
    return [(entry, active_file_info(root, entry.route)) for entry in entries]


def active_file_info(root: Path, route: str) -> FileInfo | None:
    """`route`'s size and mtime when the scan would list it as an active file, else None."""
    parts = route.split("/")
    if (
        len(parts) < 2
        or parts[0] not in ACTIVE_DIRS
        or not route.endswith(".md")
        or any(not p or p.startswith(".") for p in parts)
    ):
        return None
    current = str(root)
    for depth, part in enumerate(parts):
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except (OSError, ValueError):  # missing, unreadable, or a NUL in the name
            return None
        last = depth == len(parts) - 1
        if not (stat.S_ISREG(st.st_mode) if last else stat.S_ISDIR(st.st_mode)):
            return None  # a link (lstat never follows one), or the wrong kind of file
    return FileInfo(route, st.st_size, st.st_mtime_ns)
