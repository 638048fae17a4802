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
