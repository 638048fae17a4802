"""Snapshot fixtures: frozen clock, UTC, fixed mtimes, a fixed root label, the watcher off."""

from __future__ import annotations

import sys
from pathlib import Path

# The Pilot tests' helpers (a plain module next to them), and their fixtures re-exported here.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tui"))

from tui_helpers import demo_root as demo_root
from tui_helpers import frozen_clock as frozen_clock


