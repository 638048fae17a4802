"""What history records and where it keeps it (standard library only: the cheap pass imports this)."""

from __future__ import annotations

HISTORY_DIR = ".pmem/history"  # kept equal to `model.META_DIR` + "/history" (tested)
MAIN_REF = "refs/heads/main"
REVIEWED_REF = "refs/pmem/reviewed"
LOCK_NAME = "record.lock"  # inside the store: one recorder at a time
# The memory tree: these folders (every non-hidden regular file below them, `_archive/_trash/` included)
# and the root index. Nothing else under the root (not `.pmem/`, not a README someone left there).
TRACKED_DIRS = ("_core", "projects", "notes", "_archive")
TRACKED_FILES = ("_index.md",)
_ARCHIVE_PREFIXES = ("_archive/_trash/", "_archive/")
_CONTROL = ("_index.md", "_archive/_index.md")
_ACTIVE_PREFIXES = ("projects/", "notes/")  # where an archived file came from (the archive mirrors it)

SEEN_ON_DISK = "seen on disk"
ORIGIN_TRAILER = "Pmem-Origin: "  # a record's last line: what made it


def original_path(path: str) -> str:
    """Where a file lives when active: `_archive/projects/a.md` and `_archive/_trash/projects/a.md` are
    `projects/a.md` (a file's history follows it into the archive and back). The control files are
    themselves, and so is a file an agent put elsewhere in the archive (`_archive/old.md` is not `old.md`)."""
    if path in _CONTROL:
        return path
    for prefix in _ARCHIVE_PREFIXES:
        if path.startswith(prefix):
            rest = path[len(prefix) :]
            return rest if rest.startswith(_ACTIVE_PREFIXES) else path
    return path
