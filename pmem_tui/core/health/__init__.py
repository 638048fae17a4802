"""Memory health (PM-HEALTH-1..6): find what to archive, say why, never act (`check.py` tells the story).

`check` runs it all, `signals` is the table of signals, `features` the per-file facts, `similarity` the
duplicate and core-overlap maths (`sketch`: MinHash; `text`: normalization and facts), `report` the
answer, `codec` what the cache stores. Acting on a proposal is the planners' job (`fix_planner`).
"""

from pmem_tui.core.health.check import ENGINE, check_health
from pmem_tui.core.health.features import index_routes
from pmem_tui.core.health.report import CATEGORIES, HealthReport, HealthStats, NearPair, Proposal, Signal
from pmem_tui.core.health.signals import DELETE_SIMILARITY, KINDS, SIGNAL_KINDS
from pmem_tui.core.health.similarity import OVERLAP_THRESHOLD, SIM_THRESHOLD
from pmem_tui.core.model import DEFAULT_INACTIVE_DAYS

__all__ = [
    "CATEGORIES",
    "DEFAULT_INACTIVE_DAYS",
    "DELETE_SIMILARITY",
    "ENGINE",
    "KINDS",
    "OVERLAP_THRESHOLD",
    "SIGNAL_KINDS",
    "SIM_THRESHOLD",
    "HealthReport",
    "HealthStats",
    "NearPair",
    "Proposal",
    "Signal",
    "check_health",
    "index_routes",
]
