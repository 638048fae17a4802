"""Probe: a keystroke in the search screen (`ctrl+f`) → its results on screen, on a built index (the first
`ctrl+f` starts the index: the probe waits for it before the first keystroke).

    python benchmarks/probes/app_search.py ROOT SAMPLES [--size 160x48]

In-process `App.run_test` (headless), as `app_keys.py`: each key goes through the driver, and its latency
ends with the first frame showing the results of the text typed so far. Prints JSON (ms).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from _frames import Frames, app_probe_args, settle, wait_ready, write_result

from pmem_tui.tui.allocator import keep_mmap_threshold
from pmem_tui.tui.app import PmemApp

QUERIES = ("standup", "billing", "decision", "retro", "atlas", "deploy")  # letters only: no space key
TIMEOUT = 20.0
BUILD_TIMEOUT = 1800.0  # the index's first build at 100k files


async def session(root: Path, samples: int, size: tuple[int, int]) -> dict[str, Any]:
    keep_mmap_threshold()  # as `pmem-tui` does before it opens the app
    app = PmemApp(root, watch=True, root_label="benchmark")  # `wait_ready` waits for the watcher
    frames = Frames(app)
    async with app.run_test(size=size) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot)
        # The first ctrl+f starts the index (never at the app's start): its build or refresh, then settle.
        await frames.press("ctrl+f", {"frame": lambda: type(app.screen).__name__ == "SearchScreen"}, TIMEOUT)
        await asyncio.wait_for(app.search_flow.caught_up.wait(), BUILD_TIMEOUT)
        await settle(app, pilot)
        screen: Any = app.screen

        def shown(typed: str) -> Any:
            return lambda: bool(screen.input.value == typed and screen.shown_generation == screen.generation)

        keys: list[float] = []
        queries = list(QUERIES)
        while len(keys) < samples:
            query = queries.pop(0)
            queries.append(query)
            typed = ""
            for ch in query:
                typed += ch
                r = await frames.press(ch, {"frame": shown(typed)}, TIMEOUT)
                keys.append(r["frame"])
                await settle(app, pilot)
            while typed:
                typed = typed[:-1]
                await frames.press("backspace", {"frame": shown(typed)}, TIMEOUT)
                await settle(app, pilot)
    return {"search_key": keys}


def main() -> None:
    args = app_probe_args()
    write_result(asyncio.run(session(args.root, args.samples, args.size)))


if __name__ == "__main__":
    main()
