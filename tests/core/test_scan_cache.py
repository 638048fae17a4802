"""The deep scan's cache (`scan_facts.SCAN_FILE`, in the user's cache folder): identical results, re-reads,
never trusted blindly, never under the root."""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pmem_tui.core import cache, folder_reads, scan_facts, tree
from pmem_tui.core.scan_facts import SCAN_FILE
from tests.conftest import cache_file, tree_bytes, write


def load(root: Path) -> tuple[Any, ...]:
    """The cache's payload: (written_ns, files, {index digest: index rows})."""
    payload = cache.read(root, SCAN_FILE)
    assert payload is not None
    loaded = marshal.loads(payload)
    assert type(loaded) is tuple
    return loaded


def dump(root: Path, payload: tuple[Any, ...]) -> None:
    """Write `payload` as a well-formed cache file (right frame and checksum), whatever its values."""
    assert cache.write(root, SCAN_FILE, marshal.dumps(payload))


@pytest.fixture(autouse=True)
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scan's cache clock starts 10 s from now, so the files a test wrote (whose ctime is now, whatever
    `age` does to their mtime) are out of the racy window; a test that needs the window moves it back."""
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)


def age(root: Path, rel: str, seconds: int) -> None:
    """Set a file's mtime `seconds` into the past (out of the racy window)."""
    when = time.time_ns() - seconds * 1_000_000_000
    os.utime(root / rel, ns=(when, when))


