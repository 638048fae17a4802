"""Two records for one path (found in trial), and a file an agent moved by hand off its record's place.

Two records: an agent's own row or bullet beside pmem-tui's exact record, in either order, or two archive
cycles. Every action uses the newest (by its date, then the last in the file) and leaves the other, saying
so; `status` says the same before and after. A file moved by hand: recover takes the one unclaimed file with
the record's file name, naming it in the preview.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from pmem_tui.core import lifecycle, tree
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.health import check_health
from tests.conftest import command_output, tree_bytes, write

TODAY = dt.date(2026, 12, 3)
OURS = (
    "## notes/a.md\n"
    "- Original path: `notes/a.md`\n"
    "- Index line: `- notes/a.md — the line pmem-tui saved`\n"
    "- Archived: 2026-12-01\n"
    "- Reason: ours\n"
)
ROW = (
    "| File | Index line | Archived | Reason |\n"
    "|---|---|---|---|\n"
    "| notes/a.md | `- notes/a.md — the agent's line` | 2026-10-15 | the agent's |\n"
)
BULLET = (
    "- `notes/a.md` — archived 2026-10-15 — reason: the agent's — "
    "index line: `- notes/a.md — the agent's line`\n"
)
NEWER_ROW = ROW.replace("2026-10-15", "2026-12-02")


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    """The records here are dated up to TODAY: a date after the process's today is not used for choosing."""
    monkeypatch.setenv("PMEM_TUI_TODAY", TODAY.isoformat())


def _archive(memory: Path, *parts: str) -> str:
    text = "# Archive index\n\n" + "\n".join(parts)
    write(memory, "_archive/_index.md", text)
    return text


def _notes(plan: object) -> str:
    return " ".join(plan.preview.notes)  # type: ignore[attr-defined]


def _problems(memory: Path, path: str) -> dict[str, str]:
    return {p.kind: p.detail for p in tree.scan(memory, today=TODAY).problems if p.path == path}


@pytest.mark.rule("PM-REC-4", "PM-REC-5", "PM-AGENT-2")
@pytest.mark.parametrize("agents", [ROW, BULLET], ids=["table row", "bullet"])
@pytest.mark.parametrize("agent_first", [False, True], ids=["agent's last", "agent's first"])
def test_recover_uses_the_newest_of_two_records_and_leaves_the_other_saying_so(
    memory: Path, agents: str, agent_first: bool
) -> None:
    """Found in trial: with an agent's older row after pmem-tui's exact record, recover put back the
    agent's line and removed the agent's row, leaving pmem-tui's record to say an active file was archived;
    in either order the preview did not say there were two."""
    write(memory, "_archive/notes/a.md", "# A\n")
    _archive(memory, *((agents, OURS) if agent_first else (OURS, agents)))
    (item,) = tree.scan(memory, today=TODAY).archived
    assert item.record is not None and item.record.reason == "ours"  # status shows the one recover uses
    said = _problems(memory, "notes/a.md")["duplicate-record"]
    assert "recover and delete use the one archived 2026-12-01" in said
    assert "leave the other (archived 2026-10-15, line" in said
    plan = lifecycle.plan_recover(memory, "notes/a.md")
    assert plan.preview.index_added == ("- notes/a.md — the line pmem-tui saved",)
    notes = _notes(plan)
    assert "2 records name notes/a.md: using the one archived 2026-12-01" in notes
    assert "the other (archived 2026-10-15, line" in notes
    assert "stays in _archive/_index.md, saying notes/a.md is archived while it is active" in notes
    apply(plan, memory)
    left = (memory / "_archive/_index.md").read_text(encoding="utf-8")
    assert agents in left and "ours" not in left  # the agent's text is kept byte for byte
    after = _problems(memory, "notes/a.md")
    assert "notes/a.md is active, yet it says archived; remove it by hand" in after["stale-record"]


