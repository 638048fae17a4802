"""Helpers shared by the app's Pilot and snapshot tests (imported as a plain module, not a conftest)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pmem_tui.demo.memory import build_demo
from pmem_tui.tui.app import PmemApp

TODAY = dt.date(2026, 3, 10)
# A fixed modification time (2026-03-01 12:00 UTC) so facts and snapshots never depend on the run.
FIXED_MTIME = 1772366400
ROOT_LABEL = "~/.persistent-memory"


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every app test (Pilot and snapshot) runs on TODAY, in UTC; conftests re-export this fixture."""
    monkeypatch.setenv("PMEM_TUI_TODAY", TODAY.isoformat())
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    return make_demo(tmp_path)


def fix_mtimes(root: Path) -> None:
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.utime(Path(dirpath) / name, (FIXED_MTIME, FIXED_MTIME))


def make_demo(parent: Path) -> Path:
    root = build_demo(parent / "memory", TODAY)
    fix_mtimes(root)
    return root


def bare_root(parent: Path) -> Path:
    """A memory without the lifecycle structure: one note and its index line."""
    root = parent / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes/a.md").write_text("# A\n", encoding="utf-8")
    (root / "_index.md").write_text("- [A](notes/a.md) — a\n", encoding="utf-8")
    return root


class RecordingApp(PmemApp):
    """The real app, with every notification kept for the assertions."""

    def __init__(self, root: Path, **kwargs: Any) -> None:
        kwargs.setdefault("watch", False)
        kwargs.setdefault("root_label", ROOT_LABEL)
        super().__init__(root, **kwargs)
        self.notes: list[tuple[str, str]] = []

    def notify(self, message: Any, *, title: str = "", severity: Any = "information", **kwargs: Any) -> None:
        self.notes.append((str(message), str(severity)))
        super().notify(message, title=title, severity=severity, **kwargs)

    def notes_text(self) -> str:
        return "\n".join(m for m, _ in self.notes)

    def errors(self) -> list[str]:
        return [m for m, s in self.notes if s == "error"]


async def wait_workers(app: Any) -> None:
    """Wait for the running workers; a cancelled one (an older scan replaced by a newer) is fine."""
    from textual.worker import WorkerCancelled, WorkerFailed

    for worker in list(app.workers):
        if not worker.is_finished:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()


async def settle(pilot: Pilot[Any]) -> None:
    """Let workers finish and their messages be handled (awaits the app; no fixed sleeps)."""
    app = pilot.app
    for _ in range(30):
        busy = any(not w.is_finished for w in app.workers)
        await wait_workers(app)
        await pilot.pause()
        if not busy and not any(not w.is_finished for w in app.workers):
            return


async def search_caught_up(pilot: Pilot[Any]) -> None:
    """The search index, started by the first search screen, is built and its news handled (awaits the
    flow's `caught_up` event; the timeout is only a hang guard)."""
    import asyncio

    flow = pilot.app._search
    assert flow is not None and flow.started, "the index starts with the first search screen"
    await asyncio.wait_for(flow.caught_up.wait(), 120)
    await pilot.pause()


async def until(
    pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 60.0, *, workers: bool = True
) -> bool:
    """Poll a condition, awaiting the app between checks. `timeout` is only a hang guard, generous so that a
    slow or loaded machine waits longer instead of failing: no test asserts on how long this takes.
    `workers=False`: without waiting for the workers between checks, for a worker the test holds on purpose
    (waited for, a held worker only goes on when its gate's hang guard lets it: the test then sees a state
    past the one it waits for)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        if workers:
            await wait_workers(pilot.app)
        await pilot.pause(0.01)
    return condition()


async def fill(pilot: Pilot[Any], text: str) -> None:
    """Put `text` into the focused input (typing it key by key costs a frame per key)."""
    from textual.widgets import Input

    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    focused.value = text
    focused.cursor_position = len(text)
    await pilot.pause()


async def archive_preview(pilot: Pilot[Any], reason: str) -> Any:
    """`a` on the highlighted row, `reason` typed, enter: the archive preview, its plan built."""
    from pmem_tui.tui.modals.plan_modal import PlanModal

    await pilot.press("a")
    await fill(pilot, reason)
    await pilot.press("enter")
    modal = pilot.app.screen
    assert isinstance(modal, PlanModal) and modal.plan is not None
    return modal
