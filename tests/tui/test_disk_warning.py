"""An action done while the disk reported an error after its commit point: the app says both."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from tui_helpers import fill, settle

from pmem_tui.core import fsops, journal


@pytest.mark.rule("PM-CORE-3")
async def test_a_disk_error_after_the_commit_point_is_a_warning_not_a_plain_success(
    demo_root: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail_after_commit() -> fsops.StepHook:
        removed = [False]

        def hook(name: str, rel: str) -> None:
            if name == "unlink" and rel == journal.INTENT:
                removed[0] = True
            elif removed[0] and name == "fsync-dir":
                raise OSError(errno.EIO, "injected EIO", rel)

        return hook

    monkeypatch.setattr(fsops, "env_fault_hook", fail_after_commit)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await fill(pilot, "done")
        await pilot.press("enter", "y")
        await settle(pilot)
        assert not (demo_root / "projects/atlas.md").exists()  # done
        assert any(m.startswith("Archived projects/atlas.md") for m, _ in app.notes)
        warnings = [m for m, s in app.notes if s == "warning"]
        assert warnings and warnings[-1].startswith("The action was done, but then the disk reported an I/O")
        assert not app.errors()
