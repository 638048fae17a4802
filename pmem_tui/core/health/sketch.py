"""Near-duplicate sketches: word 3-gram shingles, MinHash signatures, LSH banding, exact verification.

The whole batch is vectorized with numpy: no Python object is made per word or per shingle, which is what
keeps a cold health check of 10,000 files within a few times the cost of reading them.

* **Words**: the bytes of a file normalized by `text.normalize_bytes` and `TABLE` (lower-cased,
  punctuation as spaces, CJK characters one word each). A word's 64-bit hash mixes its first 16 and last 8
  bytes and its length (splitmix64 finalizer), read straight out of the joined buffer.
* **Shingles**: every run of 3 consecutive words of a file, hashed to 32 bits.
* **Signatures**: MinHash by one-permutation hashing (Li, Owen and Zhang, 2012) over `NUM_BINS` bins, with
  empty bins filled by rotation densification (Shrivastava and Li, 2014). Two signatures agree in a bin with a
  probability equal to the Jaccard similarity of the two shingle sets, as with k-permutation MinHash, at the
  cost of one pass over the shingles instead of one per permutation.
* **LSH**: `BANDS` bands of `ROWS` bins each (bins `t, t+BANDS, t+2*BANDS, ...` form band `t`); two files that
  agree on a whole band are a candidate pair. This is MinHashLSH with ``params=(BANDS, ROWS)``;
  `candidates_datasketch` runs the same banding through `datasketch.MinHashLSH` (tests check that both give
  the same pairs; ours avoids datasketch's per-band Python work, about 0.3 s per 10,000 files).
  A file joins the LSH only with at least `MIN_SHINGLES` shingles.
* **Verification**: a candidate whose signatures agree on at least `JACCARD_FLOOR` of the bins is compared
  exactly: rapidfuzz's normalized Indel similarity (1 - insertions and deletions / total length) of the two
  normalized texts. At or above `similarity.SIM_THRESHOLD` it is a near duplicate, reported as that
  percentage.

Probability that a pair of Jaccard similarity s becomes a candidate: ``1 - (1 - s**4)**32``: 0.87 at s = 0.5,
0.97 at 0.57 (a 10% word edit keeps about 0.57 of the 3-grams), 0.9996 at 0.75 (3% edits); 0.003 at s = 0.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Indel

from pmem_tui.core.health import text as ht
from pmem_tui.core.health.text import TABLE, normalize_bytes

__all__ = [
    "BANDS",
    "JACCARD_FLOOR",
    "MIN_SHINGLES",
    "NUM_BINS",
    "ROWS",
    "Sketches",
    "candidate_pairs",
    "candidates_datasketch",
    "estimated_jaccard",
    "row_keys",
    "similarity",
    "sketch",
]

NUM_BINS = 128
BANDS = 32
ROWS = 4
MIN_SHINGLES = 8
JACCARD_FLOOR = 0.3
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
    """splitmix64's finalizer: a bijection spreading every input bit over the output (wrapping arithmetic)."""
    x = x ^ (x >> _S30)
    x *= _M1
    x ^= x >> _S27
    x *= _M2
    x ^= x >> _S31
    return x


# Words whose presence tells `text.extract_facts` which key words to look for in a file (`ht.H_*`).
_HINT_WORDS: dict[bytes, int] = {
    **dict.fromkeys(
        (b"updated", b"lastupdated", b"updatedat", b"updatedon", b"lastupdatedat", b"lastupdatedon"),
        ht.H_UPDATED,
    ),
    **dict.fromkeys((b"modified", b"lastmodified"), ht.H_MODIFIED),
    "更".encode(): ht.H_CJK_DATE,
    b"status": ht.H_STATUS,
    b"state": ht.H_STATE,
    **dict.fromkeys((c.encode() for c in "状狀进進"), ht.H_CJK_STATUS),
    b"x": ht.H_X,
    **dict.fromkeys(("✓".encode(), "✔".encode()), ht.H_MARK),
    b"summary": ht.H_SUMMARY,
    "摘".encode(): ht.H_CJK_SUMMARY,
    # What the secret detectors key on (`secrets`), as the sketch splits words: `db_password` is two.
    **dict.fromkeys(
        (
            *(b"password", b"passwords", b"passwd", b"passwort", b"passphrase", b"pwd", b"pass", b"pin"),
            *(b"secret", b"secrets", b"token", b"tokens", b"bearer", b"authorization", b"credential"),
            *(b"credentials", b"apikey", b"private", b"putty", b"accountkey", b"authtoken"),
            *(b"cloudant", b"ibm", b"softlayer", b"hmac", b"contrasena", b"contrase\xc3\xb1a"),
            *("密".encode(), "口".encode()),
        ),
        ht.H_SECRET,
    ),
}
TOKEN_WORD = 20  # a word this long may be a key or a token: its file goes to the secret detector too
# "api" is what the detectors key on only before a word that starts with "key" (`api_key`, `API keys`; the
# `api[_-]?key` of `secrets` and detect-secrets' keyword list); alone it is a common word in notes, and as a
# hint word it sent most files of a software memory to the detectors for nothing.
_API, _KEY = b"api", b"key"


