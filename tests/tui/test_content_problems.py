"""The header's problem count from the reads (`tui/problems.py`): what a patch's read may add, and what a
redraw of the header costs (it runs on every external save)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

from pmem_tui.core import tree
from pmem_tui.core.model import Problem, Snapshot
from pmem_tui.tui.problems import ContentProblems


class Unlisted(tuple):  # type: ignore[type-arg]
    """Active files that must not be listed (a redraw of the header with no read problem)."""

    def __iter__(self) -> Iterator[object]:
        raise AssertionError("the active files were listed")


def snapshot(root: Path) -> Snapshot:
    return tree.scan(root, deep=False)


def test_over_the_limit_a_changed_files_read_stays_out_of_the_count(demo_root: Path) -> None:
    snap = snapshot(demo_root)
    path = snap.active[0].path
    content = ContentProblems()
    assert content.merge(content.start(full=True), None, full=True)  # too many files to read here
    bad = (Problem("invalid-summary", path, "no summary"),)
    assert not content.merge(content.start(full=False), {path: bad}, full=False)
    assert content.problems(snap) == snap.problems
    assert "not read here" in content.note()


def test_a_patch_adds_and_removes_a_files_read_problems(demo_root: Path) -> None:
    snap = snapshot(demo_root)
    a, b = snap.active[0].path, snap.active[1].path
    content = ContentProblems()
    assert content.merge(content.start(full=True), {a: (), b: ()}, full=True)
    assert content.problems(snap) == snap.problems
    bad = (Problem("invalid-summary", b, "no summary"),)
    assert content.merge(content.start(full=False), {b: bad}, full=False)
    assert content.problems(snap) == snap.problems + bad
    assert content.merge(content.start(full=False), {b: ()}, full=False)  # fixed on disk
    assert content.problems(snap) == snap.problems


def test_a_redraw_without_read_problems_does_not_list_the_active_files(demo_root: Path) -> None:
    """At 100,000 files listing them cost ~22 ms per redraw of the header, twice per external save."""
    snap = snapshot(demo_root)
    content = ContentProblems()
    assert content.merge(content.start(full=True), {f.path: () for f in snap.active}, full=True)
    unlisted = dataclasses.replace(snap, active=Unlisted(snap.active))
    assert content.problems(unlisted) == snap.problems
    gone = (Problem("invalid-summary", "gone.md", "no summary"),)
    assert content.merge(content.start(full=False), {"gone.md": gone}, full=False)
    assert content.problems(snap) == snap.problems  # a file no longer active: its problems do not count
