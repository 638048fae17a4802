"""Issue 16: the history store, recording around actions, and reading versions back."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core import lifecycle as lc
from pmem_tui.core import meta_dir, safeio
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.history import log, names, plans, record, rewrite, stat_table, store
from tests.conftest import stock, tree_bytes, write
from tests.core.history_git import git, needs_git


def save(root: Path, rel: str, text: str) -> None:
    result = apply(lc.plan_save(root, rel, text.encode()), root)
    assert result.history is None, result.history


def test_the_store_s_folder_is_the_one_the_previews_name() -> None:
    assert meta_dir.HISTORY_DIR == names.HISTORY_DIR


@needs_git
def test_an_action_records_before_and_after_and_git_reads_it(memory: Path) -> None:
    write(memory, "notes/standup.md", "# Standup\n\nEdited by an agent.\n")  # pending on disk
    save(memory, "notes/standup.md", "# Standup\n\nSaved by pmem-tui.\n")
    recs = log.records(memory)
    assert [r.origin for r in recs] == ["save", names.SEEN_ON_DISK]
    assert recs[0].title == "save: Save notes/standup.md"
    proc = git(memory, "log", "-p")
    assert proc.returncode == 0, proc.stderr
    assert "+Saved by pmem-tui." in proc.stdout and "Pmem-Origin: save" in proc.stdout
    assert ".pmem" not in git(memory, "ls-tree", "-r", "--name-only", "main").stdout
    assert git(memory, "fsck", "--strict").returncode == 0


def test_nothing_changed_records_nothing(memory: Path) -> None:
    assert record.record(memory, create=True).commit is not None
    assert record.record(memory).commit is None
    assert record.record_if_changed(memory) == record.Recorded()
    assert len(log.records(memory)) == 1


def test_a_root_without_a_store_gets_none_from_a_read_only_command(memory: Path) -> None:
    assert record.record_if_changed(memory) == record.Recorded()
    assert not (memory / names.HISTORY_DIR).exists()


def test_the_cheap_pass_imports_no_dulwich_when_nothing_changed(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pmem_tui.core import cache

    monkeypatch.setattr(cache, "clock", lambda: 10**20)  # the table's files long past the racy window
    record.record(memory, create=True)
    code = (
        "import sys; from pathlib import Path; from pmem_tui.core.history import record;"
        f"r = record.record_if_changed(Path({str(memory)!r})); assert r.commit is None and r.problem is None;"
        "print('dulwich' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_only_changed_files_are_hashed(memory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pmem_tui.core import cache

    record.record(memory, create=True)
    monkeypatch.setattr(cache, "clock", lambda: 10**20)  # every stamp long past the racy window
    record.record(memory, create=True)  # the table, now trusted
    write(memory, "notes/standup.md", "# Standup\n\nChanged.\n")
    read: list[str] = []
    real = record._read_all

    def counting(root: Path, paths: list[str]) -> Iterator[tuple[str, bytes, os.stat_result]]:
        read.extend(paths)
        return real(root, paths)

    monkeypatch.setattr(record, "_read_all", counting)
    assert record.record(memory).commit is not None
    assert read == ["notes/standup.md"]


def test_same_size_and_mtime_still_seen_by_ctime(memory: Path) -> None:
    record.record(memory, create=True)
    path = memory / "notes/standup.md"
    st0 = path.stat()
    path.write_bytes(path.read_bytes().replace(b"new", b"NEW"))
    os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    assert record.record(memory).commit is not None


def test_links_fifos_and_pmem_are_never_recorded(memory: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("outside the root\n")
    (memory / "notes/link.md").symlink_to(outside)
    (memory / "projects/linked").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(memory / "notes/pipe.md")
    write(memory, "README.md", "not memory\n")
    record.record(memory, create=True)
    paths = {v.path for v in log.versions(memory)}
    assert paths == set(stat_table.walk(memory))
    assert not any(p.startswith(".pmem") or "link" in p or "pipe" in p or p == "README.md" for p in paths)
    assert "_archive/_index.md" in paths and "_index.md" in paths


def test_a_file_s_history_follows_it_into_the_archive_and_back(memory: Path) -> None:
    stock(memory)
    save(memory, "projects/alpha.md", "# Alpha\n\nv2\n")
    apply(lc.plan_archive(memory, "projects/alpha.md", "shipped"), memory)
    apply(lc.plan_delete(memory, "projects/alpha.md"), memory)
    apply(lc.plan_recover(memory, "projects/alpha.md"), memory)
    found = log.versions(memory, "projects/alpha.md")
    assert [(v.kind, v.origin) for v in found] == [
        ("moved", "recover"),
        ("moved", "delete"),
        ("moved", "archive"),
        ("modified", "save"),
        ("added", names.SEEN_ON_DISK),
    ]
    assert (
        found[2].path == "_archive/projects/alpha.md" and found[1].path == "_archive/_trash/projects/alpha.md"
    )
    assert found[0].path == "projects/alpha.md"
    assert found[3].bytes == len(b"# Alpha\n\nv2\n") and len(found[3].sha256) == 64
    assert log.version_bytes(memory, found[1].id, "projects/alpha.md") == b"# Alpha\n\nv2\n"
    assert set(found[0].to_json()) == {"id", "time", "path", "kind", "origin", "bytes", "sha256"}


@pytest.mark.parametrize(
    ("stored", "original"),
    [
        ("_archive/projects/a.md", "projects/a.md"),
        ("_archive/_trash/notes/b.md", "notes/b.md"),
        ("_archive/old.md", "_archive/old.md"),  # an agent's own archive layout: not a root file `old.md`
        ("_archive/_trash/misc/c.md", "_archive/_trash/misc/c.md"),
        ("_archive/_index.md", "_archive/_index.md"),
        ("notes/n.md", "notes/n.md"),
    ],
)
def test_original_path_strips_the_archive_only_where_it_mirrors_an_active_place(
    stored: str, original: str
) -> None:
    assert names.original_path(stored) == original


def test_diff_between_versions(memory: Path) -> None:
    save(memory, "notes/standup.md", "# Standup\n\nOne.\n")
    save(memory, "notes/standup.md", "# Standup\n\nTwo.\n")
    text = log.diff(memory, "notes/standup.md")
    assert "-One.\n+Two.\n" in text
    first = log.versions(memory, "notes/standup.md")[-1].id
    assert "-Nothing new.\n+Two.\n" in log.diff(memory, "notes/standup.md", from_version=first)
    with pytest.raises(Refused, match="no versions"):
        log.diff(memory, "notes/none.md")


@pytest.mark.parametrize("bad", ["zz", "xyz123", "", "1234567890" * 5, "../../etc", "12"])
def test_a_bad_version_is_one_sentence(memory: Path, bad: str) -> None:
    record.record(memory, create=True)
    with pytest.raises(Refused) as err:
        log.resolve(memory, bad)
    assert str(err.value).endswith(".") and "\n" not in str(err.value)


def test_an_unknown_version_and_a_path_it_lacks(memory: Path) -> None:
    record.record(memory, create=True)
    with pytest.raises(Refused, match="no version abcdef"):
        log.resolve(memory, "abcdef")
    head = log.records(memory)[0].id
    with pytest.raises(Refused, match="not in version"):
        log.version_bytes(memory, head, "notes/none.md")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(version=st.text(max_size=50), path=st.text(max_size=50))
def test_hostile_versions_and_paths_never_raise_anything_but_a_refusal(
    memory: Path, version: str, path: str
) -> None:
    record.record(memory, create=True)
    try:
        log.version_bytes(memory, version, path)
    except Refused as err:
        assert "\n" not in str(err)
    log.versions(memory, path)


def test_changes_since_review_and_mark_reviewed(memory: Path) -> None:
    record.record(memory, create=True)
    record.mark_reviewed(memory)
    assert log.changes_since_review(memory) == []
    save(memory, "notes/standup.md", "# Standup\n\nOne.\nTwo.\n")
    write(memory, "notes/new.md", "# New\n")
    record.record(memory)
    changed = {c.path: c for c in log.changes_since_review(memory)}
    assert set(changed) == {"notes/standup.md", "notes/new.md"}
    assert changed["notes/new.md"].kind == "added" and changed["notes/new.md"].origin == names.SEEN_ON_DISK
    assert changed["notes/standup.md"].origin == "save"
    assert (changed["notes/standup.md"].lines_added, changed["notes/standup.md"].lines_removed) == (2, 1)
    record.mark_reviewed(memory)
    assert log.changes_since_review(memory) == []


def test_mark_reviewed_starts_a_history_only_when_asked(memory: Path) -> None:
    before = tree_bytes(memory)
    assert record.mark_reviewed(memory) is None and not stat_table.store_exists(memory)  # nothing made
    head = record.mark_reviewed(memory, start=True)
    assert head is not None and head == stat_table.read_head(memory, names.REVIEWED_REF)
    assert log.changes_since_review(memory) == [] and tree_bytes(memory) == before
    assert record.mark_reviewed(memory, start=True) == head  # a second mark records nothing new


def test_mark_reviewed_starts_no_history_in_a_folder_that_is_no_memory(tmp_path: Path) -> None:
    """Found in trial: `R` in the app's Changes pane on a wrong root (a folder with only `notes/`) made
    `.pmem/history` there."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/a.md").write_text("# A\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a memory folder"):
        record.mark_reviewed(tmp_path, start=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]


