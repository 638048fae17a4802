"""Near-duplicate sketches: word 3-gram shingles, MinHash signatures, LSH banding, exact verification.

The whole batch is vectorized with numpy: no Python object is made per word or per shingle, which is what keeps
a cold health check of 10,000 files within a few times the cost of reading them.

* **Words**: the bytes of a file normalized by `health_text.normalize_bytes` and `TABLE` (lower-cased, punctuation
  as spaces, CJK characters one word each). A word's 64-bit hash mixes its first 16 and last 8 bytes and its
  length (splitmix64 finalizer), read straight out of the joined buffer.
* **Shingles**: every run of 3 consecutive words of a file, hashed to 32 bits.
* **Signatures**: MinHash by one-permutation hashing (Li, Owen and Zhang, 2012) over `NUM_BINS` bins, with empty
  bins filled by rotation densification (Shrivastava and Li, 2014). Two signatures agree in a bin with a
  probability equal to the Jaccard similarity of the two shingle sets, as with k-permutation MinHash, at the
  cost of one pass over the shingles instead of one per permutation.
* **LSH**: `BANDS` bands of `ROWS` bins each (bins `t, t+BANDS, t+2*BANDS, ...` form band `t`); two files that
  agree on a whole band are a candidate pair. This is MinHashLSH with ``params=(BANDS, ROWS)``;
  `candidates_datasketch` runs the same banding through `datasketch.MinHashLSH` (tests check that both give
  the same pairs; ours avoids datasketch's per-band Python work, about 0.3 s per 10,000 files).
  A file joins the LSH only with at least `MIN_SHINGLES` shingles.
* **Verification**: a candidate whose signatures agree on at least `JACCARD_FLOOR` of the bins is compared
  exactly: rapidfuzz's normalized Indel similarity (1 - insertions and deletions / total length) of the two
  normalized texts. At or above `SIM_THRESHOLD` it is a near duplicate, reported as that percentage.

Probability that a pair of Jaccard similarity s becomes a candidate: ``1 - (1 - s**4)**32``: 0.87 at s = 0.5,
0.97 at 0.57 (a 10% word edit keeps about 0.57 of the 3-grams), 0.9996 at 0.75 (3% edits); 0.003 at s = 0.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Indel

from pmem_tui.core.health_text import TABLE, normalize_bytes

__all__ = [
    "BANDS",
    "JACCARD_FLOOR",
    "MIN_SHINGLES",
    "NUM_BINS",
    "ROWS",
    "SIM_THRESHOLD",
    "Sketches",
    "candidate_pairs",
    "candidates_datasketch",
    "estimated_jaccard",
    "similarity",
    "sketch",
]

NUM_BINS = 128
BANDS = 32
ROWS = 4
MIN_SHINGLES = 8
JACCARD_FLOOR = 0.3
SIM_THRESHOLD = 0.85
# Above this many files in one LSH bucket (boilerplate shared by many notes), the bucket yields only the pairs
# of its first `_STAR` members with every other member instead of all pairs.
MAX_BUCKET = 64
_STAR = 8
_CHUNK_BYTES = 4 << 20
_PAD = 32

U32 = npt.NDArray[np.uint32]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

_EMPTY = np.uint32(0xFFFFFFFF)
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_BIN_SHIFT = np.uint32(32 - (NUM_BINS.bit_length() - 1))
_ROTATE = np.uint32(0x9E3779B1)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_K = [np.uint64(c) for c in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5)]


def _mix(x: U64) -> U64:
    """splitmix64's finalizer: a bijection that spreads every input bit over the output (wrapping arithmetic)."""
    x = x ^ (x >> _S30)
    x *= _M1
    x ^= x >> _S27
    x *= _M2
    x ^= x >> _S31
    return x


@dataclass
class Sketches:
    """The sketches of a batch of files, in input order."""

    signatures: U32  # (n, NUM_BINS); a row of _EMPTY for a file without shingles
    shingle_counts: I64  # (n,)
    token_counts: I64  # (n,)
    digests: list[str]  # 128-bit hash of the word sequence ("" for a file without words)
    shingles: U32  # all shingle hashes, file after file
    shingle_offsets: I64  # (n + 1,): file i's shingles are shingles[offsets[i]:offsets[i + 1]]
    hints: I64  # (n,): `HINT_*` bits, which key words a file contains (see `hint_words`)

    def shingles_of(self, i: int) -> U32:
        return self.shingles[self.shingle_offsets[i] : self.shingle_offsets[i + 1]]


