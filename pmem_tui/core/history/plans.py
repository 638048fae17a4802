"""Restore a version: a save of that version's bytes, planned by the save planner (the usual preview: the
diff, the index line and the summary revision), its origin `restore`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pmem_tui.core import save_planner
from pmem_tui.core.history import log
from pmem_tui.core.paths import normalize_user_path
from pmem_tui.core.plan import Plan

__all__ = ["plan_restore"]


def plan_restore(root: Path, path: str, version: str) -> Plan:
    """The save that puts `path` (its original path) back to its bytes at `version`. Refused in one sentence
    for an unknown version or a path that version does not hold."""
    path = normalize_user_path(path)  # a hostile path is refused before anything is read
    commit_id = log.resolve(root, version)
    data = log.version_bytes(root, commit_id, path)
    plan = save_planner.plan_save(Path(root), path, data)
    short = commit_id[:12]
    outcome = plan.outcome.replace("Saved ", f"Restored {path} to version {short}: saved ", 1)
    return dataclasses.replace(
        plan, action="restore", title=f"Restore {path} to version {short}", outcome=outcome
    )
