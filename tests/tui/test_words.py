"""The words on screen (issue 14, item 13): no raw markup, no "(s)", the diff where the text says it is,
keys rather than CLI commands, and a trash countdown that does not read as automatic."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle

from pmem_tui.core import lifecycle
from pmem_tui.core.report import Baseline
from pmem_tui.core.tree import scan
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.widgets.diff_view import plain_text, render_plan
from pmem_tui.tui.widgets.header import header_text
from pmem_tui.tui.words import in_keys


async def test_ctrl_c_says_how_to_quit_in_plain_words(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.notes[-1][0] == "Press q to quit the app."
        assert "[b]" not in app.notes_text()


def test_the_save_preview_says_where_the_diff_is(demo_root: Path) -> None:
    plan = lifecycle.plan_save(demo_root, "projects/atlas.md", b"# Atlas\n\n## Summary\nNew.\n")
    text = plain_text(render_plan(plan))
    assert "shown above" not in text and "the diff below shows it" in text
    assert text.index("the diff below shows it") < text.index("Diff: projects/atlas.md")


def test_counts_are_singular_or_plural_never_s_in_brackets(demo_root: Path) -> None:
    plan = lifecycle.plan_purge(demo_root)
    assert plan.title == "Purge 1 expired trash item"
    snap = scan(demo_root, deep=False)
    one = header_text("~/m", snap, Baseline(files=1, tokens=10, core_tokens=0, index_tokens=10), "off").plain
    assert "(1 file)" in one and "files)" not in one


@pytest.mark.rule("PM-UPG-4")
def test_core_sentences_name_the_key_in_the_app() -> None:
    message = "Cannot archive: the lifecycle structure is incomplete; run `pmem-tui upgrade` first."
    assert in_keys(message).endswith("press U to preview the upgrade first.")
    assert "pmem-tui" not in in_keys(
        "An earlier action was interrupted; run `pmem-tui doctor` to finish or undo it."
    )
    # found in trial: the `!` list said "`doctor` rebuilds it" where the app's key is D
    said = in_keys("_archive/_trash/x.md has no deletion record; `pmem-tui doctor` rebuilds it")
    assert said.endswith("has no deletion record; doctor (D) rebuilds it")


@pytest.mark.rule("PM-DEL-5")
async def test_the_trash_pane_does_not_promise_an_automatic_purge(demo_root: Path) -> None:
    app = RecordingApp(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        cells = [r.cells[-1] for r in app.main_screen.view("trash").list.all_rows]
        assert not [c for c in cells if "purged in" in c]
        assert "expired: P purges it" in cells
        await pilot.press("4", "P")
        assert isinstance(app.screen, PlanModal)
