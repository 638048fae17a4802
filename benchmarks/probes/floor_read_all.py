"""Floor probe: a plain Python process that walks ROOT and reads every file (the `status --json` floor), or
with --stat only stats each (the history record's floor).

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
                yield e.path


total = 0
if sys.argv[2:] == ["--stat"]:
    for path in walk(sys.argv[1]):
        total += os.stat(path, follow_symlinks=False).st_size
else:
    for path in walk(sys.argv[1]):
        with open(path, "rb") as f:
            total += len(f.read())
print(total)
