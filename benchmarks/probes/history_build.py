"""Build a history of VERSIONS one-line edits of a 2 KB file, each recorded (issue 16's size and speed rows).

python benchmarks/probes/history_build.py ROOT VERSIONS

Makes ROOT (a small memory with `notes/edited.md`, 2 KB), then VERSIONS times: replaces one line of it
with a line of the same length but new text, and records (`history.record`, as `snapshot` does). Prints
one JSON line: {"versions", "file_bytes", "bytes_changed" (the removed and added lines' bytes, summed),
"store_bytes" (every file of `.pmem/history`), "packs", "seconds"}.
"""

import json
import os
import sys
import time
from pathlib import Path

from pmem_tui.core.history import record

root = Path(sys.argv[1])
versions = int(sys.argv[2])
(root / "notes").mkdir(parents=True, exist_ok=True)
(root / "_index.md").write_text("# Index\n\n- notes/edited.md — the edited file\n")
lines = [f"- line {n:03d}: a fact the agent keeps about the project, kept short.\n" for n in range(30)]
path = root / "notes/edited.md"
path.write_text("# Edited\n\n" + "".join(lines))
record.record(root, create=True)
changed = 0
started = time.perf_counter()
for v in range(versions):
    n = v % len(lines)
    new = f"- line {n:03d}: version {v:05d} of this fact, rewritten by an agent.\n"[: len(lines[n])]
    new = new.ljust(len(lines[n]) - 1) + "\n"
    changed += len(lines[n].encode()) + len(new.encode())
    lines[n] = new
    path.write_text("# Edited\n\n" + "".join(lines))
    os.utime(path, ns=(time.time_ns(), time.time_ns() + v))  # a new mtime every time, even within a tick
    done = record.record(root)
    assert done.commit is not None, (v, done)
seconds = time.perf_counter() - started
store = root / ".pmem/history"
size = sum(p.stat().st_size for p in store.rglob("*") if p.is_file())
packs = len(list((store / "objects/pack").glob("*.pack")))
out = {
    "versions": versions,
    "file_bytes": path.stat().st_size,
    "bytes_changed": changed,
    "store_bytes": size,
    "packs": packs,
    "seconds": seconds,
}
print(json.dumps(out))
