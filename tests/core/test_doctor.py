"""Doctor: roll an interrupted action forward or back; repair leftovers."""

from __future__ import annotations

import datetime as dt
import errno
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmem_tui import cli
from pmem_tui.core import journal, records, settled, tree
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import DiskError, Refused, StalePlan, UnfinishedAction
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.lifecycle import plan_archive, plan_delete
from tests.conftest import tree_bytes, write


def _crash_at(k: int):  # type: ignore[no-untyped-def]
    count = 0

    def hook(name: str, rel: str) -> None:
        nonlocal count
        count += 1
        if count == k:
            raise HardStop

    return hook


def _reset(root: Path, files: dict[str, bytes]) -> None:
    shutil.rmtree(root)
    for rel, data in files.items():
        write(root, rel, data)
    (root / "_archive/_trash").mkdir(parents=True, exist_ok=True)


@pytest.mark.rule("PM-ARC-4")
def test_archive_crash_at_every_step_then_doctor(memory: Path) -> None:
    before = tree_bytes(memory)
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    after = tree_bytes(memory)
    k = 0
    for k in _archive_crashes(memory, before):
        apply(plan_doctor(memory), memory)
        assert tree_bytes(memory) in (before, after), f"crash at step {k}"
        assert not (memory / journal.INTENT).exists()
    assert k > 10  # the crash reached every boundary of the action


def _archive_crashes(memory: Path, before: dict[str, bytes]) -> Iterator[int]:
    """Archive projects/alpha.md from `before`, dying at its first, second... system call: yields each k
    with the memory as the crash left it, until the action runs to its end."""
    k = 1
    while True:
        _reset(memory, before)
        try:
            apply(plan_archive(memory, "projects/alpha.md", "x"), memory, hook=_crash_at(k))
        except HardStop:
            yield k
            k += 1
            continue
        return


def test_doctor_rebuilds_a_missing_trash_record(memory: Path, today: dt.date) -> None:
    write(memory, "_archive/_trash/notes/lost.md", "# Lost\n")
    plan = plan_doctor(memory)
    assert any("notes/lost.md" in n for n in plan.preview.notes)
    # The preview shows the record it writes, as a diff, not only a note (found in trial).
    (diff,) = plan.preview.diffs
    assert diff.path == "_archive/_index.md" and "+## notes/lost.md" in diff.unified()
    apply(plan, memory)
    rec = records.parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))[-1]
    assert rec.path == "notes/lost.md" and rec.deadline == today + dt.timedelta(days=30)
    assert (memory / "_archive/_trash/notes/lost.md").exists()  # never purged
    assert plan_doctor(memory).is_empty


def test_a_file_dropped_in_the_trash_outside_any_memory_place_gets_no_record(memory: Path) -> None:
    """Found in trial: `_archive/_trash/handdrop.md`, dropped there by hand, got a record saying it was
    recoverable for 30 days, and every recovery was then refused ("memory files live in projects/ or
    notes/"). Doctor leaves it to the person, and `status` says so instead of "`doctor` rebuilds it"."""
    write(memory, "_archive/_trash/handdrop.md", "# Dropped by hand\n")
    archive_before = (memory / "_archive/_index.md").read_bytes()
    said = {p.path: p.detail for p in tree.scan(memory).problems if p.kind == "no-record"}
    assert said["handdrop.md"].endswith(
        "has no deletion record; memory files live in projects/ or notes/, such as projects/old.md, so move "
        "it by hand"
    )
    plan = plan_doctor(memory)
    assert plan.is_empty
    assert [n for n in plan.preview.notes if "handdrop.md" in n] == [
        "_archive/_trash/handdrop.md has no deletion record, and memory files live in projects/ or notes/, "
        "such as projects/old.md: doctor leaves it to you."
    ]
    apply(plan, memory)
    assert (memory / "_archive/_index.md").read_bytes() == archive_before


