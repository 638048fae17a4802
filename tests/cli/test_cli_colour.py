"""The CLI's previews in colour on a terminal, plain otherwise (issue 14, item 15): ANSI codes by hand, so
`status` still imports no UI toolkit."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.cli import main

GREEN, RED, RESET = "\x1b[32m", "\x1b[31m", "\x1b[0m"


def on_a_terminal(argv: list[str], no_color: str | None) -> str:
    """Run the CLI with a pseudo-terminal as its standard output; what it wrote."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm"}
    if no_color is not None:
        env["NO_COLOR"] = no_color
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pmem_tui", *argv], stdout=follower, stderr=subprocess.PIPE, env=env
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed its end (Linux reports EIO)
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_save_preview_is_coloured_on_a_terminal_and_plain_with_no_color(
    memory: Path, tmp_path: Path
) -> None:
    new = tmp_path / "alpha.md"
    new.write_text("# Alpha\n\nThe importer, rewritten.\n", encoding="utf-8")
    argv = ["--root", str(memory), "save", "projects/alpha.md", "--from", str(new)]
    coloured = on_a_terminal(argv, None)
    assert f"{GREEN}+The importer, rewritten.{RESET}" in coloured
    assert RED in coloured  # the old line
    plain = on_a_terminal(argv, "1")
    assert "\x1b[" not in plain and "+The importer, rewritten." in plain


def test_a_preview_to_a_pipe_is_plain(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(memory), "archive", "projects/alpha.md", "--reason", "done"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out and "move    projects/alpha.md -> _archive/projects/alpha.md" in out
