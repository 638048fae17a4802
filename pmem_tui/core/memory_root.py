"""Is a folder a memory? What the commands that would create files in it (a history store, a save's index,
upgrade's lifecycle folders) ask first, so that a wrong `--root` (`~`, `/`, a project) is refused instead of
left with pmem-tui's files.

A memory folder holds at least one of the files or folders only a memory has (PM-LAYOUT-1): `_index.md`,
`_core/` or `_archive/_index.md` (a symbolic link counts: it is there, and is refused where it is used).
`projects/` and `notes/` alone do not make one for what writes unseen (a snapshot's history store): plenty
of other folders have them. With a `.md` file in them they do for `upgrade` and `save`, whose previews
name every path they create (`places=True`; found in review: a memory an agent began with `notes/x.md`
and no index was sent to `upgrade`, which refused it). A missing or empty folder is no memory yet: the
first save makes one (`save_planner.is_unborn`).

Imports only `os` and `names`: `snapshot`'s quick path asks it.
"""

from __future__ import annotations

import os

from pmem_tui.core.names import ACTIVE_DIRS, ARCHIVE_INDEX, CORE_DIR, INDEX_FILE

MARKERS = (INDEX_FILE, CORE_DIR, ARCHIVE_INDEX)
PLACES = ACTIVE_DIRS  # projects/, notes/


def is_memory(root: str | os.PathLike[str], places: bool = False) -> bool:
    """`root` is a folder holding `_index.md`, `_core/` or `_archive/_index.md` (`places`: or a `projects/`
    or `notes/` folder with a `.md` file in it, as an agent leaves a memory it began without an index)."""
    if not os.path.isdir(root):
        return False
    if any(os.path.lexists(os.path.join(root, name)) for name in MARKERS):
        return True
    return places and any(_holds_markdown(os.path.join(root, place)) for place in PLACES)


def _holds_markdown(folder: str) -> bool:
    """A real folder (not a link) with a `.md` file directly in it."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        return False
    try:
        with os.scandir(folder) as entries:
            return any(e.name.endswith(".md") and e.is_file(follow_symlinks=False) for e in entries)
    except OSError:
        return False


def not_a_memory(root: str | os.PathLike[str], places: bool = False) -> str:
    """Why `root` is not a memory folder, the start of a sentence: "R is not a memory folder (...)"."""
    if not os.path.lexists(root):
        why = "it does not exist"
    elif not os.path.isdir(root):
        why = "it is not a folder"
    else:
        why = f"it has no {INDEX_FILE}, {CORE_DIR}/ or {ARCHIVE_INDEX}"
        if places:
            why += f", nor a .md file in {PLACES[0]}/ or {PLACES[1]}/"
    return f"{os.fspath(root)} is not a memory folder ({why})"