def test_journal_leftovers_of_a_finished_action_are_not_called_never_started(memory: Path) -> None:
    """Found in trial (kill -9 during `archive --yes`): an action dies after removing its intent (its commit
    point is passed, the file archived) but before its saved bytes go; doctor said of each "its action never
    started", of an archive that had finished."""
    before = tree_bytes(memory)
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    after = tree_bytes(memory)
    seen = 0
    for _k in _archive_crashes(memory, before):
        if (memory / journal.INTENT).exists() or not journal.leftovers(memory):
            continue
        if tree_bytes(memory) != after:
            continue  # died before its intent was written: it did not start
        notes = plan_doctor(memory).preview.notes
        assert notes and not any("(its action never started)" in n for n in notes), notes
        assert all("finished" in n for n in notes if n.startswith("Remove the leftover")), notes
        seen += 1
    assert seen  # the crash reached the journal's clearing


def test_doctor_removes_temp_files(memory: Path) -> None:
    write(memory, "notes/.pmem-tmp-x.md-abcd", "partial")
    apply(plan_doctor(memory), memory)
    assert not (memory / "notes/.pmem-tmp-x.md-abcd").exists()


@pytest.mark.rule("PM-DEL-2")
def test_doctor_finishes_half_done_move(memory: Path) -> None:
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    plan = plan_delete(memory, "projects/alpha.md")

    def hook(name: str, rel: str) -> None:
        if name == "unlink" and rel == "_archive/projects/alpha.md":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)
    assert (memory / "_archive/projects/alpha.md").exists()
    assert (memory / "_archive/_trash/projects/alpha.md").exists()
    apply(plan_doctor(memory), memory)
    assert not (memory / "_archive/projects/alpha.md").exists()
    assert (memory / "_archive/_trash/projects/alpha.md").exists()


# -- what status and the CLI say ----------------------------------------------------------------------------


def _interrupt_archive(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")

    def hook(name: str, rel: str) -> None:
        if name == "unlink" and rel == "projects/alpha.md":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)


