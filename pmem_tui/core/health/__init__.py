"""Memory health (PM-HEALTH-1..6): find what to archive, say why, never act (`check.py` tells the story).

`check` runs it all, `signals` is the table of signals, `features` the per-file facts, `similarity` the
duplicate and core-overlap maths (`sketch`: MinHash; `text`: normalization and facts), `report` the
answer, `codec` what the cache stores. Acting on a proposal is the planners' job (`fix_planner`).

The package exports what a caller of the check needs; the engine's tables and thresholds are in `signals`
and `similarity`, imported only by a run that reads files (a warm run reuses the cached report, and loads
neither them nor numpy).
"""

from pmem_tui.core.health.check import ENGINE, check_health
from pmem_tui.core.health.report import CATEGORIES, HealthReport, HealthStats, NearPair, Proposal, Signal
from pmem_tui.core.model import DEFAULT_INACTIVE_DAYS

__all__ = [
    "CATEGORIES",
    "DEFAULT_INACTIVE_DAYS",
    "ENGINE",
    "HealthReport",
    "HealthStats",
    "NearPair",
    "Proposal",
    "Signal",
    "check_health",
]
