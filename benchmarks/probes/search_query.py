"""Probe: queries in-process on a built index, each timed alone, against the floor of opening the index
and counting its files.

    PMEM_TUI_CACHE_DIR=DIR python benchmarks/probes/search_query.py ROOT SAMPLES

The queries are words, pairs, a phrase and filters drawn from the memory's own text (deterministic), so
that each finds something. Prints JSON (ms).
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
from pathlib import Path

from pmem_tui.core.search import SearchIndex


def queries(root: Path, n: int) -> list[str]:
    rng = random.Random(7)
    notes = sorted((root / "notes").glob("*.md"))[:200] or sorted(root.rglob("*.md"))[:200]
    words = sorted({w for p in notes for w in re.findall(r"[a-z]{4,12}", p.read_text("utf-8", "replace"))})
    shapes = [
        lambda: rng.choice(words),
        lambda: f"{rng.choice(words)} {rng.choice(words)}",
        lambda: rng.choice(words)[:2],  # below the trigram: the scan path
        lambda: f"{rng.choice(words)} path:notes/*",
        lambda: f"{rng.choice(words)} in:archive",
    ]
    out = [shapes[i % len(shapes)]() for i in range(n)]
    text = notes[0].read_text("utf-8", "replace").split("\n")
    phrase = next((line.strip()[:20] for line in text if len(line.strip()) > 20 and '"' not in line), "")
    return [*out, f'"{phrase}"'] if phrase else out


def main(root: Path, samples: int) -> None:
    with SearchIndex.open(root) as idx:
        idx.refresh()  # untimed: built once, as the first search does
    asked = queries(root, samples)
    times: list[float] = []
    floor: list[float] = []
    hits = 0
    with SearchIndex.open(root) as idx:
        for q in asked:
            start = time.perf_counter()
            idx.conn.execute("SELECT count(*) FROM files").fetchone()
            floor.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            hits += len(idx.search(q, archive=True, limit=20).hits)
            times.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"query": times, "floor": floor, "hits": hits, "queries": len(asked)}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
