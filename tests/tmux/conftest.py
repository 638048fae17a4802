"""Real-terminal tests: each gets a tmux server of its own (see `terminal.py`), killed afterwards."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmux.terminal import Pane


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    assert shutil.which("tmux"), "the real-terminal tests need tmux"
    made = Pane(tmp_path)
    try:
        yield made
    finally:
        made.close()
