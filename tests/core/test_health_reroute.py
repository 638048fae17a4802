"""A dead route and an orphan that are one file (a route with backslashes, a file an agent moved): one
health proposal on the file, fixed by rewriting that line's route, the rest of the line kept byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.fix_planner import plan_fix
from pmem_tui.core.health import HealthReport, Proposal, check_health
from pmem_tui.core.index_line import reroute_line
from pmem_tui.core.tree import scan
from tests.conftest import write
from tests.core.test_health import prose

NOTE = "# A note\n\n## Summary\n- one\n- two\n- three\n"


def memory(root: Path, index: str | bytes, files: tuple[str, ...]) -> Path:
    """A memory with the lifecycle structure, `_index.md` holding `index` and each of `files` a note."""
    for folder in ("_core", "notes", "projects", "_archive/_trash"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    write(root, "_archive/_index.md", "# Archive index\n")
    write(root, "_index.md", index)
    for n, rel in enumerate(files):
        write(root, rel, NOTE + "\n" + prose(n) + "\n")  # not duplicates
    return root


def proposals(root: Path) -> dict[str, Proposal]:
    report: HealthReport = check_health(root, use_cache=False)
    return {p.path: p for p in report.proposals}


BACK = "- [Back](notes\\back.md) — the agent's summary"
MOVED = "- [Plan A](notes/a.md) — what the agent wrote about a"


@pytest.mark.rule("PM-HEALTH-4", "PM-CORE-5")
@pytest.mark.parametrize(
    ("line", "files", "old", "new"),
    [
        (BACK, ("notes/back.md",), "notes\\back.md", "notes/back.md"),
        (MOVED, ("notes/old/a.md",), "notes/a.md", "notes/old/a.md"),
    ],
)
def test_one_proposal_on_the_file_rewrites_its_line_s_route(
    tmp_path: Path, line: str, files: tuple[str, ...], old: str, new: str
) -> None:
    root = memory(tmp_path, f"# Index\n\n{line}\n", files)
    props = proposals(root)
    assert list(props) == [new]  # not a line to drop and another to add
    p = props[new]
    assert (p.fix_action, p.fix, p.category) == ("reroute", old, "keep")
    assert p.kinds == ("orphan", "dead-route")
    assert p.signals[1].other == old and old in p.reason and "rewrite that route" in p.reason


@pytest.mark.rule("PM-HEALTH-5", "PM-SAFE-6", "PM-AGENT-2", "PM-CORE-5")
@pytest.mark.parametrize(
    ("head", "eol"),
    [("", "\n"), ("\ufeff", "\r\n"), ("", "\r\n")],
)
def test_the_fix_rewrites_only_the_route_through_its_preview(tmp_path: Path, head: str, eol: str) -> None:
    index = head + eol.join(["# Index", "", MOVED, "- notes/b.md — stays", "tail without ending"])
    root = memory(tmp_path, index.encode("utf-8"), ("notes/old/a.md", "notes/b.md"))
    before = (root / "_index.md").read_bytes()
    p = proposals(root)["notes/old/a.md"]
    plan = plan_fix(root, p)
    new_line = "- [Plan A](notes/old/a.md) — what the agent wrote about a"
    assert plan.preview.index_removed == (MOVED,) and plan.preview.index_added == (new_line,)
    assert set(plan.reads) == {"_index.md", "notes/a.md", "notes/old/a.md"}
    assert (root / "_index.md").read_bytes() == before  # planning changes nothing
    apply(plan, root)
    assert (root / "_index.md").read_bytes() == before.replace(MOVED.encode(), new_line.encode())
    assert not {(q.kind, q.path) for q in scan(root).problems} & {
        ("orphan", "notes/old/a.md"),
        ("dead-route", "notes/a.md"),
    }
    assert "notes/old/a.md" not in proposals(root)


def test_a_backslash_route_is_fixed_in_place(tmp_path: Path) -> None:
    root = memory(tmp_path, f"# Index\n\n{BACK}\n", ("notes/back.md",))
    apply(plan_fix(root, proposals(root)["notes/back.md"]), root)
    assert (root / "_index.md").read_text(encoding="utf-8") == (
        "# Index\n\n- [Back](notes/back.md) — the agent's summary\n"
    )


@pytest.mark.parametrize(
    ("line", "old", "new", "want"),
    [
        # A link text that is the route follows it; a summary naming it is the agent's words, kept.
        (
            "- [notes/a.md](notes/a.md) — moved from notes/a.md",
            "notes/a.md",
            "notes/old/a.md",
            "- [notes/old/a.md](notes/old/a.md) — moved from notes/a.md",
        ),
        ("- ./notes/a.md: x", "notes/a.md", "notes/old/a.md", "- ./notes/old/a.md: x"),
        ("  * `notes\\a.md` | s ", "notes\\a.md", "notes/a.md", "  * `notes/a.md` | s "),
        (
            '- [A](notes/a.md "notes/a.md") — s',
            "notes/a.md",
            "notes/old/a.md",
            '- [A](notes/old/a.md "notes/a.md") — s',
        ),
    ],
)
def test_reroute_line_keeps_every_other_byte(line: str, old: str, new: str, want: str) -> None:
    assert reroute_line(line, old, new) == want


@pytest.mark.parametrize(
    ("line", "old", "why"),
    [
        ("- [A](notes/my%20a.md) — s", "notes/my a.md", "another way"),  # the route is spelled escaped
        ("- [A](notes/b.md) — s", "notes/a.md", "does not name"),
    ],
)
def test_reroute_line_refuses_what_it_cannot_find(line: str, old: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        reroute_line(line, old, "notes/old/a.md")


def reroutes(root: Path) -> dict[str, str | None]:
    """Each proposal's path -> its dead route to rewrite, for the proposals with a reroute fix."""
    return {p.path: p.fix for p in proposals(root).values() if p.fix_action == "reroute"}


