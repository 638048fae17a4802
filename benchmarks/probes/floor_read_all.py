"""Floor probe: a plain Python process that walks ROOT and reads every file (the `status` and cold `health`
floor), or with `--stat` only stats every file (the floor of a warm `health`, of the search index's
re-index and of a history record).

python benchmarks/probes/floor_read_all.py ROOT [--stat]
"""

import os
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
if "--stat" in sys.argv[2:]:
    for entry in walk(sys.argv[1]):
        total += entry.stat(follow_symlinks=False).st_size
else:
    for entry in walk(sys.argv[1]):
        with open(entry.path, "rb") as f:
            total += len(f.read())
print(total)
