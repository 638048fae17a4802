"""A listed route that names no memory file says what is there instead, the same way in the scan's
problem (`status`), the health check and the preview. Found in trial: a route that was a FIFO or a link
was called "no such file" by the row and the CLI, while the same path's own problem said "a named pipe
(FIFO), not a regular file; never read"."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pmem_tui.core import cache, dead_routes, safeio, tree
from pmem_tui.core.health.check import check_health

ROUTES = {
    "notes/gone.md": "no such file",
    "notes/pipe.md": "a named pipe (FIFO), not a regular file; pmem-tui never reads it",
    "notes/link.md": "a symbolic link, which pmem-tui never follows",
    "notes/linked/x.md": "notes/linked is a symbolic link, which pmem-tui never follows",
    "notes/dir.md": "a folder, not a file",
    "notes/.hidden.md": "a hidden file, which pmem-tui does not list",
    "other/o.md": "outside projects/ and notes/, where memory files are listed",
    "notes/file.md/x.md": "no such file",  # a file where a folder would be
    "notes/gone/x.md": "no such file",
    "notes/.gone.md": "no such file",  # hidden, but not there either (found in review)
    # judged by its spelling alone: nothing outside the root is looked at
    "notes/../../outside/x.md": "it contains '..', which could leave the memory root",
    "notes/./file.md": "it is not in normal form; use 'notes/file.md'",
    "notes//file.md": "it is not in normal form; use 'notes/file.md'",
    "notes/a\0b.md": "it contains the NUL character; type the path again without it",
}


def agent_memory(root: Path, outside: Path) -> Path:
    """A memory an agent wrote by hand, whose index lists each of ROUTES."""
    for folder in ("_core", "projects", "notes", "other", "notes/dir.md", "_archive/_trash"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    (root / "notes/file.md").write_text("# f\n", encoding="utf-8")
    (root / "notes/.hidden.md").write_text("# h\n", encoding="utf-8")
    (root / "other/o.md").write_text("# o\n", encoding="utf-8")
    os.mkfifo(root / "notes/pipe.md")
    outside.mkdir(exist_ok=True)
    (outside / "x.md").write_text("# outside\n", encoding="utf-8")
    (root / "notes/link.md").symlink_to(outside / "x.md")
    (root / "notes/linked").symlink_to(outside)
    lines = "".join(f"- `{route}` — listed\n" for route in ROUTES) + "- notes/file.md — a file\n"
    (root / "_index.md").write_text(lines, encoding="utf-8")
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return agent_memory(tmp_path / "memory", tmp_path / "outside")


def test_why_a_route_is_dead_says_what_is_there(root: Path) -> None:
    for route, why in ROUTES.items():
        assert dead_routes.why_dead(root, route) == why, route
    assert safeio.what_is_at(root, "notes/file.md") is None  # a regular file
    (root / "notes/late.md").write_text("# late\n", encoding="utf-8")
    assert dead_routes.why_dead(root, "notes/late.md") == "a file that was not there when the memory was read"


def test_the_scan_and_the_health_check_give_the_same_reason(root: Path) -> None:
    snap = tree.scan(root, deep=False)
    dead = {p.path: p.detail for p in snap.problems if p.kind == "dead-route"}
    assert dead == {route: f"in _index.md but {why}" for route, why in ROUTES.items()}
    report = check_health(root, use_cache=False)
    said = {p.path: p.reason for p in report.proposals if "dead-route" in p.kinds}
    assert said == {route: f"in _index.md but {why}" for route, why in ROUTES.items()}
    assert (root / "notes/pipe.md").exists()  # nothing was opened, moved or followed


def test_a_folder_is_looked_at_once_for_all_the_routes_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: an agent that renames `notes/` leaves every route in it dead; each was looked at
    from the root down (100,000 routes: a shallow scan went from 0.33 s to 2 s)."""
    looked: list[str] = []
    open_dir = safeio.open_dir
    monkeypatch.setattr(safeio, "open_dir", lambda root, rel: looked.append(rel) or open_dir(root, rel))
    routes = [f"notes/old/n{i}.md" for i in range(500)] + [f"projects/p{i}.md" for i in range(3)]
    (tmp_path / "projects").mkdir()
    reasons = dead_routes.dead_reasons(tmp_path, routes + routes)
    assert set(reasons.values()) == {"no such file"}
    assert sorted(looked) == ["notes/old", "projects", "projects", "projects"]  # a few: each looked at
    looked.clear()
    assert dead_routes.why_dead(tmp_path, "projects/p0.md") == "no such file"
    assert looked == ["projects"]  # one route alone never lists its folder (found in review: 10^5 files)


def test_a_cached_health_report_is_not_kept_once_a_dead_route_names_something_else(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: the report's cache key covers the memory files, not a FIFO or a link that appears
    where a dead route points: the cached report kept saying "no such file"."""
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)  # out of the racy window
    first = check_health(root)
    assert check_health(root).stats.cache == "report"
    assert any(
        p.reason == "in _index.md but no such file" for p in first.proposals if p.path == "notes/gone.md"
    )
    (root / "notes/gone.md").mkdir()
    again = check_health(root)
    assert again.stats.cache != "report"
    said = {p.path: p.reason for p in again.proposals}
    assert said["notes/gone.md"] == "in _index.md but a folder, not a file"


def test_a_proposed_index_line_never_carries_an_agents_escapes(tmp_path: Path) -> None:
    """Found in review: recovering a file whose record had no saved line prefilled the line built from its
    title, escapes and all; confirmed, they were written into `_index.md`."""
    from pmem_tui.core.layout import propose_index_line

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/e.md").write_text("# Ti\x1b]2;X\x07tle\n\n- one \x1b[31mred\n- two\n- three\n")
    line = propose_index_line(tmp_path, "notes/e.md", "notes/e.md")
    assert line == "- [Ti \\]2;X tle](notes/e.md) — one [31mred"  # (the link text escapes its "]")
