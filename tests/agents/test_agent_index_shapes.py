"""Every documented `_index.md` line shape, written by hand, through archive, delete and recover: the line
leaves and comes back byte for byte at its place; no other byte of either index moves (PM-AGENT-2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.core.records import find_record, parse_records
from tests.agents.agent_roots import VARIANTS, Pm, read, shape
from tests.conftest import write

ROUTES = {
    "projects/alpha.md": "- [Alpha](projects/alpha.md) — the importer project",
    "projects/my plan [v2].md": "- [My plan](<projects/my plan [v2].md>) — spaces and brackets",
    "projects/beta.md": "1. **Beta** (projects/beta.md) – numbered, bold title",
    "notes/standup.md": "* notes/standup.md — daily standup notes",
    "notes/日本語 メモ.md": "+ `notes/日本語 メモ.md` — a code-span path",
    "notes/ideas.md": "- notes/ideas.md: loose ideas",
}
_P = list(ROUTES.values())
INDEX = (
    "# Index\n\nThe agent keeps this list by hand.\n\n## Projects\n"
    f"{_P[0]}\n{_P[1]}\n{_P[2]}\n\nA note between the sections.\n\n"
    f"## Notes\n{_P[3]}\n{_P[4]}\n{_P[5]}\n\nEnd.\n"
)
ARCHIVE = "# Archive index\n\nRecords of what I archived.\n"


def _root(tmp_path: Path, index: str, archive: str) -> Path:
    root = tmp_path / "mem"
    for d in ("_core", "projects", "notes", "_archive/_trash"):
        (root / d).mkdir(parents=True, exist_ok=True)
    write(root, "_core/me.md", "# Me\n")
    write(root, "_index.md", index)
    write(root, "_archive/_index.md", archive)
    for route in ROUTES:
        write(root, route, f"# {route}\n")
    return root


@pytest.mark.rule("PM-AGENT-2", "PM-ARC-4", "PM-ARC-5", "PM-REC-4")
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("route", list(ROUTES))
def test_each_line_shape_leaves_and_returns_byte_for_byte(
    tmp_path: Path, pm: Pm, route: str, variant: str
) -> None:
    v = VARIANTS[variant]
    index, archive = shape(INDEX, v), shape(ARCHIVE, v)
    root = _root(tmp_path, index, archive)
    line = ROUTES[route]
    got = pm(root, "archive", route, "--reason", "done", "--yes")
    assert got.code == 0, got.err
    assert read(root, "_index.md") == index.replace(line + v.eol, "", 1)
    rec = find_record(parse_records(read(root, "_archive/_index.md")), route)
    assert rec is not None and rec.index_line == line
    assert read(root, "_archive/_index.md").startswith(archive if v.final_newline else archive + v.eol)
    assert pm(root, "delete", route, "--yes").code == 0
    got = pm(root, "recover", route, "--yes")
    assert got.code == 0, got.err
    assert read(root, "_index.md") == index
    assert (root / route).read_text(encoding="utf-8") == f"# {route}\n"
    after = read(root, "_archive/_index.md")
    assert after == (archive if v.final_newline else archive + v.eol)  # only its record came and went
