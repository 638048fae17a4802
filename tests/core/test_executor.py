"""The executor: lock, staleness, journal, rollback on a failed step."""

from __future__ import annotations

import errno
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pmem_tui.core import journal
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import Busy, DiskError, PmemError, StalePlan, UnfinishedAction
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.lifecycle import plan_archive, plan_save
from tests.conftest import tree_bytes, write


def test_stale_plan_is_refused_and_nothing_changes(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    write(memory, "_index.md", (memory / "_index.md").read_text(encoding="utf-8") + "- notes/new.md — new\n")
    before = tree_bytes(memory)
    with pytest.raises(StalePlan, match=r"_index\.md changed since the preview"):
        apply(plan, memory)
    assert tree_bytes(memory) == before


def test_second_process_holding_the_lock_gets_busy(memory: Path) -> None:
    (memory / ".pmem").mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys, filelock
            lock = filelock.FileLock({str(memory / ".pmem/lock")!r}); lock.acquire()
            print('held', flush=True); sys.stdin.read()
        """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = tree_bytes(memory)
        with pytest.raises(Busy):
            apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
        assert tree_bytes(memory) == before
    finally:
        holder.communicate("")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO, errno.EROFS])
def test_os_error_mid_action_rolls_back(memory: Path, code: int) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    before = tree_bytes(memory)
    seen: list[str] = []

    def hook(name: str, rel: str) -> None:
        seen.append(name)
        if rel == "_index.md" and name == "replace":
            raise OSError(code, "injected", rel)

    with pytest.raises(DiskError, match="Nothing was changed"):
        apply(plan, memory, hook=hook)
    assert "replace" in seen
    assert tree_bytes(memory) == before
    assert not (memory / journal.INTENT).exists()


def test_hard_stop_leaves_journal_and_blocks_next_action(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")

    def hook(name: str, rel: str) -> None:
        if name == "unlink" and rel == "projects/alpha.md":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)
    assert (memory / journal.INTENT).exists()
    with pytest.raises(UnfinishedAction, match="doctor"):
        apply(plan_save(memory, "notes/x.md", b"# X\n"), memory)


# -- durability and no-replace ------------------------------------------------------------------------------


def _steps_of(plan_fn, memory: Path) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    steps: list[tuple[str, str]] = []
    apply(plan_fn(), memory, hook=lambda name, rel: steps.append((name, rel)))
    return steps


@pytest.mark.parametrize("target", ["fsync-file", "fsync-dir"])
def test_a_failed_fsync_is_an_error_never_retried(memory: Path, target: str) -> None:
    """fsync fails while `_index.md` is rewritten: DiskError, the memory as before, and the temp file whose
    fsync failed is never used again (no retry into a false success)."""
    plan = plan_archive(memory, "projects/alpha.md", "x")
    before = tree_bytes(memory)
    seen: list[tuple[str, str]] = []
    armed = {"replace": False}

    def hook(name: str, rel: str) -> None:
        seen.append((name, rel))
        if name == "replace" and rel == "_index.md":
            armed["replace"] = True
        want = (name == "fsync-file" and ".pmem-tmp-_index.md" in rel) if target == "fsync-file" else (
            name == "fsync-dir" and rel == "" and armed["replace"]
        )
        if want and not getattr(hook, "fired", False):
            hook.fired = True  # type: ignore[attr-defined]
            raise OSError(errno.EIO, "injected fsync failure", rel)

    with pytest.raises(DiskError, match="Nothing was changed: the disk reported an I/O error"):
        apply(plan, memory, hook=hook)
    assert tree_bytes(memory) == before
    assert not (memory / journal.INTENT).exists()
    if target == "fsync-file":
        failed = next(rel for name, rel in seen if name == "fsync-file" and ".pmem-tmp-_index.md" in rel)
        assert [s for s in seen if s[1] == failed] == [("open-temp", failed), ("write", failed),
                                                       ("fsync-file", failed)]


def test_every_changed_folder_is_fsynced(memory: Path) -> None:
    """Each step that changes a folder's entries is followed by an fsync of that folder."""
    steps = _steps_of(lambda: plan_archive(memory, "projects/alpha.md", "x"), memory)
    changes = {"mkdir", "replace", "link", "unlink", "rename", "rmdir"}
    for i, (name, rel) in enumerate(steps):
        if name not in changes:
            continue
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        later = steps[i + 1 :]
        assert ("fsync-dir", folder) in later, f"{name} {rel} is not followed by an fsync of {folder!r}"


def test_a_destination_that_appears_before_the_link_is_never_replaced(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    before = tree_bytes(memory)

    def hook(name: str, rel: str) -> None:
        if name == "link" and rel == "_archive/projects/alpha.md":
            write(memory, rel, "someone else's file")

    with pytest.raises(DiskError, match="Nothing was changed: a file already exists"):
        apply(plan, memory, hook=hook)
    assert (memory / "_archive/projects/alpha.md").read_text(encoding="utf-8") == "someone else's file"
    after = tree_bytes(memory)
    del after["_archive/projects/alpha.md"]
    assert after == before
    assert not (memory / journal.INTENT).exists()


def test_without_hard_links_the_rename_never_replaces_either(memory: Path) -> None:
    """link fails with EXDEV (a file system without hard links): rename with RENAME_NOREPLACE instead."""
    plan = plan_archive(memory, "projects/alpha.md", "x")

    def hook(name: str, rel: str) -> None:
        if name == "link" and rel == "_archive/projects/alpha.md":
            raise OSError(errno.EXDEV, "no hard links here", rel)
        if name == "rename" and rel == "_archive/projects/alpha.md":
            write(memory, rel, "someone else's file")

    with pytest.raises(DiskError, match="Nothing was changed"):
        apply(plan, memory, hook=hook)
    assert (memory / "_archive/projects/alpha.md").read_text(encoding="utf-8") == "someone else's file"
    assert (memory / "projects/alpha.md").exists()


def test_without_hard_links_a_move_still_works(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    data = (memory / "projects/alpha.md").read_bytes()

    def hook(name: str, rel: str) -> None:
        if name == "link":
            raise OSError(errno.EPERM, "no hard links here", rel)

    apply(plan, memory, hook=hook)
    assert (memory / "_archive/projects/alpha.md").read_bytes() == data
    assert not (memory / "projects/alpha.md").exists()


def test_a_new_file_that_appears_before_its_link_is_never_replaced(memory: Path) -> None:
    plan = plan_save(memory, "notes/fresh.md", b"# Fresh\n")
    before = tree_bytes(memory)

    def hook(name: str, rel: str) -> None:
        if name == "link" and rel == "notes/fresh.md":
            write(memory, rel, "an agent's file")

    with pytest.raises(DiskError, match="Nothing was changed"):
        apply(plan, memory, hook=hook)
    assert (memory / "notes/fresh.md").read_text(encoding="utf-8") == "an agent's file"
    after = tree_bytes(memory)
    del after["notes/fresh.md"]
    assert after == before


def test_an_edit_right_before_the_replace_is_kept_and_the_action_undone(memory: Path) -> None:
    """An agent appends to `_index.md` after the fingerprints were checked: the last look before the
    replace sees it; the action is undone and the agent's line kept."""
    plan = plan_archive(memory, "projects/alpha.md", "x")
    before = tree_bytes(memory)

    def hook(name: str, rel: str) -> None:
        if name == "open-temp" and ".pmem-tmp-_index.md" in rel and "journal" not in rel:
            with open(memory / "_index.md", "ab") as f:
                f.write(b"- notes/agent.md - written by an agent\n")

    with pytest.raises(StalePlan, match=r"Nothing was changed: _index\.md changed while the action ran"):
        apply(plan, memory, hook=hook)
    now = tree_bytes(memory)
    assert now["_index.md"] == before["_index.md"] + b"- notes/agent.md - written by an agent\n"
    del now["_index.md"], before["_index.md"]
    assert now == before


def test_a_symlink_swapped_in_after_the_preview_is_refused(memory: Path, tmp_path: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (memory / "_archive/projects").mkdir(parents=True, exist_ok=True)
    (memory / "_archive/projects").rmdir()
    (memory / "_archive/projects").symlink_to(outside)
    with pytest.raises(PmemError, match="symbolic link"):
        apply(plan, memory)
    assert list(outside.iterdir()) == []
    assert (memory / "projects/alpha.md").exists()


def test_a_private_file_stays_private(memory: Path) -> None:
    path = memory / "notes/standup.md"
    path.chmod(0o600)
    apply(plan_save(memory, "notes/standup.md", b"# Standup\n\nSomething new.\n"), memory)
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_long_name_gets_a_short_temp_file(memory: Path) -> None:
    name = "notes/" + "n" * 240 + ".md"
    apply(plan_save(memory, name, b"# Long\n"), memory)
    assert (memory / name).read_bytes() == b"# Long\n"


def test_two_first_actions_racing_for_the_metadata_folder(memory: Path) -> None:
    """Another process creates `.pmem/` between our check and our mkdir: that is the same result."""

    def hook(name: str, rel: str) -> None:
        if name == "mkdir" and rel == ".pmem":
            (memory / ".pmem").mkdir()

    apply(plan_archive(memory, "projects/alpha.md", "x"), memory, hook=hook)
    assert (memory / "_archive/projects/alpha.md").exists()


def test_the_intent_names_the_index_line_and_the_record(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")

    def hook(name: str, rel: str) -> None:
        if name == "link" and rel == "_archive/projects/alpha.md":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)
    intent = journal.read_intent(memory)
    assert intent is not None and intent.action == "archive"
    assert intent.detail["index_removed"] == ["- [Alpha](projects/alpha.md) — the importer project"]
    assert intent.detail["items"] == ["projects/alpha.md"]
    assert any("Add the record of projects/alpha.md" in c for c in intent.detail["record_changes"])
    raw = (memory / journal.INTENT).read_bytes()
    assert raw.isascii()  # any name survives the round trip


def test_planning_is_refused_while_another_process_applies(memory: Path) -> None:
    """A preview never describes a half-applied action: with a journal present and the lock held by another
    process, planning says busy; with the lock free, it points to doctor."""
    (memory / ".pmem/journal").mkdir(parents=True)
    write(memory, journal.INTENT, "{}")
    with pytest.raises(UnfinishedAction, match="doctor"):
        plan_archive(memory, "projects/alpha.md", "x")
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, filelock
            lock = filelock.FileLock({str(memory / '.pmem/lock')!r}); lock.acquire()
            print('held', flush=True); sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(Busy, match="right now"):
            plan_archive(memory, "projects/alpha.md", "x")
        with pytest.raises(Busy):
            plan_doctor(memory)
    finally:
        holder.communicate("")


def test_an_interrupted_first_save_leaves_a_root_the_next_first_save_completes(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    plan = plan_save(root, "notes/first.md", b"# First\n")

    def hook(name: str, rel: str) -> None:
        if name == "mkdir" and rel == "_core":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, root, hook=hook)
    apply(plan_doctor(root), root)
    assert sorted(p.name for p in root.iterdir()) == [".pmem"]  # nothing of the memory is left
    again = plan_save(root, "notes/first.md", b"# First\n")
    assert "_archive/_trash" in again.preview.creates  # still a first save: the whole structure
    apply(again, root)
    assert (root / "_archive/_index.md").is_file() and (root / "notes/first.md").read_bytes() == b"# First\n"


def test_planning_is_not_refused_by_an_action_that_finishes_while_it_looks(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's action was running when planning saw its intent, and finished (intent removed, lock
    released) before planning tried the lock: that is no interrupted action (seen once in 20 concurrency
    rounds in CI)."""
    write(memory, journal.INTENT, b"{}")

    def finished_meanwhile(root: Path) -> bool:
        (root / journal.INTENT).unlink()
        return False

    monkeypatch.setattr(journal, "action_running", finished_meanwhile)
    journal.check_quiet(memory)  # no refusal
    write(memory, journal.INTENT, b"{}")
    monkeypatch.setattr(journal, "action_running", lambda root: False)
    with pytest.raises(UnfinishedAction):
        journal.check_quiet(memory)  # still there, and nobody holds the lock: interrupted
