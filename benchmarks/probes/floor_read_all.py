"""Floor probe: a plain Python process that walks ROOT and reads every file (the `status` and cold `health`
floor), or with `--stat` only stats every file (the floor of a warm `health`, of the search index's
re-index and of a history record), or with `--rows` stats every file and splits every line of `_index.md`
with one regex (the inputs of the app's rows: each row shows a file's size and time, and an index line's
route, title and summary).

python benchmarks/probes/floor_read_all.py ROOT [--stat | --rows]
"""

import os
import re
import sys


def walk(folder: str):  # type: ignore[no-untyped-def]  # no typing import: the floor stays bare
    with os.scandir(folder) as it:
        for e in it:
            if e.name.startswith("."):
                continue
            if e.is_dir(follow_symlinks=False):
                yield from walk(e.path)
            elif e.is_file(follow_symlinks=False):
                yield e


total = 0
if "--rows" in sys.argv[2:]:
    for entry in walk(sys.argv[1]):
        total += entry.stat(follow_symlinks=False).st_size
    line = re.compile(r"- \[([^\]]*)\]\(([^)]*)\)(?:\s*[-—:]\s*(.*))?")
    with open(os.path.join(sys.argv[1], "_index.md"), encoding="utf-8") as f:
        total += sum(1 for text in f if line.match(text))
elif "--stat" in sys.argv[2:]:
    for entry in walk(sys.argv[1]):
        total += entry.stat(follow_symlinks=False).st_size
else:
    for entry in walk(sys.argv[1]):
        with open(entry.path, "rb") as f:
            total += len(f.read())
print(total)
