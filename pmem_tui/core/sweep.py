"""What interrupted writes and older versions leave in a root, for `doctor` to remove (and nothing else).

* temporary files of an interrupted atomic write (`.pmem-tmp-*`), anywhere below the root except inside the
  journal (which `journal.leftovers` covers), `.pmem/`'s own top level included (its `.gitignore`), and the
  history store (`.pmem/history/`: its packs and refs are written the same way);
* `.pmem/cache/`, where pmem-tui kept its caches before they moved to the user's cache folder
  (`cache_home`): only the files it wrote there (by name, regular files), then the folder if nothing else is
  left in it. A symlinked folder, a subfolder or a file of another name is never touched.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from pmem_tui.core.fsops import TEMP_PREFIX
from pmem_tui.core.meta_dir import HISTORY_DIR
from pmem_tui.core.model import META_DIR
from pmem_tui.core.plan import Op, RemoveDir, RemoveFile
from pmem_tui.core.words import plural

__all__ = ["OLD_CACHE_DIR", "old_caches", "temp_files"]

OLD_CACHE_DIR = f"{META_DIR}/cache"
_HISTORY = HISTORY_DIR.rsplit("/", 1)[1]
# scan-v3.bin, health-v1.bin, health-v1-report.json, status-v1-json.bin, and their `.NAME.tmp-PID-HEX` files.
_OLD_CACHE_FILE = re.compile(
    r"\.?(scan-v\d+\.bin|health-v\d+(-report\.json|\.bin)|status-v\d+-\w+\.bin)(\.tmp-\d+-[0-9a-f]+)?"
)


def temp_files(root: Path) -> list[str]:
    """Every temporary file an interrupted write left below `root` (relative paths, sorted)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == META_DIR:
            dirnames[:] = [d for d in dirnames if d == _HISTORY]  # the journal's leftovers are the journal's
        for name in filenames:
            if name.startswith(TEMP_PREFIX):
                found.append(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    return sorted(found)


def old_caches(root: Path) -> tuple[list[Op], list[str]]:
    """The removal of an older pmem-tui's `.pmem/cache/` (see the module docstring), and its note."""
    folder = root / OLD_CACHE_DIR
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return [], []
        names = sorted(os.listdir(folder))
        ours = [n for n in names if _OLD_CACHE_FILE.fullmatch(n) and _is_file(folder / n)]
    except OSError:
        return [], []
    ops: list[Op] = [RemoveFile(f"{OLD_CACHE_DIR}/{n}") for n in ours]
    if len(ours) == len(names):
        ops.append(RemoveDir(OLD_CACHE_DIR))
    if not ops:
        return [], []
    what = (
        f"{OLD_CACHE_DIR}/" if len(ours) == len(names) else f"{plural(len(ours), 'file')} of {OLD_CACHE_DIR}/"
    )
    return ops, [f"Remove {what}: the caches an older pmem-tui kept in the root (now in your cache folder)."]


def _is_file(path: Path) -> bool:
    return stat.S_ISREG(os.lstat(path).st_mode)  # a link is not one: never followed, never removed
