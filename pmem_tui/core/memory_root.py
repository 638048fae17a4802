"""Is a folder a memory? What the commands that would create files in it (a history store, a save's index,
upgrade's lifecycle folders) ask first, so that a wrong `--root` (`~`, `/`, a project) is refused instead of
left with pmem-tui's files.

A memory folder holds at least one of the files or folders only a memory has (PM-LAYOUT-1): `_index.md`,
`_core/` or `_archive/_index.md` (a symbolic link counts: it is there, and is refused where it is used).
`projects/` and `notes/` alone do not make one: plenty of other folders have them. A missing or empty
folder is no memory yet: the first save makes one (`save_planner.is_unborn`).

Imports only `os` and `names`: `snapshot`'s quick path asks it.
"""

from __future__ import annotations

import os

from pmem_tui.core.names import ARCHIVE_INDEX, CORE_DIR, INDEX_FILE

MARKERS = (INDEX_FILE, CORE_DIR, ARCHIVE_INDEX)
MARKER_WORDS = f"{INDEX_FILE}, {CORE_DIR}/ or {ARCHIVE_INDEX}"  # "it has no ..."


def is_memory(root: str | os.PathLike[str]) -> bool:
    """`root` is a folder holding `_index.md`, `_core/` or `_archive/_index.md`."""
    return os.path.isdir(root) and any(os.path.lexists(os.path.join(root, name)) for name in MARKERS)


def not_a_memory(root: str | os.PathLike[str]) -> str:
    """Why `root` is not a memory folder, the start of a sentence: "R is not a memory folder (...)"."""
    if not os.path.lexists(root):
        why = "it does not exist"
    elif not os.path.isdir(root):
        why = "it is not a folder"
    else:
        why = f"it has no {MARKER_WORDS}"
    return f"{os.fspath(root)} is not a memory folder ({why})"
