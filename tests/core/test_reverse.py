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


def made_again(parent: Path) -> tuple[Path, lifecycle.Plan]:
    """The archive made `_archive/notes/`; an agent moved the file to `_archive/a.md`, so the undo's preview
    plans removing the empty folder; then, before the confirm, the agent removed it and made it again."""
    root = memory(parent)
    plan = archived(root)
    os.rename(root / "_archive/notes/a.md", root / "_archive/a.md")
    undo = undo_of(root, plan)
    assert undo.preview.removes_dirs == ("_archive/notes",)
    os.rmdir(root / "_archive/notes")
    os.mkdir(root / "_archive/notes")
    return root, undo


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


@pytest.mark.parametrize("where", ["archive", "trash"])
def test_a_recovers_undo_refuses_when_the_recovered_file_was_moved_since(tmp_path: Path, where: str) -> None:
    """Found in review: after a recover, the person (or an agent) moved the recovered file elsewhere; ctrl+z
    planned to archive again (or trash) whatever stood at its path by then, or refused with a sentence that
    did not say why. It refuses with one sentence now, and acts on no other file."""
    root = memory(tmp_path)
    archived(root)
    if where == "trash":
        executor.apply(lifecycle.plan_delete(root, "notes/a.md"), root)
    recover = lifecycle.plan_recover(root, "notes/a.md")
    executor.apply(recover, root)
    reverse.check_recovered(root, recover)  # untouched since: the undo may run
    os.rename(root / "notes/a.md", root / "notes/b.md")
    with pytest.raises(
        Refused, match=r"^notes/a\.md was moved since; undo would not put back what the recover"
    ):
        reverse.check_recovered(root, recover)
    (root / "notes/a.md").write_text(
        "# Another file, written where the recovered one was\n", encoding="utf-8"
    )
    before = tree_bytes(root)
    with pytest.raises(Refused, match="moved or changed since: it is not the file the recover put there"):
        reverse.check_recovered(root, recover)
    if where == "trash":  # the exact inverse asks it itself: the other file would have gone to the trash
        with pytest.raises(Refused, match="not the file the recover put there"):
            reverse.plan_reverse(root, recover, "undo-recover", "Put back notes/a.md in the trash")
    assert tree_bytes(root) == before
    os.replace(root / "notes/b.md", root / "notes/a.md")  # moved back: the same bytes, the undo may run
    reverse.check_recovered(root, recover)


@pytest.mark.rule("PM-AGENT-3")
def test_an_empty_folder_an_agent_makes_after_the_undos_preview_is_left_alone(tmp_path: Path) -> None:
    """Found in review: the archive made `_archive/notes/`; an agent moved the file to `_archive/a.md`, so
    the undo's preview plans removing the empty folder. Between the preview and the confirm the agent
    removes it and makes it again (its own, empty): the undo removed the agent's folder. The executor now
    leaves a folder that is not the one the preview saw; the folder seen, untouched, still goes."""
    root, undo = made_again(tmp_path)
    executor.apply(undo, root)
    assert (root / "notes/a.md").is_file() and (root / "_archive/notes").is_dir()
    # Not there at the preview: not planned, and one made before the confirm stays.
    plan = archived(root)
    os.rename(root / "_archive/notes/a.md", root / "_archive/a.md")
    os.rmdir(root / "_archive/notes")
    undo = undo_of(root, plan)
    assert undo.preview.removes_dirs == ()
    os.mkdir(root / "_archive/notes")
    executor.apply(undo, root)
    assert (root / "_archive/notes").is_dir()
    # The folder the preview saw, as it saw it: removed.
    os.rmdir(root / "_archive/notes")
    plan = archived(root)
    os.rename(root / "_archive/notes/a.md", root / "_archive/a.md")
    undo = undo_of(root, plan)
    assert undo.preview.removes_dirs == ("_archive/notes",)
    executor.apply(undo, root)
    assert not (root / "_archive/notes").exists() and (root / "notes/a.md").is_file()


@pytest.mark.rule("PM-AGENT-3")
def test_the_outcome_says_a_folder_left_because_it_changed_since_the_preview(tmp_path: Path) -> None:
    """Found in review: the executor left the folder an agent made again, as it should, but the outcome the
    person reads said nothing of it, after a preview that said the folder would go."""
    root, undo = made_again(tmp_path)
    result = executor.apply(undo, root)
    assert (
        result.outcome
        == f"{undo.outcome} Left folder _archive/notes/ in place: it changed since the preview."
    )
    # Removed as the preview said, or gone already: nothing more to say.
    for gone in (False, True):
        os.rmdir(root / "_archive/notes")
        plan = archived(root)
        os.rename(root / "_archive/notes/a.md", root / "_archive/a.md")
        undo = undo_of(root, plan)
        if gone:
            os.rmdir(root / "_archive/notes")
        assert executor.apply(undo, root).outcome == undo.outcome
        os.mkdir(root / "_archive/notes")
