"""Fixtures for the app's Pilot tests: a frozen clock, a demo memory with fixed mtimes, a recording app."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import RecordingApp
from tui_helpers import demo_root as demo_root  # re-exported fixtures
from tui_helpers import frozen_clock as frozen_clock

from pmem_tui.core import tree


@pytest.fixture
def make_app() -> Callable[..., RecordingApp]:
    def make(root: Path, **kwargs: Any) -> RecordingApp:
        return RecordingApp(root, **kwargs)

    return make


@pytest.fixture
def held_scan(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The full scan waits for this event (set it to let the scan finish)."""
    gate = threading.Event()
    real = tree.scan

    def scan(*args: Any, **kwargs: Any) -> Any:
        gate.wait(20)
        return real(*args, **kwargs)

    monkeypatch.setattr(tree, "scan", scan)
    yield gate
    gate.set()
