"""Issues 16 and 18 in a real terminal (tmux), on a memory written the way an agent writes it by hand: an
agent's edit while the app runs shows in the Changes pane, its file's History view restores the version
before it through the save preview; the search screen finds a two-character Chinese word, opens its file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.tmux.terminal import Pane

TOOLS = b"# Tools\n## Summary\nripgrep, fzf, tmux, neovim.\n"


def agent_memory(root: Path) -> Path:
    """Index lines in several shapes, a CJK note, a file that is not UTF-8, an orphan."""
    files = {
        "_core/identity.md": "# Identity\n## Summary\nAna, a backend engineer who prefers terse answers.\n",
        "_index.md": (
            "# Memory index\n\n"
            "- [projects/alpha/plan.md](projects/alpha/plan.md) — Alpha migration plan\n"
            "* `notes/tools.md`: tools Ana uses daily\n"
            "- notes/cjk.md - 中文笔记：部署流程\n"
        ),
        "projects/alpha/plan.md": "# Alpha plan\n## Summary\nMove billing to Postgres 16 by March.\n",
        "notes/cjk.md": "# 中文笔记\n## 摘要\n部署流程：先构建，再发布。\n\n正文：使用蓝绿部署。\n",
        "notes/orphan.md": "# Orphan\n## Summary\nNot in the index.\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "notes/tools.md").write_bytes(TOOLS)
    (root / "notes/latin1.md").write_bytes(b"# Caf\xe9\n## Summary\n\xe9t\xe9.\n")
    return root


def quit_cleanly(pane: Pane) -> None:
    pane.keys("q")
    assert pane.exit_status() == 0
    screen = pane.wait_for("pmem exited")
    assert "Traceback" not in screen and "Error" not in screen, screen


def test_an_agent_edit_in_changes_then_restored_from_its_history(pane: Pane, tmp_path: Path) -> None:
    root = agent_memory(tmp_path / "memory")
    subprocess.run(
        [sys.executable, "-m", "pmem_tui", "--root", str(root), "snapshot", "--quiet"],
        check=True,
        env=os.environ.copy(),
    )
    pane.start((80, 24), {"NO_COLOR": "1", "TERM": "xterm-256color"}, app_args=f"--root {root}")
    pane.wait_for("notes/tools.md")
    pane.keys("6")
    pane.wait_for("6 Changes", "Nothing changed since the last review.")  # the first record is the baseline
    with (root / "notes/tools.md").open("ab") as f:  # an agent appends while the app runs
        f.write(b"- Added by an agent\n")
    pane.wait_for("notes/tools.md  modified  +1 -0")  # the watcher saw it, history recorded it
    pane.wait_in_preview("+- Added by an agent")
    pane.keys("v")
    pane.wait_for("History of notes/tools.md  2 versions")
    pane.keys("j")  # the version before the agent's edit
    pane.wait_for("added")
    pane.keys("r")
    pane.wait_for("Restore notes/tools.md to version", "Confirm (y)")
    pane.keys("y")
    pane.wait_for_notice("Restored notes/tools.md to version")
    assert (root / "notes/tools.md").read_bytes() == TOOLS
    pane.keys("Escape")
    pane.wait_for("Changes")
    quit_cleanly(pane)


def test_search_finds_a_two_character_chinese_word_and_opens_its_file(pane: Pane, tmp_path: Path) -> None:
    root = agent_memory(tmp_path / "memory")
    pane.start((160, 48), {"TERM": "xterm-256color"}, app_args=f"--root {root}")
    pane.wait_for("notes/tools.md")
    pane.keys("C-f")
    pane.wait_for("Search")
    pane.keys("部署")
    screen = pane.wait_for("notes/cjk.md:3", "部署流程：先构建，再发布。")
    said = "1 file not indexed: 1 not text (not UTF-8, or holding a NUL byte)"
    assert said in screen.replace("\n", "")  # latin1.md, said so, never a crash
    pane.keys("Enter")
    pane.wait_in_preview("Listed in _index.md (line 5).")
    quit_cleanly(pane)
