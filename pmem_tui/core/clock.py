"""Today's date, overridable so tests, snapshots and demos are reproducible.

`PMEM_TUI_TODAY=YYYY-MM-DD` freezes the date for the whole process (documented in the README).
"""

from __future__ import annotations

import datetime as dt
import os

ENV_TODAY = "PMEM_TUI_TODAY"


def today() -> dt.date:
    frozen = os.environ.get(ENV_TODAY)
    if frozen:
        from pmem_tui.core.user_input import parse_today

        return parse_today(frozen, ENV_TODAY)  # BadUsage (exit 2) when malformed or out of range
    return dt.date.today()
