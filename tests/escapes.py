"""A memory an agent wrote with terminal escapes in a file and in its index line (the TUI and tmux tests)."""

from __future__ import annotations

import os
import re
from pathlib import Path

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what may never reach a terminal (CR alone, too)

BODY = "# Esc\n\nbody \x1b]2;PWNED-TITLE\x07 after\n\x1b[2J\x1b[H cleared\r\nNUL \x00 and a\rreturn\n"
LINE = "- notes/esc.md — esc \x1b[31mRED\x1b[0m note\n"


def escape_memory(root: Path) -> Path:
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    (root / "notes/esc.md").write_text(BODY, encoding="utf-8", newline="")
    (root / "_index.md").write_text(LINE, encoding="utf-8")
    return root


NAMED = "notes/n\x1b]2;PWNED-NAME\x07\u202ex.md"  # a name an agent made: an OSC, a bidi override


def escape_named_memory(root: Path) -> Path:
    """`escape_memory`, and a file and a FIFO whose names hold escapes (an orphan row, a rowless problem)."""
    escape_memory(root)
    (root / NAMED).write_text("# Named\n\nsearchable words here\n", encoding="utf-8")
    os.mkfifo(root / "notes/fifo\x1b[2J.md")
    return root
