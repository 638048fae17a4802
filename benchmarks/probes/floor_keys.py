"""Floor probe: key press → frame in a minimal app whose binding updates one `Static` (as `app_keys.py`).

python benchmarks/probes/floor_keys.py SAMPLES [--size 160x48]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable

from _frames import Frames, settle, size_arg, write_result
from textual.app import App, ComposeResult
from textual.widgets import Static


class Floor(App[None]):
    BINDINGS = [("down", "bump", "")]  # noqa: RUF012
    count = 0

    def compose(self) -> ComposeResult:
        yield Static("0", id="n")

    def action_bump(self) -> None:
        self.count += 1
        self.query_one("#n", Static).update(str(self.count))


def counted(app: Floor, want: int) -> Callable[[], bool]:
    return lambda: app.count >= want


async def session(samples: int, size: tuple[int, int]) -> list[float]:
    app = Floor()
    frames = Frames(app)
    out: list[float] = []
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for _ in range(samples):
            r = await frames.press("down", {"frame": counted(app, app.count + 1)}, 20.0)
            out.append(r["frame"])
            await settle(app, pilot)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("samples", type=int)
    parser.add_argument("--size", type=size_arg, default=(160, 48))
    args = parser.parse_args()
    write_result({"floor_key": asyncio.run(session(args.samples, args.size))})