@dataclass
class Sketches:
    """The sketches of a batch of files, in input order."""

    signatures: U32  # (n, NUM_BINS); a row of _EMPTY for a file without shingles
    shingle_counts: I64  # (n,)
    token_counts: I64  # (n,)
    shingles: U32  # all shingle hashes, file after file
    shingle_offsets: I64  # (n + 1,): file i's shingles are shingles[offsets[i]:offsets[i + 1]]
    hints: I64  # (n,): `text.H_*` bits: which key words each file contains

    def shingles_of(self, i: int) -> U32:
        return self.shingles[self.shingle_offsets[i] : self.shingle_offsets[i + 1]]


def _word_hashes(joined: bytes, starts: I64, ends: I64) -> U64:
    """The 64-bit hash of each word ``joined[starts[i]:ends[i]]`` (`joined` ends with `_PAD` spaces)."""
    lens = ends - starts  # int64, never negative: its uint64 view has the same values
    view = np.ndarray(shape=(len(joined) - 7,), dtype="<u8", buffer=joined, strides=(1,))
    th = _mix((view[starts] & _MASKS[np.minimum(lens, 8)]) ^ (lens.view(np.uint64) * _K[0]))
    long = np.flatnonzero(lens > 8)  # words over 8 bytes also hash their next 8 and their last 8 bytes
    if len(long):
        ls, ll = starts[long], lens[long]
        w1 = view[ls + 8] & _MASKS[np.minimum(ll - 8, 8)]
        w2 = view[ls + ll - 8] * (ll > 16).astype(np.uint64)
        th[long] ^= _mix(w1 + _K[1]) ^ _mix(w2 + _K[2])
    return th


def _join(parts: Sequence[bytes]) -> tuple[bytes, I64]:
    """The normalized words of all parts in one buffer, and where each part starts in it.

    A space first, one between parts and padding after: no word touches an edge or spans two parts.
    """
    joined = b" " + b" ".join(parts).translate(TABLE) + b" " * _PAD
    starts = np.ones(len(parts), dtype=np.int64)
    if len(parts) > 1:
        starts[1:] += np.cumsum(
            np.fromiter((len(p) + 1 for p in parts[:-1]), dtype=np.int64, count=len(parts) - 1)
        )
    return joined, starts


def _words(joined: bytes) -> tuple[I64, I64]:
    word = np.frombuffer(joined, dtype=np.uint8) != 32
    edges = np.flatnonzero(word[1:] != word[:-1]) + 1  # alternately a word's start and its end
    return edges[0::2], edges[1::2]


def _one_word(word: bytes) -> tuple[bytes, I64, I64]:
    joined, _ = _join([word])
    return (joined, *_words(joined))


def _api_key_files(buf: npt.NDArray[np.uint8], th: U64, starts: I64, fid: I64) -> I64:
    """The files (by `fid`) in which the word "api" is followed by a word starting with "key"."""
    at = np.flatnonzero(th[:-1] == _API_HASH)
    at = at[fid[at] == fid[at + 1]]
    nxt = starts[at + 1]  # the buffer ends with `_PAD` spaces: nxt + 2 is inside it
    key = (buf[nxt] == _KEY[0]) & (buf[nxt + 1] == _KEY[1]) & (buf[nxt + 2] == _KEY[2])
    files: I64 = fid[at[key]]
    return files


def _hint_table() -> tuple[U64, I64, np.uint64]:
    """A direct-mapped table of the hint words' hashes (no two share a slot), their bits, and its mask."""
    words = list(_HINT_WORDS)
    joined, _ = _join(words)
    starts, ends = _words(joined)
    hashes = _word_hashes(joined, starts, ends)
    size = 64
    while len(set((hashes & np.uint64(size - 1)).tolist())) < len(words):
        size *= 2
    table = np.zeros(size, dtype=np.uint64)
    bits = np.zeros(size, dtype=np.int64)
    slots = (hashes & np.uint64(size - 1)).astype(np.int64)
    table[slots] = hashes
    bits[slots] = [_HINT_WORDS[w] for w in words]
    return table, bits, np.uint64(size - 1)


