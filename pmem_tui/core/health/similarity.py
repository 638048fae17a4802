"""Which files say the same thing: exact duplicate groups, near-duplicate pairs (MinHash LSH candidates
confirmed by rapidfuzz, `sketch`), and files whose 3-grams are mostly already in `_core/`."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import TYPE_CHECKING

from pmem_tui.core.health.features import FeatureCache, Features, FileFeatures
from pmem_tui.core.health.text import normalized_text
from pmem_tui.core.model import FileInfo

if TYPE_CHECKING:
    from pmem_tui.core.health.run import Run

__all__ = [
    "OVERLAP_THRESHOLD",
    "SIM_THRESHOLD",
    "checked_pairs",
    "core_overlaps",
    "exact_groups",
    "near_pairs",
]

SIM_THRESHOLD = 0.85  # a near duplicate at or above this similarity (`sketch.similarity`)
OVERLAP_THRESHOLD = 0.8
Pair = tuple[str, str]


def checked_pairs(cache: FeatureCache | None, feats: Features) -> dict[Pair, float]:
    """Pairs compared in an earlier run whose files are both unchanged: (path a, path b) -> similarity."""
    if cache is None:
        return {}
    unchanged = {f.path for f in feats.files if f.path not in feats.fresh}
    return {(a, b): s for a, b, s in cache.pairs if a in unchanged and b in unchanged}


def exact_groups(run: Run, feats: Features, norm: dict[str, bytes]) -> list[list[int]]:
    """Groups (of rows) of files with the same words in the same order (case, spacing, punctuation ignored).

    Candidates share a signature and a word count (or, without shingles, are tiny); each is confirmed by
    comparing the sha256 of its normalized text, read only for candidates.
    """
    from pmem_tui.core.health import sketch as sk  # numpy: only a run that reads files needs it

    files = feats.files
    by_key: dict[tuple[int, int], list[int]] = defaultdict(list)
    keys = sk.row_keys(feats.sig).tolist() if len(files) else []
    for row, (f, key) in enumerate(zip(files, keys, strict=True)):
        if f.tokens > 0:
            by_key[(key if f.shingles else -f.tokens, f.tokens)].append(row)
    groups: list[list[int]] = []
    for rows in by_key.values():
        if len(rows) < 2:
            continue
        by_sha: dict[bytes, list[int]] = defaultdict(list)
        for row in rows:
            by_sha[hashlib.sha256(_normalized(run, files[row], norm)).digest()].append(row)
        groups += [g for g in by_sha.values() if len(g) > 1]
    return groups


def _normalized(run: Run, f: FileFeatures, cache: dict[str, bytes]) -> bytes:
    got = cache.get(f.path)
    if got is None:
        got = normalized_text(run.read_file(f.path) or b"")
        cache[f.path] = got
    return got


def near_pairs(
    run: Run,
    feats: Features,
    checked: dict[Pair, float],
    exact: list[list[int]],
    norm: dict[str, bytes],
) -> tuple[list[tuple[int, int, float]], dict[Pair, float]]:
    """Confirmed near-duplicate pairs (row a, row b, similarity), and every pair compared (for the cache)."""
    import numpy as np

    from pmem_tui.core.health import sketch as sk

    files, sig = feats.files, feats.sig
    eligible = np.array([f.shingles >= sk.MIN_SHINGLES for f in files], dtype=bool)
    cand = sk.candidate_pairs(sig, eligible) if len(files) > 1 else np.zeros((0, 2), dtype=np.int64)
    run.candidates = len(cand)
    if len(cand):
        est = sk.estimated_jaccard(sig, cand)
        cand = cand[est >= sk.JACCARD_FLOOR]
    group_of = {row: n for n, rows in enumerate(exact) for row in rows}
    found: list[tuple[int, int, float]] = []
    compared: dict[Pair, float] = {}
    for i, j in cand.tolist():
        fa, fb = files[i], files[j]
        if i in group_of and group_of[i] == group_of.get(j):
            continue  # an exact duplicate, reported as such
        key = (fa.path, fb.path)
        s = checked.get(key)
        if s is None:
            s = sk.similarity(_normalized(run, fa, norm), _normalized(run, fb, norm), SIM_THRESHOLD)
            run.compared += 1
        compared[key] = s
        if s >= SIM_THRESHOLD:
            found.append((i, j, s))
    return found, compared


def core_overlaps(run: Run, core: list[FileInfo], feats: Features) -> dict[int, tuple[float, str]]:
    """Row -> (share of its 3-grams found in `_core/`, the core file that holds most of them)."""
    import numpy as np

    from pmem_tui.core.health import sketch as sk

    files, sig, fresh = feats.files, feats.sig, feats.fresh
    core_data = [(c.path, run.read_file(c.path) or b"") for c in core if c.path.endswith(".md")]
    if not core_data or not files:
        return {}
    per_core = sk.sketch([d for _, d in core_data])
    union = np.unique(per_core.shingles)
    if len(union) == 0:
        return {}
    whole = sk.sketch([b"\n\n".join(d for _, d in core_data)])
    core_sig = whole.signatures[0]
    counts = np.array([f.shingles for f in files], dtype=np.float64)
    eligible = counts >= sk.MIN_SHINGLES
    jac = (sig == core_sig[None, :]).mean(axis=1)
    contain = jac * (counts + len(union)) / ((1.0 + jac) * np.maximum(counts, 1.0))
    screened = np.flatnonzero(eligible & (contain >= OVERLAP_THRESHOLD - 0.3))
    out: dict[int, tuple[float, str]] = {}
    if len(screened) == 0:
        return out
    need = [files[i] for i in screened if files[i].path not in fresh]
    extra = sk.sketch([run.read_file(f.path) or b"" for f in need]) if need else None
    extra_at = {f.path: k for k, f in enumerate(need)}
    core_sets = [np.unique(per_core.shingles_of(k)) for k in range(len(core_data))]
    for i in screened.tolist():
        f = files[i]
        if f.path in fresh:
            batch, k = fresh[f.path]
            mine = np.unique(batch.shingles_of(k))
        else:
            assert extra is not None
            mine = np.unique(extra.shingles_of(extra_at[f.path]))
        if len(mine) == 0:
            continue
        share = float(np.isin(mine, union, assume_unique=True).mean())
        if share >= OVERLAP_THRESHOLD:
            best = max(range(len(core_data)), key=lambda k: np.isin(mine, core_sets[k]).sum())
            out[i] = (share, core_data[best][0])
    return out
