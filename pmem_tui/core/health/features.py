"""Per-file facts: what each active file is (counts, MinHash row, stated dates and status, secrets) and
what `_index.md` lists; from the cache when a file is unchanged, else read once through `safeio`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pmem_tui.core import index, textio
from pmem_tui.core.cache import fresh as still_fresh  # `fresh` names the files read in a run
from pmem_tui.core.health.text import H_FACTS, H_SECRET, Facts, extract_facts
from pmem_tui.core.layout import propose_index_line
from pmem_tui.core.model import FileInfo
from pmem_tui.core.secrets import SecretHit, find_secrets

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from pmem_tui.core.health import sketch as sk
    from pmem_tui.core.health.run import Run

__all__ = ["FeatureCache", "FileFeatures", "IndexCache", "IndexRow", "features", "index_job", "index_routes"]

IndexRow = tuple[str, str, int]  # (route, raw line, line number)
NO_FACTS = Facts()
_FRONT_STARTS = (b"---", b"\xef\xbb\xbf---")
# The secret detectors run on a file only when the sketch saw a word they key on or a token-long word
# (`text.H_SECRET`), or it holds a URL (which may carry a password): most notes have none of these. A save
# checks every line of every file it writes; the health check looks at notes, not at huge files.
_URL_CREDENTIALS = b"://"
SECRET_SCAN_LIMIT = 1 << 20


@dataclass(slots=True)
class FileFeatures:
    """What one active file is, for the (size, mtime_ns, ctime_ns) it was read at."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    tokens: int  # words
    shingles: int  # distinct word 3-grams
    facts: Facts
    secrets: tuple[SecretHit, ...] = ()
    index_line: str | None = None  # proposed line for an orphan (computed when needed)


@dataclass(frozen=True)
class IndexCache:
    size: int
    mtime_ns: int
    ctime_ns: int
    entries: tuple[IndexRow, ...]
    unbulleted: tuple[tuple[str, int], ...] | None = None  # `index.unbulleted_routes`; None: not read


@dataclass(frozen=True)
class FeatureCache:
    """The features file's header (its body: one MinHash signature row per file, in this order)."""

    engine: str
    written_ns: int
    files: tuple[FileFeatures, ...]
    index: IndexCache | None
    pairs: tuple[tuple[str, str, float], ...]  # every pair compared, with its similarity


@dataclass
class Features:
    files: list[FileFeatures]
    sig: npt.NDArray[np.uint32]  # one MinHash signature row per file
    fresh: dict[str, tuple[sk.Sketches, int]]  # files read in this run -> their sketch batch and row


def features(
    run: Run, active: list[FileInfo], cache: FeatureCache | None, old_sig: npt.NDArray[np.uint32] | None
) -> Features:
    """Every active file's features: from the cache while it is fresh (`cache.fresh`), else read anew."""
    import numpy as np  # numpy and the sketch load only for a run that reads files (not a warm one)

    from pmem_tui.core.health import sketch as sk

    cached: dict[str, tuple[int, FileFeatures]] = {}
    written = 0
    if cache is not None and old_sig is not None:
        cached = {f.path: (row, f) for row, f in enumerate(cache.files)}
        written = cache.written_ns
    files: list[FileFeatures] = []
    rows: list[int] = []
    fresh_entries: list[FileInfo] = []
    for e in active:
        hit = cached.get(e.path)
        if hit is not None and still_fresh(_stamp(hit[1]), _stamp(e), written):
            files.append(hit[1])
            rows.append(hit[0])
            continue
        files.append(FileFeatures(e.path, e.size, e.mtime_ns, e.ctime_ns, 0, 0, NO_FACTS))
        rows.append(-1)
        fresh_entries.append(e)
    fresh_data = run.read_many(fresh_entries)
    run.texts.update(zip((e.path for e in fresh_entries), fresh_data, strict=True))
    sig = np.empty((len(files), sk.NUM_BINS), dtype=np.uint32)
    fresh: dict[str, tuple[sk.Sketches, int]] = {}
    if fresh_data:
        batch = sk.sketch(fresh_data)
        fresh_rows = [i for i, r in enumerate(rows) if r < 0]
        sig[fresh_rows] = batch.signatures
        tokens, shingles = batch.token_counts.tolist(), batch.shingle_counts.tolist()
        for k, (i, data, hints) in enumerate(zip(fresh_rows, fresh_data, batch.hints.tolist(), strict=True)):
            f = files[i]
            f.tokens, f.shingles = tokens[k], shingles[k]
            facts = hints & H_FACTS
            f.facts = extract_facts(data, facts) if facts or data.startswith(_FRONT_STARTS) else NO_FACTS
            if (hints & H_SECRET or _URL_CREDENTIALS in data) and len(data) <= SECRET_SCAN_LIMIT:
                f.secrets = tuple(find_secrets(textio.decode(data), screened=True))
            fresh[f.path] = (batch, k)
    if old_sig is not None:
        take = [i for i, r in enumerate(rows) if r >= 0]
        if take:
            sig[take] = old_sig[[rows[i] for i in take]]
    return Features(files, sig, fresh)


