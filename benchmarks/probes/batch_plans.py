"""Plan a batch of N marked files on a memory, and time it (the preview the person waits for).

python benchmarks/probes/batch_plans.py ROOT ACTION N [RUNS]

ACTION: archive (N active files with an index line), delete (N files under `_archive/`, not the trash) or
recover (N files under `_archive/`, the trash included); drawn at random (seed 1). Plans RUNS times (3) in
one process (planning writes nothing) and prints one JSON line: {"action", "files", "items" (planned),
"median_s", "runs_s"}. Run it on a copy of a generated memory (`memory-10000-s1`), never on the original.
"""

import json
import random
import statistics
import sys
import time
from pathlib import Path

from pmem_tui.core import index, lifecycle
from pmem_tui.core.model import ARCHIVE_DIR, INDEX_FILE, TRASH_DIR

root = Path(sys.argv[1])
action, count = sys.argv[2], int(sys.argv[3])
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
DAY = lifecycle.clock_today()


def under(folder: str) -> list[str]:
    return sorted(str(p.relative_to(root / folder)) for p in (root / folder).rglob("*.md") if p.is_file())


if action == "archive":
    text = (root / INDEX_FILE).read_text(encoding="utf-8")
    pool = sorted({row[2] for row in index.parse_rows(text) if (root / row[2]).is_file()})
else:
    archived = [p for p in under(ARCHIVE_DIR) if not p.startswith("_trash/") and p != "_index.md"]
    pool = archived if action == "delete" else sorted({*archived, *under(TRASH_DIR)})
paths = random.Random(1).sample(pool, count)
plan = {
    "archive": lambda: lifecycle.plan_archive_many(root, paths, "old", DAY),
    "delete": lambda: lifecycle.plan_delete_many(root, paths, DAY),
    "recover": lambda: lifecycle.plan_recover_many(root, paths),
}[action]
times: list[float] = []
items = 0
for _ in range(runs):
    started = time.perf_counter()
    items = len(plan().items)
    times.append(time.perf_counter() - started)
out = {
    "action": action,
    "files": count,
    "items": items,
    "median_s": statistics.median(times),
    "runs_s": times,
}
print(json.dumps(out))
