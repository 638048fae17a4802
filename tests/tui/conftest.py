"""Fixtures for the app's Pilot tests: a frozen clock, a demo memory with fixed mtimes, a recording app."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import TODAY, RecordingApp, make_demo


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PMEM_TUI_TODAY", TODAY.isoformat())
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    return make_demo(tmp_path)


@pytest.fixture
def make_app() -> Callable[..., RecordingApp]:
    def make(root: Path, **kwargs: Any) -> RecordingApp:
        return RecordingApp(root, **kwargs)

    return make
