"""One place for the archive-matching ideas: status, recover and doctor say the same of a record's file (its
namesake, `archive_match.Names.namesake`), and doctor lists and matches the files under `_archive/` as the
scan does (`tree.locate_archived`)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from pmem_tui.core import archive_match, lifecycle, tree
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.health import check_health
from pmem_tui.core.plan import RemoveFile
from pmem_tui.core.records import parse_records
from tests.conftest import write

TODAY = dt.date(2026, 12, 3)


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", TODAY.isoformat())


def _record(path: str, deleted: bool = False, location: str | None = None) -> str:
    out = f"## {path}\n- Original path: `{path}`\n- Archived: 2026-11-01\n- Reason: done\n"
    if deleted:
        out += "- Deleted: 2026-11-20\n"
    if location:
        out += f"- Location: `{location}`\n"
    return out + "\n"


def _archive(memory: Path, *recs: str) -> None:
    write(memory, "_archive/_index.md", "# Archive index\n\n" + "".join(recs))


# Each shape a stale record's namesake takes (a file with its name, at none of its record's places): the one
# file (taken), two files, a rival record whose file is missing too, a file other records are ambiguous about.
MOVED = "_archive/_trash/projects/a.md"  # an agent moved notes/a.md's archived file there
SHAPES: dict[str, tuple[list[str], list[str]]] = {
    "one": ([MOVED], ["notes/a.md"]),
    "two": ([MOVED, "_archive/_trash/old/a.md"], ["notes/a.md"]),
    "rival": ([MOVED], ["notes/a.md", "notes/sub/a.md"]),
    "contested": (
        ["_archive/_trash/x/a.md"],
        ["notes/a.md", "projects/t.md|_archive/_trash/x/a.md", "notes/t.md|_archive/_trash/x/a.md"],
    ),
}


@pytest.mark.rule("PM-AGENT-1")
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_status_and_recover_say_the_same_of_a_records_namesake(memory: Path, shape: str) -> None:
    """The namesake rule was written three times (status's detail, recover's choice, its refusal); now once.
    Status's stale-record problem and recover's plan or refusal come from the same verdict."""
    files, specs = SHAPES[shape]
    for rel in files:
        write(memory, rel, "# A\n")
    recs = []
    for spec in specs:
        path, *rest = spec.split("|")
        recs.append(_record(path, deleted=bool(rest), location=rest[0] if rest else None))
    _archive(memory, *recs)
    snap = tree.scan(memory, today=TODAY)
    said = {p.kind: p.detail for p in snap.problems if p.path == "notes/a.md"}
    parsed = parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))
    matching = tree.locate_archived(memory, parsed, archive_match.active_on_disk(memory), today=TODAY)[0]
    rec = next(r for r in parsed if r.path == "notes/a.md")
    verdict = archive_match.Names(matching, parsed).namesake(rec)
    assert said["stale-record"].endswith(verdict.detail())
    if verdict.location is not None:
        plan = lifecycle.plan_recover(memory, "notes/a.md", index_line="- notes/a.md — a")
        assert plan.preview.moves == ((verdict.location, "notes/a.md"),)
        assert verdict.note() in plan.preview.notes
        assert "takes it from there" in said["stale-record"]
    else:
        with pytest.raises(Refused) as refused:
            lifecycle.plan_recover(memory, "notes/a.md")
        assert str(refused.value) == verdict.refusal()
        assert "takes it from there" not in said["stale-record"]
    if shape == "contested":
        assert "may be about it too, so it is not taken" in verdict.refusal()


@pytest.mark.rule("PM-AGENT-1")
def test_doctor_keeps_the_name_the_apps_matching_gives_a_record(memory: Path) -> None:
    """Doctor had its own walker (`.md` files, the tool's places only): a file a record's ``Location`` names,
    left under a second name (its active path, the same inode), was no "two names" case for doctor while the
    app showed it both active and archived. Doctor matches as the scan does now, keeping the record's name."""
    write(memory, "_archive/2026/a.md", "# A\n")
    os.link(memory / "_archive/2026/a.md", memory / "notes/a.md")
    _archive(memory, _record("notes/a.md", location="_archive/2026/a.md"))
    snap = tree.scan(memory, today=TODAY)
    assert [(a.path, a.location) for a in snap.archived] == [("notes/a.md", "_archive/2026/a.md")]
    assert "notes/a.md" in [f.path for f in snap.active]
    plan = plan_doctor(memory, today=TODAY)
    assert RemoveFile("notes/a.md") in plan.ops, plan.preview.notes
    assert RemoveFile("_archive/2026/a.md") not in plan.ops
    apply(plan, memory)
    assert not (memory / "notes/a.md").exists() and (memory / "_archive/2026/a.md").read_text() == "# A\n"


@pytest.mark.rule("PM-AGENT-1")
def test_doctor_says_of_a_file_in_the_trash_what_status_says(memory: Path) -> None:
    """Doctor listed only `.md` files: a file dropped in the trash with another suffix was said by status
    ("has no deletion record; ... so move it by hand") and passed over by doctor in silence; a non-`.md`
    file under two names (the archive's and the trash's) was none for doctor."""
    write(memory, "_archive/_trash/notes/data.txt", "data\n")
    write(memory, "_archive/notes/kept.txt", "kept\n")
    os.link(memory / "_archive/notes/kept.txt", memory / "_archive/_trash/notes/kept.txt")
    _archive(memory, _record("notes/kept.txt", deleted=True))
    status = {p.path: p.detail for p in tree.scan(memory, today=TODAY).problems if p.kind == "no-record"}
    assert "move it by hand" in status["notes/data.txt"]
    plan = plan_doctor(memory, today=TODAY)
    notes = " ".join(plan.preview.notes)
    assert "_archive/_trash/notes/data.txt has no deletion record" in notes and "doctor leaves it" in notes
    assert plan.ops == (RemoveFile("_archive/notes/kept.txt"),)


@pytest.mark.rule("PM-AGENT-1")
@pytest.mark.parametrize("deleted", [False, True], ids=["archived", "deleted"])
def test_a_record_of_an_active_file_is_no_rival_of_a_namesake(memory: Path, deleted: bool) -> None:
    """Found in review: a leftover record of a file that is active again (an agent moved it back by hand and
    left its record) counted as a rival claiming the namesake of another record of the same file name, so
    recovering that record was refused ("but so has the file of ..."). The leftover has no archived file."""
    place = "_archive/_trash" if deleted else "_archive"
    write(memory, f"{place}/old/a.md", "# A\n")  # notes/a.md's file, moved by hand off its Location
    write(memory, "projects/web/a.md", "# Web A\n")  # active again at its original path
    _archive(
        memory,
        _record("notes/a.md", deleted=deleted, location=f"{place}/2026/a.md"),
        _record("projects/web/a.md", deleted=deleted, location=f"{place}/2025/a.md"),
    )
    said = {(p.kind, p.path): p.detail for p in tree.scan(memory, today=TODAY).problems}
    assert "projects/web/a.md is active" in said["stale-record", "projects/web/a.md"]
    assert said["stale-record", "notes/a.md"].endswith(
        "recover notes/a.md takes it from there, its preview says so"
    )
    if deleted:  # the trash file with no record of its own: status and doctor name the one record it is for
        assert "`pmem-tui recover notes/a.md` takes it" in said["no-record", "old/a.md"]
        doctor = plan_doctor(memory, today=TODAY)
        assert any("`pmem-tui recover notes/a.md` takes it" in n for n in doctor.preview.notes)
        assert doctor.is_empty, doctor.ops
    plan = lifecycle.plan_recover(memory, "notes/a.md", index_line="- notes/a.md — a")
    assert plan.preview.moves == ((f"{place}/old/a.md", "notes/a.md"),)
    apply(plan, memory)
    assert (memory / "notes/a.md").read_text(encoding="utf-8") == "# A\n"


@pytest.mark.rule("PM-AGENT-1", "PM-HEALTH-5")
@pytest.mark.parametrize("deleted", [False, True], ids=["archived", "deleted"])
@pytest.mark.parametrize("located", [False, True], ids=["by-name", "by-location"])
def test_a_record_of_an_active_file_never_takes_a_namesake_by_its_name(
    memory: Path, deleted: bool, located: bool
) -> None:
    """Found in review: a record of a file that is active again (an agent moved it back and left the record)
    without a ``Location`` still took, by its file name, the archived file of another record with that name:
    status showed `_archive/old/x.md` as the active `projects/web/x.md`, and the record of `notes/x.md` (its
    ``Location`` stale, or none) as one with no file; recover refused it and the health review said nothing
    of the leftover. Such a record finds its file only at the places it names, never by a name."""
    place = "_archive/_trash" if deleted else "_archive"
    moved = f"{place}/old/x.md"  # notes/x.md's file, moved there by hand
    write(memory, moved, "# Notes X\n")
    write(memory, "projects/web/x.md", "# Web X\n")  # moved back by hand, with its line; its record left
    with (memory / "_index.md").open("a", encoding="utf-8") as index:
        index.write("- projects/web/x.md — the web notes\n")
    _archive(
        memory,
        _record("projects/web/x.md", deleted=deleted),
        _record("notes/x.md", deleted=deleted, location=f"{place}/2026/x.md" if located else None),
    )
    snap = tree.scan(memory, today=TODAY)
    said = {(p.kind, p.path): p.detail for p in snap.problems if p.path.endswith("x.md")}
    web = said.pop(("stale-record", "projects/web/x.md"))
    assert "projects/web/x.md is active, yet it says" in web
    items = snap.trash if deleted else snap.archived
    if located:  # notes/x.md's record finds no file at its Location: its namesake, said by status and doctor
        assert said.pop(("stale-record", "notes/x.md")).endswith(
            "recover notes/x.md takes it from there, its preview says so"
        )
        if deleted:
            assert "`pmem-tui recover notes/x.md` takes it" in said.pop(("no-record", "old/x.md"))
        else:
            assert said.pop(("no-record", "old/x.md")).endswith("has no record in _archive/_index.md")
        assert [(i.path, i.location, i.record) for i in items] == [("old/x.md", moved, None)]
    else:  # found by its name: the one record without a file that may claim it
        assert [(i.path, i.location) for i in items] == [("notes/x.md", moved)]
    assert said == {}
    doctor = plan_doctor(memory, today=TODAY)
    assert doctor.is_empty, doctor.ops
    if located and deleted:
        assert any("`pmem-tui recover notes/x.md` takes it" in n for n in doctor.preview.notes)
    plan = lifecycle.plan_recover(memory, "notes/x.md", index_line="- notes/x.md — x")
    assert plan.preview.moves == ((moved, "notes/x.md"),)
    report = check_health(memory, use_cache=False)
    proposal = report.proposal("projects/web/x.md")
    assert proposal is not None
    assert [s.detail for s in proposal.signals if s.kind == "stale-record"] == [web]
