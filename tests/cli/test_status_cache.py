"""`status`'s whole-output cache (`status-v2-*.bin` in the user's cache folder): a hit prints exactly what a
`--no-cache` run prints, every change the listing can see is a miss, and a damaged or unwritable cache is
ignored."""

from __future__ import annotations

import argparse
import contextlib
import io
import marshal
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pmem_tui.cli import main
from pmem_tui.cli import status as cli_status
from pmem_tui.cli.parser import build_parser
from pmem_tui.core import cache, folder_reads, model, scan_facts, status_cache, tree
from tests.conftest import cache_file, command_output, write

JSON_FILE = status_cache.STATUS_FILES["json"]
TEXT_FILE = status_cache.STATUS_FILES["text"]
LATER_NS = 10_000_000_000


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every status starts 10 s from now, so files written by the test are out of the racy window."""
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + LATER_NS)


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots `tree.scan` was called on: a cache hit scans nothing."""
    seen: list[Path] = []
    real = tree.scan

    def counting(root: Path, **kwargs: object) -> object:
        seen.append(root)
        return real(root, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree, "scan", counting)
    return seen


Status = Callable[..., str]


@pytest.fixture
def status(capsys: pytest.CaptureFixture[str]) -> Status:
    return command_output(capsys, "status")


def fresh(status: Status, root: Path, *extra: str) -> str:
    """What an uncached run prints (it neither reads nor writes any cache)."""
    return status(root, *extra, "--no-cache")


def set_mtime(path: Path, seconds_ago: float) -> None:
    when = time.time_ns() - int(seconds_ago * 1e9)
    os.utime(path, ns=(when, when))


@pytest.mark.parametrize("fmt", [["--json"], []], ids=["json", "text"])
def test_a_hit_prints_exactly_the_uncached_output_without_scanning(
    memory: Path, later: None, scans: list[Path], status: Status, fmt: list[str]
) -> None:
    write(memory, "notes/bad.md", b"# caf\xe9 \xff\n\n## Summary\n- one\n")  # invalid UTF-8 and summary
    expected = fresh(status, memory, *fmt)
    assert status(memory, *fmt) == expected  # miss: scans, then stores
    assert cache_file(memory, JSON_FILE if fmt else TEXT_FILE).is_file()
    scans.clear()
    assert status(memory, *fmt) == expected
    assert status(memory, *fmt) == expected
    assert scans == []


def test_storing_the_output_changes_nothing_under_the_root(
    memory: Path, later: None, scans: list[Path], status: Status
) -> None:
    before = sorted((p, p.lstat().st_mtime_ns) for p in [memory, *memory.rglob("*")])
    status(memory, "--json")  # stores the output, outside the root
    assert cache_file(memory, JSON_FILE).is_file()
    assert sorted((p, p.lstat().st_mtime_ns) for p in [memory, *memory.rglob("*")]) == before
    scans.clear()
    status(memory, "--json")
    assert scans == []


def test_an_entry_that_came_and_went_at_the_top_changes_the_key(memory: Path) -> None:
    """The root's own times are in the key now that storing the output no longer makes `.pmem/` there."""
    before = status_cache._listing(str(memory))
    (memory / "stray.tmp").write_text("an editor's swap file\n")
    (memory / "stray.tmp").unlink()
    after = status_cache._listing(str(memory))
    assert before is not None and after is not None and before[0] != after[0]


def test_equal_keys_are_equal_bytes() -> None:
    """Found while moving the cache: marshal 3+ writes an object referenced twice as a back-reference, so a
    listing whose newest mtime was shared with `newest` encoded unlike an equal one (a needless miss)."""
    shared = 1_764_000_000_123_456_789
    twice = [("a.md", shared), ("b.md", shared)]
    apart = [("a.md", shared), ("b.md", int(str(shared)))]
    assert marshal.dumps(twice, status_cache._KEY_MARSHAL) == marshal.dumps(apart, status_cache._KEY_MARSHAL)