def _stamp(f: FileInfo | FileFeatures | IndexCache) -> tuple[int, int, int]:
    return (f.size, f.mtime_ns, f.ctime_ns)


def index_routes(text: str) -> list[IndexRow]:
    """(route, raw line, line number) for every entry of an index text (`index.parse_index`, which has
    its own fast path for the shapes pmem-tui and most agents write)."""
    return [(route, raw, n) for n, raw, route, _title, _summary in index.parse_rows(text)]


def _index_entries(
    run: Run, listed: FileInfo | None, cache: FeatureCache | None
) -> tuple[list[IndexRow], dict[str, int] | None]:
    """Every `_index.md` entry, from the cache when the index is unchanged, with the cached lines that name a
    route without a list bullet (None: not known)."""
    if listed is None:
        return [], {}
    old = cache.index if cache is not None else None
    if old is not None and cache is not None and still_fresh(_stamp(old), _stamp(listed), cache.written_ns):
        return list(old.entries), None if old.unbulleted is None else dict(old.unbulleted)
    data = run.read_file(listed.path)
    return ([] if data is None else index_routes(textio.decode(data))), None


def index_job(
    run: Run, active: list[FileInfo], listed: FileInfo | None, cache: FeatureCache | None
) -> tuple[list[IndexRow], dict[str, str | None], dict[str, int] | None]:
    """The index entries, the line each orphan would get (`layout.propose_index_line`, or cached), and the
    lines naming a route without a list bullet (`index.unbulleted_routes`, looked for only when there is an
    orphan, else None; the run reads the index once)."""
    entries, unbulleted = _index_entries(run, listed, cache)
    routes = {r for r, _, _ in entries}
    orphans = [e for e in active if e.path not in routes]
    if orphans and unbulleted is None and listed is not None and (data := run.read_file(listed.path)):
        unbulleted = index.unbulleted_routes(textio.decode(data))
    cached: dict[str, FileFeatures] = {}
    if orphans and cache is not None:
        cached = {f.path: f for f in cache.files if f.index_line is not None}
    lines: dict[str, str | None] = {}
    for e in orphans:
        hit = cached.get(e.path)
        if hit is not None and cache is not None and still_fresh(_stamp(hit), _stamp(e), cache.written_ns):
            lines[e.path] = hit.index_line
            continue
        try:
            lines[e.path] = propose_index_line(run.root, e.path, e.path)
        except ValueError:  # a path no index line can carry
            lines[e.path] = None
    return entries, lines, unbulleted


def with_index_lines(files: list[FileFeatures], lines: dict[str, str | None]) -> None:
    for f in files:
        if f.path in lines:
            f.index_line = lines[f.path]