def test_before_any_review_changes_start_from_the_first_record(memory: Path) -> None:
    """The memory as history first found it is the baseline, not a list of "added" files to review."""
    assert record.record(memory, create=True).commit is not None
    assert log.changes_since_review(memory) == []
    write(memory, "notes/new.md", "# New\n")
    record.record(memory)
    changed = log.changes_since_review(memory)
    assert [(c.path, c.kind) for c in changed] == [("notes/new.md", "added")]


def test_restore_plans_a_save_of_the_version(memory: Path) -> None:
    save(memory, "notes/standup.md", "# Standup\n\nOverwritten.\n")
    old = log.versions(memory, "notes/standup.md")[-1]
    plan = plans.plan_restore(memory, "notes/standup.md", old.id[:8])
    assert plan.action == "restore" and plan.title.startswith("Restore notes/standup.md to version")
    assert plan.preview.diffs and "Nothing new." in plan.preview.diffs[0].new
    apply(plan, memory)
    assert (memory / "notes/standup.md").read_text() == "# Standup\n\nNothing new.\n"
    assert log.versions(memory, "notes/standup.md")[0].origin == "restore"
    with pytest.raises(Refused):
        plans.plan_restore(memory, "notes/standup.md", "0000000")


@needs_git
def test_forget_removes_the_content_for_git_too(memory: Path) -> None:
    save(memory, "notes/standup.md", "# Standup\n\napi key by mistake\n")
    save(memory, "notes/standup.md", "# Standup\n\nclean\n")
    bad = log.versions(memory, "notes/standup.md")[1]
    before = tree_bytes(memory)
    plan = rewrite.plan_forget(memory, "notes/standup.md", bad.id)
    assert plan.records == 1 and not plan.live_has_it
    assert git(memory, "cat-file", "-e", plan.blob).returncode == 0
    rewrite.apply_forget(memory, plan)
    assert tree_bytes(memory) == before  # never touches a memory file
    assert git(memory, "cat-file", "-e", plan.blob).returncode != 0
    git(memory, "gc", "--prune=now", "-q")
    assert git(memory, "cat-file", "-e", plan.blob).returncode != 0
    assert git(memory, "fsck", "--strict").returncode == 0
    assert b"api key" not in b"".join(
        p.read_bytes() for p in (memory / names.HISTORY_DIR).rglob("*") if p.is_file()
    )
    assert record.record(memory).commit is None  # the next record does not bring it back
    assert log.versions(memory, "notes/standup.md")[0].origin == "save"