def test_an_older_version_s_cache_folder_in_pmem_is_harmless(
    memory: Path, later: None, scans: list[Path], status: Status
) -> None:
    write(memory, ".pmem/cache/status-v1-json.bin", b"pmem-status-v1\nleft by an older pmem-tui")
    expected = fresh(status, memory, "--json")
    assert status(memory, "--json") == expected
    scans.clear()
    assert status(memory, "--json") == expected
    assert scans == []  # a hit: the old folder is listed like any other, and never read


def _edit(memory: Path, rel: str, old: bytes, new: bytes) -> None:
    path = memory / rel
    path.write_bytes(path.read_bytes().replace(old, new))


def _trash_one(memory: Path) -> None:
    rel = "notes/日本語 メモ.md"
    assert main(["--root", str(memory), "archive", rel, "--reason", "old", "--yes"]) == 0
    assert main(["--root", str(memory), "delete", rel, "--yes"]) == 0


CHANGES: dict[str, Callable[[Path, pytest.MonkeyPatch], None]] = {
    # a memory file: another size, or the same size with another mtime (one edited with the same size and
    # mtime_ns is trusted, as by the scan cache; the control files are compared byte for byte)
    "size": lambda m, _: _edit(m, "notes/standup.md", b"# Standup", b"# Standup meeting"),
    "same-size": lambda m, _: (
        _edit(m, "notes/standup.md", b"# Standup", b"# Standuq"),
        set_mtime(m / "notes/standup.md", 30),
    ),
    "added": lambda m, _: write(m, "notes/new.md", "# New\n"),
    "removed": lambda m, _: (m / "notes/standup.md").unlink(),
    "renamed": lambda m, _: (m / "notes/standup.md").rename(m / "notes/standup2.md"),
    "index": lambda m, _: _same_stat_edit(m, "_index.md", b"daily standup", b"daily_standup"),
    "archive-index": lambda m, _: write(
        m,
        "_archive/_index.md",
        (m / "_archive/_index.md").read_text() + "\n## notes/gone.md\n- Archived: 2026-01-01\n",
    ),
    "intent": lambda m, _: write(m, ".pmem/journal/intent.json", "{not json"),
    "folder-renamed": lambda m, _: (m / "_core").rename(m / "core-old"),
    "core": lambda m, _: write(m, "_core/profile.md", "# Profile\n\nI write Python and Rust, mostly.\n"),
    "today": lambda m, mp: mp.setenv("PMEM_TUI_TODAY", "2027-02-01"),  # the trash item's deadline passes
}


