"""Doctor: roll an interrupted action forward or back; repair leftovers."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from pmem_tui.core import journal, records
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.lifecycle import plan_archive, plan_delete
from tests.conftest import tree_bytes, write


def _crash_at(k: int):  # type: ignore[no-untyped-def]
    count = 0

    def hook(name: str, rel: str) -> None:
        nonlocal count
        count += 1
        if count == k:
            raise HardStop

    return hook


def _reset(root: Path, files: dict[str, bytes]) -> None:
    shutil.rmtree(root)
    for rel, data in files.items():
        write(root, rel, data)
    (root / "_archive/_trash").mkdir(parents=True, exist_ok=True)


@pytest.mark.rule("PM-ARC-4")
def test_archive_crash_at_every_step_then_doctor(memory: Path) -> None:
    before = tree_bytes(memory)
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    after = tree_bytes(memory)
    k = 1
    while True:
        _reset(memory, before)
        plan = plan_archive(memory, "projects/alpha.md", "x")
        try:
            apply(plan, memory, hook=_crash_at(k))
        except HardStop:
            apply(plan_doctor(memory), memory)
            assert tree_bytes(memory) in (before, after), f"crash at step {k}"
            assert not (memory / journal.INTENT).exists()
            k += 1
            continue
        break
    assert k > 10  # the crash reached every boundary of the action


def test_doctor_rebuilds_a_missing_trash_record(memory: Path, today: dt.date) -> None:
    write(memory, "_archive/_trash/notes/lost.md", "# Lost\n")
    plan = plan_doctor(memory)
    assert any("notes/lost.md" in n for n in plan.preview.notes)
    apply(plan, memory)
    rec = records.parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))[-1]
    assert rec.path == "notes/lost.md" and rec.deadline == today + dt.timedelta(days=30)
    assert (memory / "_archive/_trash/notes/lost.md").exists()  # never purged
    assert plan_doctor(memory).is_empty


def test_doctor_removes_temp_files(memory: Path) -> None:
    write(memory, "notes/.pmem-tmp-x.md-abcd", "partial")
    apply(plan_doctor(memory), memory)
    assert not (memory / "notes/.pmem-tmp-x.md-abcd").exists()


@pytest.mark.rule("PM-DEL-2")
def test_doctor_finishes_half_done_move(memory: Path) -> None:
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    plan = plan_delete(memory, "projects/alpha.md")

    def hook(name: str, rel: str) -> None:
        if name == "unlink" and rel == "_archive/projects/alpha.md":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)
    assert (memory / "_archive/projects/alpha.md").exists() and (memory / "_archive/_trash/projects/alpha.md").exists()
    apply(plan_doctor(memory), memory)
    assert not (memory / "_archive/projects/alpha.md").exists()
    assert (memory / "_archive/_trash/projects/alpha.md").exists()