def test_a_forget_planned_before_another_forget_finds_its_content_again(memory: Path) -> None:
    """Two forgets planned together: the first rewrites every record (new ids), the second's version is gone,
    and `replan_forget` finds the same content in the rewritten records; once that is forgotten too, a
    third replan is refused in one sentence."""
    save(memory, "notes/standup.md", "# Standup\n\napi key one\n")
    save(memory, "notes/standup.md", "# Standup\n\napi key two\n")
    save(memory, "notes/standup.md", "# Standup\n\nclean\n")
    one, two = (v for v in log.versions(memory, "notes/standup.md")[1:3][::-1])
    first = rewrite.plan_forget(memory, "notes/standup.md", one.id)
    second = rewrite.plan_forget(memory, "notes/standup.md", two.id)
    rewrite.apply_forget(memory, first)
    with pytest.raises(Refused):
        log.resolve(memory, second.version)  # its record was rewritten
    again = rewrite.replan_forget(memory, second)
    assert again.blob == second.blob and again.version != second.version
    rewrite.apply_forget(memory, again)
    versions = [v for v in log.versions(memory, "notes/standup.md") if v.kind != "deleted"]
    kept = [log.version_bytes(memory, v.id, "notes/standup.md") for v in versions]
    assert kept and not any(b"api key" in b for b in kept)
    with pytest.raises(Refused, match="no longer in the history"):
        rewrite.replan_forget(memory, second)


