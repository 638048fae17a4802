"""Fixtures for the app's Pilot tests: a frozen clock, a demo memory with fixed mtimes, a recording app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import RecordingApp
from tui_helpers import demo_root as demo_root  # re-exported fixtures
from tui_helpers import frozen_clock as frozen_clock


@pytest.fixture
def make_app() -> Callable[..., RecordingApp]:
    def make(root: Path, **kwargs: Any) -> RecordingApp:
        return RecordingApp(root, **kwargs)

    return make
