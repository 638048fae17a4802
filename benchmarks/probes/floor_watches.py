"""Floor probe: a bare watchdog observer's watches set on every folder of ROOT (in process, ms).

    python benchmarks/probes/floor_watches.py ROOT

What the app does before its first full scan (`MemoryWatcher.start`: one recursive inotify schedule, links
not followed), with nothing else in the process: `Observer.start` returns once every folder is watched.
Prints JSON: {"ms": ...} (infinite when the watches cannot all be set: no inotify watches left).
"""

import json
import math
import sys
import time

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

started = time.perf_counter()
observer = Observer()
observer.daemon = True  # as the app's: never waited for at exit
observer.schedule(FileSystemEventHandler(), sys.argv[1], recursive=True, follow_symlink=False)
try:
    observer.start()
except OSError:  # out of inotify watches: the app would poll instead; no floor to measure
    ms = math.inf
else:
    ms = (time.perf_counter() - started) * 1000
    observer.stop()
    observer.join(timeout=2)
print(json.dumps({"ms": ms}))