def test_two_archive_cycles_the_newer_date_wins_wherever_it_stands(memory: Path) -> None:
    """Two archive cycles, the older record re-added by hand after the newer one: the newer is used."""
    write(memory, "_archive/notes/a.md", "# A\n")
    _archive(memory, NEWER_ROW, OURS)  # the newer (2026-12-02) first
    plan = lifecycle.plan_recover(memory, "notes/a.md")
    assert plan.preview.index_added == ("- notes/a.md — the agent's line",)
    assert "using the one archived 2026-12-02" in _notes(plan)
    assert [a.record.reason for a in tree.scan(memory, today=TODAY).archived if a.record] == ["the agent's"]


@pytest.mark.rule("PM-REC-5", "PM-DEL-5", "PM-HEALTH-6")
def test_recover_from_trash_uses_the_newest_deletion_record_as_status_and_health_do(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = OURS + "- Deleted: 2026-09-01\n- Recovery deadline: 2026-10-01\n"
    newer = OURS.replace("pmem-tui saved", "kept later") + "- Deleted: 2026-11-20\n"
    write(memory, "_archive/_trash/notes/a.md", "# A\n")
    _archive(memory, newer, older)  # the newer deletion first, as agents often write them
    (item,) = tree.scan(memory, today=TODAY).trash
    assert item.deleted == dt.date(2026, 11, 20) and not item.expired
    assert (
        "recover and purge use the one deleted 2026-11-20"
        in _problems(memory, "notes/a.md")["duplicate-record"]
    )
    monkeypatch.setenv("PMEM_TUI_TODAY", "2027-01-05")  # both deadlines passed: health lists it by the newer
    (expired,) = check_health(memory, use_cache=False).expired_trash
    assert expired.deadline == dt.date(2026, 12, 20)
    monkeypatch.delenv("PMEM_TUI_TODAY")
    plan = lifecycle.plan_recover(memory, "notes/a.md")
    assert plan.preview.index_added == ("- notes/a.md — the line kept later",)
    notes = _notes(plan)
    assert "2 records name notes/a.md: using the one deleted 2026-11-20 (lines 3-8)" in notes
    assert "the other (deleted 2026-09-01, lines 10-16) stays" in notes
    apply(plan, memory)
    assert older in (memory / "_archive/_index.md").read_text(encoding="utf-8")


def test_purge_removes_the_record_it_used_and_says_the_other_stays(memory: Path) -> None:
    older = OURS + "- Deleted: 2026-09-01\n- Recovery deadline: 2026-10-01\n"
    newer = OURS.replace("Reason: ours", "Reason: newer") + "- Deleted: 2026-09-10\n"
    write(memory, "_archive/_trash/notes/a.md", "# A\n")
    text = _archive(memory, newer, older)
    plan = lifecycle.plan_purge(memory, today=TODAY)
    assert "removing the one deleted 2026-09-10" in _notes(plan)
    apply(plan, memory)
    assert (memory / "_archive/_index.md").read_text(encoding="utf-8") == text.replace(newer + "\n", "")


def test_archive_and_delete_say_an_older_record_of_the_path_stays(memory: Path) -> None:
    _archive(memory, ROW)  # left from an earlier cycle
    write(memory, "notes/a.md", "# A\n")
    plan = lifecycle.plan_archive(memory, "notes/a.md", "again", today=TODAY)
    assert "2 records name notes/a.md: recovering it will use the one archived 2026-12-03" in _notes(plan)
    apply(plan, memory)
    plan = lifecycle.plan_delete(memory, "notes/a.md", today=TODAY)
    assert "the deletion date goes to the one archived 2026-12-03" in _notes(plan)
    assert (
        "the other (archived 2026-10-15, line 5) stays in _archive/_index.md, still saying it is archived "
        "while it is in the trash" in _notes(plan)
    )


def test_a_batch_recover_and_an_undo_say_so_too(memory: Path) -> None:
    """The app's batch recover and its undo of an archive go through the same planner."""
    from pmem_tui.tui.undo import inverse

    _archive(memory, ROW)
    write(memory, "notes/a.md", "# A\n")
    index = (memory / "_index.md").read_text(encoding="utf-8")  # (without a line, both would skip the file,
    write(memory, "_index.md", index + "- notes/a.md — back\n")  # and a skipped item says nothing more)
    plan = lifecycle.plan_archive_many(memory, ["notes/a.md", "notes/standup.md"], "done", today=TODAY)
    apply(plan, memory)
    batch = lifecycle.plan_recover_many(memory, ["notes/a.md", "notes/standup.md"])
    assert set(batch.items) == {"notes/a.md", "notes/standup.md"}
    assert "2 records name notes/a.md: using the one archived 2026-12-03" in _notes(batch)
    undo = inverse(memory, plan, "Undo: Archive 2 files", "Undo").plan
    assert undo is not None and "2 records name notes/a.md: using the one archived 2026-12-03" in _notes(undo)


# -- a file moved by hand off its record's place ----------------------------------------------------------

DELETED = OURS + "- Deleted: 2026-11-20\n"


@pytest.mark.rule("PM-AGENT-1", "PM-SAFE-6", "PM-REC-3")
@pytest.mark.parametrize(
    ("record", "moved_to"),
    [
        (DELETED, "_archive/a.md"),  # a trashed file moved back into the archive
        (DELETED, "_archive/projects/a.md"),  # at the tool's place for another path
        (OURS, "_archive/_trash/old/a.md"),  # an archived file dropped into the trash
    ],
    ids=["trashed, in the archive", "trashed, at another path's place", "archived, in the trash"],
)
def test_recover_takes_the_one_file_with_the_records_name_and_names_it(
    memory: Path, record: str, moved_to: str
) -> None:
    """Found in trial: the record said notes/a.md was deleted, an agent had moved the file to
    `_archive/a.md`; recover said it was neither in the archive nor in the trash."""
    write(memory, moved_to, "# A\n")
    _archive(memory, record)
    place = "_archive/_trash/notes/a.md" if "Deleted" in record else "_archive/notes/a.md"
    stale = _problems(memory, "notes/a.md")["stale-record"]
    assert f"notes/a.md is not at {place}, where its record puts it; {moved_to} has its name" in stale
    plan = lifecycle.plan_recover(memory, "notes/a.md")
    assert plan.preview.moves == ((moved_to, "notes/a.md"),)
    assert (
        f"notes/a.md is not at {place}, where its record puts it; {moved_to} has its name and no record of "
        "its own, so it is the file recovered: cancel if it is not notes/a.md." in _notes(plan)
    )
    apply(plan, memory)
    assert (memory / "notes/a.md").read_text(encoding="utf-8") == "# A\n"
    assert (memory / "_archive/_index.md").read_text(encoding="utf-8") == "# Archive index\n"


def test_two_files_with_the_records_name_are_never_guessed(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(memory, "_archive/a.md", "# A\n")
    write(memory, "_archive/projects/a.md", "# Another A\n")
    _archive(memory, DELETED)
    before = tree_bytes(memory)
    with pytest.raises(
        Refused,
        match=re.escape("several files have its name and no record: _archive/a.md, _archive/projects/a.md"),
    ):
        lifecycle.plan_recover(memory, "notes/a.md")
    status = json.loads(command_output(capsys, "status")(memory, "--json", "--no-cache"))
    (said,) = [p["detail"] for p in status["problems"] if p["kind"] == "stale-record"]
    assert "move the right one to _archive/_trash/notes/a.md by hand first" in said
    assert tree_bytes(memory) == before


def test_a_file_two_missing_records_could_be_is_never_given_to_either(memory: Path) -> None:
    """The app's `r` on `_archive/a.md` (no record of its own) recovers the one record whose file is missing
    and has its name; with two such records (notes/a.md, projects/a.md) it is neither's."""
    write(memory, "_archive/a.md", "# A\n")
    _archive(memory, DELETED)
    assert lifecycle.recover_target(memory, "_archive/a.md") == "notes/a.md"
    _archive(memory, DELETED, DELETED.replace("notes/a.md", "projects/a.md"))
    assert lifecycle.recover_target(memory, "_archive/a.md") is None
    before = tree_bytes(memory)
    with pytest.raises(Refused, match=re.escape("but so has the file of projects/a.md, whose record finds")):
        lifecycle.plan_recover(memory, "notes/a.md")
    said = [p.detail for p in tree.scan(memory, today=TODAY).problems if p.kind == "stale-record"]
    assert all("but so has the file of" in d for d in said) and len(said) == 2
    assert tree_bytes(memory) == before
