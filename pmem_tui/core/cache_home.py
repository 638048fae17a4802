"""Where a memory root's caches live: the user's cache folder, one folder per root, never under the root.

    <user cache>/pmem-tui/<key>/      platformdirs.user_cache_dir("pmem-tui") (it follows $XDG_CACHE_HOME),
                                      or $PMEM_TUI_CACHE_DIR when set (tests point it at a temporary folder)

`<key>` is the first 32 hex digits of the SHA-256 of the root's resolved path, its device and its inode: the
same folder whatever path the root is reached by, and a fresh one when the root is removed and made again at
the same path (its old caches then simply go unused). The caches are rebuilt from the root, so nothing here
needs to survive; they hold titles and summaries of memory files, so the folders are made readable by the
user alone.

A cache folder that would fall inside the root (a cache home set below it, or a root that contains the
user's cache folder) is not used: a read-only command changes nothing under the root (PM-AGENT-3).

Standard library only at import (platformdirs is imported when first needed): `status_cache` runs this on its
hit path, before the rest of pmem-tui is imported.
"""

from __future__ import annotations

import os
import stat

__all__ = ["APP_NAME", "ENV_CACHE_DIR", "base", "folder_for"]

APP_NAME = "pmem-tui"
ENV_CACHE_DIR = "PMEM_TUI_CACHE_DIR"


def base() -> str:
    """The folder holding every root's cache folder (which may not exist yet)."""
    override = os.environ.get(ENV_CACHE_DIR)
    if override:
        return os.path.abspath(override)
    import platformdirs  # 5 ms: only when no override is set

    return platformdirs.user_cache_dir(APP_NAME)


def folder_for(root: str | os.PathLike[str]) -> str | None:
    """The cache folder of `root` (which may not exist yet), or None when the root is not a folder or the
    cache folder would fall inside it."""
    try:
        real = os.path.realpath(root)
        st = os.stat(real)
        home = os.path.realpath(base())
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(st.st_mode) or home == real or home.startswith(real.rstrip(os.sep) + os.sep):
        return None
    import hashlib  # 2 ms: after the cheap refusals

    ident = os.fsencode(real) + b"\0%d\0%d" % (st.st_dev, st.st_ino)
    return os.path.join(home, hashlib.sha256(ident).hexdigest()[:32])
