"""Near-duplicate recall and precision of `pmem-tui health` on a generated memory.

    python benchmarks/near_duplicates.py [--files 5000] [--pairs 400] [--seed 7] [--keep DIR]

Generates a memory root of N synthetic notes (projects/ and notes/, nested folders, an index, an archive and a
trash) in which `--pairs` files have a planted near-duplicate: a copy whose words were edited (substituted,
inserted or deleted) at a rate drawn uniformly from 1% to 10%. A fifth of all notes share one stand-up
template
(the same headings and scaffold, different content): hard negatives that a loose detector would pair up.
It runs the health engine once (cold) and prints recall and precision of the near-duplicate pairs it reports
against the planted ones. Both must be at least 0.9 (`--check` makes the exit status say so).

This file also holds the corpus generator that `benchmarks/health_speed.py` uses; its syllable alphabet is
`benchmarks/generate.py`'s (which imports a few pmem-tui core helpers; the engine is imported when the
benchmark runs).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import _CODAS, _ONSETS, _VOWELS  # one syllable alphabet for both generators

DEFAULT_FILES = 5000
DEFAULT_PAIRS = 400
TODAY = dt.date(2026, 6, 1)

_TOPICS = ["api", "billing", "search", "onboarding", "infra", "mobile", "data", "auth", "design", "docs"]


def make_vocab(rng: random.Random, size: int = 4000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        n = rng.choice((1, 2, 2, 3))
        words.add("".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(n)))
    return sorted(words)


@dataclass
class Words:
    """A Zipf-like word source over a synthetic vocabulary."""

    rng: random.Random
    vocab: list[str]
    weights: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.weights = [1.0 / (i + 1) ** 0.9 for i in range(len(self.vocab))]
        self._cum: list[float] = []
        total = 0.0
        for w in self.weights:
            total += w
            self._cum.append(total)

    def take(self, n: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self._cum, k=n)

    def sentence(self, lo: int = 6, hi: int = 16) -> str:
        words = self.take(self.rng.randint(lo, hi))
        words[0] = words[0].capitalize()
        return " ".join(words) + self.rng.choice([".", ".", ".", "!", "?"])


def make_doc(
    words: Words, target: int, *, title: str, standup: bool = False, date: dt.date | None = None
) -> str:
    """A Markdown note of about `target` bytes."""
    rng = words.rng
    parts = [f"# {title}", ""]
    if date is not None and rng.random() < 0.3:
        parts += [f"Updated: {date.isoformat()}", ""]
    if standup:
        parts += ["## Yesterday", ""]
        parts += [f"- {words.sentence(4, 10)}" for _ in range(3)]
        parts += ["", "## Today", ""]
        parts += [f"- {words.sentence(4, 10)}" for _ in range(3)]
        parts += ["", "## Blockers", "", f"- {words.sentence(3, 8)}", ""]
    elif rng.random() < 0.4:
        parts += ["## Summary", ""]
        parts += [f"- {words.sentence(5, 10)}" for _ in range(rng.randint(3, 5))]
        parts += ["", "## Details", ""]
    body = "\n".join(parts)
    while len(body.encode()) < target:
        kind = rng.random()
        if kind < 0.6:
            para = " ".join(words.sentence() for _ in range(rng.randint(2, 5)))
        elif kind < 0.85:
            para = "\n".join(f"- {words.sentence(4, 12)}" for _ in range(rng.randint(2, 5)))
        else:
            para = f"## {' '.join(words.take(rng.randint(1, 3))).capitalize()}"
        body += "\n" + para + "\n"
    return body


def mutate(words: Words, text: str, rate: float) -> str:
    """Edit about `rate` of the words of `text` (substitute 60%, insert 20%, delete 20%); lines are kept."""
    rng = words.rng
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        tokens = line.split(" ")
        new: list[str] = []
        for tok in tokens:
            if tok.startswith("#") or not tok or rng.random() >= rate:
                new.append(tok)
                continue
            op = rng.random()
            if op < 0.6:
                new.append(words.take(1)[0])
            elif op < 0.8:
                new += [tok, words.take(1)[0]]
            # else: deleted
        out.append(" ".join(new))
    return "\n".join(out)


@dataclass
class Corpus:
    root: Path
    files: list[str]
    near_pairs: set[frozenset[str]]
    exact_pairs: set[frozenset[str]]


def _folder(rng: random.Random, i: int) -> str:
    top = "projects" if rng.random() < 0.55 else "notes"
    topic = _TOPICS[i % len(_TOPICS)]
    depth = rng.random()
    if depth < 0.3:
        return top
    if depth < 0.8:
        return f"{top}/{topic}"
    return f"{top}/{topic}/{2020 + i % 7}"


def build_memory(
    root: Path,
    n_files: int,
    *,
    near_pairs: int = 0,
    exact_pairs: int = 0,
    seed: int = 7,
    size: int = 2000,
    today: dt.date = TODAY,
    old_share: float = 0.2,
) -> Corpus:
    """Write a complete memory root with `n_files` active notes (planted copies included)."""
    rng = random.Random(seed)
    words = Words(rng, make_vocab(rng))
    for d in ("_core", "projects", "notes", "_archive/_trash/notes", "_archive/notes"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "_core/profile.md").write_text(
        "# Profile\n\n" + "\n".join(f"- {words.sentence()}" for _ in range(8)) + "\n", encoding="utf-8"
    )
    (root / "_core/preferences.md").write_text(
        "# Preferences\n\n" + "\n".join(f"- {words.sentence()}" for _ in range(6)) + "\n", encoding="utf-8"
    )
    base_count = n_files - near_pairs - exact_pairs
    files: list[str] = []
    texts: dict[str, str] = {}
    folders_made: set[str] = set()

    def new_path(i: int, stem: str) -> str:
        folder = _folder(rng, i)
        if folder not in folders_made:
            (root / folder).mkdir(parents=True, exist_ok=True)
            folders_made.add(folder)
        return f"{folder}/{stem}-{i:06d}.md"

    for i in range(base_count):
        standup = rng.random() < 0.2
        day = today - dt.timedelta(days=rng.randint(0, 700))
        title = (
            f"Standup {day.isoformat()}" if standup else " ".join(words.take(rng.randint(2, 4))).capitalize()
        )
        target = max(200, int(rng.gauss(size, size * 0.15)))
        rel = new_path(i, "standup" if standup else "note")
        texts[rel] = make_doc(words, target, title=title, standup=standup, date=day)
        files.append(rel)
    originals = list(files)
    planted_near: set[frozenset[str]] = set()
    planted_exact: set[frozenset[str]] = set()
    picks = rng.sample(originals, near_pairs + exact_pairs)
    for k, src in enumerate(picks):
        i = base_count + k
        rel = new_path(i, "copy")
        if k < near_pairs:
            texts[rel] = mutate(words, texts[src], rng.uniform(0.01, 0.10))
            planted_near.add(frozenset((src, rel)))
        else:
            texts[rel] = texts[src]
            planted_exact.add(frozenset((src, rel)))
        files.append(rel)
    index_lines = ["# Memory index", ""]
    epoch = dt.datetime.combine(today, dt.time(12)).timestamp()
    for rel in files:
        path = root / rel
        path.write_text(texts[rel], encoding="utf-8")
        age = (rng.randint(91, 700) if rng.random() < old_share else rng.randint(0, 89)) * 86400
        os.utime(path, (epoch - age, epoch - age))
        if rng.random() < 0.97:
            title = texts[rel].split("\n", 1)[0].lstrip("# ").strip()
            index_lines.append(f"- [{title}]({rel}) — {' '.join(words.take(6))}")
    (root / "_index.md").write_text("\n".join(index_lines) + "\n", encoding="utf-8")
    # An archive with one record and a trash item whose deadline has passed.
    (root / "_archive/notes/old-plan.md").write_text("# Old plan\n\nDone long ago.\n", encoding="utf-8")
    (root / "_archive/_trash/notes/older.md").write_text("# Older\n\nGone.\n", encoding="utf-8")
    (root / "_archive/_index.md").write_text(
        "# Archive index\n\n"
        "## notes/old-plan.md\n"
        "- Original path: notes/old-plan.md\n"
        "- Index line: - [Old plan](notes/old-plan.md) — the old plan\n"
        "- Archived: 2026-01-10\n"
        "- Reason: finished\n\n"
        "## notes/older.md\n"
        "- Original path: notes/older.md\n"
        "- Index line: - [Older](notes/older.md) — older\n"
        "- Archived: 2025-12-01\n"
        "- Reason: superseded\n"
        "- Deleted: 2026-01-02\n"
        "- Recovery deadline: 2026-02-01\n",
        encoding="utf-8",
    )
    # Control files were last changed a day ago (not seconds ago, which no real memory has when checked).
    for rel in (
        "_index.md",
        "_archive/_index.md",
        "_archive/notes/old-plan.md",
        "_archive/_trash/notes/older.md",
        "_core/profile.md",
        "_core/preferences.md",
    ):
        os.utime(root / rel, (epoch - 86400, epoch - 86400))
    return Corpus(root, files, planted_near, planted_exact)


@dataclass(frozen=True)
class Score:
    planted: int
    reported: int
    true_positive: int
    recall: float
    precision: float
    seconds: float
    missed_below: int  # planted pairs whose exact similarity is under the threshold
    missed_lsh: int  # planted pairs at or above it that LSH did not make candidates
    as_exact: int  # planted pairs whose edits vanished in normalization: reported as exact duplicates


def score(corpus: Corpus, *, today: dt.date = TODAY) -> Score:
    from pmem_tui.core.health import check_health

    start = time.perf_counter()
    report = check_health(corpus.root, today=today, use_cache=False)
    seconds = time.perf_counter() - start
    reported = {frozenset((p.a, p.b)) for p in report.near_pairs}
    # A planted copy whose edits happened to vanish in normalization (case, punctuation) is reported as an
    # exact duplicate: found all the same.
    identical = {
        frozenset((p.path, s.other))
        for p in report.proposals
        for s in p.signals
        if s.kind == "duplicate" and s.other is not None
    }
    tp = len(reported & corpus.near_pairs)
    as_exact = len((identical - reported) & corpus.near_pairs)
    recall = (tp + as_exact) / len(corpus.near_pairs) if corpus.near_pairs else 1.0
    precision = tp / len(reported) if reported else 1.0
    from pmem_tui.core.health.similarity import SIM_THRESHOLD
    from pmem_tui.core.health.sketch import similarity
    from pmem_tui.core.health.text import normalized_text

    below = 0
    for pair in corpus.near_pairs - reported - identical:
        a, b = sorted(pair)
        texts = [normalized_text((corpus.root / p).read_bytes()) for p in (a, b)]
        below += similarity(texts[0], texts[1], cutoff=0.0) < SIM_THRESHOLD
    missed = len(corpus.near_pairs) - tp - as_exact
    return Score(
        len(corpus.near_pairs), len(reported), tp, recall, precision, seconds, below, missed - below, as_exact
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=DEFAULT_FILES)
    parser.add_argument("--pairs", type=int, default=DEFAULT_PAIRS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="build the corpus in DIR (must not exist) and keep it")
    parser.add_argument("--check", action="store_true", help="exit 1 unless recall and precision are >= 0.9")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pmem-neardup-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp) / "memory"
        root.mkdir(parents=True)
        t0 = time.perf_counter()
        corpus = build_memory(
            root, args.files, near_pairs=args.pairs, exact_pairs=args.pairs // 10, seed=args.seed
        )
        gen = time.perf_counter() - t0
        result = score(corpus)
    print(
        f"near-duplicate benchmark: {args.files} files, {result.planted} planted near-duplicate pairs "
        f"(edits of 1-10% of the words), seed {args.seed}, corpus generated in {gen:.1f} s"
    )
    print("| measure | value |")
    print("|---|---|")
    print(f"| planted pairs | {result.planted} |")
    print(f"| reported near-duplicate pairs | {result.reported} |")
    print(f"| reported pairs that are planted (true positives) | {result.true_positive} |")
    print(f"| planted pairs found as exact duplicates (their edits changed no word) | {result.as_exact} |")
    print(f"| recall | {result.recall:.3f} |")
    print(f"| precision | {result.precision:.3f} |")
    print(f"| missed: exact similarity under the 85% threshold | {result.missed_below} |")
    print(f"| missed: over the threshold but not an LSH candidate | {result.missed_lsh} |")
    print(f"| health run (cold, no cache) | {result.seconds:.2f} s |")
    ok = result.recall >= 0.9 and result.precision >= 0.9
    print(f"target recall >= 0.9 and precision >= 0.9: {'met' if ok else 'MISSED'}")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
