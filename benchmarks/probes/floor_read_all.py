"""Floor probe: a plain Python process that walks ROOT and reads every file (the `status --json` floor).

python benchmarks/probes/floor_read_all.py ROOT
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
                yield e.path


total = 0
for path in walk(sys.argv[1]):
    with open(path, "rb") as f:
        total += len(f.read())
print(total)