def _same_stat_edit(memory: Path, rel: str, old: bytes, new: bytes) -> None:
    """Change bytes but keep size and mtime_ns."""
    assert len(old) == len(new)
    path = memory / rel
    before = path.stat()
    _edit(memory, rel, old, new)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_change_the_listing_can_see_is_a_miss(
    memory: Path, later: None, status: Status, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    _trash_one(memory)
    for path in memory.rglob("*"):
        if path.is_file() and ".pmem" not in path.parts:
            set_mtime(path, 60)
    before = status(memory, "--json")
    assert status(memory, "--json") == before  # now served from the cache
    CHANGES[change](memory, monkeypatch)
    after = fresh(status, memory, "--json")
    assert after != before  # the change shows in the output: a stale hit would fail below
    assert status(memory, "--json") == after
    assert status(memory, "--json") == after


def test_a_file_changed_within_the_racy_window_is_never_stored(
    memory: Path, scans: list[Path], status: Status, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fixture's files were written just now: their mtime (and ctime) are within 2 s of the listing.
    expected = fresh(status, memory, "--json")
    assert status(memory, "--json") == expected
    assert not cache_file(memory, JSON_FILE).exists()
    scans.clear()
    assert status(memory, "--json") == expected
    assert len(scans) == 1
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + LATER_NS)
    status(memory, "--json")
    assert cache_file(memory, JSON_FILE).is_file()


def test_a_new_version_of_the_code_is_a_miss(
    memory: Path, later: None, scans: list[Path], status: Status, monkeypatch: pytest.MonkeyPatch
) -> None:
    status(memory, "--json")
    assert ("core", "status_cache.py") in {
        (Path(folder).name, name) for folder, name, *_ in status_cache._code()
    }
    monkeypatch.setattr(status_cache, "_code_key", [("pmem_tui", "cli.py", 1, 2)])
    scans.clear()
    status(memory, "--json")
    assert len(scans) == 1


def _flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x01
    path.write_bytes(bytes(data))


def _foreign(memory: Path) -> None:
    """A valid cache made for a copy of this memory at another path (same files, same stats)."""
    other = memory.parent / "copy"
    shutil.copytree(memory, other, symlinks=True)
    assert main(["--root", str(other), "status", "--json"]) == 0
    shutil.copyfile(cache_file(other, JSON_FILE), cache_file(memory, JSON_FILE))


def _rewrite(memory: Path, change: Callable[[bytes], bytes]) -> None:
    path = cache_file(memory, JSON_FILE)
    path.write_bytes(change(path.read_bytes()))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "garbage": lambda m: _rewrite(m, lambda _: b"\x00garbage\nnot a cache"),
    "empty": lambda m: _rewrite(m, lambda _: b""),
    "truncated": lambda m: _rewrite(m, lambda data: data[:-10]),
    "bad-header": lambda m: _rewrite(m, lambda data: data.replace(b" ", b"x", 1)),
    "flipped-output-byte": lambda m: _flip_last_byte(cache_file(m, JSON_FILE)),
    "foreign": _foreign,
    "a-folder": lambda m: (cache_file(m, JSON_FILE).unlink(), cache_file(m, JSON_FILE).mkdir()),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_cache_is_ignored(
    memory: Path, later: None, status: Status, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    expected = fresh(status, memory, "--json")
    status(memory, "--json")
    DAMAGE[damage](memory)
    capsys.readouterr()
    assert status(memory, "--json") == expected
    assert capsys.readouterr().err == ""
    assert status(memory, "--json") == expected


def test_a_symlinked_cache_file_is_not_followed(
    memory: Path, tmp_path: Path, later: None, scans: list[Path], status: Status
) -> None:
    status(memory, "--json")
    stash = tmp_path / "stash.bin"
    shutil.move(cache_file(memory, JSON_FILE), stash)
    cache_file(memory, JSON_FILE).symlink_to(stash)
    scans.clear()
    status(memory, "--json")
    assert len(scans) == 1  # O_NOFOLLOW: not read through the link


def test_an_unwritable_cache_is_ignored(
    memory: Path, later: None, status: Status, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(path: str, parts: tuple[bytes, ...]) -> None:
        raise PermissionError(13, "read-only")

    monkeypatch.setattr(cache, "write_atomic", failing)
    expected = fresh(status, memory, "--json")
    assert status(memory, "--json") == expected
    assert status(memory, "--json") == expected
    assert not cache_file(memory, JSON_FILE).exists()


def test_a_read_failure_is_never_stored(
    memory: Path, later: None, status: Status, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = scan_facts.inspect_file

    def failing(root: Path, rel: str, reader: folder_reads.Reader | None = None) -> scan_facts.FileContent:
        if rel.endswith("/standup.md"):
            raise PermissionError(13, "Permission denied")
        return real(root, rel, reader)

    monkeypatch.setattr(scan_facts, "inspect_file", failing)
    out = status(memory, "--json")
    assert "cannot be read" in out
    assert not cache_file(memory, JSON_FILE).exists()
    monkeypatch.setattr(scan_facts, "inspect_file", real)
    assert "cannot be read" not in status(memory, "--json")  # read again, now that it works


def test_a_shallow_symlink_bypasses_the_cache(
    memory: Path, tmp_path: Path, later: None, status: Status
) -> None:
    target = tmp_path / "elsewhere-trash"
    target.mkdir()
    (memory / "_archive/_trash").rmdir()
    (memory / "_archive/_trash").symlink_to(target)  # reported as a symlink, never followed
    first = status(memory, "--json")
    assert not cache_file(memory, JSON_FILE).exists()
    write(target, "notes/late.md", "# Late\n")
    assert status(memory, "--json") == first == fresh(status, memory, "--json")
    assert "late.md" not in first and '"kind":"symlink","path":"_archive/_trash"' in first
    assert not (memory / JSON_FILE).exists()


def test_a_deep_symlink_is_part_of_the_key(memory: Path, tmp_path: Path, later: None, status: Status) -> None:
    (memory / "notes/sub").mkdir()
    (memory / "notes/sub/link.md").symlink_to(memory / "notes/standup.md")  # reported, never followed
    before = status(memory, "--json")
    assert cache_file(memory, JSON_FILE).is_file()
    (memory / "notes/sub/link.md").unlink()
    assert status(memory, "--json") == fresh(status, memory, "--json") != before


def test_no_cache_neither_reads_nor_writes(
    memory: Path, later: None, scans: list[Path], status: Status
) -> None:
    fresh(status, memory, "--json")
    assert not cache_file(memory, JSON_FILE).parent.exists()
    status(memory, "--json")
    scans.clear()
    fresh(status, memory, "--json")
    assert len(scans) == 1


def test_the_cache_constants_match_the_cache_layer() -> None:
    assert status_cache._META == model.META_DIR
    started = time.time_ns()  # status's racy window is the cache layer's, to the nanosecond
    assert status_cache.Probe("r", "json", b"", started, started - cache.RACY_NS, None).racy
    assert not status_cache.Probe("r", "json", b"", started, started - cache.RACY_NS - 1, None).racy


# -- the argv fast path --------------------------------------------------------------------------------------

TOKENS = [
    "status",
    "--json",
    "--no-cache",
    "--root",
    "--root=r2",
    "--root=",
    "r1",
    "",
    "-x",
    "--ro",
    "--js",
    "-h",
    "--project",
    "p",
    "upgrade",
    "--",
    "status",
]


def _argparse_view(argv: list[str]) -> tuple[str | None, bool, bool] | None:
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args: argparse.Namespace = build_parser().parse_args(argv)
    except SystemExit:
        return None
    if args.command != "status":
        return None
    return getattr(args, "root", None), args.json, not args.no_cache


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
@example(["status", "--root=", "--root", "status"])  # an empty --root before the last one is still bad usage
def test_the_fast_argv_path_means_what_argparse_means(argv: list[str]) -> None:
    quick = cli_status.quick(argv)
    if quick is not None:
        assert _argparse_view(argv) == quick


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["status"], (None, False, True)),
        (["--root", "a", "status", "--json", "--root", "b"], ("b", True, True)),
        (["--root=a", "status", "--no-cache"], ("a", False, False)),
        (["--root", "status", "status"], ("status", False, True)),
    ],
)
def test_the_fast_argv_path_takes_plain_status_commands(
    argv: list[str], expected: tuple[str | None, bool, bool]
) -> None:
    assert cli_status.quick(argv) == expected == _argparse_view(argv)


@pytest.mark.parametrize("argv", [["status", "-h"], ["status", "--js"], ["--ro", "x", "status"], ["health"]])
def test_anything_else_goes_to_argparse(argv: list[str]) -> None:
    assert cli_status.quick(argv) is None


# -- a property: after any sequence of changes, the cached output is the uncached output ---------------------

OPS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "edit-same-size", "add", "remove", "index", "today"]),
        st.integers(min_value=0, max_value=3),
    ),
    min_size=1,
    max_size=6,
)


