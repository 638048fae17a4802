"""Found in trial: `_index.md` (or `_archive/_index.md`) a symbolic link, as a dotfiles repository makes
it, or a folder: `a`, `e` and the health fix crashed the app with a traceback, and `e` lost the edit. Each
is now the one sentence the CLI gives, nothing changes, and an edit is kept as a draft."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle, until

from pmem_tui.core import drafts
from pmem_tui.tui.screens.health import HealthScreen
from tests.conftest import tree_state


def _replace(root: Path, rel: str, how: str, elsewhere: Path) -> None:
    place = root / rel
    if how == "link":
        target = elsewhere / "kept.md"
        place.rename(target)
        place.symlink_to(target)
    else:
        place.unlink()
        place.mkdir()


@pytest.mark.parametrize("how", ["link", "folder"])
async def test_an_index_that_is_a_link_or_a_folder_is_refused_in_one_sentence(
    demo_root: Path, tmp_path: Path, how: str
) -> None:
    _replace(demo_root, "_index.md", how, tmp_path)
    before = tree_state(demo_root)
    app = RecordingApp(demo_root, editor=lambda p: p.write_bytes(p.read_bytes() + b"- Mine.\n"))
    said = (
        "_index.md is a symbolic link, which pmem-tui never follows"
        if how == "link"
        else ("_index.md is a folder, not a file")
    )
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done >= 1)
        await pilot.press("a")  # archive
        assert app.errors()[-1] == f"{said}; nothing was changed."
        await pilot.press("e")  # edit and save: refused, and the edit is kept
        rel = app.errors()[-1].split("press e on ")[1].split(" to continue")[0]
        assert app.errors()[-1].startswith(f"{said}; nothing was changed. Your edit is kept as a draft at ")
        kept = drafts.read(demo_root, rel)
        assert kept is not None and kept[1].endswith(b"- Mine.\n")
        drafts.discard(demo_root, rel)
        await pilot.press("H")  # the health review's fix
        assert await until(pilot, lambda: isinstance(app.screen, HealthScreen))
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert app.errors()[-1].startswith(said)
        assert app.is_running
    assert tree_state(demo_root) == before


async def test_an_archive_index_that_is_a_link_is_refused_in_one_sentence(
    demo_root: Path, tmp_path: Path
) -> None:
    _replace(demo_root, "_archive/_index.md", "link", tmp_path)
    before = tree_state(demo_root)
    app = RecordingApp(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.scans_done >= 1)
        await pilot.press("a")
        await settle(pilot)
        assert app.errors()[-1] == (
            "_archive/_index.md is a symbolic link, which pmem-tui never follows; nothing was changed."
        )
    assert tree_state(demo_root) == before
