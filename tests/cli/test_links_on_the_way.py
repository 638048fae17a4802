"""Links found by driving the CLI by hand (the trial of issues 12 and 13): a link that is not the file an
action names but a folder on its way, or the tool's own journal folder, is never followed, and nothing
behind it (or in the root) changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core import executor, lifecycle
from pmem_tui.core.errors import PmemError
from tests.conftest import stock, tree_state, write


def _outside(tmp_path: Path) -> Path:
    """A folder out of the root with files a link could lead to."""
    out = tmp_path / "outside"
    write(out, "_index.md", "# not the memory's\n")
    write(out, "keep.md", "# keep me\n")
    return out


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.parametrize(
    "command", [["archive", "projects/alpha.md", "--reason", "done", "--yes"], ["doctor", "--yes"]]
)
def test_a_journal_folder_that_is_a_link_has_nothing_behind_it_removed(
    memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    # Before: the failed journal write of the archive "cleaned up" by listing .pmem/journal through the link
    # and unlinking every file there: the outside folder lost _index.md and keep.md.
    out = _outside(tmp_path)
    (memory / ".pmem").mkdir()
    (memory / ".pmem/journal").symlink_to(out, target_is_directory=True)
    before = tree_state(out)
    code = main(["--root", str(memory), *command])
    captured = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in captured.err and "keep.md" not in captured.out
    assert captured.err.count("\n") == (code == 1)
    assert tree_state(out) == before
    assert (memory / "projects/alpha.md").is_file()


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.rule("PM-AGENT-3")
@pytest.mark.parametrize(
    ("link", "command", "destination"),
    [
        ("_archive/_trash", ["delete", "projects/old.md"], "_archive/_trash/projects/old.md"),
        (
            "_archive/projects",
            ["archive", "projects/alpha.md", "--reason", "done"],
            "_archive/projects/alpha.md",
        ),
        ("_archive/_trash/projects", ["delete", "projects/old.md"], "_archive/_trash/projects/old.md"),
    ],
)
@pytest.mark.parametrize("yes", [False, True])
def test_a_linked_folder_on_the_destination_is_refused_at_the_preview(
    memory: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    link: str,
    command: list[str],
    destination: str,
    yes: bool,
) -> None:
    # Before: the preview planned "create _archive/_trash/projects" and the move through the link; only
    # --yes refused (naming '_archive/_trash/projects/-'), after making .pmem/ in the root.
    stock(memory)
    write(memory, "_archive/elsewhere/projects/old.md", "# Old\n")  # the record still finds it by name
    (memory / "_archive/projects/old.md").unlink()
    _replace_by_link(memory / link, _outside(tmp_path))
    before, outside_before = tree_state(memory), tree_state(tmp_path / "outside")
    code = main(["--root", str(memory), *command, *(["--yes"] if yes else [])])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert captured.err == (
        f"pmem-tui: Refusing '{destination}': '{link}' is a symbolic link, and pmem-tui never follows links "
        "inside the memory root.\n"
    )
    assert tree_state(memory) == before and tree_state(tmp_path / "outside") == outside_before


def _replace_by_link(target: Path, to: Path) -> None:
    for child in sorted(target.rglob("*"), reverse=True) if target.exists() else []:
        child.rmdir() if child.is_dir() else child.unlink()
    if target.exists():
        target.rmdir()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(to, target_is_directory=True)


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.rule("PM-AGENT-3")
def test_a_link_made_after_the_preview_is_refused_before_pmem_is_made(memory: Path, tmp_path: Path) -> None:
    # Before: the executor made .pmem/, .pmem/.gitignore and .pmem/lock, then refused under the lock, naming
    # '_archive/_trash/projects/-'; the refused action left those three paths in the root.
    stock(memory)
    plan = lifecycle.plan_delete(memory, "projects/old.md")
    _replace_by_link(memory / "_archive/_trash", _outside(tmp_path))
    before = tree_state(memory)
    with pytest.raises(PmemError) as refused:
        executor.apply(plan, memory)
    assert "/-'" not in str(refused.value) and "'_archive/_trash' is a symbolic link" in str(refused.value)
    assert tree_state(memory) == before and not (memory / ".pmem").exists()


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.parametrize("link", [".pmem/journal", ".pmem/lock"])
def test_a_linked_lock_or_journal_is_refused_by_name_and_the_root_stays_as_it_was(
    memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    # Before: "Nothing was changed: a file already exists ..." (or "Too many levels of symbolic links"),
    # after .pmem/.gitignore had been made.
    out = _outside(tmp_path)
    (memory / ".pmem").mkdir()
    (memory / link).symlink_to(out / "keep.md" if link.endswith("lock") else out)
    before = tree_state(memory)
    code = main(["--root", str(memory), "archive", "projects/alpha.md", "--reason", "done", "--yes"])
    assert code == 1 and capsys.readouterr().err == (
        f"pmem-tui: Refusing '{link}': '{link}' is a symbolic link, and pmem-tui never follows links inside "
        "the memory root.\n"
    )
    assert tree_state(memory) == before


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.parametrize(
    "command",
    [["purge"], ["purge", "--yes"], ["recover", "notes/expired.md"], ["recover", "projects/gone.md"]],
)
def test_a_linked_trash_is_named_not_said_to_be_empty(
    memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """Found in trial: with `_archive/_trash` a link to the real trash (expired items in it), `purge` said
    "No expired trash to purge." (exit 0) and `recover` of a deleted file "is neither in the archive nor in
    the trash": the link, which status names, was the reason, and neither said so."""
    stock(memory)
    real = tmp_path / "real-trash"
    (memory / "_archive/_trash").rename(real)
    (memory / "_archive/_trash").symlink_to(real, target_is_directory=True)
    before, behind = tree_state(memory), tree_state(real)
    code = main(["--root", str(memory), *command])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == "", captured.out
    assert "_archive/_trash is a symbolic link, which pmem-tui never follows" in captured.err, captured.err
    assert tree_state(memory) == before and tree_state(real) == behind