@contextlib.contextmanager
def _scratch_memory() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir=os.environ.get("PYTEST_TMPDIR")) as tmp:
        root = Path(tmp) / "mem"
        for i in range(4):
            write(root, f"notes/n{i}.md", f"# Note {i}\n\n## Summary\n- a\n- b\n- c\n")
        write(root, "_index.md", "".join(f"- notes/n{i}.md — note {i}\n" for i in range(4)))
        (root / "_archive/_trash").mkdir(parents=True)
        write(root, "_archive/_index.md", "# Archive index\n")
        yield root


def _render(root: Path, cache: bool) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_status.run(str(root), True, cache) == 0
    return out.getvalue()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_the_cached_output_is_always_the_uncached_output(
    ops: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + LATER_NS)
    monkeypatch.setenv("PMEM_TUI_TODAY", "2026-11-30")
    tick = [0]

    def stamp(path: Path) -> None:
        """A distinct mtime per write: the clock is faked forward, so same-tick writes must not collide."""
        tick[0] += 1
        when = 1_700_000_000_000_000_000 + tick[0] * 1_000_000_000
        os.utime(path, ns=(when, when))

    with _scratch_memory() as root:
        for path in root.rglob("*.md"):
            stamp(path)
        for op, i in ops:
            _render(root, True)  # warm the cache for the state before the change
            target = root / f"notes/n{i}.md"
            if op == "edit" and target.exists():
                target.write_text(target.read_text() + "more\n")
                stamp(target)
            elif op == "edit-same-size" and target.exists():
                text = target.read_text()
                target.write_text(text.replace("- a", "- z") if "- a" in text else text.replace("- z", "- a"))
                stamp(target)
            elif op == "add":
                write(root, f"notes/extra{i}.md", f"# Extra {i}\n")
                stamp(root / f"notes/extra{i}.md")
            elif op == "remove" and target.exists():
                target.unlink()
            elif op == "index":
                index = root / "_index.md"
                index.write_text(index.read_text() + f"- notes/n{i}.md — again\n")
                stamp(index)
            elif op == "today":
                monkeypatch.setenv("PMEM_TUI_TODAY", f"2026-12-{10 + i:02d}")
            assert _render(root, True) == _render(root, False)
            assert _render(root, True) == _render(root, False)


