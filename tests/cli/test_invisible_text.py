"""A `--reason` or `--index-line` made only of characters that draw nothing is no text: refused like an
empty one (they passed the control-character check: joiners are allowed inside text, fillers are letters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core import user_input
from pmem_tui.core.errors import Refused
from tests.conftest import tree_bytes, write

INVISIBLE = ["\u200d", "\u200c\u200d", "\u3164", "\u115f\u1160", "\u0301", "\u00a0\u200d", "\u2800", "\ufe0f"]


@pytest.mark.rule("PM-ARC-5")
@pytest.mark.parametrize("text", INVISIBLE)
def test_an_invisible_reason_is_refused(text: str) -> None:
    with pytest.raises(Refused, match="no visible character"):
        user_input.one_line(text, "reason for archiving")


@pytest.mark.parametrize("text", ["é", "👍", "👨\u200d👩\u200d👧", "ok\u200d", "a\u0301", "—", "1", "ㅎ"])
def test_visible_text_is_kept_as_typed(text: str) -> None:
    assert user_input.one_line(text, "reason for archiving") == text


@pytest.mark.rule("PM-ARC-5")
def test_the_cli_refuses_an_invisible_reason_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "mem"
    write(root, "notes/a.md", "# A\n")
    write(root, "_index.md", "- notes/a.md — A\n")  # a memory (`memory_root`), before lifecycle support
    assert main(["--root", str(root), "upgrade", "--yes"]) == 0
    before = tree_bytes(root)
    capsys.readouterr()
    assert main(["--root", str(root), "archive", "--reason", "\u3164", "--yes", "notes/a.md"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no visible character" in err
    assert tree_bytes(root) == before