def test_forget_says_when_the_live_file_still_holds_it(memory: Path) -> None:
    record.record(memory, create=True)
    head = log.records(memory)[0].id
    plan = rewrite.plan_forget(memory, "notes/standup.md", head)
    assert plan.live_has_it and any("next record" in line for line in plan.lines())
    assert "1 record holds it; that record and every later one" in " ".join(plan.lines())


def test_prune_keeps_the_newest_old_record_as_the_first(memory: Path) -> None:
    for n in range(3):
        save(memory, "notes/standup.md", f"# Standup\n\n{n}\n")
    assert len(log.records(memory)) == 4
    import time

    plan = rewrite.plan_prune(memory, 1, now=time.time() + 3 * rewrite.DAY_S)
    assert (plan.dropped, plan.kept) == (3, 0)
    said = " ".join(plan.lines())  # counts in words, never "record(s)" (found in review)
    assert "older than 1 day (" in said and "3 records are dropped" in said and "(s)" not in said
    before = tree_bytes(memory)
    rewrite.apply_prune(memory, plan)
    assert tree_bytes(memory) == before
    recs = log.records(memory)
    assert len(recs) == 1 and log.version_bytes(memory, recs[0].id, "notes/standup.md") == b"# Standup\n\n2\n"
    assert rewrite.plan_prune(memory, 1).dropped == 0


def _packs(root: Path) -> list[Path]:
    return sorted((root / store.PACK_DIR).glob("*.pack"))


@pytest.mark.parametrize("damage", ["pack", "ref", "objects-gone", "store-is-a-file"])
def test_a_damaged_store_never_blocks_an_action_and_doctor_rebuilds_it(memory: Path, damage: str) -> None:
    save(memory, "notes/standup.md", "# Standup\n\nOne.\n")
    hist = memory / names.HISTORY_DIR
    if damage == "pack":
        for pack in _packs(memory):
            pack.write_bytes(pack.read_bytes()[:20] + b"\0" * 40)
    elif damage == "ref":
        (hist / names.MAIN_REF).write_text("not a commit\n")
    elif damage == "objects-gone":
        shutil.rmtree(hist / "objects")
    else:
        shutil.rmtree(hist)
        hist.write_text("oops")
    result = apply(lc.plan_save(memory, "notes/standup.md", b"# Standup\n\nTwo.\n"), memory)
    assert (memory / "notes/standup.md").read_bytes() == b"# Standup\n\nTwo.\n"  # the action ran
    assert result.history is not None and result.history.startswith("History could not record")
    assert "\n" not in result.history
    assert rewrite.check(memory) is not None
    said = rewrite.repair(memory)
    assert said is not None and "new one" in said
    assert rewrite.check(memory) is None
    assert log.version_bytes(memory, log.records(memory)[0].id, "notes/standup.md") == b"# Standup\n\nTwo.\n"
    assert rewrite.repair(memory) is None


def test_files_that_cannot_be_read_now_are_not_recorded_as_deleted(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in trial: `chmod 000 notes` recorded every note as deleted (then as added again once readable).
    Root reads through any mode, so the denial is made where the OS gives it: opening the folder. Found in
    review: once readable again, a record was written whose files were the same as the last one's."""
    record.record(memory, create=True)
    open_dir = safeio.open_dir

    def opened(root: Path | str, rel: str) -> int:
        if rel == "notes" or rel.startswith("notes/"):
            raise PermissionError(13, "Permission denied")
        return open_dir(root, rel)

    with monkeypatch.context() as denied:
        denied.setattr(safeio, "open_dir", opened)
        write(memory, "projects/alpha.md", "# Alpha\n\nEdited while notes/ could not be read.\n")
        assert record.record(memory).commit is not None  # the edit is recorded...
        kinds = {(c.path, c.kind) for c in log.changes_since_review(memory)}
        assert kinds == {("projects/alpha.md", "modified")}, kinds  # ...and no note is said deleted
        assert record.record(memory).commit is None
    records = len(log.records(memory))
    assert record.record(memory).commit is None  # readable again: nothing came back, nothing went
    assert len(log.records(memory)) == records


def test_a_file_removed_with_its_folder_is_recorded_as_deleted(memory: Path) -> None:
    record.record(memory, create=True)
    shutil.rmtree(memory / "notes")
    assert record.record(memory).commit is not None
    gone = {c.path for c in log.changes_since_review(memory) if c.kind == "deleted"}
    assert gone and all(path.startswith("notes/") for path in gone)
