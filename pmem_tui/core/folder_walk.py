"""Walk the files below a folder of the root, never following a link: each folder listed through `safeio`
(or taken from a listing made just before, `Listed`), only regular files yielded, what is not walked (a
link, a special file, a folder that cannot be listed) said as a `Problem`. The scan, the record match, the
health check and doctor list the tree through it."""

from __future__ import annotations

import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from pmem_tui.core import folder_reads, safeio
from pmem_tui.core.model import FileInfo, Problem

# A folder's entries as (name, st_mode, size, mtime_ns, ctime_ns), by folder: a listing already taken
# (`status_cache.Probe.folders`, history's stat pass: `folder_reads.stamps_below`), which `walk_files` uses
# instead of listing a folder again.
Listed = folder_reads.Listing


def walk_files(
    root: Path,
    rel_dir: str,
    *,
    skip: frozenset[str] = frozenset(),
    ctime: bool = True,
    listed: Listed | None = None,
) -> tuple[list[FileInfo], list[Problem]]:
    """Every non-hidden regular file below `rel_dir` with its size, mtime_ns and ctime_ns, sorted by path
    (`walk`; `ctime=False`: ctime_ns left 0)."""
    problems: list[Problem] = []
    files = [
        FileInfo(rel, s, m, c if ctime else 0) for rel, s, m, c in walk(root, rel_dir, problems, skip, listed)
    ]
    files.sort(key=lambda f: f.path)
    return files, problems


def walk(
    root: Path,
    rel_dir: str,
    problems: list[Problem],
    skip: frozenset[str] = frozenset(),
    listed: Listed | None = None,
) -> Iterator[tuple[str, int, int, int]]:
    """Every non-hidden regular file below `rel_dir`, in no order, as (path, size, mtime_ns, ctime_ns),
    never following symlinks; what is not walked (a link, a special file, a folder that cannot be listed)
    goes to `problems`. `listed`: the folders a listing taken just before already holds (others are
    listed); each folder walked is taken out of it."""
    stack = [rel_dir]
    while stack:
        current = stack.pop()
        rows: Iterable[tuple[str, int, int, int, int]] | None = (
            listed.pop(current, None) if listed is not None else None  # used once: freed as it is walked
        )
        if rows is None:
            try:
                rows = (  # the folder is listed here, inside the `try`; no list of rows is built
                    (name, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                    for name, st in safeio.list_dir(root, current)
                )
            except safeio.UnsafeFile as err:  # it became a link (or a file) since the folder above was listed
                problems.append(Problem(err.kind, current, err.detail))
                continue
            except OSError as err:
                problems.append(Problem("unreadable", current, f"cannot list this folder: {err.strerror}"))
                continue
        for name, mode, size, mtime_ns, ctime_ns in rows:
            rel = f"{current}/{name}"
            if name.startswith(".") or rel in skip:
                continue
            if stat.S_ISDIR(mode):
                stack.append(rel)
            elif stat.S_ISREG(mode):
                yield rel, size, mtime_ns, ctime_ns
            else:  # a link or a special file: said as a refusal to open it says it
                not_read = safeio.refusal(rel, mode)
                problems.append(Problem(not_read.kind, rel, not_read.detail))


def walkable(root: Path, rel: str) -> bool:
    """A folder to walk: a real one, or a link (which the walk reports as `symlink` and never enters)."""
    return safeio.entry_kind(root, rel) in ("dir", "symlink")
