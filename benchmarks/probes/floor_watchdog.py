"""Floor probe: an atomic save → the first event of a bare watchdog observer (as `app_saves.py` saves).

    python benchmarks/probes/floor_watchdog.py ROOT SAMPLES PATH...

Saves the PATHs in turn (restoring each) and prints JSON (ms; infinite: no event within 2 s).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _frames import atomic_write, write_result
from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer


def measure(root: Path, paths: list[Path], samples: int) -> list[float]:
    seen: dict[str, float] = {}
    event = threading.Event()
    target = [""]

    class Handler(FileSystemEventHandler):
        def on_any_event(self, ev: Any) -> None:
            if ev.event_type in ("opened", "closed_no_write"):  # reads are not changes (as in the app)
                return
            for p in (ev.src_path, getattr(ev, "dest_path", "")):
                if p and os.fsdecode(p) == target[0] and target[0] not in seen:
                    seen[target[0]] = time.perf_counter()
                    event.set()

    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    out: list[float] = []
    try:
        time.sleep(0.2)
        for k in range(samples):
            path = paths[k % len(paths)]
            original = path.read_bytes()
            st = path.stat()
            seen.clear()
            event.clear()
            target[0] = str(path)
            t0 = atomic_write(path, original + b"\n", k)
            ok = event.wait(2.0)
            out.append((seen[str(path)] - t0) * 1000 if ok and str(path) in seen else math.inf)
            path.write_bytes(original)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            time.sleep(0.05)
    finally:
        observer.stop()
        observer.join(timeout=2)
    return out


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[3:]]
    write_result({"floor_watchdog": measure(Path(sys.argv[1]), paths, int(sys.argv[2]))})
