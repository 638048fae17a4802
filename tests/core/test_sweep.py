"""Doctor sweeps what an older pmem-tui's caches and an interrupted `.gitignore` write left in `.pmem/`."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.core import meta_dir
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.executor import apply
from pmem_tui.core.sweep import OLD_CACHE_DIR
from tests.conftest import tree_bytes, write

OLD = ("scan-v3.bin", "health-v1.bin", "health-v1-report.json", "status-v1-json.bin", ".scan-v3.bin.tmp-4-0a")


def _old_cache(memory: Path) -> Path:
    for name in OLD:
        write(memory, f"{OLD_CACHE_DIR}/{name}", b"\x00cached by an older pmem-tui")
    return memory / OLD_CACHE_DIR


@pytest.mark.rule("PM-AGENT-3")
def test_doctor_removes_an_older_version_s_cache_folder(memory: Path) -> None:
    _old_cache(memory)
    before = tree_bytes(memory)
    plan = plan_doctor(memory)
    assert any(OLD_CACHE_DIR in note for note in plan.preview.notes)
    apply(plan, memory)
    assert not (memory / OLD_CACHE_DIR).exists()
    assert tree_bytes(memory) == before  # no memory file touched
    assert plan_doctor(memory).is_empty


def test_only_the_files_it_wrote_go(memory: Path, tmp_path: Path) -> None:
    folder = _old_cache(memory)
    write(folder, "notes-by-someone.md", "mine\n")
    target = write(tmp_path, "elsewhere/scan-v3.bin", "not ours to remove\n")
    (folder / "health-v2.bin").symlink_to(target)  # a known name, but a link: never followed, never removed
    apply(plan_doctor(memory), memory)
    assert sorted(p.name for p in folder.iterdir()) == ["health-v2.bin", "notes-by-someone.md"]
    assert target.read_text() == "not ours to remove\n"


def test_a_symlinked_cache_folder_is_left_alone(memory: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "scan-v3.bin", "kept\n")
    (memory / ".pmem").mkdir()
    (memory / OLD_CACHE_DIR).symlink_to(elsewhere)
    assert plan_doctor(memory).is_empty
    assert (elsewhere / "scan-v3.bin").read_text() == "kept\n"


def test_doctor_removes_a_temp_file_of_an_interrupted_gitignore_write(memory: Path) -> None:
    write(memory, ".pmem/.pmem-tmp-.gitignore-0a1b2c3d", meta_dir.GITIGNORE_BYTES[:5])
    apply(plan_doctor(memory), memory)
    assert sorted(p.name for p in (memory / ".pmem").iterdir()) == [".gitignore", "lock"]
