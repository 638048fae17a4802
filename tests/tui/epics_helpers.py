"""Sample projects for the Epics pane's Pilot and snapshot tests (a plain module, like `tui_helpers`).

Dates are fixed against `tui_helpers.TODAY` (2026-03-10); file mtimes are fixed too, so ages never depend
on the run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from tui_helpers import FIXED_MTIME, RecordingApp, make_demo, settle

from pmem_tui.tui.widgets.epics import EpicsPane, EpicsView

PROJECT_LABEL = "~/work/shop"

RECENT = "2026-02-20"  # 18 days before TODAY
OLD = "2025-06-01"  # 282 days before TODAY: stale


def v2(epic_id: str, intent: str, summary: str, *, confidence: str = "0.9", date: str = RECENT) -> str:
    return (
        f"## Epic: {epic_id} — {intent}\n"
        f"<!-- af-memory:v2 epic={epic_id} confidence={confidence} items=3 date={date} -->\n"
        f"{summary}\n\n"
        "### Architectural decisions\n"
        f"- [decision] BODY-ONLY detail of {epic_id} (confidence: 0.9)\n\n"
    )


def v1(epic_id: str, intent: str, first_line: str) -> str:
    return (
        f"## Epic: {epic_id} — {intent}\n{first_line}\n\n"
        f"### Gotchas discovered\n- BODY-ONLY gotcha of {epic_id}\n\n"
    )


# Within budget: v2, v1 (dated in its heading), a stale v2, a tentative v2. Nothing is dropped.
WITHIN = (
    "# Permanent memory\n\n"
    + v2("FEAT-1", "cursor pagination", "Opaque cursors over offsets.")
    + v1("AUTH-2", f"sessions ({RECENT})", "Tokens in httpOnly cookies.")
    + v2("OPS-3", "deploys", "Blue-green; migrations stay compatible.", date=OLD)
    + v2("SRCH-4", "search", "Trigram index for typos.", confidence="tentative")
)


def over_budget(n: int = 9) -> str:
    """`n` epics with long summaries, one tentative: only `ids_only` fits the target."""
    text = "# Permanent memory\n\n"
    for i in range(1, n + 1):
        summary = f"Decision {i}: " + " ".join(f"word{i}x{j}" for j in range(14))
        if i == 2:
            text += v2(f"EP-{i}", f"intent number {i}", summary, confidence="tentative")
        elif i == 3:
            text += v2(f"EP-{i}", f"intent number {i}", summary, date=OLD)
        elif i % 2:
            text += v2(f"EP-{i}", f"intent number {i}", summary)
        else:
            text += v1(f"EP-{i}", f"intent number {i}", summary)
    return text


def over_cap(n: int = 80) -> str:
    """So many epics that even their IDs are over the 200-token cap: the file is skipped."""
    return "".join(v1(f"EPIC-{i:03}", "x", "short") for i in range(n))


def write_project(parent: Path, content: str | bytes, name: str = "shop") -> Path:
    project = parent / name
    folder = project / ".claude" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "permanent_memory.md"
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    return project


def epics_app(tmp_path: Path, project: Path) -> RecordingApp:
    """The app on a demo memory, with an Epics pane (key 5) on `project`."""
    return RecordingApp(make_demo(tmp_path), extra_panes=[EpicsPane(project, label=PROJECT_LABEL)])


async def show_epics(pilot: Pilot[Any]) -> EpicsView:
    """Let the app start, switch to the Epics pane and return its view (still loading, maybe)."""
    await settle(pilot)
    await pilot.press("5")
    screen = pilot.app.main_screen
    assert screen is not None
    return screen.query_one(EpicsView)
