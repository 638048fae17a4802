"""Why a route listed in `_index.md` names no memory file: one sentence, the same in `status`, the health
check and the preview. Nothing here follows a link or opens a file; a route that could leave the root
(`..`) is judged by its spelling alone, before any look at the disk."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pmem_tui.core import paths, safeio
from pmem_tui.core.errors import UnsafePath
from pmem_tui.core.model import ACTIVE_DIRS

NOT_THERE_WHEN_READ = "a file that was not there when the memory was read"


def why_dead(root: Path, route: str, folders: dict[str, bool] | None = None) -> str:
    """Why `route` names no memory file: "no such file", or what is there instead (a link, a folder,
    a FIFO, a hidden file, a file outside the active folders, a spelling no memory path has).
    `folders`: what is known of each route's folder (True: it is gone), shared across calls."""
    parts = route.split("/")
    if "\0" in route or any(part in ("", ".", "..") for part in parts):
        try:
            paths.normalize_user_path(route)
        except UnsafePath as err:
            return err.problem
    if any(part.startswith(".") for part in parts):
        return "a hidden file, which pmem-tui does not list"
    if parts[0] not in ACTIVE_DIRS:
        return f"outside {' and '.join(f'{d}/' for d in ACTIVE_DIRS)}, where memory files are listed"
    folders = {} if folders is None else folders
    folder = route.rpartition("/")[0]
    gone = folders.get(folder)
    if gone is None:  # one look per folder: a renamed folder leaves every route in it dead
        gone = folders[folder] = safeio.entry_kind(root, folder) in ("missing", "file", "other")
    if gone:
        return safeio.NO_SUCH_FILE
    what = safeio.what_is_at(root, route)
    return NOT_THERE_WHEN_READ if what is None else what


def dead_reasons(root: Path, routes: Iterable[str]) -> dict[str, str]:
    """`why_dead` of each route (each looked at once)."""
    reasons: dict[str, str] = {}
    folders: dict[str, bool] = {}
    for route in routes:
        if route not in reasons:
            reasons[route] = why_dead(root, route, folders)
    return reasons
