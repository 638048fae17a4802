"""`n` with a path that cannot be used: the dialog stays open, the reason under the field (issue 14,
item 14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static
from tui_helpers import RecordingApp, settle

from pmem_tui.tui.modals.new_file import NewFileModal

REFUSED = (
    ("_archive/old.md", "_archive"),
    ("../outside.md", "outside"),
    ("notes/", "Give the new file a name"),
    ("projects/atlas.md", "already exists; select it and press e to edit it"),
)


@pytest.mark.rule("PM-SAFE-2", "PM-SAFE-5")
async def test_a_refused_path_keeps_the_dialog_open_with_the_reason_under_the_field(demo_root: Path) -> None:
    ran: list[Path] = []
    app = RecordingApp(demo_root, editor=ran.append)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for typed, said in REFUSED:
            await refused(pilot, typed, said)
        assert not ran  # the editor never ran


async def refused(pilot: Pilot[Any], typed: str, said: str) -> None:
    app = pilot.app
    if not isinstance(app.screen, NewFileModal):
        await pilot.press("n")
    modal = app.screen
    assert isinstance(modal, NewFileModal)
    modal.query_one("#new-path", Input).value = typed
    await pilot.press("enter")
    await pilot.pause()
    assert app.screen is modal  # still open
    refusal = modal.query_one("#new-path-refusal", Static)
    assert refusal.display and modal.refusal is not None and said in modal.refusal
    assert modal.query_one("#new-path", Input).has_focus
    # Typing again clears the refusal; a good path goes on to the index line.
    modal.query_one("#new-path", Input).value = "notes/fresh-idea.md"
    await pilot.pause()
    assert not refusal.display
    await pilot.press("enter")
    assert modal.query_one("#new-index-line", Input).has_focus
    modal.query_one("#new-path", Input).focus()
