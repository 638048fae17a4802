"""The scan's index problems (duplicate routes, dead routes, orphans), found without a table of every
route's count: the same problems, in the same order, as counting every route would give."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core import tree
from pmem_tui.core.model import Problem, Snapshot

NAMES = ["projects/a.md", "projects/b.md", "notes/c.md", "notes/d/e.md", "projects/f.md"]
KINDS = ("duplicate-route", "dead-route", "orphan")


def _counted(snap: Snapshot) -> list[Problem]:
    """The problems as the scan found them when it counted every route (`Counter`, first-seen order)."""
    found = [
        Problem("duplicate-route", route, f"listed {n} times in _index.md")
        for route, n in Counter(e.route for e in snap.index_entries).items()
        if n > 1
    ]
    on_disk = {a.path for a in snap.active}
    found += [
        Problem("orphan", a.path, "on disk but not in _index.md") for a in snap.active if a.entry is None
    ]
    found += [
        Problem("dead-route", e.route, "in _index.md but no such file")
        for e in snap.index_entries
        if e.route not in on_disk
    ]
    return found


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(NAMES), max_size=10),
    st.sets(st.sampled_from(NAMES)),
)
def test_index_problems_are_those_counting_every_route_gives(listed: list[str], on_disk: set[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "_index.md").write_text("".join(f"- {route} — s\n" for route in listed), encoding="utf-8")
        for rel in on_disk:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("# t\n", encoding="utf-8")
        snap = tree.scan(root, deep=False)
    assert [e.route for e in snap.index_entries] == listed
    assert [p for p in snap.problems if p.kind in KINDS] == _counted(snap)


def test_routes_listed_again_are_said_in_the_order_they_first_come(tmp_path: Path) -> None:
    # b first (line 0), then a; a is listed again before b is.
    lines = ["projects/b.md", "projects/a.md", "projects/a.md", "projects/b.md", "projects/a.md"]
    (tmp_path / "_index.md").write_text("".join(f"- {r}\n" for r in lines), encoding="utf-8")
    snap = tree.scan(tmp_path, deep=False)
    dups = [(p.path, p.detail) for p in snap.problems if p.kind == "duplicate-route"]
    assert dups == [
        ("projects/b.md", "listed 2 times in _index.md"),
        ("projects/a.md", "listed 3 times in _index.md"),
    ]
