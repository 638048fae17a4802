"""PM-AGENT-3: every path an action creates is named in its preview (the tool's own `.pmem/` ones included),
and a read-only command changes nothing under the root, not even in `.pmem/` (its caches live elsewhere)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core import cache, journal, meta_dir
from pmem_tui.core import lifecycle as lc
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import StalePlan
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.plan import Plan
from tests.conftest import all_paths as paths
from tests.conftest import stock, write
from tests.conftest import tree_state as state

# What an action makes of `.pmem/`, in order (the history store before the journal: its first record comes
# before the action's journal).
OWN = (".pmem", ".pmem/.gitignore", ".pmem/lock", ".pmem/history", ".pmem/journal")
HISTORY = ".pmem/history"

def named(plan: Plan) -> set[str]:
    """The paths a plan's preview names: created folders and files, the tool's own, move destinations and
    diffed files; for doctor also every path its notes name (they describe each step it finishes)."""
    pv = plan.preview
    out = set(pv.creates) | set(pv.meta_creates) | {dst for _, dst in pv.moves} | {d.path for d in pv.diffs}
    if plan.action == "doctor":
        out |= {token for note in pv.notes for token in note.split()}
    return out


def created_paths(before: set[str], after: set[str]) -> set[str]:
    """What an action made: the history store counts as one path (what it holds is its own, as in git)."""
    return {p for p in after - before if not p.startswith(HISTORY + "/")}


# -- a memory with something for every action --------------------------------------------------------------


def _unupgraded(root: Path) -> Path:
    shutil.rmtree(root / "_archive")
    return root


def _interrupted(root: Path) -> Path:
    """An archive that died after its journal was written, at its first move (doctor finishes it)."""

    def die(name: str, rel: str) -> None:
        if name.startswith("move") or (name == "link" and not rel.startswith(".pmem/")):
            raise HardStop

    with pytest.raises(HardStop):
        apply(lc.plan_archive(root, "projects/alpha.md", "shipped"), root, hook=die)
    assert (root / journal.INTENT).exists()
    return root


def _temp_file(root: Path) -> Path:
    write(root, "notes/.pmem-tmp-standup.md-0a1b2c3d", "half a write")
    return root


Setup = Callable[[Path], Path]
Planner = Callable[[Path], Plan]
ACTIONS: dict[str, tuple[Setup, Planner]] = {
    "save-first": (lambda r: r.parent / "unborn", lambda r: lc.plan_save(r, "notes/first.md", b"# First\n")),
    "save-new": (stock, lambda r: lc.plan_save(r, "notes/deep/er/new.md", b"# New\n\n## Summary\n- a\n")),
    "save-update": (stock, lambda r: lc.plan_save(r, "notes/standup.md", b"# Standup\n\nMore.\n")),
    "archive": (stock, lambda r: lc.plan_archive(r, "notes/日本語 メモ.md", "read")),
    "delete": (stock, lambda r: lc.plan_delete(r, "projects/old.md")),
    "recover": (stock, lambda r: lc.plan_recover(r, "projects/gone.md")),
    "purge": (stock, lc.plan_purge),
    "upgrade": (_unupgraded, lc.plan_upgrade),
    "doctor-interrupted": (_interrupted, plan_doctor),
    "doctor-temp-file": (_temp_file, plan_doctor),
}


def _used(root: Path) -> None:
    """The tool's folder as an earlier action leaves it (lock, history, journal, .gitignore)."""
    if root.exists():
        apply(lc.plan_save(root, "notes/earlier.md", b"# Earlier\n"), root)
    else:  # an unborn root: what an interrupted first save leaves
        (root / journal.JOURNAL_DIR).mkdir(parents=True)
        (root / journal.LOCK_FILE).touch()
        (root / meta_dir.HISTORY_DIR).mkdir()
        (root / meta_dir.GITIGNORE).write_bytes(meta_dir.GITIGNORE_BYTES)
    assert {rel for rel in OWN if (root / rel).exists()} == set(OWN)


