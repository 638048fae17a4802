"""Where a root's caches live (`cache_home`): the user's cache folder, one folder per root, never under it."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.cli import main
from pmem_tui.core import cache, cache_home, health_cache, scan_facts, status_cache
from tests.conftest import tree_state


def test_the_override_is_the_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache_home.ENV_CACHE_DIR, str(tmp_path / "caches"))
    assert cache_home.base() == str(tmp_path / "caches")


def test_without_the_override_it_is_platformdirs_which_follows_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(cache_home.ENV_CACHE_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_home.base() == str(tmp_path / "xdg" / "pmem-tui")


def test_one_folder_per_root_whatever_path_reaches_it(memory: Path, tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(memory)
    folder = cache_home.folder_for(memory)
    assert folder is not None and Path(folder).parent == Path(cache_home.base())
    assert cache_home.folder_for(tmp_path / "link") == folder
    other = tmp_path / "other"
    other.mkdir()
    assert cache_home.folder_for(other) not in (None, folder)
    undecodable = tmp_path / os.fsdecode(b"bad-\xff")  # a name that is not UTF-8 (kept as a surrogate)
    undecodable.mkdir()
    assert cache_home.folder_for(undecodable) not in (None, folder)
    assert cache_home.folder_for(tmp_path / "missing") is None


def test_the_folder_is_private_to_the_user(memory: Path) -> None:
    made = cache.folder(memory, create=True)
    assert made is not None
    folder = Path(made)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700


@pytest.mark.rule("PM-AGENT-3")
def test_a_cache_home_inside_the_root_is_not_used(
    memory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(cache_home.ENV_CACHE_DIR, str(memory / "notes" / "cache"))
    assert cache_home.folder_for(memory) is None
    before = tree_state(memory)
    for argv in (["status", "--json"], ["health", "--json"]):
        assert main(["--root", str(memory), *argv]) == 0
    assert tree_state(memory) == before
    assert capsys.readouterr().err == ""


def test_an_unusable_cache_home_is_ignored_silently(
    memory: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = [main(["--root", str(memory), "status", "--json", "--no-cache"]), capsys.readouterr().out]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv(cache_home.ENV_CACHE_DIR, str(blocker))
    assert cache.folder(memory, create=True) is None
    for _ in range(2):
        assert [main(["--root", str(memory), "status", "--json"]), capsys.readouterr().out] == expected
        assert main(["--root", str(memory), "health"]) == 0
        assert capsys.readouterr().err == ""
    assert blocker.read_text() == "not a folder\n"


NAMES = st.text(
    st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)), min_size=1, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(name=NAMES.filter(lambda n: n not in (".", "..")))
def test_any_root_name_gets_one_plain_folder_in_the_cache_home(name: str) -> None:
    with tempfile.TemporaryDirectory(dir=os.environ.get("PYTEST_TMPDIR")) as tmp:
        root = Path(tmp) / name
        try:
            root.mkdir()
        except OSError:  # a name this file system refuses (too long in bytes): nothing to key
            return
        folder = cache_home.folder_for(root)
        assert folder is not None
        assert Path(folder).parent == Path(cache_home.base())
        assert len(Path(folder).name) == 32 and all(c in "0123456789abcdef" for c in Path(folder).name)
        assert cache_home.folder_for(root) == folder


def test_tests_never_use_the_real_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    assert tmp_path_factory.getbasetemp() in Path(cache_home.base()).parents


@pytest.mark.parametrize(
    "name", [status_cache.STATUS_FILES["json"], scan_facts.SCAN_FILE, health_cache.REPORT_FILE]
)
def test_a_fifo_in_the_cache_folder_never_blocks(
    memory: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    expected = [main(["--root", str(memory), "status", "--json", "--no-cache"]), capsys.readouterr().out]
    folder = cache.folder(memory, create=True)
    assert folder is not None
    os.mkfifo(Path(folder) / name)
    assert cache.read(memory, name) is None
    assert [main(["--root", str(memory), "status", "--json"]), capsys.readouterr().out] == expected
    assert main(["--root", str(memory), "health", "--json"]) == 0
