"""An undo's folder removals and the exact inverse of a delete (`core/reverse.py`), checked again by the
executor: never through a link, never a folder that holds anything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pmem_tui.core import executor, lifecycle, reverse
from pmem_tui.core.errors import PmemError, Refused
from pmem_tui.core.plan import MakeDir, RemoveDir
from tests.conftest import one_note_memory, tree_bytes


def memory(parent: Path) -> Path:
    return one_note_memory(parent, "# A\n", "# Index\n\n- [A](notes/a.md) — a\n")


def archived(root: Path) -> lifecycle.Plan:
    plan = lifecycle.plan_archive(root, "notes/a.md", "done")
    executor.apply(plan, root)
    return plan


def undo_of(root: Path, plan: lifecycle.Plan) -> lifecycle.Plan:
    return reverse.leave_folders(
        root, lifecycle.plan_recover(root, "notes/a.md"), reverse.created_folders(plan)
    )


@pytest.mark.rule("PM-AGENT-3")
def test_a_created_folder_made_a_link_is_never_planned_for_removal(tmp_path: Path) -> None:
    """An agent replaced the folder the archive made by a link to an empty folder: the undo does not plan
    removing it (the link, or what it points to)."""
    root = memory(tmp_path)
    plan = archived(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    made = plan.ops[0]
    assert isinstance(made, MakeDir) and made.path == "_archive/notes"
    os.rename(root / "_archive/notes/a.md", root / "_archive/a.md")
    os.rmdir(root / "_archive/notes")
    os.symlink(outside, root / "_archive/notes")
    other = lifecycle.Plan("recover", "any plan: the folder is the point", ops=())
    assert reverse.leave_folders(root, other, ["_archive/notes"]).preview.removes_dirs == ()
    os.unlink(root / "_archive/notes")
    os.mkdir(root / "_archive/notes")  # the same, a real empty folder: removed
    assert reverse.leave_folders(root, other, ["_archive/notes"]).preview.removes_dirs == ("_archive/notes",)


def test_the_executor_refuses_a_folder_removal_through_a_link(tmp_path: Path) -> None:
    """A folder planned for removal, replaced by a link to an empty folder outside before the confirm: the
    undo is refused, nothing changes, the folder outside stays."""
    root = memory(tmp_path)
    plan = archived(root)
    undo = undo_of(root, plan)
    assert undo.preview.removes_dirs == ("_archive/notes",)
    assert undo.ops[-1] == RemoveDir("_archive/notes")
    os.rename(root / "_archive/notes/a.md", tmp_path / "a.md")
    os.rmdir(root / "_archive/notes")
    empty = tmp_path / "empty"
    empty.mkdir()
    os.symlink(empty, root / "_archive/notes")
    before = tree_bytes(root)
    with pytest.raises(PmemError):
        executor.apply(undo, root)
    assert tree_bytes(root) == before and empty.is_dir() and os.path.islink(root / "_archive/notes")


def test_a_folder_that_holds_more_than_the_undo_moves_out_is_kept(tmp_path: Path) -> None:
    root = memory(tmp_path)
    plan = archived(root)
    (root / "_archive/notes/sub").mkdir()
    assert undo_of(root, plan).preview.removes_dirs == ()
    os.rmdir(root / "_archive/notes/sub")
    undo = undo_of(root, plan)
    (root / "_archive/notes/new.md").write_text("# New\n", encoding="utf-8")  # after the preview
    executor.apply(undo, root)
    assert (root / "notes/a.md").exists() and (root / "_archive/notes/new.md").exists()


def test_a_deletes_undo_keeps_an_agents_other_edits_and_refuses_a_clash(tmp_path: Path) -> None:
    root = memory(tmp_path)
    archived(root)
    archive_index = root / "_archive/_index.md"
    before = archive_index.read_text(encoding="utf-8")
    delete = lifecycle.plan_delete(root, "notes/a.md")
    executor.apply(delete, root)
    after = archive_index.read_text(encoding="utf-8")
    archive_index.write_text(after + "\n## Agent's note\nkept\n", encoding="utf-8")
    undo = reverse.plan_reverse(root, delete, "undo-delete", "Put back notes/a.md in the archive")
    executor.apply(undo, root)
    assert archive_index.read_text(encoding="utf-8") == before + "\n## Agent's note\nkept\n"
    assert (root / "_archive/notes/a.md").exists()
    # The agent changed the deletion's own lines: nothing is taken back.
    delete = lifecycle.plan_delete(root, "notes/a.md")
    executor.apply(delete, root)
    text = archive_index.read_text(encoding="utf-8")
    archive_index.write_text(text.replace("Deleted:", "Deleted on:"), encoding="utf-8")
    with pytest.raises(Refused, match="was edited since"):
        reverse.plan_reverse(root, delete, "undo-delete", "Put back")


def test_an_undo_refuses_when_an_agent_rewrote_every_line_it_would_take_back(tmp_path: Path) -> None:
    """Found in review: the change to take back was a pure addition (a recovered index line, a deletion's
    two record lines) and the agent rewrote exactly those lines; the merge kept the agent's lines and
    dropped the removal without a word, leaving a false record or a line naming a file back in the trash."""
    root = memory(tmp_path)
    archived(root)
    archive_index = root / "_archive/_index.md"
    delete = lifecycle.plan_delete(root, "notes/a.md")
    executor.apply(delete, root)
    text = archive_index.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines(keepends=True) if line.startswith(("- Deleted", "- Recovery"))]
    assert len(lines) == 2, text
    archive_index.write_text(text.replace("".join(lines), "- Deleted: long ago (agent)\n- Kept: forever\n"))
    before = tree_bytes(root)
    with pytest.raises(Refused, match="was edited since"):
        reverse.plan_reverse(root, delete, "undo-delete", "Put back")
    assert tree_bytes(root) == before
    # A recover from the trash, then the agent edits the line it put back: its undo is refused too.
    archive_index.write_text(text, encoding="utf-8")
    recover = lifecycle.plan_recover(root, "notes/a.md")
    executor.apply(recover, root)
    index = root / "_index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("— a\n", "— a (edited by the agent)\n"))
    with pytest.raises(Refused, match="was edited since"):
        reverse.plan_reverse(root, recover, "undo-recover", "Put back in the trash")
