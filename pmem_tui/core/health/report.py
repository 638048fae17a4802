"""What a health check answers: numbered proposals made of signals, the near pairs, the expired trash."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from pmem_tui.core.model import TrashItem

__all__ = ["CATEGORIES", "HealthReport", "HealthStats", "NearPair", "Proposal", "Signal"]

CATEGORIES = ("delete", "archive", "keep")


@dataclass(frozen=True)
class Signal:
    """One piece of evidence. `other` names the related file (duplicates, core overlap; the dead route a moved
    or misspelled file's line still names, on that file's proposal); `score`: a share
    (or the days of inactivity, a secret's line number, or the `_index.md` line naming an orphan without a
    list bullet: `unbulleted`)."""

    kind: str
    detail: str
    other: str | None = None
    score: float | None = None

    @property
    def unbulleted(self) -> int | None:
        """An orphan's `_index.md` line naming it without a list bullet (`Problem.unbulleted`), else None."""
        return int(self.score) if self.kind == "orphan" and self.score is not None else None


@dataclass(frozen=True)
class Proposal:
    """A numbered proposal: keep / archive / delete, why, and for a fixable signal the exact fix.

    `fix_action` says what to do with `fix`: "add" (an orphan's line to add to `_index.md`), "drop" (a dead
    or duplicate route's line to remove), "reroute" (`fix` is the dead route whose one line is rewritten to
    name `path`, the rest of the line kept), "redact" (the lines whose secrets a save replaces; `fix` names
    them): `fix_planner.plan_fix` turns it into a plan with its own preview; or "forget" (`fix` is the id of a
    kept version whose content the history forgets: `history.rewrite.plan_forget`, previewed first).
    """

    n: int
    path: str
    category: str
    signals: tuple[Signal, ...]
    reason: str
    certainty: float
    fix: str | None = None
    fix_action: str | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(s.kind for s in self.signals)


@dataclass(frozen=True)
class NearPair:
    """Two active files confirmed as near duplicates (a < b), with their similarity (0..1)."""

    a: str
    b: str
    similarity: float


@dataclass(frozen=True)
class HealthStats:
    files: int = 0  # active files scanned
    read: int = 0  # files read in this run (active, core and control files)
    cache: str = "off"  # "off", "cold" (nothing usable), "features" (per-file cache used), "report" (reused)
    cache_hits: int = 0  # active files whose features came from the cache
    cache_written: bool = False
    candidates: int = 0  # LSH candidate pairs
    compared: int = 0  # pairs compared exactly in this run
    seconds: float = 0.0


@dataclass(frozen=True)
class HealthReport:
    root: Path
    today: dt.date
    inactive_days: int
    proposals: tuple[Proposal, ...]
    expired_trash: tuple[TrashItem, ...]
    near_pairs: tuple[NearPair, ...] = ()
    stats: HealthStats = field(default_factory=HealthStats)

    def proposal(self, path: str) -> Proposal | None:
        return next((p for p in self.proposals if p.path == path), None)