_HINT_TABLE, _HINT_BITS, _HINT_MASK = _hint_table()
_API_HASH = _word_hashes(*_one_word(_API))[0]


@dataclass
class _Chunk:
    sig: U32
    shingle_counts: I64
    token_counts: I64
    shingles: U32
    hints: I64


def _sketch_chunk(blobs: Sequence[bytes]) -> _Chunk:
    n = len(blobs)
    joined, file_starts = _join([normalize_bytes(b) for b in blobs])
    starts, ends = _words(joined)
    th = _word_hashes(joined, starts, ends)
    tok_off = np.searchsorted(starts, file_starts)
    tok_counts = np.diff(np.append(tok_off, len(starts)))
    fid = np.repeat(np.arange(n, dtype=np.int64), tok_counts)
    if len(th) >= 3:
        same = fid[:-2] == fid[2:]
        sh = _mix(th[:-2] * _K[1] + th[1:-1] * _K[2] + th[2:] * _K[3])[same]
        hv = (sh >> _S32).astype(np.uint32)
        sfid = fid[:-2][same]
    else:
        hv = np.zeros(0, dtype=np.uint32)
        sfid = np.zeros(0, dtype=np.int64)
    sh_counts = np.bincount(sfid, minlength=n)
    sig = np.full(n * NUM_BINS, _EMPTY, dtype=np.uint32)
    np.minimum.at(sig, sfid * NUM_BINS + (hv >> _BIN_SHIFT), hv)  # uint32 + int64 -> int64
    hints = np.zeros(n, dtype=np.int64)
    if len(th):
        slot = th & _HINT_MASK  # unsigned integers index as well
        hit = np.flatnonzero(_HINT_TABLE[slot] == th)
        np.bitwise_or.at(hints, fid[hit], _HINT_BITS[slot[hit]])
        hints[np.unique(fid[(ends - starts) >= TOKEN_WORD])] |= ht.H_SECRET
        hints[_api_key_files(np.frombuffer(joined, dtype=np.uint8), th, starts, fid)] |= ht.H_SECRET
    return _Chunk(_densify(sig.reshape(n, NUM_BINS)), sh_counts, tok_counts, hv, hints)


def _densify(sig: U32) -> U32:
    """Fill each empty bin from the next non-empty bin to its right (circularly), shifted by the distance.

    Rotation densification: bin i of a row takes the value of the first non-empty bin i+d (mod k) plus
    d * `_ROTATE` (wrapping). Rows with no shingle at all stay empty.
    """
    empty = sig == _EMPTY
    if not empty.any():
        return sig
    out = sig.copy()
    rows = np.flatnonzero(empty.any(axis=1) & ~empty.all(axis=1))
    todo, base, filled = empty[rows], sig[rows], sig[rows]
    k = sig.shape[1]
    d = 1
    while len(rows) and d < k:
        shifted = np.roll(base, -d, axis=1)
        ok = todo & (shifted != _EMPTY)
        filled[ok] = shifted[ok] + np.uint32((int(_ROTATE) * d) & 0xFFFFFFFF)
        todo &= ~ok
        d += 1
        keep = todo.any(axis=1)
        if not keep.all():
            out[rows[~keep]] = filled[~keep]
            rows, todo, base, filled = rows[keep], todo[keep], base[keep], filled[keep]
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
        shingles=np.concatenate([c.shingles for c in chunks]),
        shingle_offsets=offsets,
        hints=np.concatenate([c.hints for c in chunks]),
    )


def row_keys(sig: U32) -> U64:
    """A 64-bit key per signature row: equal rows, equal keys (files with the same shingle set)."""
    keys = np.zeros(sig.shape[0], dtype=np.uint64)
    for c in range(sig.shape[1]):
        keys = _mix(keys ^ sig[:, c].astype(np.uint64))
    return keys


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
        order = np.argsort(col)
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
                np.array(
                    [(x, y) for n, x in enumerate(members[:star]) for y in members[n + 1 :]], dtype=np.int64
                )
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
        for key in table.keys():  # noqa: SIM118 - a datasketch storage, not a dict
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


def similarity(a: bytes, b: bytes, cutoff: float) -> float:
    """Normalized Indel similarity of two normalized texts (0.0 when below `cutoff`)."""
    return float(Indel.normalized_similarity(a, b, score_cutoff=cutoff))