@pytest.mark.rule("PM-HEALTH-4")
@pytest.mark.parametrize(
    ("index", "files"),
    [
        # Two unlisted files of that name: which one was meant is not known.
        (MOVED, ("notes/old/a.md", "projects/a.md")),
        # Two dead routes of that name for one file.
        (MOVED + "\n- [Other A](projects/a.md) — another", ("notes/old/a.md",)),
        # The dead route listed twice: one rewrite would not do.
        (MOVED + "\n" + MOVED, ("notes/old/a.md",)),
        # A line without a list bullet names the file already.
        (MOVED + "\nnotes/old/a.md — not a list item", ("notes/old/a.md",)),
    ],
)
def test_no_reroute_when_the_file_meant_is_not_certain(
    tmp_path: Path, index: str, files: tuple[str, ...]
) -> None:
    # Beside a certain one (a backslash route), which alone is rerouted.
    root = memory(tmp_path, f"# Index\n\n{BACK}\n{index}\n", ("notes/back.md", *files))
    assert reroutes(root) == {"notes/back.md": "notes\\back.md"}
    assert "notes/a.md" in proposals(root)  # the dead route is still proposed on its own


def test_no_reroute_when_something_is_at_the_route(tmp_path: Path) -> None:
    root = memory(tmp_path, f"# Index\n\n{BACK}\n{MOVED}\n", ("notes/back.md", "notes/old/a.md"))
    assert reroutes(root) == {"notes/back.md": "notes\\back.md", "notes/old/a.md": "notes/a.md"}
    (root / "notes/a.md").mkdir()  # a folder where the file was: not a move
    assert reroutes(root) == {"notes/back.md": "notes\\back.md"}
    assert proposals(root)["notes/old/a.md"].fix_action == "add"


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-1")
def test_the_fix_is_checked_again_when_planned(tmp_path: Path) -> None:
    root = memory(tmp_path, f"# Index\n\n{MOVED}\n", ("notes/old/a.md",))
    p = proposals(root)["notes/old/a.md"]
    write(root, "notes/a.md", NOTE)  # the file came back
    with pytest.raises(Refused, match="on the disk again"):
        plan_fix(root, p)
    (root / "notes/a.md").unlink()
    write(root, "_index.md", f"# Index\n\n{MOVED}\n- notes/old/a.md — listed by an agent since\n")
    with pytest.raises(Refused, match=r"already in _index\.md"):
        plan_fix(root, p)
    write(root, "_index.md", f"# Index\n\n{MOVED}\n{MOVED}\n")
    with pytest.raises(Refused, match="2 times"):
        plan_fix(root, p)
    write(root, "_index.md", "# Index\n")
    with pytest.raises(Refused, match="no longer lists"):
        plan_fix(root, p)
    write(root, "_index.md", "# Index\n\n- [Plan A](notes/%61.md) — escaped\n")
    with pytest.raises(Refused, match="by hand"):
        plan_fix(root, p)
    write(root, "_index.md", f"# Index\n\n{MOVED}\n")
    (root / "notes/old/a.md").unlink()
    with pytest.raises(Refused, match="no longer exists"):
        plan_fix(root, p)


@pytest.mark.rule("PM-HEALTH-4")
def test_a_backslash_route_to_a_file_on_disk_is_not_paired_by_name(tmp_path: Path) -> None:
    # `notes\back.md` means notes/back.md, which is there (listed too): not the one unlisted file elsewhere
    # with that name, whose reroute would point the line's title and summary at another file.
    index = f"# Index\n\n- [Back](notes/back.md) — listed\n{BACK}\n"
    root = memory(tmp_path, index, ("notes/back.md", "projects/back.md"))
    assert reroutes(root) == {}
    assert proposals(root)["projects/back.md"].fix_action == "add"


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-1")
def test_a_backslash_reroute_is_refused_once_its_slashed_path_is_on_disk(tmp_path: Path) -> None:
    root = memory(tmp_path, f"# Index\n\n{BACK}\n", ("projects/back.md",))
    p = proposals(root)["projects/back.md"]
    assert (p.fix_action, p.fix) == ("reroute", "notes\\back.md")  # the one unlisted file of that name
    write(root, "notes/back.md", NOTE)  # the file the route spells came (back) since the check
    with pytest.raises(Refused, match=r"names notes/back\.md, which is on the disk"):
        plan_fix(root, p)


@pytest.mark.rule("PM-HEALTH-4")
def test_a_dead_route_listed_twice_is_one_of_the_routes_an_orphan_could_mean(tmp_path: Path) -> None:
    # notes/a.md (listed once) and projects/a.md (listed twice) are both dead: which one notes/old/a.md
    # was is not known, so neither line is rewritten to name it.
    twice = "- [P](projects/a.md) — another"
    root = memory(
        tmp_path, f"# Index\n\n{BACK}\n{MOVED}\n{twice}\n{twice}\n", ("notes/back.md", "notes/old/a.md")
    )
    assert reroutes(root) == {"notes/back.md": "notes\\back.md"}
    assert proposals(root)["notes/old/a.md"].fix_action == "add"
