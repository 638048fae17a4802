"""`--root` naming a file: the sentence says so (it said the first save would create the memory there, which
`save` then refused: the root is not a folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.cli import main


@pytest.mark.parametrize("command", [["health"], ["purge"], ["purge", "--yes"]])
def test_a_root_that_is_a_file_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    root = tmp_path / "memory.txt"
    root.write_bytes(b"not a folder\n")
    assert main(["--root", str(root), *command]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"pmem-tui: {root} is not a folder.\n"
    assert root.read_bytes() == b"not a folder\n"


def test_status_on_a_root_that_is_a_file_does_not_promise_a_save(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "memory.txt"
    root.write_bytes(b"not a folder\n")
    assert main(["--root", str(root), "status"]) == 0
    out, _ = capsys.readouterr()
    assert out == f"No memory at {root}: it is a file, not a folder.\n"
