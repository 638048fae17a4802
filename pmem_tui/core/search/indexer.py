"""Keeping the search index in step with the files: list, compare stamps, read only what changed.

What is indexed: the active files (`projects/`, `notes/`: Markdown), everything under `_core/`, and, marked
by their location, the files under `_archive/` and its trash; never the two index files, never a hidden
name. Files are listed by one cheap walk (`folder_reads.stamps_below`: no link followed) and read through
`safeio` (no link at any depth, never a FIFO or a device, never over the cap). A file that is not UTF-8
text (invalid bytes, or a NUL: binary) is not indexed and is counted, so a search can say how many it
could not look into.

Freshness is the cache layer's one rule (`cache.fresh`): a file's (size, mtime_ns, ctime_ns) is kept with
the clock time it was read at, and it is read again when that stamp changed or it was racy. A refresh
applies that rule to every file at once (`_changed`: one query, one set difference), no Python per file.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from pmem_tui.core import cache, folder_reads, safeio
from pmem_tui.core.names import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CORE_DIR,
    INDEX_FILE,
    TRASH_DIR,
)
from pmem_tui.core.search.db import transaction

Progress = Callable[[int, int], None]  # (files read so far, files to read)
BATCH = 500  # files per transaction: a reader sees the index grow, and a build stopped midway is kept

TEXT, NOT_TEXT, UNREADABLE = "text", "not-text", "unreadable"
# Where each listed folder's files live, and whether only Markdown counts there (the active folders).
_AREAS: tuple[tuple[str, str, bool], ...] = (
    *((folder, "active", True) for folder in ACTIVE_DIRS),
    (CORE_DIR, "core", False),
    (ARCHIVE_DIR, "archive", False),
    (TRASH_DIR, "trash", False),
)
_NOT_LISTED = frozenset({TRASH_DIR, ARCHIVE_INDEX})  # the archive's walk: the trash is its own area


Row = tuple[str, int, int, int]  # path, size, mtime_ns, ctime_ns: a file as listed, and as the index saw it


def location(path: str) -> str | None:
    """Where `path` lives if it is a file the index holds (None: it is not one)."""
    if path in (INDEX_FILE, ARCHIVE_INDEX) or any(p.startswith(".") for p in path.split("/")):
        return None
    if path.startswith(TRASH_DIR + "/"):
        return "trash"
    if path.startswith(ARCHIVE_DIR + "/"):
        return "archive"
    if path.startswith(CORE_DIR + "/"):
        return "core"
    if path.endswith(".md") and any(path.startswith(folder + "/") for folder in ACTIVE_DIRS):
        return "active"
    return None


def list_files(root: Path) -> list[Row]:
    """Every file the index should hold, with its stamp (links and special files never listed): one walk
    of each area (`folder_reads.stamps_below`: no link entered, one lstat a file)."""
    found: list[Row] = []
    for folder, _where, markdown_only in _AREAS:
        found += folder_reads.stamps_below(
            root, folder, suffix=".md" if markdown_only else "", skip=_NOT_LISTED
        )
    return [row for row in found if _storable(row[0])]


def _storable(path: str) -> bool:
    """Whether SQLite can hold `path`: a name that is not UTF-8 (`notes/\udcff.md`, read with
    surrogateescape) cannot be a text value, and is left out of the index (found in review: `search` ended
    in a traceback)."""
    if path.isascii():
        return True
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _content(root: Path, rel: str) -> tuple[str, str | None, os.stat_result | None]:
    """(state, text, stat) of one file: its text when it is UTF-8 text; None stat when it is gone."""
    try:
        data, st = safeio.read_under_stat(root, rel)
    except FileNotFoundError:
        return UNREADABLE, None, None
    except OSError:  # too large, no permission...; or it became a link or a FIFO: not a file we index
        return UNREADABLE, None, _regular_stat(root, rel)
    from pmem_tui.core import textio  # only when a file is read: a refresh with nothing new skips it

    if b"\0" in data or not textio.is_valid_utf8(data):
        return NOT_TEXT, None, st
    return TEXT, data.decode("utf-8"), st


def _regular_stat(root: Path, rel: str) -> os.stat_result | None:
    try:
        st = safeio.lstat_under(root, rel)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _forget(conn: sqlite3.Connection, path: str) -> None:
    row = conn.execute("SELECT docid FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return
    if row[0] is not None:
        conn.execute("DELETE FROM docs WHERE rowid = ?", (row[0],))
    conn.execute("DELETE FROM files WHERE path = ?", (path,))


def _index_one(conn: sqlite3.Connection, root: Path, path: str, where: str, seen_ns: int) -> None:
    """(Re-)index one file: its old row goes, its new one comes (or none when it is gone)."""
    _forget(conn, path)
    state, text, st = _content(root, path)
    if st is None:
        return
    docid = None
    if text is not None:
        from pmem_tui.core import summary  # only when a file is read: a search with nothing new skips it

        title, info = summary.inspect(text)
        cur = conn.execute(
            "INSERT INTO docs(title, summary, body) VALUES (?, ?, ?)",
            (title or "", "\n".join(info.bullets), text),
        )
        docid = cur.lastrowid
    conn.execute(
        "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (path, where, st.st_size, st.st_mtime_ns, st.st_ctime_ns, seen_ns, state, docid),
    )


def _changed(conn: sqlite3.Connection, listed: list[Row]) -> tuple[list[str], list[str]]:
    """(the files to read: new, changed or racy; the files gone), by `cache.fresh`'s rule in bulk: a file is
    fresh when its stamp is the one indexed and was not racy then (`cache.is_racy`, which only depends on
    what the row holds, evaluated by SQLite), so one set difference of (path, stamp) rows finds the others
    and no Python runs per unchanged file."""
    fresh = set(
        conn.execute(
            "SELECT path, size, mtime_ns, ctime_ns FROM files WHERE max(mtime_ns, ctime_ns) < seen_ns - ?",
            (cache.RACY_NS,),
        )
    )
    todo = [row[0] for row in set(listed) - fresh]
    (held,) = conn.execute("SELECT count(*) FROM files").fetchone()
    gone: list[str] = []
    if held > len(listed) - len(todo):  # some indexed path is not listed any more (or was racy)
        paths = {row[0] for row in listed}
        gone = [path for (path,) in conn.execute("SELECT path FROM files") if path not in paths]
    return todo, gone


def refresh(conn: sqlite3.Connection, root: Path, progress: Progress | None = None) -> int:
    """Bring the index up to date with the files: read the new and changed ones, drop the gone ones.
    Returns how many files were read or dropped."""
    started = cache.clock()  # before anything is listed: a change after this is racy, read again
    todo, gone = _changed(conn, list_files(root))
    if not gone and not todo:
        return 0
    todo.sort()  # in path order, as the first index always was (the broad query's first body matches)
    total = len(todo)
    with transaction(conn):
        for path in gone:
            _forget(conn, path)
    for start in range(0, total, BATCH):
        with transaction(conn):
            for path in todo[start : start + BATCH]:
                where = location(path)
                if where is not None:
                    _index_one(conn, root, path, where, started)
        if progress is not None:
            progress(min(start + BATCH, total), total)
    return len(gone) + total


def update_paths(conn: sqlite3.Connection, root: Path, paths: Iterable[str]) -> bool:
    """Re-index the files the watcher named (each: changed, new or gone). False when one of them is a
    folder, whose files are not named: the caller then runs `refresh`, which finds them by their stamps."""
    started = cache.clock()
    folders = tuple(folder for folder, _where, _md in _AREAS)
    with transaction(conn):
        for path in sorted(set(paths)):
            if not any(path == f or path.startswith(f + "/") for f in folders) or "/." in "/" + path:
                continue  # never indexed: the index files, `.pmem/`, hidden names, anything outside the areas
            if not _storable(path):
                continue
            try:
                kind = safeio.entry_kind(root, path)
            except ValueError:
                continue
            if kind == "dir":
                return False
            if kind == "missing":  # a file or a whole folder gone
                _forget(conn, path)
                for (below,) in conn.execute(
                    "SELECT path FROM files WHERE substr(path, 1, ?) = ?", (len(path) + 1, path + "/")
                ).fetchall():
                    _forget(conn, below)
                continue
            where = location(path)
            if where is None or kind != "file":
                _forget(conn, path)  # now a link or a special file: no longer indexed
            else:
                _index_one(conn, root, path, where, started)
    return True


class Counts:
    """The files the index could not look into (what every answer's note says)."""

    __slots__ = ("not_text", "unreadable")

    def __init__(self, not_text: int, unreadable: int) -> None:
        self.not_text = not_text  # not text (not UTF-8, or a NUL byte): not indexed
        self.unreadable = unreadable  # could not be read (too large, a permission...)


def counts(conn: sqlite3.Connection) -> Counts:
    """From the `state` index, the few rows that are not text only (counting the text ones too walked the
    whole index: 10 ms a query at 100,000 files)."""
    by_state = dict(
        conn.execute(
            "SELECT state, count(*) FROM files WHERE state IN (?, ?) GROUP BY state", (NOT_TEXT, UNREADABLE)
        ).fetchall()
    )
    return Counts(by_state.get(NOT_TEXT, 0), by_state.get(UNREADABLE, 0))
