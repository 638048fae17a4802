"""A save by hand (`e`, the editor) that removes a secret: found in review, it said nothing of the history
still holding the secret in earlier versions, unlike the health review's redaction (which says so and offers
step 2, forgetting them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from history_helpers import SECRET_LINE, SECRET_NOTE, record_at
from textual.pilot import Pilot
from tui_helpers import FIXED_MTIME, RecordingApp, make_demo, settle, until

from pmem_tui.core.history import record
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.widgets.memory_list import MemoryList

NOTE = f"# Deploy keys\n\nWhere the keys live.\n{SECRET_LINE}\n"


def _edit(app: RecordingApp, remove: str) -> None:
    def editor(path: Path) -> None:
        path.write_text(path.read_text(encoding="utf-8").replace(remove, "- in the vault."), encoding="utf-8")

    app.editor = editor


async def _save_without_the_secret(app: RecordingApp, pilot: Pilot[int]) -> MemoryList:
    """Select the secret note, edit its secret line away (`e`), confirm the save (`y`); the Index list."""
    await settle(pilot)
    main = app.main_screen
    assert main is not None
    rows = main.view("index").list
    assert rows.select_key(next(r.key for r in rows.all_rows if r.path == SECRET_NOTE))
    _edit(app, SECRET_LINE)
    await pilot.press("e")
    await settle(pilot)
    assert isinstance(app.screen, PlanModal)
    await pilot.press("y")
    await settle(pilot)
    return rows


@pytest.mark.rule("PM-HEALTH-5")
@pytest.mark.parametrize("recorded", [True, False], ids=["a history", "no history yet"])
async def test_a_hand_save_that_removes_a_secret_says_the_history_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorded: bool
) -> None:
    """Without a history yet, the save starts one with the version it replaces: it holds the secret too."""
    root = make_demo(tmp_path)
    (root / SECRET_NOTE).write_text(NOTE, encoding="utf-8")
    if recorded:
        record_at(monkeypatch, FIXED_MTIME + 86_400)
        assert record.record(root, create=True).commit is not None
    app = RecordingApp(root, editor=lambda _path: None)
    async with app.run_test(size=(120, 36)) as pilot:
        rows = await _save_without_the_secret(app, pilot)
        assert SECRET_LINE not in (root / SECRET_NOTE).read_text(encoding="utf-8")
        said = (
            f"{SECRET_NOTE} no longer holds the secret, but its earlier version in pmem-tui's history "
            "(.pmem/history) still holds it: forget it in the health review (H, then f on its "
            "secret-in-history proposal)."
        )
        assert await until(pilot, lambda: said in app.notes_text())
        # A save that removes no secret says nothing of it.
        rows.select_key(next(r.key for r in rows.all_rows if r.path == SECRET_NOTE))
        _edit(app, "Where the keys live.")
        before = app.notes_text().count("no longer holds the secret")
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.notes_text().count("no longer holds the secret") == before
        assert not app.errors()


@pytest.mark.rule("PM-UPG-4")
async def test_without_the_lifecycle_structure_the_note_names_the_upgrade_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The health review refuses until the upgrade (PM-UPG-4): a note sending the person to H alone led to a
    refusal, so on a memory an agent made without `_archive/` the way starts with the upgrade's key."""
    root = make_demo(tmp_path)
    shutil.rmtree(root / "_archive")
    (root / SECRET_NOTE).write_text(NOTE, encoding="utf-8")
    record_at(monkeypatch, FIXED_MTIME + 86_400)
    assert record.record(root, create=True).commit is not None
    app = RecordingApp(root, editor=lambda _path: None)
    async with app.run_test(size=(120, 36)) as pilot:
        await _save_without_the_secret(app, pilot)
        said = (
            f"{SECRET_NOTE} no longer holds the secret, but its earlier version in pmem-tui's history "
            "(.pmem/history) still holds it: forget it in the health review (U to upgrade the lifecycle "
            "structure first, then H, then f on its secret-in-history proposal)."
        )
        assert await until(pilot, lambda: said in app.notes_text())
        assert not app.errors()