def age_all(root: Path, seconds: int = 10) -> None:
    for path in root.rglob("*"):
        if path.is_file() and ".pmem" not in path.parts:
            age(root, path.relative_to(root).as_posix(), seconds)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every active file the deep scan reads, in order."""
    seen: list[str] = []
    real = scan_facts.inspect_file

    def counting(root: Path, rel: str, reader: folder_reads.Reader | None = None) -> scan_facts.FileContent:
        seen.append(rel.rsplit("/", 1)[-1])
        return real(root, rel, reader)

    monkeypatch.setattr(scan_facts, "inspect_file", counting)
    return seen


@pytest.fixture
def aged(memory: Path) -> Path:
    # invalid UTF-8 and an invalid summary: both problems must come back from the cache
    write(memory, "notes/bad.md", b"# Bad \xff bytes\n\n## Summary\n- one\n")
    age_all(memory)
    return memory


def test_a_warm_scan_equals_a_cold_one_and_reads_nothing(aged: Path, reads: list[str]) -> None:
    cold = tree.scan(aged, cache=False)
    assert not cache_file(aged, SCAN_FILE).parent.exists()
    reads.clear()
    first = tree.scan(aged, cache=True)
    assert cache_file(aged, SCAN_FILE).is_file()
    assert len(reads) == len(cold.active) == 4
    reads.clear()
    written = cache_file(aged, SCAN_FILE).stat().st_mtime_ns
    warm = tree.scan(aged, cache=True)
    assert reads == []
    assert warm == first == cold
    assert cache_file(aged, SCAN_FILE).stat().st_mtime_ns == written  # nothing changed: not rewritten
    assert {p.kind for p in warm.problems} >= {"unreadable", "invalid-summary"}


def test_a_changed_file_is_read_again(aged: Path, reads: list[str]) -> None:
    tree.scan(aged, cache=True)
    write(aged, "notes/standup.md", "# Standup, longer\n\nNothing new.\n")  # another size
    age(aged, "notes/standup.md", 5)
    alpha = aged / "projects/alpha.md"
    alpha.write_bytes(alpha.read_bytes().replace(b"# Alpha project", b"# Alpha-project"))  # same size
    age(aged, "projects/alpha.md", 4)  # another mtime
    reads.clear()
    warm = tree.scan(aged, cache=True)
    assert sorted(reads) == ["alpha.md", "standup.md"]
    assert warm == tree.scan(aged, cache=False)
    assert warm.active_file("projects/alpha.md").title == "Alpha-project"  # type: ignore[union-attr]


def test_a_file_modified_within_the_racy_window_is_never_trusted(
    aged: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real clock and a shorter window, past which the other files' ctime (set by `age`) falls.
    monkeypatch.setattr(cache, "clock", time.time_ns)
    monkeypatch.setattr(cache, "RACY_NS", 300_000_000)
    time.sleep(0.4)
    (aged / "notes/standup.md").write_text("# Standup\n\nSomething new.\n", encoding="utf-8")  # mtime: now
    tree.scan(aged, cache=True)
    reads.clear()
    tree.scan(aged, cache=True)
    assert reads == ["standup.md"]


def test_a_removed_file_drops_out_of_the_cache_and_the_index_is_reparsed(aged: Path) -> None:
    tree.scan(aged, cache=True)
    (aged / "notes/standup.md").unlink()
    index = aged / "_index.md"
    index.write_text(index.read_text(encoding="utf-8") + "- notes/new.md — a new line\n", encoding="utf-8")
    warm = tree.scan(aged, cache=True)
    assert warm == tree.scan(aged, cache=False)
    _, files, derived = load(aged)
    assert "notes/standup.md" not in files
    [rows] = derived.values()
    assert any(row[2] == "notes/new.md" for row in rows)


@pytest.mark.parametrize(
    "damage",
    [
        "garbage",
        "truncated",
        "flipped-byte",
        "wrong-types",
        "wrong-shape",
        "cache-is-a-file",
        "symlink",
        "write-fails",
    ],
)
def test_an_unusable_cache_is_ignored(
    aged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    cold = tree.scan(aged, cache=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = cache_file(aged, SCAN_FILE).parent
    if damage == "garbage":
        write(folder, SCAN_FILE, b"{not json\x00")
    elif damage in ("truncated", "flipped-byte"):
        tree.scan(aged, cache=True)
        data = bytearray(cache_file(aged, SCAN_FILE).read_bytes())
        if damage == "truncated":
            del data[-5:]
        else:
            data[-20] ^= 0x10
        write(folder, SCAN_FILE, bytes(data))
    elif damage == "wrong-types":
        tree.scan(aged, cache=True)
        written, files, derived = load(aged)
        files = {
            path: (stamp, (7, row[1], row[2], row[3], "not a tuple", row[5]))
            for path, (stamp, row) in files.items()
        }
        dump(aged, (written, files, {digest: [(None, 1, 2, 3, 4)] for digest in derived}))
    elif damage == "wrong-shape":
        tree.scan(aged, cache=True)
        written, files, derived = load(aged)
        dump(aged, (written, {path: ("x",) for path in files}, {digest: [[1, 2]] for digest in derived}))
    elif damage == "cache-is-a-file":
        write(folder.parent, folder.name, "not a folder")
    elif damage == "symlink":
        folder.parent.mkdir(exist_ok=True)
        folder.symlink_to(elsewhere)
    else:

        def failing(path: str, parts: tuple[bytes, ...]) -> None:
            raise PermissionError(13, "read-only")

        monkeypatch.setattr(cache, "write_atomic", failing)
    assert tree.scan(aged, cache=True) == cold
    assert tree.scan(aged, cache=True) == cold
    assert list(elsewhere.iterdir()) == []


def test_only_the_cache_is_written(aged: Path) -> None:
    def state() -> dict[str, tuple[bytes, int]]:
        return {rel: (data, (aged / rel).stat().st_mtime_ns) for rel, data in tree_bytes(aged).items()}

    before = state()
    for _ in range(2):
        tree.scan(aged, cache=True)
    tree.scan(aged, deep=False, cache=True)
    assert state() == before
    assert not (aged / ".pmem").exists()
    assert [p.name for p in cache_file(aged, SCAN_FILE).parent.iterdir()] == [SCAN_FILE]


def test_a_shallow_scan_never_writes(aged: Path) -> None:
    tree.scan(aged, deep=False, cache=True)
    assert not (aged / ".pmem").exists()
    assert not cache_file(aged, SCAN_FILE).parent.exists()


def test_an_edit_that_puts_the_mtime_back_is_read_again(aged: Path, reads: list[str]) -> None:
    """`rsync -t`, `cp -p`, `touch -r`: same size, old mtime; only the ctime tells (found in review)."""
    tree.scan(aged, cache=True)
    alpha = aged / "projects/alpha.md"
    before = alpha.stat()
    alpha.write_bytes(alpha.read_bytes().replace(b"# Alpha project", b"# Alpha-project"))  # same size
    os.utime(alpha, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert alpha.stat().st_mtime_ns == before.st_mtime_ns
    reads.clear()
    warm = tree.scan(aged, cache=True)
    assert reads == ["alpha.md"]
    assert warm == tree.scan(aged, cache=False)
    assert warm.active_file("projects/alpha.md").title == "Alpha-project"  # type: ignore[union-attr]