def test_status_reports_the_unfinished_action_and_points_to_doctor(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _interrupt_archive(memory)
    assert cli.main(["--root", str(memory), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unfinished_action"] == "Archive projects/alpha.md"
    assert any(p["kind"] == "unfinished" and "doctor" in p["detail"] for p in data["problems"])
    assert cli.main(["--root", str(memory), "status"]) == 0
    out = capsys.readouterr().out
    assert "Unfinished action: 'Archive projects/alpha.md' was interrupted; run `pmem-tui doctor`." in out


def test_the_scan_reads_the_memory_and_the_layer_above_asks_the_journal(memory: Path) -> None:
    """The store never reaches the journal (import-linter's layers): `settled` attaches what it says."""
    _interrupt_archive(memory)
    bare = tree.scan(memory)
    assert bare.unfinished_action is None
    assert not [p for p in bare.problems if p.kind == "unfinished"]
    snap = settled.scan_once(memory)
    assert snap.unfinished_action == "Archive projects/alpha.md"
    assert snap.problems[:-1] == bare.problems
    assert snap.problems[-1].kind == "unfinished" and "run `pmem-tui doctor`" in snap.problems[-1].detail
    assert settled.scan(memory)[0] == snap


def test_doctor_without_yes_shows_its_plan_and_changes_nothing(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _interrupt_archive(memory)
    before = tree_bytes(memory)
    journal_before = sorted(p.name for p in (memory / journal.JOURNAL_DIR).iterdir())
    assert cli.main(["--root", str(memory), "doctor"]) == 0
    out = capsys.readouterr().out
    assert "Doctor: finish the interrupted action 'Archive projects/alpha.md'" in out
    assert "remove projects/alpha.md" in out  # the half-done move: the source name goes
    assert "write _index.md" in out and "write _archive/_index.md" in out
    assert "Preview only: nothing was changed" in out
    assert tree_bytes(memory) == before
    assert sorted(p.name for p in (memory / journal.JOURNAL_DIR).iterdir()) == journal_before
    assert cli.main(["--root", str(memory), "doctor", "--yes"]) == 0
    assert "is finished; the memory is consistent again" in capsys.readouterr().out
    assert not (memory / "projects/alpha.md").exists() and (memory / "_archive/projects/alpha.md").exists()
    assert cli.main(["--root", str(memory), "doctor"]) == 0
    assert "The memory's files need no repair." in capsys.readouterr().out


def test_other_actions_are_refused_until_doctor_ran(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _interrupt_archive(memory)
    assert cli.main(["--root", str(memory), "delete", "projects/alpha.md", "--yes"]) == 1
    err = capsys.readouterr().err
    assert "run `pmem-tui doctor`" in err and err.count("\n") == 1


# -- how doctor decides ------------------------------------------------------------------------------


def test_an_action_that_changed_nothing_yet_is_forgotten(memory: Path) -> None:
    """Died right after its journal was written: doctor undoes (forgets) it rather than run it later."""
    before = tree_bytes(memory)
    plan = plan_archive(memory, "projects/alpha.md", "x")

    def hook(name: str, rel: str) -> None:
        if name == "mkdir" and rel == "_archive/projects":
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)
    assert (memory / journal.INTENT).exists()
    doctor_plan = plan_doctor(memory)
    assert doctor_plan.title.startswith("Doctor: undo")
    apply(doctor_plan, memory)
    assert tree_bytes(memory) == before and not (memory / "_archive/projects").exists()


def test_a_conflict_is_refused_with_one_sentence_and_nothing_changes(memory: Path) -> None:
    _interrupt_archive(memory)
    (memory / "_index.md").write_bytes(b"# Rewritten by hand\n")  # neither the old nor the new index
    (memory / "_archive/projects/alpha.md").unlink()
    write(memory, "_archive/projects/alpha.md", "a different file")  # the move's two names now differ
    before = tree_bytes(memory)
    with pytest.raises(Refused, match="cannot be finished or undone safely") as info:
        plan_doctor(memory)
    assert "\n" not in str(info.value)
    assert "write _index.md changed since; put it back as it was, or " in str(info.value)  # one conflict
    assert tree_bytes(memory) == before and (memory / journal.INTENT).exists()


def test_doctor_applies_only_the_repairs_it_previewed(memory: Path) -> None:
    _interrupt_archive(memory)
    plan = plan_doctor(memory)
    write(memory, "notes/.pmem-tmp-new-0000", "a temp file appeared since the preview")
    with pytest.raises(StalePlan, match="changed since the doctor's preview"):
        apply(plan, memory)
    assert (memory / journal.INTENT).exists()


def test_an_unreadable_journal_is_reported_never_guessed(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(memory, journal.INTENT, b"{not json")
    with pytest.raises(Refused, match="unreadable"):
        plan_doctor(memory)
    assert cli.main(["--root", str(memory), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unfinished_action"] == "an action whose journal is unreadable"


def test_a_failed_undo_leaves_a_journal_that_doctor_resolves(memory: Path) -> None:
    """A disk that keeps failing: the step fails, the immediate undo fails too; the journal stays, every later
    action is refused, and doctor (once the disk is healthy) restores a consistent memory."""
    before = tree_bytes(memory)
    plan = plan_archive(memory, "projects/alpha.md", "x")
    failing = {"on": False}

    def hook(name: str, rel: str) -> None:
        if name == "replace" and rel == "_index.md":
            failing["on"] = True
        if failing["on"]:
            raise OSError(errno.EIO, "injected", rel)

    with pytest.raises(DiskError, match=r"stopped part-way .* run `pmem-tui doctor`"):
        apply(plan, memory, hook=hook)
    assert (memory / journal.INTENT).exists()
    with pytest.raises(UnfinishedAction):
        apply(plan_archive(memory, "notes/standup.md", "y"), memory)
    apply(plan_doctor(memory), memory)
    after = tree_bytes(memory)
    assert after != before and after["_archive/projects/alpha.md"] == before["projects/alpha.md"]
    assert "projects/alpha.md" not in after and plan_doctor(memory).is_empty


def test_a_file_under_two_names_keeps_the_name_its_record_points_to(memory: Path) -> None:
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    (memory / "projects/alpha.md").hardlink_to(memory / "_archive/projects/alpha.md")
    apply(plan_doctor(memory), memory)
    assert not (memory / "projects/alpha.md").exists() and (memory / "_archive/projects/alpha.md").exists()


def test_separate_copies_are_never_removed(memory: Path) -> None:
    apply(plan_archive(memory, "projects/alpha.md", "x"), memory)
    (memory / "projects/alpha.md").write_bytes((memory / "_archive/projects/alpha.md").read_bytes())
    plan = plan_doctor(memory)
    assert plan.is_empty and any("separate copies" in n for n in plan.preview.notes)


# -- an agent edits a control file between the crash and doctor ---------------------------------------


def test_merge3_keeps_both_sides_and_refuses_real_conflicts() -> None:
    from pmem_tui.core.merge3 import merge3

    base = b"a\nb\nc\n"
    assert merge3(base, b"a\nb\nc\nagent\n", b"a\nc\n") == b"a\nc\nagent\n"  # a deletion + an append
    assert merge3(base, b"a\nc\nagent\n", b"a\nc\n") == b"a\nc\nagent\n"  # ours already holds theirs
    assert merge3(base, b"a\nb\nc\nagent\n", b"a\nb\nc\nmine\n") == b"a\nb\nc\nagent\nmine\n"
    assert merge3(base, b"a\nb\nc\nmine\nagent\n", b"a\nb\nc\nmine\n") == b"a\nb\nc\nmine\nagent\n"
    assert merge3(base, b"a\nX\nc\n", b"a\nY\nc\n") is None  # both changed line b, differently
    assert merge3(base, b"a\nc\n", b"a\nc\n") == b"a\nc\n"  # b is gone from ours already
    # Ours edited b, theirs removes it: a clash, not "already removed" (found in review: the edit was kept
    # and the removal dropped without a word).
    assert merge3(base, b"a\nX\nc\n", b"a\nc\n") is None
    assert merge3(b"", b"x\n", b"y\n") == b"x\ny\n"


@pytest.mark.parametrize("crash_before", ["replace _index.md", "unlink intent"])
def test_an_agent_line_added_after_a_crash_is_kept_by_doctor(memory: Path, crash_before: str) -> None:
    """The crash leaves `_index.md` old (before its replace) or new (just before the journal is cleared); an
    agent then appends a line. Doctor finishes the archive and keeps the agent's line."""
    plan = plan_archive(memory, "projects/alpha.md", "x")
    name, rel = crash_before.split(" ")
    rel = journal.INTENT if rel == "intent" else rel

    def hook(step: str, path: str) -> None:
        if step == name and path == rel:
            raise HardStop

    with pytest.raises(HardStop):
        apply(plan, memory, hook=hook)
    with open(memory / "_index.md", "ab") as f:
        f.write(b"- notes/agent.md - an agent wrote this\n")
    doctor_plan = plan_doctor(memory)
    if name == "replace":  # its write is still to run: the preview shows it as a diff
        shown = {d.path: d.unified() for d in doctor_plan.preview.diffs}
        assert "-- [Alpha](projects/alpha.md) — the importer project" in shown["_index.md"]
    apply(doctor_plan, memory)
    text = (memory / "_index.md").read_text(encoding="utf-8")
    assert "projects/alpha.md" not in text
    assert text.endswith("- notes/agent.md - an agent wrote this\n") and text.count("agent.md") == 1
    assert "- notes/standup.md — daily standup notes\n" in text
    assert (memory / "_archive/projects/alpha.md").exists() and plan_doctor(memory).is_empty
