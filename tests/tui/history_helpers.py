"""Helpers of the history Pilot and snapshot tests: a demo memory with a history, recorded at fixed times."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from tui_helpers import FIXED_MTIME, make_demo

from pmem_tui.core.history import record, store

T0 = FIXED_MTIME + 7 * 86_400  # 2026-03-08 12:00 UTC: the first record
HOUR = 3_600
EDITED = "projects/atlas.md"
LINE = "- 2026-03-09: the agent switched Atlas to the new queue."


def record_at(monkeypatch: pytest.MonkeyPatch, when: int) -> None:
    """Every record made from now on is dated `when` (the store's clock only)."""
    monkeypatch.setattr(store, "time", SimpleNamespace(time=lambda: when))


def append(root: Path, rel: str, line: str) -> None:
    with (root / rel).open("a", encoding="utf-8") as f:
        f.write(line + "\n")


def memory_with_history(parent: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo memory, recorded and reviewed at T0; then an agent's edit of EDITED, recorded at T0 + 1 h;
    then a second edit not recorded yet (the app's scan records it, at T0 + 2 h)."""
    root = make_demo(parent)
    record_at(monkeypatch, T0)
    assert record.record(root, create=True).commit is not None
    record.mark_reviewed(root)
    record_at(monkeypatch, T0 + HOUR)
    append(root, EDITED, LINE)
    assert record.record(root).commit is not None
    record_at(monkeypatch, T0 + 2 * HOUR)
    append(root, EDITED, "- a second line, written after the last record.")
    return root


SECRET_NOTE = "notes/deploy-keys.md"
SECRET_LINE = "- db password: hunter22"


def memory_with_a_kept_secret(parent: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo memory with a note that held a password when it was recorded (T0), rewritten without it since
    (recorded at T0 + 1 h): only the history keeps the secret."""
    root = make_demo(parent)
    note = root / SECRET_NOTE
    note.write_text(f"# Deploy keys\n\nWhere the keys live.\n{SECRET_LINE}\n", encoding="utf-8")
    record_at(monkeypatch, T0)
    assert record.record(root, create=True).commit is not None
    note.write_text("# Deploy keys\n\nWhere the keys live: in the vault.\n", encoding="utf-8")
    record_at(monkeypatch, T0 + HOUR)
    assert record.record(root).commit is not None
    return root
