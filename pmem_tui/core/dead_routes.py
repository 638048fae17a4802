"""Why a route listed in `_index.md` names no memory file: one sentence, the same in `status`, the health
check and the preview. Nothing here follows a link or opens a file; a route that could leave the root
(`..`) is judged by its spelling alone, before any look at the disk."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pmem_tui.core import paths, safeio
from pmem_tui.core.errors import UnsafePath
from pmem_tui.core.model import ACTIVE_DIRS

NOT_THERE_WHEN_READ = "a file that was not there when the memory was read"
Folders = dict[str, frozenset[str] | None]  # a folder's names, listed once; None: it could not be listed


def why_dead(root: Path, route: str, folders: Folders | None = None) -> str:
    """Why `route` names no memory file: "no such file", or what is there instead (a link, a folder,
    a FIFO, a hidden file, a file outside the active folders, a spelling no memory path has).
    `folders`: the names of each route's folder, listed once and shared across calls (a renamed folder
    leaves every route in it dead)."""
    parts = route.split("/")
    if "\0" in route or any(part in ("", ".", "..") for part in parts):
        try:
            paths.normalize_user_path(route)
        except UnsafePath as err:
            return err.problem
    folder, _, name = route.rpartition("/")
    folders = {} if folders is None else folders
    if folder not in folders:
        folders[folder] = _names(root, folder)
    names = folders[folder]
    if names is not None and name not in names:
        return safeio.NO_SUCH_FILE
    what = safeio.what_is_at(root, route)  # (a folder that could not be listed: said here)
    if what is not None:
        return what
    if any(part.startswith(".") for part in parts):
        return "a hidden file, which pmem-tui does not list"
    if parts[0] not in ACTIVE_DIRS:
        return f"outside {' and '.join(f'{d}/' for d in ACTIVE_DIRS)}, where memory files are listed"
    return NOT_THERE_WHEN_READ


def _names(root: Path, folder: str) -> frozenset[str] | None:
    """The names in `folder` (none when it is gone or not a folder); None when it cannot be listed (a
    link on the way, no permission): each route in it is then looked at alone."""
    try:
        fd = safeio.open_dir(root, folder)
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()
    except (OSError, ValueError):
        return None
    try:
        return frozenset(os.listdir(fd))
    except OSError:
        return None
    finally:
        os.close(fd)


def dead_reasons(root: Path, routes: Iterable[str]) -> dict[str, str]:
    """`why_dead` of each route (each looked at once)."""
    reasons: dict[str, str] = {}
    folders: Folders = {}
    for route in routes:
        if route not in reasons:
            reasons[route] = why_dead(root, route, folders)
    return reasons
