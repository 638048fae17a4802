"""Floor probe: a plain Python process that walks ROOT and stats every file (the history record's floor).

python benchmarks/probes/floor_stat_all.py ROOT
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
for entry in walk(sys.argv[1]):
    total += entry.stat(follow_symlinks=False).st_size
print(total)
