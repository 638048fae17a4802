"""`safeio`, the one door for reading below the root: no link at any depth, only regular files, a cap.

The campaign (`tests/faults/test_boundary_campaign.py`) runs every command against odd files; these tests pin
the door itself, including the races the campaign cannot stage: a name that turns into a link or a FIFO
between the `lstat` and the `open`.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pmem_tui.core import folder_reads, safeio


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "mem/projects/a").mkdir(parents=True)
    (tmp_path / "mem/projects/a/x.md").write_bytes(b"# X\n")
    (tmp_path / "outside/a").mkdir(parents=True)  # what each link below points into
    (tmp_path / "outside/x.md").write_bytes(b"# SECRET\n")
    (tmp_path / "outside/a/x.md").write_bytes(b"# SECRET\n")
    return tmp_path / "mem"


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.parametrize("link", ["projects", "projects/a", "projects/a/x.md"])
def test_a_link_at_any_depth_is_refused(root: Path, link: str) -> None:
    os.rename(root / link, root.parent / "moved")
    (root / link).symlink_to(root.parent / "outside" / ("x.md" if link.endswith(".md") else ""))
    with pytest.raises(safeio.UnsafeFile) as caught:
        safeio.read_under(root, "projects/a/x.md")
    assert caught.value.kind == "symlink" and caught.value.errno == errno.ELOOP
    assert caught.value.strerror == f"{link} is a symbolic link, which pmem-tui never follows"
    assert safeio.entry_kind(root, "projects/a/x.md") == "symlink"
    if not link.endswith(".md"):  # the app's patches stat a changed path the same way
        with pytest.raises(safeio.UnsafeFile):
            safeio.lstat_under(root, "projects/a/x.md")


def test_the_root_itself_may_be_a_link(root: Path) -> None:
    alias = root.parent / "alias"
    alias.symlink_to(root, target_is_directory=True)
    assert safeio.read_under(alias, "projects/a/x.md") == b"# X\n"


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_only_a_regular_file_is_read(root: Path, kind: str) -> None:
    path = root / "projects/odd.md"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 5))
    else:
        path.mkdir()
    with pytest.raises(safeio.UnsafeFile) as caught:
        safeio.read_under(root, "projects/odd.md")  # a FIFO without a writer would block a plain open
    assert caught.value.kind == "unreadable" and "not a" in caught.value.detail


@pytest.mark.parametrize("swap", ["link", "fifo"])
def test_a_swap_between_the_lstat_and_the_open_is_caught(
    root: Path, swap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name was a regular file at the `lstat`; by the `open` it is a link (O_NOFOLLOW: ELOOP) or a FIFO
    (O_NONBLOCK: the open returns at once, and fstat says what it is)."""
    regular = os.stat(root / "projects/a/x.md")
    real = safeio.lstat_at
    monkeypatch.setattr(safeio, "lstat_at", lambda name, fd: regular if name == "y.md" else real(name, fd))
    if swap == "link":
        (root / "projects/a/y.md").symlink_to(root.parent / "outside/x.md")
    else:
        os.mkfifo(root / "projects/a/y.md")
    with pytest.raises(safeio.UnsafeFile) as caught:
        safeio.read_under(root, "projects/a/y.md")
    assert caught.value.kind == ("symlink" if swap == "link" else "unreadable")


