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


async def test_at_80_columns_every_sentence_of_the_dialog_is_read_to_its_end(demo_root: Path) -> None:
    """Found in trial: at 80x24 the dialog's second field was titled "Index line (optional; empty: built
    from the title and summary you wri": a one-line label cut by the dialog's border."""
    from textual.geometry import Region
    from textual.widget import Widget

    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NewFileModal)
        shown = []
        for widget in app.screen.query(Static):
            if widget.display and widget.size.width:
                strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
                shown.append(" ".join(strip.text.strip() for strip in strips))
                parent = widget.parent
                assert isinstance(parent, Widget)
                assert widget.region.right <= parent.content_region.right, shown[-1]  # not cut by a border
        text = " ".join(shown)
        assert "the title and summary you write):" in text, text
