"""The search index's database: one SQLite file in the root's cache folder, its schema, and its repair.

    <cache folder of the root>/search-v3.sqlite   (`core/cache_home.py`: never under the memory root)

    files(path, location, size, mtime_ns, ctime_ns, seen_ns, state, docid)   what was indexed, and when
    docs   FTS5 (trigram): title, summary, body (the whole text); its rowid is the file's docid

A query filters by place and path on `files` (small rows, indexed by docid), never on `docs`, whose row
holds the whole text: reading it for each match to test its place was most of a query's time.

It is a cache: nothing in it is needed, so it is written without syncs (WAL, `synchronous=OFF`), and one
that is damaged (garbage, truncated, a folder or a link in its place, another schema) is removed and built
again from the files. `DatabaseError` anywhere while it is used means the same (`Damaged`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator

from pmem_tui.core import cache

DB_FILE = "search-v3.sqlite"
SCHEMA = 5  # `PRAGMA user_version`: a file of another version is rebuilt (4 is upgraded: `_UPGRADE`)
# bm25 weights, in the columns' order: the title and the summary count above the body.
WEIGHTS = (10.0, 5.0, 1.0)
_SIDE_FILES = ("-wal", "-shm", "-journal")
BUSY_MS = 10_000  # how long a writer waits for another process's transaction (a batch of the first build)

_CREATE = (
    """CREATE TABLE IF NOT EXISTS files(
        path TEXT PRIMARY KEY, location TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL, seen_ns INTEGER NOT NULL, state TEXT NOT NULL, docid INTEGER
    ) WITHOUT ROWID""",
    # A match's place and path from the index alone (a query joins every match to `files`): at 100,000
    # files, 14,000 matches tested for `in:archive` took 50 ms with an index on docid only, 31 with this.
    "CREATE INDEX IF NOT EXISTS files_docid_place ON files(docid, location, path)",
    "CREATE INDEX IF NOT EXISTS files_state ON files(state)",  # the counts every answer gives, from the index
    "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(title, summary, body, tokenize='trigram')",
    f"INSERT INTO docs(docs, rank) VALUES('rank', 'bm25({', '.join(map(str, WEIGHTS))})')",
    # No merging while files are added (a third off a build); FTS5's crisis merges still bound the segments.
    "INSERT INTO docs(docs, rank) VALUES('automerge', 0)",
    f"PRAGMA user_version = {SCHEMA}",
)
# Schema 4 -> 5 in place (0.2 s at 100,000 files, against a rebuild's minutes): the covering index.
_UPGRADE = (
    "CREATE INDEX IF NOT EXISTS files_docid_place ON files(docid, location, path)",
    "DROP INDEX IF EXISTS files_docid",
    f"PRAGMA user_version = {SCHEMA}",
)


class Damaged(Exception):
    """The database cannot be trusted: it is removed and rebuilt."""


def location_of(root: str | os.PathLike[str], create: bool = True) -> str | None:
    """Where the root's index lives (None: no cache folder can be used; the index then lives in memory)."""
    where = cache.folder(root, create=create)
    return None if where is None else os.path.join(where, DB_FILE)


def remove(path: str) -> None:
    """Remove the database and its side files, whatever stands in their place (a folder, a link: the link
    only, never what it points to)."""
    for name in (path, *(path + side for side in _SIDE_FILES)):
        try:
            st = os.lstat(name)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(st.st_mode):
            import shutil  # 5 ms (it loads bz2 and lzma): only for a folder in the database's place

            shutil.rmtree(name, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)


def _damaged_on_disk(path: str) -> bool:
    """Not a regular file, or shorter than its own header says (truncated) while no WAL holds the rest."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return True
    if st.st_size == 0:
        return False
    try:
        with open(path, "rb") as f:  # a regular file in our own cache folder (checked just above)
            header = f.read(100)
    except OSError:
        return True
    if len(header) < 100 or not header.startswith(b"SQLite format 3\0"):
        return True
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    return st.st_size < pages * page_size and not os.path.exists(path + "-wal")


def contains_casefolded(text: str | None, term: str) -> bool:
    """`term` (lower case) in `text` whatever the case: SQLite's own `lower` and `LIKE` fold ASCII only."""
    return text is not None and term in text.lower()


def _configure(conn: sqlite3.Connection, on_disk: bool) -> None:
    conn.create_function("pmem_contains", 2, contains_casefolded, deterministic=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")  # another pmem-tui process updating it: wait for it
    if on_disk:
        conn.execute("PRAGMA journal_mode = WAL")  # readers see the last commit while a build writes
    conn.execute("PRAGMA synchronous = OFF")  # a cache: a crash costs a rebuild, never a wrong answer
    conn.execute("PRAGMA cache_size = -32000")


def _schema_ok(conn: sqlite3.Connection) -> bool:
    if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
        return False
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"files", "docs"} <= names


def _upgraded(conn: sqlite3.Connection) -> bool:
    """Bring an index of the previous schema (4) to this one; False when it is of any other."""
    if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA - 1:
        return False
    with transaction(conn):
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA - 1:  # not done meanwhile by another
            for statement in _UPGRADE:
                conn.execute(statement)
    return _schema_ok(conn)


def connect(path: str | None) -> tuple[sqlite3.Connection, bool]:
    """A connection to the index at `path` (None: in memory), and whether it was made anew (empty). A
    damaged or foreign file is removed first. Creating is idempotent: two processes may both find the file
    empty (the second waits for the first's transaction, then creates nothing)."""
    if path is not None and _damaged_on_disk(path):
        remove(path)
    for attempt in range(2):
        conn = sqlite3.connect(
            path or ":memory:", timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            _configure(conn, path is not None)
            fresh = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
            if fresh:
                create(conn)
            elif not _schema_ok(conn) and not _upgraded(conn):
                raise Damaged("another schema")
            return conn, fresh
        except (sqlite3.DatabaseError, Damaged):
            conn.close()
            if path is None or attempt:
                raise
            remove(path)
    raise AssertionError("unreachable")


def connect_reader(path: str | None) -> sqlite3.Connection | None:
    """A connection that only reads an index another connection builds (the app's queries while its worker
    builds): None while there is none yet; never creates, removes or repairs anything."""
    if path is None or _damaged_on_disk(path) or not os.path.isfile(path):
        return None
    conn = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        conn.create_function("pmem_contains", 2, contains_casefolded, deterministic=True)
        if not _schema_ok(conn):
            conn.close()
            return None
    except sqlite3.DatabaseError:
        conn.close()
        return None
    return conn


def create(conn: sqlite3.Connection) -> None:
    with transaction(conn):
        for statement in _CREATE:
            conn.execute(statement)


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
