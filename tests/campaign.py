"""The size of the long tests: the fault campaign's repetitions and the long property tests' examples.

`pytest -q` runs the quick size: every kind of case and every assertion, fewer repetitions. The full size
is the weekly run: `pytest -q --campaign=full` (or PMEM_TUI_CAMPAIGN=full); tests/conftest.py sets the
variable before collection, so module-level sizes see it; xdist workers and child processes inherit it.
"""

from __future__ import annotations

import os

CAMPAIGN_ENV = "PMEM_TUI_CAMPAIGN"


def full_campaign() -> bool:
    return os.environ.get(CAMPAIGN_ENV, "quick") == "full"


def sized(quick: int, full: int) -> int:
    """A repetition count at the campaign's size."""
    return full if full_campaign() else quick


def examples(full: int) -> int:
    """A long property test's Hypothesis examples: `full` in the full run, a tenth (at least 100) in the
    quick one."""
    return full if full_campaign() else max(100, full // 10)
