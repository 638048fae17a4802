"""The app on a root an agent archived into by hand: its literal archive is listed and recovered."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_actions import modal, preview_of, select
from tui_helpers import settle

from tests.agents.agent_roots import ACTIVE_INDEX, OLD_LINE, VARIANTS, build, changes_outside, read, shape


@pytest.mark.rule("PM-AGENT-1", "PM-AGENT-2", "PM-REC-6")
async def test_the_app_recovers_an_inline_record_from_a_literal_archive(tmp_path: Path, make_app) -> None:
    v = VARIANTS["crlf-bom-literal"]
    b = build(tmp_path, "inline-list", v)
    app = make_app(b.root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await select(pilot, app, "archive", "projects/old.md")
        await pilot.press("r")
        shown = preview_of(modal(app))
        assert "_archive/old.md -> projects/old.md" in shown
        assert f"line added {OLD_LINE}" in shown
        await pilot.press("y")
        await settle(pilot)
        assert app.errors() == []
        assert (b.root / "projects/old.md").is_file() and not (b.root / v.location).exists()
        assert read(b.root, "_index.md") == shape(ACTIVE_INDEX + OLD_LINE + "\n", v)
        assert changes_outside(b.archive, read(b.root, "_archive/_index.md"), b.lo, b.hi) == []
