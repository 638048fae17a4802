"""Snapshot fixtures: frozen clock, UTC, fixed mtimes, a fixed root label, the watcher off."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# The Pilot tests' helpers (a plain module next to them).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tui"))

from tui_helpers import TODAY, make_demo


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