@pytest.mark.rule("PM-AGENT-3")
@pytest.mark.parametrize("own", ["no-pmem-yet", "pmem-there"])
@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_every_path_an_action_creates_is_named_in_its_preview(memory: Path, action: str, own: str) -> None:
    setup, planner = ACTIONS[action]
    if own == "pmem-there" and action != "save-first":
        _used(memory)
    root = setup(memory)
    if own == "pmem-there" and action == "save-first":
        _used(root)
    before = paths(root) if root.exists() else set()
    plan = planner(root)
    assert plan.ops, action
    assert (paths(root) if root.exists() else set()) == before  # planning creates nothing
    apply(plan, root)
    after = paths(root)
    created = created_paths(before, after)
    assert created <= named(plan), f"{action}: created but not named: {sorted(created - named(plan))}"
    # The preview names exactly the tool's paths that were missing, and each of them is there afterwards.
    wanted = OWN[:3] if plan.action == "doctor" else OWN
    assert plan.preview.meta_creates == tuple(rel for rel in wanted if rel not in before)
    assert set(plan.preview.meta_creates) <= after


@pytest.mark.rule("PM-AGENT-3")
def test_the_cli_preview_lists_the_tool_s_own_paths(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(memory / "_archive/_trash")
    assert main(["--root", str(memory), "upgrade"]) == 0
    out = capsys.readouterr().out
    assert [rel for rel in OWN if f"  create  {rel}  " in out] == list(OWN)
    assert not (memory / ".pmem").exists()  # a preview only


@pytest.mark.rule("PM-AGENT-3")
def test_a_plan_whose_preview_missed_a_path_of_pmem_is_refused(memory: Path) -> None:
    _used(memory)
    plan = lc.plan_archive(memory, "projects/alpha.md", "shipped")
    assert plan.preview.meta_creates == ()
    (memory / meta_dir.GITIGNORE).unlink()  # gone since the preview: applying would make an unnamed path
    before = state(memory)
    with pytest.raises(StalePlan, match=r"\.pmem/\.gitignore"):
        apply(plan, memory)
    assert state(memory) == before


@pytest.mark.rule("PM-AGENT-3")
def test_git_ignores_the_tool_s_folder(memory: Path) -> None:
    git = shutil.which("git")
    assert git is not None
    subprocess.run([git, "init", "-q", str(memory)], check=True)
    apply(lc.plan_archive(memory, "projects/alpha.md", "shipped"), memory)
    listed = subprocess.run(
        [git, "-C", str(memory), "status", "--porcelain", "--untracked-files=all"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "_archive/projects/alpha.md" in listed
    assert ".pmem" not in listed
    assert (memory / meta_dir.GITIGNORE).read_bytes() == meta_dir.GITIGNORE_BYTES


@pytest.mark.rule("PM-AGENT-3")
def test_an_edited_gitignore_is_kept(memory: Path) -> None:
    write(memory, meta_dir.GITIGNORE, "# mine\n*\n!lock\n")
    plan = lc.plan_archive(memory, "projects/alpha.md", "shipped")
    assert meta_dir.GITIGNORE not in plan.preview.meta_creates
    apply(plan, memory)
    assert (memory / meta_dir.GITIGNORE).read_bytes() == b"# mine\n*\n!lock\n"


# -- read-only commands --------------------------------------------------------------------------------------

READS = {
    "status": ["status"],
    "status-json": ["status", "--json"],
    "health": ["health"],
    "health-json": ["health", "--json"],
}


@pytest.mark.rule("PM-AGENT-3")
@pytest.mark.parametrize("own", ["no-pmem", "pmem-there", "unfinished"])
@pytest.mark.parametrize("command", sorted(READS))
def test_a_read_only_command_changes_nothing_under_the_root(
    memory: Path,
    own: str,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Out of the racy window, so the status cache is stored, then served: both paths run.
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)
    stock(memory)
    if own == "pmem-there":
        _used(memory)
    elif own == "unfinished":
        _interrupted(memory)
    before = state(memory)
    for _ in range(3):  # cold, stored, served from the cache
        main(["--root", str(memory), *READS[command]])
    capsys.readouterr()
    assert state(memory) == before


@pytest.mark.rule("PM-AGENT-3")
def test_the_loader_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    write(project, ".claude/memory/permanent_memory.md", "# Permanent memory\n\n## Epic: A-1 — a\nText.\n")
    before = state(project)
    for argv in (["loader", "--project", str(project)], ["loader", "--project", str(project), "--json"]):
        assert main(argv) == 0
    capsys.readouterr()
    assert state(project) == before