def test_a_folder_swapped_for_a_link_after_its_lstat_is_caught(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lies = [os.stat(root / "projects")]  # the first lstat of `a` still sees the folder
    real = safeio.lstat_at
    monkeypatch.setattr(
        safeio, "lstat_at", lambda name, fd: lies.pop() if name == "a" and lies else real(name, fd)
    )
    os.rename(root / "projects/a", root.parent / "moved")
    (root / "projects/a").symlink_to(root.parent / "outside/a")
    with pytest.raises(safeio.UnsafeFile) as caught:
        safeio.list_dir(root, "projects/a")
    assert caught.value.kind == "symlink" and str(caught.value.strerror).startswith("projects/a is")


def test_the_cap_is_named_and_a_file_that_grows_past_it_is_refused(root: Path) -> None:
    path = root / "projects/big.md"
    path.write_bytes(b"x" * 3000)
    assert safeio.read_under(root, "projects/big.md", cap=3000) == b"x" * 3000
    with pytest.raises(safeio.UnsafeFile) as caught:
        safeio.read_under(root, "projects/big.md", cap=2999)
    assert (
        caught.value.errno == errno.EFBIG
        and "over the 2,999 bytes that pmem-tui reads" in caught.value.detail
    )
    fd, st = safeio.open_regular(root, "projects/big.md")
    try:
        with open(path, "ab") as grow:  # it grows after the fstat: the read still stops at the cap
            grow.write(b"y" * 5000)
        with pytest.raises(safeio.UnsafeFile):
            safeio.read_fd(fd, st, "projects/big.md", 4000)
    finally:
        os.close(fd)


def test_a_capped_head_and_an_unread_oversized_file(root: Path) -> None:
    (root / "notes").mkdir()
    (root / "notes/n.md").write_bytes(b"abcdef")
    assert safeio.read_head(root, "notes/n.md", 4)[0] == b"abcd"
    data, st = safeio.read_unless_over(root, "notes/n.md", 5)
    assert data is None and st.st_size == 6
    assert safeio.read_unless_over(root, "notes/n.md", 6)[0] == b"abcdef"


def test_a_save_source_is_a_regular_file(tmp_path: Path) -> None:
    src = tmp_path / "src.md"
    src.write_bytes(b"# S\n")
    link = tmp_path / "link.md"
    link.symlink_to(src)
    assert safeio.read_source(str(link)) == b"# S\n"  # the person's own file: a link to it is fine
    for bad in ("/dev/zero", str(tmp_path)):
        with pytest.raises(safeio.UnsafeFile, match="not a regular file"):
            safeio.read_source(bad)
    with pytest.raises(safeio.UnsafeFile, match="over the 3 bytes"):
        safeio.read_source(str(src), cap=3)


def test_a_reader_reads_what_read_under_reads_and_refuses_what_it_refuses(tmp_path: Path) -> None:
    """`Reader` keeps a folder open across files: the same bytes, the same refusals, a folder at a time."""
    root = tmp_path / "mem"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "one.md").write_bytes(b"one")
    (root / "a" / "b" / "two.md").write_bytes(b"two")
    (root / "a" / "link.md").symlink_to(root / "a" / "one.md")
    (root / "a" / "big.md").write_bytes(b"x" * 100)
    os.mkfifo(root / "a" / "pipe.md")
    (root / "outside").mkdir()
    (root / "c").symlink_to(root / "outside")
    (root / "outside" / "three.md").write_bytes(b"three")
    with folder_reads.Reader(root) as reader:
        for rel in ("a/one.md", "a/b/two.md", "a/one.md"):
            assert reader.read(rel) == safeio.read_under(root, rel)
        for rel, cap in (("a/link.md", 10), ("a/pipe.md", 10), ("a/big.md", 10), ("c/three.md", 10)):
            with pytest.raises(safeio.UnsafeFile) as got:
                reader.read(rel, cap)
            with pytest.raises(safeio.UnsafeFile) as expected:
                safeio.read_under(root, rel, cap)
            assert (got.value.kind, str(got.value)) == (expected.value.kind, str(expected.value))
        assert reader.read("a/b/two.md") == b"two"  # still reads after a refusal


@pytest.mark.rule("PM-SAFE-3")
def test_stamps_below_lists_regular_files_only_and_never_enters_a_link(root: Path) -> None:
    """The freshness walk: every non-hidden regular file with its lstat stamp; a link (to a folder or a
    file), a FIFO, a hidden name, a skipped path and another suffix are not listed, and no link is entered."""
    (root / "projects/a/y.txt").write_bytes(b"text\n")
    (root / "projects/a/.hidden.md").write_bytes(b"# H\n")
    (root / "projects/b/deep").mkdir(parents=True)
    (root / "projects/b/deep/z.md").write_bytes(b"# Z\n")
    (root / "projects/skipped").mkdir()
    (root / "projects/skipped/s.md").write_bytes(b"# S\n")
    (root / "projects/to-folder").symlink_to(root.parent / "outside/a")
    (root / "projects/to-file.md").symlink_to(root.parent / "outside/x.md")
    os.mkfifo(root / "projects/pipe.md")
    found = folder_reads.stamps_below(root, "projects", suffix=".md", skip=frozenset({"projects/skipped"}))
    assert sorted(row[0] for row in found) == ["projects/a/x.md", "projects/b/deep/z.md"]
    st = os.lstat(root / "projects/a/x.md")
    assert ("projects/a/x.md", st.st_size, st.st_mtime_ns, st.st_ctime_ns) in found
    assert (
        len(folder_reads.stamps_below(root, "projects")) == 4
    )  # any suffix, nothing skipped: y.txt, s.md too
    assert folder_reads.stamps_below(root, "nowhere") == []
    (root / "linked").symlink_to(root / "projects")
    assert folder_reads.stamps_below(root, "linked") == []  # the folder itself a link: not entered
