"""Issue 16's speed work on the history recorder: each trick gives the same store as the plain way.

One changed file rebuilds only the trees on its path (`store.update_tree`, the same ids as `build_tree`);
a big record's pack is stored (no zlib per object), git and dulwich read it; the table vouches for the same
files compared as sets as file by file; `snapshot` records from its one stat pass; the lock is the store's.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core import cache, folder_reads, safeio
from pmem_tui.core.fsops import FS
from pmem_tui.core.history import lock, log, names, record, stat_table, store
from tests.conftest import write
from tests.core.history_git import git, needs_git


class _Trees:
    """`store.Objects` for `update_tree`: the trees `build_tree` made, by id."""

    def __init__(self, trees: list[store.Entry]) -> None:
        self.trees = {sha.hex(): store.Tree.from_raw_string(store.TREE, raw) for _, raw, sha in trees}

    def get(self, hex_id: str) -> store.Tree:
        return self.trees[hex_id]


_NAMES = st.sampled_from(["a", "b", "c.md", "d.md"])
_PATHS = st.lists(_NAMES, min_size=1, max_size=4).map("/".join)
_BLOBS = st.sampled_from([f"{n:040x}" for n in range(1, 5)])


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(_PATHS, _BLOBS, max_size=12),
    st.dictionaries(_PATHS, st.one_of(st.none(), _BLOBS), min_size=1, max_size=6),
)
def test_one_change_rebuilds_the_same_trees_as_the_whole_build(
    before: dict[str, str], edits: dict[str, str | None]
) -> None:
    before = _as_files(before)
    after = dict(before)
    for path, blob in edits.items():
        if blob is None:
            after.pop(path, None)
        else:  # a file where a folder was (or the reverse) replaces it, as on disk
            after = {p: b for p, b in after.items() if not _nested(p, path) and not _nested(path, p)}
            after[path] = blob
    _, old_trees, old_ids = store.build_tree(before)
    changed = [p for p, _ in after.items() - before.items()] + list(before.keys() - after.keys())
    if not changed:
        return
    root_id, trees, ids = store.update_tree(_Trees(old_trees), after, old_ids, changed)  # type: ignore[arg-type]
    want_root, want_trees, want_ids = store.build_tree(after)
    assert (root_id, ids) == (want_root, want_ids)
    on_path = {""} | {"/".join(p.split("/")[:i]) for p in changed for i in range(1, p.count("/") + 1)}
    assert {t[2] for t in trees} <= {t[2] for t in want_trees} and len(trees) <= len(on_path)


def _nested(path: str, folder: str) -> bool:
    return path.startswith(f"{folder}/")


def _as_files(paths: dict[str, str]) -> dict[str, str]:
    """A tree a disk can hold: no path both a file and a folder."""
    return {p: b for p, b in paths.items() if not any(q.startswith(f"{p}/") for q in paths)}


def test_one_changed_file_writes_only_the_trees_on_its_path(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(memory, "projects/deep/er/still.md", "# Deep\n")
    assert record.record(memory, create=True).commit is not None
    monkeypatch.setattr(store, "build_tree", None)  # not the whole tree again: only the changed path's
    written: list[store.Entry] = []
    real = store.write_entries
    monkeypatch.setattr(store, "write_entries", lambda fs, rows: (written.extend(rows), real(fs, rows)))
    write(memory, "projects/deep/er/still.md", "# Deep\n\nChanged.\n")
    head = record.record(memory).commit
    assert head is not None
    kinds = sorted(type_num for type_num, _, _ in written)
    assert kinds == [1, 2, 2, 2, 2, 3]  # the commit, the trees of /, projects/, deep/, er/, the blob
    assert log.version_bytes(memory, head, "projects/deep/er/still.md") == b"# Deep\n\nChanged.\n"
    assert log.version_bytes(memory, head, "notes/standup.md") == (memory / "notes/standup.md").read_bytes()


@needs_git
def test_a_big_first_record_is_a_stored_pack_git_reads(memory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "STORED_OVER_BYTES", 0)  # every record "big"
    big = bytes(range(256)) * 300  # over one stored block (64 KiB): written through zlib, level 0
    write(memory, "notes/big.md", big)
    write(memory, "notes/empty.md", b"")
    head = record.record(memory, create=True).commit
    assert head is not None
    assert git(memory, "fsck", "--strict").returncode == 0
    shown = git(memory, "show", f"{head}:notes/standup.md")
    assert shown.stdout.encode() == (memory / "notes/standup.md").read_bytes()
    assert log.version_bytes(memory, head, "notes/big.md") == big
    assert log.version_bytes(memory, head, "notes/empty.md") == b""
    write(memory, "notes/standup.md", "# Standup\n\nChanged.\n")
    assert record.record(memory).commit is not None
    proc = git(memory, "log", "-p")
    assert proc.returncode == 0 and "+Changed." in proc.stdout


def test_the_stored_stream_is_zlib_s_own() -> None:
    import struct
    import zlib

    for data in (b"", b"abc", bytes(range(256)) * 255):
        stream = store._stored_head(len(data)) + data + struct.pack(">I", zlib.adler32(data))
        assert zlib.decompress(stream) == data


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(_NAMES, st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), max_size=4),
    st.dictionaries(_NAMES, st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), max_size=4),
    st.integers(0, 5),
)
def test_the_table_vouches_as_sets_for_what_it_vouches_for_file_by_file(
    then: dict[str, stat_table.Stamp], now: dict[str, stat_table.Stamp], written: int
) -> None:
    blobs = {p: f"{i:040x}" for i, p in enumerate(then)}
    stamps = then  # the table's stamps; racy ones (clock 0..3 against a clock of 0..5 with a wide window)
    clock = written * cache.RACY_NS // 2
    table = stat_table.Table.of(clock, "h" * 40, stamps, blobs, stat_table.newest(stamps))
    same_paths = {p: now.get(p, stamp) for p, stamp in then.items()}  # the bytes compared block by block
    for seen in (now, same_paths):
        known, unread = table.vouched(seen)
        one_by_one = {p: table.blob_for(p, s) for p, s in seen.items()}
        assert known == {p: b for p, b in one_by_one.items() if b is not None}
        assert unread == sorted(p for p, b in one_by_one.items() if b is None)


def test_the_table_finds_the_one_changed_stamp_among_many() -> None:
    stamps = {f"notes/{i:05}.md": (i, 10**18 + i, 10**18 + i) for i in range(1000)}
    blobs = {p: f"{i:040x}" for i, p in enumerate(stamps)}
    table = stat_table.Table.of(10**19, "h" * 40, stamps, blobs, stat_table.newest(stamps))
    for changed in ("notes/00000.md", "notes/00063.md", "notes/00064.md", "notes/00999.md"):
        now = {**stamps, changed: (1, 2, 3)}
        known, unread = table.vouched(now)
        assert unread == [changed] and known == {p: b for p, b in blobs.items() if p != changed}


def test_snapshot_records_from_its_one_stat_pass(
    memory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pmem_tui.cli import main

    walks: list[str] = []
    real = stat_table.walk
    monkeypatch.setattr(
        stat_table, "walk", lambda root, *listing: (walks.append(str(root)), real(root, *listing))[1]
    )
    assert main(["--root", str(memory), "snapshot"]) == 0
    assert capsys.readouterr().out.startswith("Recorded ")
    assert len(walks) == 0  # the first record reads every file in one walk: no stat pass
    write(memory, "notes/standup.md", "# Standup\n\nAgain.\n")
    assert main(["--root", str(memory), "snapshot", "--quiet"]) == 0
    assert capsys.readouterr().out == "" and len(walks) == 1
    assert [r.origin for r in log.records(memory)] == [names.SEEN_ON_DISK] * 2


def test_snapshot_s_quick_path_says_what_it_could_not_record(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pmem_tui.cli import main

    (memory / names.HISTORY_DIR).parent.mkdir(parents=True, exist_ok=True)
    (memory / names.HISTORY_DIR).write_text("not a store\n")
    assert main(["--root", str(memory), "snapshot"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pmem-tui: History could not record the memory: ") and err.count("\n") == 1


def test_a_held_lock_is_waited_for_then_said(memory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert record.record(memory, create=True).commit is not None
    write(memory, "notes/standup.md", "# Standup\n\nLocked out.\n")
    monkeypatch.setattr(record, "LOCK_TIMEOUT_S", 0.05)
    with lock.held(memory / names.HISTORY_DIR / names.LOCK_NAME):  # another open file: flock says no
        done = record.record(memory)
    assert done.commit is None and done.problem is not None and "locked" in done.problem
    assert record.record(memory).commit is not None  # released with its block


def test_reading_each_file_of_a_folder_skips_what_is_not_a_regular_file(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "A\n")
    write(tmp_path, "big.md", "x" * 100)
    (tmp_path / "link.md").symlink_to(tmp_path / "a.md")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "folder.md").mkdir()
    fd = safeio.open_dir(tmp_path, "")
    try:
        names_ = ["a.md", "big.md", "link.md", "pipe.md", "folder.md", "gone"]
        got = list(folder_reads.read_each_at(fd, "f", names_, 50))
    finally:
        os.close(fd)
    assert [(shown, data) for shown, data, _ in got] == [("f/a.md", b"A\n")]


def test_a_file_is_written_from_its_parts(tmp_path: Path) -> None:
    FS(tmp_path).write_atomic("x.bin", [b"one ", b"", b"two"])
    assert (tmp_path / "x.bin").read_bytes() == b"one two"


def test_a_first_record_reads_in_the_stat_pass_s_order_and_keeps_its_stamps(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(memory, "projects/deep/er/still.md", "# Deep\n")
    (memory / "notes/link.md").symlink_to(memory / "notes/standup.md")
    os.mkfifo(memory / "notes/pipe.md")
    real = stat_table.walk
    monkeypatch.setattr(stat_table, "walk", None)  # no stat pass before a first record
    assert record.record(memory, create=True).commit is not None
    monkeypatch.setattr(stat_table, "walk", real)
    table = stat_table.load(memory)
    assert table is not None
    assert (table.names_raw, table.stamps_raw) == stat_table.encode(stat_table.walk(memory))
    assert table.blobs["projects/deep/er/still.md"] == store.blob_id(b"# Deep\n")
    assert "notes/link.md" not in table.blobs and "notes/pipe.md" not in table.blobs


def test_a_record_of_one_changed_file_patches_the_table_into_what_encoding_it_whole_gives(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pmem_tui.core import cache

    monkeypatch.setattr(cache, "clock", lambda: 10**20)  # nothing racy: only the changed file is read
    for i in range(100):
        write(memory, f"notes/many/{i:03}.md", f"# Note {i}\n")
    assert record.record(memory, create=True).commit is not None
    write(memory, "notes/many/050.md", "# Note 50\n\nChanged.\n")
    encoded: list[int] = []
    real = stat_table.encode
    monkeypatch.setattr(stat_table, "encode", lambda stamps: (encoded.append(len(stamps)), real(stamps))[1])
    assert record.record_if_changed(memory).commit is not None
    assert len(encoded) == 1  # the cheap pass's; the record patched that into the table
    table = stat_table.load(memory)
    assert table is not None
    stamps = stat_table.walk(memory)
    assert (table.names_raw, table.stamps_raw) == real(stamps)
    assert table.blobs == {p: store.blob_id((memory / p).read_bytes()) for p in stamps}


def test_an_edit_is_recorded_from_its_rows_alone_with_the_tree_the_whole_way_builds(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pmem_tui.core import cache

    monkeypatch.setattr(cache, "clock", lambda: 10**20)  # nothing racy: only the edited files are read
    write(memory, "projects/deep/er/still.md", "# Deep\n")
    assert record.record(memory, create=True).commit is not None
    monkeypatch.setattr(record, "_record_on", None)  # the whole way is not taken
    monkeypatch.setattr(stat_table.Table, "blobs", None)  # nor is a map of every path made
    write(memory, "projects/deep/er/still.md", "# Deep\n\nChanged.\n")
    write(memory, "notes/standup.md", "# Standup\n\nChanged too.\n")
    head = record.record(memory).commit
    assert head is not None
    files = {p: store.blob_id((memory / p).read_bytes()) for p in stat_table.walk(memory)}
    assert store.open_objects(memory).commit(head).tree.decode() == store.build_tree(files)[0]
    assert record.record(memory) == record.Recorded()  # nothing changed since: the patched table says so


@needs_git
def test_an_edit_put_back_is_recorded_again_and_git_reads_the_store(memory: Path) -> None:
    before = (memory / "notes/standup.md").read_bytes()
    assert record.record(memory, create=True).commit is not None
    write(memory, "notes/standup.md", "# Standup\n\nFor a moment.\n")
    assert record.record(memory).commit is not None
    write(memory, "notes/standup.md", before)  # its blob and trees are in the store already
    head = record.record(memory).commit
    assert head is not None and log.version_bytes(memory, head, "notes/standup.md") == before
    assert git(memory, "fsck", "--strict").returncode == 0
    assert log.records(memory)[0].id == head


@pytest.mark.parametrize("flags", [(), ("--quiet",)])
def test_a_snapshot_process_says_what_it_did_and_ends_with_its_code(
    memory: Path, flags: tuple[str, ...]
) -> None:
    import subprocess
    import sys

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "pmem_tui", "--root", str(memory), *argv]
        return subprocess.run(cmd, capture_output=True, text=True, check=False)

    first = run("snapshot", *flags)  # ended without the interpreter's teardown: flushed first
    assert first.returncode == 0 and first.stderr == ""
    assert first.stdout == ("" if flags else f"Recorded {stat_table.read_head(memory)[:12]}.\n")  # type: ignore[index]
    write(memory, "notes/standup.md", "# Standup\n\nChanged.\n")
    (memory / names.HISTORY_DIR / names.MAIN_REF).write_text("not a commit\n")
    damaged = run("snapshot", *flags)
    assert damaged.returncode == 1 and damaged.stdout == ""
    assert damaged.stderr.startswith("pmem-tui: History could not record the memory: ")
