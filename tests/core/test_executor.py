"""The executor: lock, staleness, journal, rollback on a failed step."""

from __future__ import annotations

import errno
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pmem_tui.core import journal
from pmem_tui.core.errors import Busy, DiskError, StalePlan, UnfinishedAction
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.lifecycle import plan_archive, plan_save
from tests.conftest import tree_bytes, write


def test_stale_plan_is_refused_and_nothing_changes(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    write(memory, "_index.md", (memory / "_index.md").read_text(encoding="utf-8") + "- notes/new.md — new\n")
    before = tree_bytes(memory)
    with pytest.raises(StalePlan, match="_index.md changed since the preview"):
        apply(plan, memory)
    assert tree_bytes(memory) == before


def test_second_process_holding_the_lock_gets_busy(memory: Path) -> None:
    (memory / ".pmem").mkdir()
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