# Words whose presence tells `health_text.extract_facts` which of its patterns can match in a file.
HINT_DATES, HINT_STATUS, HINT_CHECKS, HINT_SUMMARY = 1, 2, 4, 8
_HINT_WORDS: dict[bytes, int] = {
    **dict.fromkeys(
        (b"updated", b"modified", b"lastupdated", b"lastmodified", b"updatedat", b"updatedon", b"lastupdatedat",
         b"lastupdatedon", "更".encode()),
        HINT_DATES,
    ),
    **dict.fromkeys((b"status", b"state", *(c.encode() for c in "状狀进進")), HINT_STATUS),
    **dict.fromkeys((b"x", "✓".encode(), "✔".encode()), HINT_CHECKS),
    **dict.fromkeys((b"summary", "摘".encode()), HINT_SUMMARY),
}


def _word_hashes(joined: bytes, starts: I64, ends: I64) -> U64:
    """The 64-bit hash of each word joined[starts[i]:ends[i]] (`joined` padded with at least 24 spaces)."""
    th = _word_hashes(joined, starts, ends)
    tok_off = np.searchsorted(starts, file_starts).astype(np.int64)
    tok_counts = np.diff(np.append(tok_off, len(starts))).astype(np.int64)
    fid = np.repeat(np.arange(n, dtype=np.int64), tok_counts)
    digests = _digests(th, fid, tok_off, n)
    if len(th) >= 3:
        same = fid[:-2] == fid[2:]
        sh = _mix(th[:-2] * _K[1] + th[1:-1] * _K[2] + th[2:] * _K[3])[same]
        hv = (sh >> _S32).astype(np.uint32)
        sfid = fid[:-2][same]
    else:
        hv = np.zeros(0, dtype=np.uint32)
        sfid = np.zeros(0, dtype=np.int64)
    sh_counts = np.bincount(sfid, minlength=n).astype(np.int64)
    sig = np.full(n * NUM_BINS, _EMPTY, dtype=np.uint32)
    np.minimum.at(sig, sfid * NUM_BINS + (hv >> _BIN_SHIFT).astype(np.int64), hv)
    hints = np.zeros(n, dtype=np.int64)
    at = np.minimum(np.searchsorted(_HINT_HASHES, th), len(_HINT_HASHES) - 1)
    hit = np.flatnonzero(_HINT_HASHES[at] == th)
    np.bitwise_or.at(hints, fid[hit], _HINT_BITS[at[hit]])
    return _Chunk(_densify(sig.reshape(n, NUM_BINS)), sh_counts, tok_counts, digests, hv, hints)


def _digests(th: U64, fid: I64, tok_off: I64, n: int) -> list[str]:
    """128 bits identifying each file's word sequence: two sums of position-keyed word hashes ("" when empty)."""
    counts = np.bincount(fid, minlength=n)
    if len(th) == 0:
        return [""] * n
    pos = (np.arange(len(th), dtype=np.int64) - tok_off[fid]).astype(np.uint64)
    keyed = np.append(_mix(th + pos * _K[3]), np.uint64(0))  # a sentinel, so that every offset is valid
    a = np.add.reduceat(keyed, tok_off)
    keyed[:-1] *= pos * _K[1] | np.uint64(1)
    b = np.add.reduceat(keyed, tok_off)
    hexed = np.stack([a, b], axis=1).astype(">u8").tobytes().hex()
    return [hexed[32 * i : 32 * i + 32] if counts[i] else "" for i in range(n)]


def _densify(sig: U32) -> U32:
    """Fill each empty bin from the next non-empty bin to its right (circularly), shifted by the distance."""
    empty = sig == _EMPTY
    if not empty.any():
        return sig
    n, k = sig.shape
    wide = np.concatenate([sig, sig], axis=1)
    idx = np.where(np.concatenate([~empty, ~empty], axis=1), np.arange(2 * k, dtype=np.int16), np.int16(2 * k))
    nxt = np.minimum.accumulate(idx[:, ::-1], axis=1)[:, ::-1][:, :k]
    found = nxt < 2 * k
    src = np.take_along_axis(wide, np.minimum(nxt, 2 * k - 1).astype(np.intp), axis=1)
    dist = (nxt - np.arange(k)).astype(np.uint32)
    filled = src + _ROTATE * dist
    out: U32 = np.where(empty & found, filled, sig).astype(np.uint32)
    return out


