"""Lifecycle services: plan, preview, apply (save, archive, delete, recover, purge, upgrade)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from pmem_tui.core import records
from pmem_tui.core.errors import LifecycleIncomplete, Refused, SecretFound, StalePlan, UnsafePath
from pmem_tui.core.executor import apply
from pmem_tui.core.lifecycle import (
    NeedsIndexLine,
    plan_archive,
    plan_archive_many,
    plan_delete,
    plan_purge,
    plan_recover,
    plan_save,
    plan_upgrade,
)
from tests.conftest import tree_bytes, write

ALPHA_LINE = "- [Alpha](projects/alpha.md) — the importer project"


def index_lines(root: Path) -> list[str]:
    return (root / "_index.md").read_text(encoding="utf-8").splitlines()


@pytest.mark.rule("PM-SAFE-6", "PM-CORE-3", "PM-CORE-2")
def test_planning_changes_nothing(memory: Path) -> None:
    before = tree_bytes(memory)
    plan = plan_archive(memory, "projects/alpha.md", "shipped")
    assert plan.preview.moves == (("projects/alpha.md", "_archive/projects/alpha.md"),)
    assert plan.preview.index_removed == (ALPHA_LINE,)
    assert plan.preview.recovery
    assert [d.path for d in plan.preview.diffs] == ["_index.md", "_archive/_index.md"]
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-ARC-1", "PM-ARC-3", "PM-ARC-4", "PM-ARC-5", "PM-ARC-6", "PM-CORE-5")
def test_archive_moves_file_removes_line_and_records_it(memory: Path, today: dt.date) -> None:
    before = tree_bytes(memory)
    result = apply(plan_archive(memory, "projects/alpha.md", "shipped in November"), memory)
    after = tree_bytes(memory)
    assert "projects/alpha.md" not in after
    assert after["_archive/projects/alpha.md"] == before["projects/alpha.md"]
    assert ALPHA_LINE not in index_lines(memory)
    # every other byte of the index is unchanged
    assert before["_index.md"].replace((ALPHA_LINE + "\n").encode(), b"") == after["_index.md"]
    rec = records.parse_records(after["_archive/_index.md"].decode())[-1]
    assert (rec.path, rec.index_line, rec.archived, rec.reason) == (
        "projects/alpha.md",
        ALPHA_LINE,
        today,
        "shipped in November",
    )
    assert "_archive/projects/alpha.md" in result.outcome


@pytest.mark.rule("PM-ARC-1")
def test_archive_requires_a_reason(memory: Path) -> None:
    with pytest.raises(Refused, match="reason"):
        plan_archive(memory, "projects/alpha.md", "   ")


@pytest.mark.rule("PM-UPG-4")
@pytest.mark.parametrize("missing", ["_archive/_trash", "_archive/_index.md"])
def test_lifecycle_actions_refused_until_upgrade(memory: Path, missing: str) -> None:
    target = memory / missing
    target.rmdir() if target.is_dir() else target.unlink()
    before = tree_bytes(memory)
    for make in (
        lambda: plan_archive(memory, "projects/alpha.md", "x"),
        lambda: plan_delete(memory, "projects/alpha.md"),
        lambda: plan_recover(memory, "projects/alpha.md"),
    ):
        with pytest.raises(LifecycleIncomplete, match="upgrade"):
            make()
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-SAFE-4")
def test_archive_never_overwrites_a_collision(memory: Path) -> None:
    write(memory, "_archive/projects/alpha.md", "an older archived alpha\n")
    before = tree_bytes(memory)
    with pytest.raises(Refused, match="already"):
        plan_archive(memory, "projects/alpha.md", "x")
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-SAFE-4", "PM-SAFE-5")
def test_destination_appearing_after_preview_is_never_replaced(memory: Path) -> None:
    plan = plan_archive(memory, "projects/alpha.md", "x")
    write(memory, "_archive/projects/alpha.md", "appeared meanwhile\n")
    before = tree_bytes(memory)
    with pytest.raises(StalePlan):
        apply(plan, memory)
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-SAFE-5", "PM-SAFE-1", "PM-SAFE-2")
@pytest.mark.parametrize(
    "path",
    [
        "_core/profile.md",
        "_index.md",
        "_archive/_index.md",
        "../x.md",
        "/etc/passwd",
        "_archive/projects/a.md",
    ],
)
def test_protected_and_unsafe_paths_refused(memory: Path, path: str) -> None:
    with pytest.raises((UnsafePath, Refused)):
        plan_archive(memory, path, "x")


@pytest.mark.rule("PM-DEL-1")
def test_delete_of_active_file_explains_archive_first(memory: Path) -> None:
    with pytest.raises(Refused, match="archive it first"):
        plan_delete(memory, "projects/alpha.md")


@pytest.mark.rule("PM-DEL-2", "PM-DEL-3", "PM-DEL-4")
def test_delete_moves_to_trash_with_deadline(memory: Path, today: dt.date) -> None:
    apply(plan_archive(memory, "projects/alpha.md", "done"), memory)
    result = apply(plan_delete(memory, "projects/alpha.md"), memory)
    assert (memory / "_archive/_trash/projects/alpha.md").is_file()
    assert not (memory / "_archive/projects/alpha.md").exists()
    rec = records.parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))[-1]
    assert rec.deleted == today
    assert rec.deadline == today + dt.timedelta(days=30)
    assert rec.index_line == ALPHA_LINE and rec.reason == "done"
    assert "2026-12-30" in result.outcome and "_archive/_trash/projects/alpha.md" in result.outcome


@pytest.mark.rule("PM-REC-1", "PM-REC-3", "PM-REC-4", "PM-REC-5", "PM-REC-6", "PM-CORE-5")
@pytest.mark.parametrize("via_trash", [False, True])
def test_round_trip_is_byte_identical(memory: Path, via_trash: bool) -> None:
    write(memory, "projects/deep/nested/plan [v2].md", "# Plan\n")
    with (memory / "_index.md").open("a", encoding="utf-8") as f:
        f.write("- projects/deep/nested/plan [v2].md — nested plan\n")
    before = tree_bytes(memory)
    for rel in ("projects/alpha.md", "projects/deep/nested/plan [v2].md"):
        apply(plan_archive(memory, rel, "parked"), memory)
        if via_trash:
            apply(plan_delete(memory, rel), memory)
    assert not (memory / "projects/deep").exists() or not any((memory / "projects/deep").rglob("*.md"))
    for rel in ("projects/deep/nested/plan [v2].md", "projects/alpha.md"):
        result = apply(plan_recover(memory, rel), memory)
        assert f"to {rel}" in result.outcome
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-REC-4")
def test_recover_puts_line_back_at_the_end_when_neighbours_are_gone(memory: Path) -> None:
    apply(plan_archive(memory, "notes/standup.md", "quiet"), memory)
    text = (memory / "_index.md").read_text(encoding="utf-8")
    # both neighbours change
    (memory / "_index.md").write_text(text.replace(ALPHA_LINE + "\n", ""), encoding="utf-8")
    os.remove(memory / "projects/alpha.md")
    apply(plan_recover(memory, "notes/standup.md"), memory)
    assert index_lines(memory)[-1] == "- notes/standup.md — daily standup notes"


@pytest.mark.rule("PM-REC-2")
def test_legacy_record_without_line_needs_confirmation(memory: Path) -> None:
    write(memory, "_archive/notes/old.md", "# Old idea\n\n## Summary\n- One.\n- Two.\n- Three.\n")
    write(
        memory,
        "_archive/_index.md",
        (memory / "_archive/_index.md").read_text(encoding="utf-8")
        + "\n## notes/old.md\n- Archived: 2026-01-02\n- Reason: stale\n",
    )
    before = tree_bytes(memory)
    with pytest.raises(NeedsIndexLine) as info:
        plan_recover(memory, "notes/old.md")
    assert info.value.proposal.startswith("- [Old idea](notes/old.md)")
    assert tree_bytes(memory) == before
    apply(plan_recover(memory, "notes/old.md", index_line=info.value.proposal), memory)
    assert info.value.proposal in index_lines(memory)
    apply(plan_archive(memory, "notes/standup.md", "x"), memory)
    with pytest.raises(Refused, match="does not name"):
        plan_recover(memory, "notes/standup.md", index_line="- notes/other.md — wrong")


@pytest.mark.rule("PM-DEL-5", "PM-HEALTH-6")
def test_purge_removes_only_expired_trash(memory: Path, today: dt.date) -> None:
    for rel in ("projects/alpha.md", "notes/standup.md"):
        apply(plan_archive(memory, rel, "x"), memory)
    apply(plan_delete(memory, "projects/alpha.md", today=today - dt.timedelta(days=31)), memory)
    apply(plan_delete(memory, "notes/standup.md", today=today - dt.timedelta(days=29)), memory)
    plan = plan_purge(memory)
    assert plan.preview.removes == ("_archive/_trash/projects/alpha.md",)
    assert plan.items == ("projects/alpha.md",)
    apply(plan, memory)
    assert not (memory / "_archive/_trash/projects/alpha.md").exists()
    assert (memory / "_archive/_trash/notes/standup.md").exists()
    recs = records.parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))
    assert [r.path for r in recs] == ["notes/standup.md"]
    assert plan_purge(memory).is_empty


@pytest.mark.rule("PM-UPG-1", "PM-UPG-2", "PM-UPG-3")
def test_upgrade_creates_only_missing_paths(memory: Path) -> None:
    (memory / "_archive/_trash").rmdir()
    (memory / "_archive/_index.md").unlink()
    (memory / "_archive").rmdir()
    before = tree_bytes(memory)
    plan = plan_upgrade(memory)
    assert plan.preview.creates == ("_archive", "_archive/_trash", "_archive/_index.md")
    own = (".pmem", ".pmem/.gitignore", ".pmem/lock", ".pmem/history", ".pmem/journal")
    assert plan.preview.meta_creates == own
    assert not plan.preview.moves and not plan.preview.removes
    assert tree_bytes(memory) == before
    apply(plan, memory)
    after = tree_bytes(memory)
    assert set(after) - set(before) == {"_archive/_index.md"}
    assert all(after[k] == v for k, v in before.items())
    assert (memory / "_archive/_trash").is_dir()
    assert plan_upgrade(memory).is_empty


@pytest.mark.rule("PM-SAVE-2", "PM-SAVE-3", "PM-CORE-5")
def test_save_new_file_adds_index_line(memory: Path) -> None:
    content = b"# Beta\n\n## Summary\n- Beta starts in January.\n- Owner: me.\n- Budget: small.\n"
    plan = plan_save(memory, "projects/beta.md", content)
    assert plan.preview.index_added == ("- [Beta](projects/beta.md) — Beta starts in January.",)
    assert plan.preview.diffs[0].is_new
    apply(plan, memory)
    assert (memory / "projects/beta.md").read_bytes() == content
    assert index_lines(memory)[-1] == "- [Beta](projects/beta.md) — Beta starts in January."


@pytest.mark.rule("PM-SAVE-1", "PM-SAVE-4", "PM-SAVE-5", "PM-CORE-1")
def test_save_update_shows_diff_and_summary_revision(memory: Path) -> None:
    old = (memory / "projects/alpha.md").read_text(encoding="utf-8")
    new = old.replace("ships the importer in December", "ships the importer in January")
    plan = plan_save(memory, "projects/alpha.md", new.encode())
    assert any("Summary revision" in n for n in plan.preview.notes)
    assert any("January" in n for n in plan.preview.notes)
    assert plan.preview.index_added == ()  # the existing line stays
    diff = "\n".join(plan.preview.diffs[0].unified())
    assert "-- Alpha ships the importer in December." in diff
    # read before write: a change after the preview is refused
    write(memory, "projects/alpha.md", old + "edited meanwhile\n")
    with pytest.raises(StalePlan):
        apply(plan, memory)


@pytest.mark.rule("PM-SAVE-5", "PM-SUM-2")
def test_save_never_creates_a_summary(memory: Path) -> None:
    apply(plan_save(memory, "notes/plain.md", b"# Plain\n\nJust text.\n"), memory)
    assert (memory / "notes/plain.md").read_bytes() == b"# Plain\n\nJust text.\n"


@pytest.mark.rule("PM-CORE-6")
def test_save_refuses_secrets(memory: Path) -> None:
    before = tree_bytes(memory)
    with pytest.raises(SecretFound, match="line 3"):
        plan_save(
            memory,
            "notes/keys.md",
            b"# Keys\n\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        )
    assert tree_bytes(memory) == before


@pytest.mark.rule("PM-FIRST-1")
def test_first_save_creates_the_structure(tmp_path: Path) -> None:
    root = tmp_path / "new-root"
    plan = plan_save(root, "_core/profile.md", b"# Me\n")
    assert set(plan.preview.creates) >= {
        "_core",
        "projects",
        "notes",
        "_archive",
        "_archive/_trash",
        "_index.md",
        "_archive/_index.md",
    }
    assert not root.exists()
    apply(plan, root)
    for rel in ("_core", "projects", "notes", "_archive", "_archive/_trash"):
        assert (root / rel).is_dir()
    assert (root / "_index.md").read_bytes() == b""
    assert (root / "_core/profile.md").read_bytes() == b"# Me\n"
    assert records.parse_records((root / "_archive/_index.md").read_text(encoding="utf-8")) == []


@pytest.mark.rule("PM-ARC-4")
def test_crlf_index_keeps_its_bytes(memory: Path) -> None:
    raw = (memory / "_index.md").read_bytes().replace(b"\n", b"\r\n")
    (memory / "_index.md").write_bytes(b"\xef\xbb\xbf" + raw)
    apply(plan_archive(memory, "notes/standup.md", "x"), memory)
    assert (memory / "_index.md").read_bytes() == b"\xef\xbb\xbf" + raw.replace(
        "- notes/standup.md — daily standup notes\r\n".encode(), b""
    )
    apply(plan_recover(memory, "notes/standup.md"), memory)
    assert (memory / "_index.md").read_bytes() == b"\xef\xbb\xbf" + raw


def test_batch_archive_is_one_plan_with_skips(memory: Path) -> None:
    plan = plan_archive_many(memory, ["projects/alpha.md", "notes/missing.md", "notes/standup.md"], "tidy")
    assert plan.items == ("projects/alpha.md", "notes/standup.md")
    assert any("Skipped notes/missing.md" in n for n in plan.preview.notes)
    assert sum(1 for d in plan.preview.diffs if d.path == "_index.md") == 1
    apply(plan, memory)
    assert not (memory / "projects/alpha.md").exists() and not (memory / "notes/standup.md").exists()
    assert len(records.parse_records((memory / "_archive/_index.md").read_text(encoding="utf-8"))) == 2
