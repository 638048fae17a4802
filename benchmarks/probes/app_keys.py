"""Probe: key press → frame in the app (cursor down, page down, cursor down held, filter keystrokes), and
selection → the preview of a 2 KB file shown.

    python benchmarks/probes/app_keys.py ROOT SAMPLES [--size 160x48] [--repeat-hz 30]

In-process `App.run_test` (headless): each key goes through the driver as from a terminal, and its latency
ends with the first frame after which its effect holds (see `_frames.Frames`). Prints JSON (ms).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _frames import Frames, app_probe_args, settle, shows, wait_ready, write_result

from pmem_tui.tui.allocator import keep_mmap_threshold
from pmem_tui.tui.app import PmemApp

FILTER_QUERIES = ("standup", "billing", "decision", "2026", "retro", "atlas")
Predicate = Callable[[], bool]
TIMEOUT = 20.0  # a frame never shown within it counts as a timeout (infinite)


async def session(root: Path, samples: int, size: tuple[int, int], repeat_hz: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    keep_mmap_threshold()  # as `pmem-tui` does before it opens the app
    app = PmemApp(root, watch=True, root_label="benchmark")
    frames = Frames(app)
    async with app.run_test(size=size) as pilot:
        await wait_ready(app, pilot)
        main: Any = app.main_screen  # Any: the probe depends on these names only, not on their types
        lst = main.view("index").list
        preview = main.preview
        out["watcher"] = app.watcher.mode
        out["rows"] = len(lst.all_rows)
        out["widgets"] = sum(1 for _ in app.screen.walk_children(with_self=True))
        out["preview_width"] = preview.scrollable_content_region.width

        # What a frame must show (predicates built per key: a closure over a loop variable would drift).
        def cursor_at(t: int) -> Predicate:
            return lambda: bool(lst.cursor == t)

        def cursor_past(t: int) -> Predicate:
            return lambda: bool(lst.cursor >= t)

        def moved_from(o: int) -> Predicate:
            return lambda: bool(lst.cursor != o)

        def previewed(t: int, row: Any) -> Predicate:
            return lambda: bool(lst.cursor == t and shows(preview, row))

        def filtered(q: str) -> Predicate:
            return lambda: bool(lst.filter_query == q)

        async def home() -> None:
            await frames.press("home", {"frame": cursor_at(0)}, TIMEOUT)
            await settle(app, pilot)

        # Cursor down, each press alone; and the preview of the row reached (2 KB files only).
        cursor: list[float] = []
        shown: list[float] = []
        for _ in range(samples):
            target = lst.cursor + 1
            if target >= len(lst.rows):
                await home()
                target = 1
            row = lst.rows[target]
            r = await frames.press(
                "down",
                {
                    "frame": cursor_at(target),
                    "preview": previewed(target, row),
                },
                TIMEOUT,
            )
            cursor.append(r["frame"])
            if row.kind == "entry" and row.size is not None and row.size <= 4096:
                shown.append(r["preview"])
            await settle(app, pilot)
        out["cursor_down"] = cursor
        out["preview"] = shown

        page: list[float] = []
        for _ in range(samples):
            old = lst.cursor
            if old + 2 * size[1] >= len(lst.rows):
                await home()
                old = 0
            r = await frames.press("pagedown", {"frame": moved_from(old)}, TIMEOUT)
            page.append(r["frame"])
            await settle(app, pilot)
        out["page_down"] = page

        # Key repeat: keys sent at `repeat_hz` without waiting; each key to the first frame showing it.
        await home()
        await settle(app, pilot, quiet=0.1)
        pending: list[tuple[dict[str, float], asyncio.Future[None], float]] = []
        for i in range(min(samples, len(lst.rows) - 1)):
            got, fut = frames.expect({"frame": cursor_past(i + 1)})
            pending.append((got, fut, frames.send_key("down")))
            await asyncio.sleep(1 / repeat_hz)
        out["repeat"] = [(await frames.collect(g, f, s, ["frame"], TIMEOUT))["frame"] for g, f, s in pending]
        await settle(app, pilot, quiet=0.1)

        # Filter keystrokes: type a query, then delete it back to one character.
        await home()
        await frames.press("slash", {"frame": lambda: main.view("index").filter_input.has_focus}, TIMEOUT)
        await settle(app, pilot)
        keys: list[float] = []
        queries = list(FILTER_QUERIES)
        while len(keys) < samples and queries:
            query = queries.pop(0)
            queries.append(query)
            typed = ""
            for ch in query:
                typed += ch
                r = await frames.press(ch, {"frame": filtered(typed)}, TIMEOUT)
                keys.append(r["frame"])
                await settle(app, pilot)
            while len(typed) > 1:
                typed = typed[:-1]
                r = await frames.press("backspace", {"frame": filtered(typed)}, TIMEOUT)
                keys.append(r["frame"])
                await settle(app, pilot)
            await frames.press("backspace", {"frame": filtered("")}, TIMEOUT)
            await settle(app, pilot)
        out["filter_key"] = keys
    return out


def main() -> None:
    args = app_probe_args(repeat=True)
    write_result(asyncio.run(session(args.root, args.samples, args.size, args.repeat_hz)))


if __name__ == "__main__":
    main()
