"""The folder and file names the spec gives meaning to, with nothing else: a module that costs nothing to
import (`model` re-exports them; a fast path such as the search index's freshness check imports only this)."""

from __future__ import annotations

CORE_DIR = "_core"
INDEX_FILE = "_index.md"
ARCHIVE_DIR = "_archive"
ARCHIVE_INDEX = "_archive/_index.md"
TRASH_DIR = "_archive/_trash"
ACTIVE_DIRS = ("projects", "notes")
# The tool's own metadata (lock, journal, caches): hidden, ignored by the scan.
META_DIR = ".pmem"
