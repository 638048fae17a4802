"""Undo after an agent edited the archive's records: the session still knows what it removed."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, fill, settle

from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.widgets.diff_view import plain_text


def _drop_saved_lines(root: Path) -> None:
    """What an agent did: the records' saved index lines taken out of `_archive/_index.md`."""
    archive = root / "_archive/_index.md"
    lines = archive.read_text(encoding="utf-8").splitlines(True)
    kept = [line for line in lines if not line.startswith("- Index line:")]
    assert len(kept) < len(lines)
    archive.write_text("".join(kept), encoding="utf-8")


@pytest.mark.rule("PM-REC-4", "PM-AGENT-2")
@pytest.mark.parametrize("marked", [0, 2], ids=["one", "a batch"])
async def test_undo_of_an_archive_puts_back_the_lines_an_agent_took_from_the_records(
    demo_root: Path, make_app, marked: int
) -> None:
    """Found in trial: after an agent removed the archive record's saved index line, ctrl+z refused with
    the CLI's "confirm one with --index-line", though the session knew the line it had removed; found in
    review: a batch's undo skipped such a file with the same sentence."""
    app: RecordingApp = make_app(demo_root)
    index_before = (demo_root / "_index.md").read_bytes()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for _ in range(marked):
            await pilot.press("space")
        await pilot.press("a")
        await fill(pilot, "done")
        await pilot.press("enter", "y")
        await settle(pilot)
        _drop_saved_lines(demo_root)
        await pilot.press("ctrl+z")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PlanModal) and modal.plan is not None
        assert len(modal.plan.preview.index_added) == max(marked, 1)
        assert "Skipped" not in plain_text(modal._body())
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_index.md").read_bytes() == index_before
        assert not app.errors()


@pytest.mark.parametrize("dropped", ["- Index line:", "- Index line"], ids=["first line", "both lines"])
def test_undo_never_puts_back_one_line_for_a_route_that_had_two(tmp_path: Path, dropped: str) -> None:
    """Found in review: a route listed twice, archived; an agent took the record's first saved line (or
    both). Undo put back one line and removed the whole record: the second line was lost. It refuses now,
    and nothing changes."""
    import pmem_tui.tui.actions  # noqa: F401  (the key table the refusal names its key from)
    from pmem_tui.core import lifecycle
    from pmem_tui.core.errors import Refused
    from pmem_tui.core.executor import apply
    from pmem_tui.tui.undo import inverse
    from tests.conftest import tree_bytes

    root = tmp_path / "memory"
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    (root / "notes/n1.md").write_text("# N1\n", encoding="utf-8")
    index = "# Index\n\n- [N1](notes/n1.md) — first\n\n## Again\n- [N1 again](notes/n1.md) — second\n"
    (root / "_index.md").write_text(index, encoding="utf-8")
    plan = lifecycle.plan_archive(root, "notes/n1.md", "done")
    apply(plan, root)
    archive = root / "_archive/_index.md"
    lines = archive.read_text(encoding="utf-8").splitlines(True)
    archive.write_text("".join(line for line in lines if not line.startswith(dropped)), encoding="utf-8")
    before = tree_bytes(root)
    with pytest.raises(Refused, match="no saved index line any more: recover it from the Archive or Trash"):
        inverse(root, plan, "Undo: Archive notes/n1.md", "Undo")
    assert tree_bytes(root) == before


def test_undo_of_a_recover_never_archives_the_file_standing_where_the_recovered_one_was(
    tmp_path: Path,
) -> None:
    """Found in review: recover notes/a.md from the archive, an agent moves it to notes/b.md and writes a
    new notes/a.md; ctrl+z planned to archive the agent's new file. It refuses with one sentence now."""
    import os

    from pmem_tui.core import executor, lifecycle
    from pmem_tui.core.errors import Refused
    from pmem_tui.tui.undo import inverse
    from tests.conftest import one_note_memory

    root = one_note_memory(tmp_path, "# A\n", "# Index\n\n- [A](notes/a.md) — a\n")
    executor.apply(lifecycle.plan_archive(root, "notes/a.md", "done"), root)
    recover = lifecycle.plan_recover(root, "notes/a.md")
    executor.apply(recover, root)
    assert inverse(root, recover, "Undo: Recover notes/a.md", "Undo").plan is not None
    os.rename(root / "notes/a.md", root / "notes/b.md")
    (root / "notes/a.md").write_text("# The agent's new file\n", encoding="utf-8")
    with pytest.raises(Refused, match="not the file the recover put there"):
        inverse(root, recover, "Undo: Recover notes/a.md", "Undo")


def test_an_undo_refused_for_an_agents_edit_says_which_key_helps(tmp_path: Path) -> None:
    """Found in review: ctrl+z refused ("edited since … nothing can be taken back") and said no more; the
    same sentence now names the key that does what is left to do."""
    import pmem_tui.tui.actions  # noqa: F401  (the key table the refusal names its key from)
    from pmem_tui.core import lifecycle
    from pmem_tui.core.errors import Refused
    from pmem_tui.core.executor import apply
    from pmem_tui.tui.undo import inverse
    from tests.conftest import one_note_memory

    root = one_note_memory(tmp_path, "# A\n", "# Index\n\n- [A](notes/a.md) — a\n")
    apply(lifecycle.plan_archive(root, "notes/a.md", "done"), root)
    delete = lifecycle.plan_delete(root, "notes/a.md")
    apply(delete, root)
    archive = root / "_archive/_index.md"
    archive.write_text(
        archive.read_text(encoding="utf-8").replace("Deleted:", "Deleted on:"), encoding="utf-8"
    )
    with pytest.raises(Refused) as refused:
        inverse(root, delete, "Undo: Delete notes/a.md", "Undo")
    assert str(refused.value).endswith(
        "nothing can be taken back: recover notes/a.md from the Trash pane with r instead."
    )
    archive.write_text(
        archive.read_text(encoding="utf-8").replace("Deleted on:", "Deleted:"), encoding="utf-8"
    )
    recover = lifecycle.plan_recover(root, "notes/a.md")
    apply(recover, root)
    index = root / "_index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("notes/a.md)", "notes/a.md) (agent)"))
    with pytest.raises(Refused) as refused:
        inverse(root, recover, "Undo: Recover notes/a.md", "Undo")
    assert str(refused.value).endswith(
        "nothing can be taken back: archive notes/a.md again with a instead (then d deletes it)."
    )
