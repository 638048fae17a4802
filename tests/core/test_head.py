"""The head of the index, read before the full scan: the same entries as a full parse of those lines, and
the same notion of an active file as the scan."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core import index, tree
from pmem_tui.core.head import active_file_info, index_head
from pmem_tui.core.model import INDEX_FILE, FileInfo

LINES = st.sampled_from(
    [
        "- [Atlas](projects/atlas.md) — routing service",
        "- projects/b.md — plain route",
        "- [Notes](notes/ideas.md)",
        "# Index",
        "",
        "```",
        "~~~",
        "<!-- a comment",
        "-->",
        "<!-- one line -->",
        "---",
        "- [Café](notes/café.md) — ünïcode",
        "- `projects/code span.md` — spaces",
        "  - [nested](projects/deep/x.md) — indented",
        "text with no route",
    ]
)


@pytest.mark.rule("PM-LOAD-3", "PM-CORE-5")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(LINES, max_size=40),
    eol=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    max_bytes=st.integers(min_value=1, max_value=400),
    max_entries=st.integers(min_value=1, max_value=30),
)
def test_the_head_is_a_prefix_of_the_full_parse(
    tmp_path: Path, lines: list[str], eol: str, bom: bool, max_bytes: int, max_entries: int
) -> None:
    text = ("\ufeff" if bom else "") + eol.join(lines) + (eol if lines else "")
    (tmp_path / INDEX_FILE).write_bytes(text.encode())
    head = index_head(tmp_path, max_bytes=max_bytes, max_entries=max_entries)
    full = index.parse_index(text)
    if head is None:
        return  # a head that could not stand for the file's start: the app waits for the full scan
    assert [entry for entry, _info in head] == full[: len(head)]
    assert len(head) <= max_entries


def test_a_head_that_cannot_stand_for_the_start_is_refused(tmp_path: Path) -> None:
    assert index_head(tmp_path) is None  # no index
    (tmp_path / INDEX_FILE).write_text("- [A](projects/a.md) — " + "x" * 100 + "\n")
    assert index_head(tmp_path, max_bytes=50) is None  # the first line alone is longer than the head
    front = "---\n" + "".join(f"- [T{i}](projects/t{i}.md) — in front matter\n" for i in range(20))
    (tmp_path / INDEX_FILE).write_text(front + "---\n- [A](projects/a.md) — after\n")
    assert index_head(tmp_path, max_bytes=200) is None  # front matter not closed within the head
    ruled = "---\n----------\n" + front[4:]  # a line of dashes inside it does not close it (found in review)
    (tmp_path / INDEX_FILE).write_text(ruled + "---\n- [A](projects/a.md) — after\n")
    assert index_head(tmp_path, max_bytes=200) is None
    head = index_head(tmp_path)
    assert head is not None and [e.route for e, _ in head] == ["projects/a.md"]


def test_the_head_reads_only_its_bytes(tmp_path: Path) -> None:
    lines = [f"- [N{i}](notes/n{i}.md) — number {i}\n" for i in range(1000)]
    (tmp_path / INDEX_FILE).write_text("".join(lines))
    head = index_head(tmp_path, max_bytes=1000, max_entries=500)
    assert head is not None
    assert 0 < len(head) < 40  # only whole lines of the first 1000 bytes
    assert [e.line_no for e, _ in head] == list(range(len(head)))


def _memory(tmp_path: Path) -> Path:
    root = tmp_path / "m"
    for rel in ("projects/a.md", "projects/deep/b.md", "notes/c.md", "_core/p.md", "projects/.hidden/h.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n")
    (root / "projects/plain.txt").write_text("not markdown\n")
    (root / "projects/folder.md").mkdir()
    (root / "projects/link.md").symlink_to(root / "projects/a.md")
    (root / "projects/linked").symlink_to(root / "projects/deep")
    (tmp_path / "outside.md").write_text("# outside\n")
    return root


ROUTES = [
    "projects/a.md",
    "projects/deep/b.md",
    "notes/c.md",
    "notes/missing.md",
    "_core/p.md",
    "projects/.hidden/h.md",
    "projects/plain.txt",
    "projects/folder.md",
    "projects/link.md",
    "projects/linked/b.md",
    "projects/../../outside.md",
    "projects/a.md/x.md",
    "projects//a.md",
    "projects/a\x00.md",
    "a.md",
]


@pytest.mark.rule("PM-CORE-5")
def test_a_route_is_an_active_file_exactly_when_the_scan_lists_it(tmp_path: Path) -> None:
    root = _memory(tmp_path)
    listed = {f.path: f for f in tree.scan(root, deep=False).active}
    for route in ROUTES:
        info = active_file_info(root, route)
        if route in listed:
            f = listed[route]
            assert info == FileInfo(route, f.size, f.mtime_ns), route
        else:
            assert info is None, route
    assert set(listed) == {"projects/a.md", "projects/deep/b.md", "notes/c.md"}

