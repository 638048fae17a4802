"""Floor probe: what SQLite's FTS5 trigram index itself costs, with no Python reading or parsing timed.

    python benchmarks/probes/floor_fts5.py ROOT [WORKDIR]

Reads every file under ROOT once (untimed), then for each table layout inserts the same texts in one
transaction into a fresh database (journal off, synchronous off) and prints the wall and CPU seconds (the
CPU seconds are what a loaded machine inflates least) and the size. The read-all line is the same texts read
again in this process (the floor the first index is judged by).
"""

import os
import sqlite3
import sys
import tempfile
import time

root = sys.argv[1]
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
paths = sorted(os.path.join(d, n) for d, _, names in os.walk(root) for n in names)
for _ in range(2):  # the second read is timed: the files in the page cache, as the benchmark's floor
    t0, c0 = time.perf_counter(), time.process_time()
    texts = []
    for p in paths:
        with open(p, "rb") as f:
            texts.append(f.read().decode("utf-8", "replace"))
    read_s, read_cpu = time.perf_counter() - t0, time.process_time() - c0
mb = sum(len(t.encode()) for t in texts) / 1e6
print(f"read all {len(texts)} files ({mb:.1f} MB) in-process: {read_s:.2f} s, CPU {read_cpu:.2f} s")

LAYOUTS = {
    "trigram, text stored, detail=full": "content, tokenize='trigram'",
    "trigram, text stored, detail=column": "content, tokenize='trigram', detail=column",
    "trigram, text stored, detail=none": "content, tokenize='trigram', detail=none",
    "trigram, contentless, detail=full": "content, tokenize='trigram', content=''",
    "trigram, contentless, detail=none": "content, tokenize='trigram', content='', detail=none",
    "trigram, external content (a table t), detail=full": "content, tokenize='trigram', content='t'",
    "unicode61 words, contentless, detail=none": "content, content='', detail=none",
}
for name, spec in LAYOUTS.items():
    path = os.path.join(work, "floor.sqlite")
    if os.path.exists(path):
        os.unlink(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    external = "content='t'" in spec
    if external:
        conn.execute("CREATE TABLE t(content TEXT)")
    conn.execute(f"CREATE VIRTUAL TABLE d USING fts5({spec})")
    conn.execute("INSERT INTO d(d, rank) VALUES('automerge', 0)")
    t0, c0 = time.perf_counter(), time.process_time()
    conn.execute("BEGIN")
    if external:  # the external table holds the text; the index is fed the same rows
        conn.executemany("INSERT INTO t(rowid, content) VALUES (?, ?)", enumerate(texts, 1))
    conn.executemany("INSERT INTO d(rowid, content) VALUES (?, ?)", enumerate(texts, 1))
    conn.execute("COMMIT")
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    conn.close()
    size = os.path.getsize(path) / 1e6
    print(f"{name}: {took:.2f} s, CPU {cpu:.2f} s = {cpu / read_cpu:.0f}x read-all's CPU, {size:.0f} MB")
    os.unlink(path)
