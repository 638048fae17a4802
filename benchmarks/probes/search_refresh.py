"""Probe: the search index brought up to date in a process of its own (nothing changed: only stats).

    PMEM_TUI_CACHE_DIR=DIR python benchmarks/probes/search_refresh.py ROOT

Prints how many files it read or dropped (0 when nothing changed).
"""

import sys
from pathlib import Path

from pmem_tui.core.search import SearchIndex

with SearchIndex.open(Path(sys.argv[1])) as idx:
    print(idx.refresh())
