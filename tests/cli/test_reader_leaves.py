"""A reader that goes away (`pmem-tui changes --json | head -c 300`, found in trial): the command finishes as
it would have, what the reader did not stay for is dropped, and the exit code is the command's own. Before, a
command whose output went out in several writes exited 141 when the reader left between two of them, and 0
when it left after the last: `| head -1` was fine, `| head -c 300` was not. Run as real processes: the
pipe is the process's own standard output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import stock, write

REPO = Path(__file__).resolve().parents[2]


def start(root: Path, argv: tuple[str, ...], stdout: int, stderr: int) -> subprocess.Popen[bytes]:
    """`pmem-tui --root ROOT ARGV...`, its standard output and error as given (a descriptor, `PIPE`)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONUNBUFFERED", None)  # buffered, as usual
    cmd = [sys.executable, "-m", "pmem_tui", "--root", str(root), *argv]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)


def gone_reader(root: Path, argv: tuple[str, ...], both: bool = False) -> tuple[int, bytes]:
    """Run with a pipe whose reader has already gone as standard output (and, `both`, standard error):
    every write the process makes to it fails. (exit code, standard error)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        err = write_end if both else subprocess.PIPE
        proc = start(root, argv, write_end, err)
    finally:
        os.close(write_end)
    _out, said = proc.communicate(timeout=120)
    return proc.returncode, said or b""


@pytest.fixture
def lived(memory: Path) -> Path:
    """`memory` with an archived and a trashed file, and a history with changes since it was reviewed."""
    from pmem_tui.cli import main

    stock(memory)
    for n in range(3):
        write(memory, "notes/standup.md", f"# Standup\n\nDay {n}.\n")
        assert main(["--root", str(memory), "snapshot", "--quiet"]) == 0
    assert main(["--root", str(memory), "changes", "--mark-reviewed"]) == 0
    write(memory, "notes/standup.md", "# Standup\n\nDay 3.\n")
    assert main(["--root", str(memory), "snapshot", "--quiet"]) == 0
    return memory


COMMANDS = [
    ("status",),
    ("status", "--json"),
    ("status", "--no-cache"),
    ("health",),
    ("health", "--json"),
    ("search", "standup"),
    ("search", "standup", "--json"),
    ("changes",),
    ("changes", "--json"),
    ("history", "notes/standup.md"),
    ("history", "notes/standup.md", "--json"),
    ("history", "diff", "notes/standup.md"),
    ("snapshot",),
    ("archive", "notes/standup.md", "--reason", "r"),
    ("archive", "notes/standup.md", "--reason", "r", "--json"),
    ("loader", "--help"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_every_command_ends_with_its_own_code_when_its_reader_has_gone(
    lived: Path, argv: tuple[str, ...]
) -> None:
    assert gone_reader(lived, argv) == (0, b"")


def test_an_action_whose_reader_has_gone_is_done_and_says_so_by_its_exit_code(lived: Path) -> None:
    code, err = gone_reader(lived, ("archive", "notes/standup.md", "--reason", "r", "--yes"))
    assert (code, err) == (0, b"")
    assert (lived / "_archive/notes/standup.md").is_file() and not (lived / "notes/standup.md").exists()


def test_a_refusal_into_a_gone_reader_still_exits_1(lived: Path) -> None:
    """`2>&1 | head -c 10`: the sentence is dropped with the rest; the exit code still says refused."""
    assert gone_reader(lived, ("archive", "notes/none.md", "--reason", "r"), both=True) == (1, b"")


def test_a_reader_that_leaves_midway_through_a_long_output(lived: Path) -> None:
    """More than a pipe holds: the writer is still writing when the reader leaves (`| head -c 100`)."""
    for n in range(400):
        write(lived, f"notes/n{n}.md", f"# Note {n}\n\n## Summary\nA note about standups, number {n}.\n")
    index = (lived / "_index.md").read_text(encoding="utf-8")
    lines = "".join(
        f"- notes/n{n}.md — the standup note number {n}, kept long enough to fill\n" for n in range(400)
    )
    write(lived, "_index.md", index + lines)
    for argv in (("status", "--json"), ("health", "--json")):
        proc = start(lived, argv, subprocess.PIPE, subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        assert len(proc.stdout.read(100)) == 100
        proc.stdout.close()
        assert (proc.wait(timeout=120), proc.stderr.read()) == (0, b"")
        proc.stderr.close()


def test_a_short_write_to_the_pipe_is_finished_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: standard error's text layer writes straight to `Dropping`, which returned what one
    `os.write` took; a write cut short (a signal during a pipe write) lost the rest."""
    import os

    from pmem_tui.cli.streams import Dropping

    read_end, write_end = os.pipe()
    real_write = os.write

    def at_most_three(fd: int, data: bytes | memoryview) -> int:
        return real_write(fd, bytes(data[:3]))

    monkeypatch.setattr(os, "write", at_most_three)
    try:
        assert Dropping(write_end).write(b"one sentence\n") == len(b"one sentence\n")
        monkeypatch.setattr(os, "write", real_write)
        assert os.read(read_end, 100) == b"one sentence\n"
    finally:
        os.close(read_end)
        os.close(write_end)