def sketch(blobs: Sequence[bytes]) -> Sketches:
    """Sketch every file of `blobs` (raw bytes), in chunks of a few MB to bound memory."""
    chunks: list[_Chunk] = []
    i = 0
    while i < len(blobs):
        j, size = i, 0
        while j < len(blobs) and (j == i or size + len(blobs[j]) <= _CHUNK_BYTES):
            size += len(blobs[j])
            j += 1
        chunks.append(_sketch_chunk(blobs[i:j]))
        i = j
    if not chunks:
        chunks.append(_sketch_chunk([]))
    counts = np.concatenate([c.shingle_counts for c in chunks])
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return Sketches(
        signatures=np.concatenate([c.sig for c in chunks]),
        shingle_counts=counts,
        token_counts=np.concatenate([c.token_counts for c in chunks]),
        digests=[d for c in chunks for d in c.digests],
        shingles=np.concatenate([c.shingles for c in chunks]),
        shingle_offsets=offsets,
        hints=np.concatenate([c.hints for c in chunks]),
    )


def _band_keys(sig: U32) -> U64:
    """(n, BANDS) 64-bit keys: band t hashes bins t, t+BANDS, ... (ROWS of them)."""
    keys = np.zeros((sig.shape[0], BANDS), dtype=np.uint64)
    for r in range(ROWS):
        keys = _mix(keys ^ sig[:, r * BANDS : (r + 1) * BANDS].astype(np.uint64) ^ np.uint64(r))
    return keys


def candidate_pairs(sig: U32, eligible: npt.NDArray[np.bool_]) -> I64:
    """LSH candidate pairs among the eligible rows, as an (m, 2) array of row numbers, i < j, sorted."""
    rows = np.flatnonzero(eligible)
    if len(rows) < 2:
        return np.zeros((0, 2), dtype=np.int64)
    keys = _band_keys(sig[rows])
    found: list[I64] = []
    for t in range(BANDS):
        col = keys[:, t]
        order = np.argsort(col, kind="stable")
        sorted_keys = col[order]
        same = sorted_keys[1:] == sorted_keys[:-1]
        if not same.any():
            continue
        edges = np.flatnonzero(np.diff(np.concatenate(([0], same.view(np.int8), [0]))))
        first, last = edges[0::2], edges[1::2]  # a bucket is order[first:last + 1]
        two = last - first == 1
        found.append(np.stack([rows[order[first[two]]], rows[order[first[two] + 1]]], axis=1))
        for a, b in zip(first[~two].tolist(), (last[~two] + 1).tolist(), strict=True):
            members = sorted(rows[order[a:b]].tolist())
            star = len(members) if len(members) <= MAX_BUCKET else _STAR
            found.append(
                np.array([(x, y) for n, x in enumerate(members[:star]) for y in members[n + 1 :]], dtype=np.int64)
            )
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    both = np.concatenate(found).astype(np.int64)
    both = np.stack([both.min(axis=1), both.max(axis=1)], axis=1)
    out: I64 = np.unique(both, axis=0)
    return out


def candidates_datasketch(sig: U32, eligible: npt.NDArray[np.bool_]) -> I64:
    """The same banding run through `datasketch.MinHashLSH(params=(BANDS, ROWS))`: the reference for tests."""
    from datasketch import MinHash, MinHashLSH

    order = np.array([t + BANDS * r for t in range(BANDS) for r in range(ROWS)])
    perms = MinHash(num_perm=NUM_BINS, scheme="affine32").permutations
    lsh = MinHashLSH(num_perm=NUM_BINS, params=(BANDS, ROWS))
    rows = [int(i) for i in np.flatnonzero(eligible)]
    for i in rows:
        lsh.insert(i, MinHash(hashvalues=sig[i][order], permutations=perms, scheme="affine32"))
    pairs: set[tuple[int, int]] = set()
    for table in lsh.hashtables:
        for key in table.keys():
            members = sorted(table.get(key))
            star = len(members) if len(members) <= MAX_BUCKET else _STAR
            pairs.update((a, b) for n, a in enumerate(members[:star]) for b in members[n + 1 :])
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def estimated_jaccard(sig: U32, pairs: I64) -> npt.NDArray[np.float64]:
    """The share of bins on which each pair's signatures agree."""
    if len(pairs) == 0:
        return np.zeros(0, dtype=np.float64)
    out: npt.NDArray[np.float64] = (sig[pairs[:, 0]] == sig[pairs[:, 1]]).mean(axis=1)
    return out


def similarity(a: bytes, b: bytes, cutoff: float = SIM_THRESHOLD) -> float:
    """Normalized Indel similarity of two normalized texts (0.0 when below `cutoff`)."""
    return float(Indel.normalized_similarity(a, b, score_cutoff=cutoff))
