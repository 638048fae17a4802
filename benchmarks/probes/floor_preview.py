"""Floor probe: read a file and render it with Rich's `Markdown` to lines (the preview's floor).

python benchmarks/probes/floor_preview.py WIDTH SAMPLES PATH...
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

from _frames import write_result
from rich.console import Console
from rich.markdown import Markdown


def measure(paths: list[Path], width: int, samples: int) -> list[float]:
    out: list[float] = []
    for k in range(samples):
        path = paths[k % len(paths)]
        start = time.perf_counter()
        text = path.read_bytes().decode("utf-8", "replace")
        console = Console(width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor")
        console.render_lines(Markdown(text), console.options.update_width(width), pad=True)
        out.append((time.perf_counter() - start) * 1000)
    return out


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[3:]]
    write_result({"floor_preview": measure(paths, int(sys.argv[1]), int(sys.argv[2]))})
