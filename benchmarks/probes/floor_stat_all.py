"""Floor probe: a plain Python process that walks ROOT and stats every file (the search re-index floor).

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
            else:
                yield e.stat(follow_symlinks=False).st_mtime_ns


print(sum(1 for _ in walk(sys.argv[1])))
