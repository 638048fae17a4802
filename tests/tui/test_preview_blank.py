"""The preview's "Nothing selected." line covers the whole width: a shorter line left the end of the path
shown before it on screen ("Nothing selected.  ration.md", seen in tmux after `/zzz` on cobalt-migration)."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import RecordingApp, fill, settle

from pmem_tui.tui.widgets.preview import PreviewView


async def test_nothing_selected_repaints_the_whole_line(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j", "slash")
        await fill(pilot, "zzz")
        await settle(pilot)
        assert app.main_screen is not None
        preview = app.main_screen.preview
        assert isinstance(preview, PreviewView)
        assert preview.text == "Nothing selected."
        width = preview.scrollable_content_region.width
        assert len(preview.render_line(0).text) == width
