"""Full-text search over every memory file: an SQLite FTS5 index (trigram) in the user's cache folder.

    idx = SearchIndex.open(root)          # the root's index (rebuilt from scratch when damaged)
    idx.refresh(progress)                 # read only the files whose stamp changed; drop the gone ones
    idx.update_paths(paths)               # the app's watcher: these files changed
    idx.search("words \\"a phrase\\" path:notes/* in:archive", limit=20) -> Results

`query.py` says what a query means, `db.py` where the index lives and how a damaged one is rebuilt,
`indexer.py` what is indexed and how it is kept fresh, `find.py` how hits are ranked and their snippets cut.
Plain functions and classes (no `dataclasses`, no `typing`: 9 ms of a search's process), no UI; the CLI
(`cli/search.py`) and the app's search screen use this.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from pmem_tui.core.errors import Refused
from pmem_tui.core.search import db, indexer
from pmem_tui.core.search.indexer import Counts, Progress
from pmem_tui.core.search.query import LOCATIONS, BadQuery, Query, parse
from pmem_tui.core.words import plural

__all__ = ["LOCATIONS", "BadQuery", "Counts", "Hit", "Progress", "Query", "Results", "SearchIndex", "parse"]

TYPE_CHECKING = False  # `typing` only for mypy: not on a search process's imports
if TYPE_CHECKING:
    from typing import TypeVar

    from pmem_tui.core.search.find import Hit

    T = TypeVar("T")


def __getattr__(name: str) -> object:
    """`Hit` from `find`, imported on first use: a refresh (the stamps only) never loads the query code."""
    if name == "Hit":
        from pmem_tui.core.search.find import Hit

        return Hit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_LOCATIONS = ("active", "core")  # without --archive / in:


class Results:
    __slots__ = ("broad", "counts", "hits")

    def __init__(self, hits: tuple[Hit, ...], counts: Counts, broad: bool = False) -> None:
        self.hits = hits
        self.counts = counts
        self.broad = broad  # too many matches to rank them all: the likeliest ones were ranked

    @property
    def note(self) -> str | None:
        """What the index could not look into, in one sentence (None: nothing)."""
        broad = "Many matches: the best of the first ones found are shown; add words to narrow it."
        parts = []
        if self.counts.not_text:
            parts.append(f"{self.counts.not_text} not text (not UTF-8, or holding a NUL byte)")
        if self.counts.unreadable:
            parts.append(f"{self.counts.unreadable} could not be read")
        total = self.counts.not_text + self.counts.unreadable
        skipped = f"{plural(total, 'file')} not indexed: {', '.join(parts)}." if parts else ""
        return " ".join(filter(None, (broad if self.broad else "", skipped))) or None


def _busy(err: sqlite3.Error) -> bool:
    return isinstance(err, sqlite3.OperationalError) and ("locked" in str(err) or "busy" in str(err))


class SearchIndex:
    """One connection to a root's index. Use it from one thread at a time (each worker may open its own).
    A writer (`open`) builds, refreshes and repairs the index; a reader (`reader`) only searches it."""

    def __init__(
        self, root: Path, path: str | None, conn: sqlite3.Connection, progress: Progress | None, writer: bool
    ) -> None:
        self.root = Path(root)
        self.path = path
        self.conn = conn
        self.progress = progress
        self.writer = writer
        self.rebuilt = False  # the index was built from scratch (missing, damaged, another version)

    @classmethod
    def open(cls, root: Path, progress: Progress | None = None) -> SearchIndex:
        """The root's index, from the user's cache folder (in memory when none can be used)."""
        path = db.location_of(root)
        try:
            conn, made = db.connect(path)
        except sqlite3.Error:  # the cache folder cannot hold it (read-only, full...): this run's own
            path = None
            conn, made = db.connect(None)
        idx = cls(root, path, conn, progress, writer=True)
        idx.rebuilt = made
        return idx

    @classmethod
    def reader(cls, root: Path) -> SearchIndex | None:
        """The root's index as it stands, to search only (None: there is none yet, or it is damaged)."""
        path = db.location_of(root, create=False)
        conn = db.connect_reader(path)
        return None if conn is None else cls(root, path, conn, None, writer=False)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rebuild(self) -> None:
        """Throw the index away and start it again (the next `refresh` reads every file)."""
        self.conn.close()
        if self.path is not None:
            db.remove(self.path)
        self.conn, _ = db.connect(self.path)
        self.rebuilt = True

    def _guarded(self, run: Callable[[], T]) -> T:
        """`run()`, and once more on a rebuilt index when the database turns out to be damaged."""
        try:
            return run()
        except sqlite3.DatabaseError as err:
            if _busy(err):
                raise Refused(
                    "The search index is being updated by another pmem-tui; try again in a moment."
                ) from None
            if not self.writer:
                raise
            self._rebuild()
            indexer.refresh(self.conn, self.root, self.progress)
            return run()

    def refresh(self) -> int:
        """Read the new and changed files, drop the gone ones; how many were read or dropped."""
        return self._guarded(lambda: indexer.refresh(self.conn, self.root, self.progress))

    def update_paths(self, paths: frozenset[str] | None) -> int:
        """The watcher's changes (None: unknown, everything): those files only, else a refresh."""
        if paths is not None and self._guarded(lambda: indexer.update_paths(self.conn, self.root, paths)):
            return len(paths)
        return self.refresh()

    def search(
        self, text: str, *, archive: bool = False, limit: int = 50, locations: tuple[str, ...] = ()
    ) -> Results:
        """The hits for `text`, best first. Where: the query's `in:`, else `locations`, else active and
        core (`archive`: everywhere). `BadQuery` for a query with nothing to search for."""
        query = parse(text)
        where = query.locations or locations or (LOCATIONS if archive else DEFAULT_LOCATIONS)

        from pmem_tui.core.search import find

        def run() -> Results:
            try:
                found, broad = find.hits(self.conn, query, where, limit)
            except sqlite3.OperationalError as err:
                if "fts5" in str(err) or "syntax" in str(err) or "unterminated" in str(err):
                    raise BadQuery(f"This query cannot be searched for ({err}); put it in quotes.") from None
                raise
            return Results(tuple(found), indexer.counts(self.conn), broad)

        return self._guarded(run)


def search(
    root: Path, text: str, *, archive: bool = False, limit: int = 50, progress: Progress | None = None
) -> Results:
    """Open the root's index, bring it up to date, and search it (the CLI's one call)."""
    parse(text)  # a bad query is refused before any file is read
    with SearchIndex.open(root, progress) as idx:
        idx.refresh()
        return idx.search(text, archive=archive, limit=limit)
