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
        return dt.date.fromisoformat(frozen)
    return dt.date.today()