def test_the_day_in_the_key_is_the_clock_s_day(monkeypatch: pytest.MonkeyPatch) -> None:
    from pmem_tui.core import clock

    assert status_cache._ENV_TODAY == clock.ENV_TODAY
    monkeypatch.setenv(clock.ENV_TODAY, "2027-03-04")
    assert status_cache._day() == "2027-03-04" == clock.today().isoformat()
    monkeypatch.delenv(clock.ENV_TODAY)
    assert status_cache._day() == clock.today().isoformat()
    monkeypatch.setenv(clock.ENV_TODAY, "")
    assert status_cache._day() == clock.today().isoformat()


def test_a_malformed_frozen_date_is_bad_usage_and_stores_nothing(
    memory: Path, later: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", "not-a-date")
    assert main(["--root", str(memory), "status", "--json"]) == 2  # bad usage, one sentence (user_input)
    assert not cache_file(memory, JSON_FILE).exists()


@pytest.mark.parametrize("how", ["file", "folder"])
def test_what_came_and_went_while_the_scan_ran_is_never_served(
    memory: Path, later: None, status: Status, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Found in review: the key is taken before the scan; a file made after the listing (seen by the scan) and
    removed afterwards left the tree listing as before, so the stored output kept showing it."""
    truth = fresh(status, memory)
    real = tree.scan
    scratch = memory / "notes" / ("scratch.md" if how == "file" else "tmp-folder")
    # The scan lists the tree itself, as it does when the key's listing held an entry it could not stat
    # (else it walks that listing, and sees no visitor: `tests/core/test_shared_listing.py`).
    monkeypatch.setattr(status_cache.Probe, "folders", lambda self: None)

    def scan_with_a_visitor(root: Path, **kwargs: object) -> object:
        if how == "file":
            scratch.write_text("# scratch\n")
        else:
            scratch.mkdir()
            (scratch / "inside.md").write_text("# inside\n")
        return real(root, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree, "scan", scan_with_a_visitor)
    assert status(memory) != truth  # it saw the visitor
    monkeypatch.setattr(tree, "scan", real)
    if how == "file":
        scratch.unlink()
    else:
        shutil.rmtree(scratch)
    assert status(memory) == truth


def test_another_user_does_not_get_this_users_output(
    memory: Path, later: None, scans: list[Path], status: Status, monkeypatch: pytest.MonkeyPatch
) -> None:
    status(memory, "--json")
    scans.clear()
    status(memory, "--json")
    assert scans == []  # a hit for the same user
    monkeypatch.setattr(os, "geteuid", lambda: 65534)  # what one user can read, another may not
    status(memory, "--json")
    assert scans == [memory]
