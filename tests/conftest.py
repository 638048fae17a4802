"""Shared fixtures. Every test runs with a frozen date so records and deadlines are reproducible."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

FROZEN_TODAY = dt.date(2026, 11, 30)


@pytest.fixture(autouse=True)
def _frozen_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", FROZEN_TODAY.isoformat())


@pytest.fixture(autouse=True, scope="session")
def _private_state_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The app keeps refused edits as drafts in the person's state folder: never the real one in tests."""
    patch = pytest.MonkeyPatch()
    base = tmp_path_factory.mktemp("xdg")
    patch.setenv("XDG_STATE_HOME", str(base / "state"))
    patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
    yield
    patch.undo()


@pytest.fixture
def today() -> dt.date:
    return FROZEN_TODAY


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


SUMMARY_FILE = """# Alpha project

Updated: 2026-11-20

## Summary
- Alpha ships the importer in December.
- Decision: Postgres over SQLite for the catalogue.
- Constraint: no network at run time.

## Detail
Long detail text.
"""


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    """A small, complete memory root with the lifecycle structure."""
    root = tmp_path / "mem"
    write(root, "_core/profile.md", "# Profile\n\nI write Python.\n")
    write(root, "_core/preferences.md", "# Preferences\n\n- Short answers.\n")
    write(
        root,
        "_index.md",
        "# Index\n\n"
        "- [Alpha](projects/alpha.md) — the importer project\n"
        "- notes/standup.md — daily standup notes\n"
        "- `notes/日本語 メモ.md` — CJK note with a space\n",
    )
    write(root, "projects/alpha.md", SUMMARY_FILE)
    write(root, "notes/standup.md", "# Standup\n\nNothing new.\n")
    write(root, "notes/日本語 メモ.md", "# メモ\n\n内容。\n")
    (root / "_archive/_trash").mkdir(parents=True)
    from pmem_tui.core.records import empty_archive_index

    write(root, "_archive/_index.md", empty_archive_index())
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file below root (the tool's hidden .pmem metadata excluded) with its bytes."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] == ".pmem" or not path.is_file() or path.is_symlink():
            continue
        out[rel] = path.read_bytes()
    return out


# The spec-rule report (every test's rule ids and outcome; see tests/conformance_plugin.py), and pytester for
# that plugin's own tests.
pytest_plugins = ("tests.conformance_plugin", "pytester")
