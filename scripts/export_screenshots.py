"""Export the README's screenshots (SVG) of the app on the demo memory into screenshots/.

    python scripts/export_screenshots.py [--out screenshots]

Like harlequin's script: each shot runs the app headless with `run_test`, drives it with keys and
saves an SVG. The clock is frozen and the file times fixed, so the output only changes when the
app's look does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TODAY = dt.date(2026, 3, 10)
FIXED_MTIME = 1772366400  # 2026-03-01 12:00 UTC
SIZE = (120, 36)

Steps = Callable[[Any], Awaitable[None]]


async def settle(pilot: Any) -> None:
    from textual.worker import WorkerCancelled, WorkerFailed

    app = pilot.app
    for _ in range(30):
        busy = any(not w.is_finished for w in app.workers)
        for worker in list(app.workers):
            if not worker.is_finished:
                with contextlib.suppress(WorkerCancelled, WorkerFailed):
                    await worker.wait()
        await pilot.pause()
        if not busy and not any(not w.is_finished for w in app.workers):
            return


def keys(*names: str) -> Steps:
    async def run(pilot: Any) -> None:
        await pilot.press(*names)

    return run


def typed(text: str, *after: str) -> Steps:
    async def run(pilot: Any) -> None:
        pilot.app.focused.value = text
        await pilot.pause()
        if after:
            await pilot.press(*after)

    return run


def select(pane_key: str, path: str) -> Steps:
    async def run(pilot: Any) -> None:
        await pilot.press(pane_key)
        pane = ["index", "core", "archive", "trash"][int(pane_key) - 1]
        memory_list = pilot.app.main_screen.view(pane).list
        memory_list.select_key(next(r.key for r in memory_list.all_rows if r.path == path))
        await settle(pilot)

    return run


SHOTS: list[tuple[str, str, list[Steps]]] = [
    ("main-index", "demo", []),
    ("main-core", "demo", [keys("2")]),
    ("main-archive", "demo", [keys("3")]),
    ("main-trash", "demo", [keys("4")]),
    ("filter", "demo", [keys("slash"), typed("reading")]),
    (
        "preview-archive",
        "demo",
        [select("1", "projects/cobalt-migration.md"), keys("a"), typed("migration finished", "enter")],
    ),
    ("preview-recover-legacy", "demo", [select("3", "notes/q3-planning.md"), keys("r")]),
    ("preview-purge", "demo", [keys("P")]),
    ("health", "demo", [keys("H")]),
    ("help", "demo", [keys("question_mark")]),
    ("upgrade-banner", "pre-lifecycle", []),
    ("welcome", "missing", []),
]


def make_root(kind: str, parent: Path) -> Path:
    from pmem_tui.demo.memory import build_demo

    if kind == "missing":
        return parent / "no-memory-yet"
    root = build_demo(parent / "memory", TODAY)
    if kind == "pre-lifecycle":
        shutil.rmtree(root / "_archive")
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.utime(Path(dirpath) / name, (FIXED_MTIME, FIXED_MTIME))
    return root


async def shoot(name: str, kind: str, steps: list[Steps], out: Path) -> Path:
    from textual.widgets import Input

    from pmem_tui.tui.app import PmemApp

    with tempfile.TemporaryDirectory(prefix="pmem-shot-") as tmp:
        root = make_root(kind, Path(tmp))
        app = PmemApp(root, watch=False, root_label="~/.persistent-memory")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for step in steps:
                await step(pilot)
                await settle(pilot)
            for field in app.screen.query(Input):
                field.cursor_blink = False
            await pilot.pause()
            return Path(app.save_screenshot(f"{name}.svg", str(out)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots", help="folder for the SVGs")
    args = parser.parse_args(argv)
    os.environ["PMEM_TUI_TODAY"] = TODAY.isoformat()
    os.environ["TZ"] = "UTC"
    time.tzset()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, kind, steps in SHOTS:
        path = asyncio.run(shoot(name, kind, steps, args.out))
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
