"""Review of the loader from the outside: what an agent's folder may hold besides a plain file.

`loader` runs at every session start, so it must never hang, never follow a symlink out of the project and
never answer bad usage with a refusal's exit status.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from pmem_tui import cli

EPIC = "## Epic: FEAT-A — a\nSummary A.\n"


def memory(tmp_path: Path) -> Path:
    folder = tmp_path / "proj" / ".claude" / "memory"
    folder.mkdir(parents=True)
    return folder


def run_loader(project: Path, *extra: str) -> tuple[int, str, str]:
    """`pmem-tui loader --project project` in a daemon thread, so a blocking open fails the test."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    done: list[int] = []

    def target() -> None:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            done.append(cli.main(["loader", "--project", str(project), *extra]))

    reader = threading.Thread(target=target, daemon=True)
    reader.start()
    reader.join(timeout=10)  # an open() of a FIFO without O_NONBLOCK would wait here for a writer
    if not done:
        fifo = project / ".claude" / "memory" / "permanent_memory.md"
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # release the reader
        reader.join(timeout=10)
        pytest.fail("loader blocked on a special file")
    return done[0], out.getvalue(), err.getvalue()


@pytest.mark.rule("PL-10")
@pytest.mark.parametrize("json_flag", [(), ("--json",)])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, json_flag: tuple[str, ...]) -> None:
    os.mkfifo(memory(tmp_path) / "permanent_memory.md")
    code, out, err = run_loader(tmp_path / "proj", *json_flag)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "not a regular file" in err


@pytest.mark.rule("PL-10")
def test_a_symlinked_file_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("## Epic: SECRET-1 — other project\nNot this project's.\n", encoding="utf-8")
    (memory(tmp_path) / "permanent_memory.md").symlink_to(outside)
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "symlink" in err and "SECRET" not in err


@pytest.mark.rule("PL-10")
def test_a_symlink_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    (memory(tmp_path) / "permanent_memory.md").symlink_to("/dev/zero")
    code, out, err = run_loader(tmp_path / "proj", "--json")
    assert (code, out) == (1, "") and "symlink" in err


@pytest.mark.rule("PL-10")
def test_a_symlinked_memory_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "other" / ".claude" / "memory"
    elsewhere.mkdir(parents=True)
    (elsewhere / "permanent_memory.md").write_text(EPIC, encoding="utf-8")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    (tmp_path / "proj" / ".claude" / "memory").symlink_to(elsewhere)
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "symlink" in err


@pytest.mark.rule("PL-1")
def test_a_regular_file_still_loads(tmp_path: Path) -> None:
    (memory(tmp_path) / "permanent_memory.md").write_text(EPIC, encoding="utf-8")
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, err) == (0, "") and "Epic: FEAT-A — a — Summary A." in out


@pytest.mark.parametrize("today", ["2026-02-30", "0001-01-01", "2026-1-1"])
def test_a_bad_frozen_date_is_bad_usage_as_for_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, today: str
) -> None:
    (memory(tmp_path) / "permanent_memory.md").write_text(EPIC, encoding="utf-8")
    monkeypatch.setenv("PMEM_TUI_TODAY", today)
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "PMEM_TUI_TODAY" in err


@pytest.mark.rule("PL-15")
def test_a_line_of_inline_code_opens_no_fence(tmp_path: Path) -> None:
    # CommonMark: a backtick fence's info string holds no backtick, so this line is a code span, not a fence;
    # read as a fence it would hide every epic after it.
    text = "## Epic: A — a\nSummary A.\n```npm test``` runs it\n## Epic: B — b\nSummary B.\n"
    (memory(tmp_path) / "permanent_memory.md").write_text(text, encoding="utf-8")
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, err) == (0, "") and "Epic: B — b — Summary B." in out


def test_a_project_that_is_a_file_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x\n", encoding="utf-8")
    code, out, err = run_loader(tmp_path / "notes.txt")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "is not a folder" in err and "does not exist" not in err


@pytest.mark.rule("PL-5")
@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"])
def test_a_line_separator_inside_a_summary_never_splits_the_block_line(
    tmp_path: Path, separator: str
) -> None:
    # Each of these ends a line for str.splitlines() and for many viewers, not for the loader's line rule.
    text = f"## Epic: A — a\nFirst half{separator}second half.\n"
    (memory(tmp_path) / "permanent_memory.md").write_text(text, encoding="utf-8")
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == 2 and "second half." in out


@pytest.mark.rule("PL-10")
def test_a_symlinked_claude_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "other" / ".claude"
    (elsewhere / "memory").mkdir(parents=True)
    (elsewhere / "memory" / "permanent_memory.md").write_text(EPIC, encoding="utf-8")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / ".claude").symlink_to(elsewhere)
    code, out, err = run_loader(tmp_path / "proj")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "is a symbolic link" in err and "never follows" in err
