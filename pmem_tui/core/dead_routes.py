"""Why a route listed in `_index.md` names no memory file: one sentence, the same in `status`, the health
check and the preview. Nothing here follows a link or opens a file; a route that could leave the root
(`..`) is judged by its spelling alone, before any look at the disk."""

from __future__ import annotations

from collections import Counter
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
    `folders`: the names of the folders of many dead routes, listed once (`dead_reasons`); another
    route's folder is not listed (one dead route in a folder of 10^5 files: one look, not a listing)."""
    spelled = _spelling_problem(route)
    if spelled is not None:
        return spelled
    parts = route.split("/")
    folder, _, name = route.rpartition("/")
    names = (folders or {}).get(folder)
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


def _spelling_problem(route: str) -> str | None:
    """What makes `route` a path that could leave the root or hides a name (`..`, `.`, `//`, a NUL), as a
    refusal says it; None for a plain one (which may still be looked at on the disk)."""
    if "\0" not in route and not any(part in ("", ".", "..") for part in route.split("/")):
        return None
    try:
        paths.normalize_user_path(route)
    except UnsafePath as err:
        return err.problem
    return "it is not a plain path"  # (normalize refuses every one of them)


def _names(root: Path, folder: str) -> frozenset[str] | None:
    """The names in `folder` (none when it is gone or not a folder); None when it cannot be listed (a
    link on the way, no permission): each route in it is then looked at alone."""
    try:
        return safeio.names_in(root, folder)
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()
    except (OSError, ValueError):
        return None


MANY = 8  # dead routes in one folder from which the folder is listed once, not each route looked at


def dead_reasons(root: Path, routes: Iterable[str]) -> dict[str, str]:
    """`why_dead` of each route (each looked at once; a folder of MANY or more of them listed once)."""
    unique = list(dict.fromkeys(routes))
    count = Counter(route.rpartition("/")[0] for route in unique if _spelling_problem(route) is None)
    folders: Folders = {folder: _names(root, folder) for folder, n in count.items() if n >= MANY}
    return {route: why_dead(root, route, folders) for route in unique}
