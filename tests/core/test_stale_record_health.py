"""A record of an archived file whose file is active again (moved back by hand or by an agent): found in
review, the app counted it in the header only; the health review lists it now, with the scan's sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmem_tui.core import lifecycle, tree
from pmem_tui.core.executor import apply
from pmem_tui.core.health import check_health
from tests.conftest import write


@pytest.mark.rule("PM-REC-4", "PM-HEALTH-5")
@pytest.mark.parametrize("use_cache", [False, True])
def test_an_active_file_a_record_says_is_archived_is_listed_in_the_health_review(
    memory: Path, use_cache: bool
) -> None:
    import pmem_tui.tui.actions  # noqa: F401  (the key table the review names its keys from)
    from pmem_tui.tui.health_review import proposal_text

    apply(lifecycle.plan_archive(memory, "notes/standup.md", "done"), memory)
    (memory / "_archive/notes/standup.md").rename(memory / "notes/standup.md")  # moved back by hand
    write(memory, "notes/other.md", "# Other\n\nText.\n")  # an active file no record names
    said = {p.path: p.detail for p in tree.scan(memory).problems if p.kind == "stale-record"}
    assert list(said) == ["notes/standup.md"]
    check_health(memory, use_cache=use_cache)  # (a warm run: the report cached)
    report = check_health(memory, use_cache=use_cache)
    proposal = report.proposal("notes/standup.md")
    assert proposal is not None and proposal.category == "keep"  # (and an orphan: the archive took its line)
    assert [(s.kind, s.detail) for s in proposal.signals if s.kind == "stale-record"] == [
        ("stale-record", said["notes/standup.md"])
    ]
    assert "notes/standup.md is active, yet it says archived; remove it by hand" in proposal.reason
    assert said["notes/standup.md"] in proposal_text(proposal, None).plain
    other = report.proposal("notes/other.md")
    assert other is None or "stale-record" not in other.kinds


@pytest.mark.rule("PM-HEALTH-5")
def test_a_record_made_stale_by_a_change_under_the_archive_alone_is_not_served_from_the_cache(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: the stale-record signal depends on the files under `_archive/` (a record whose file
    is there is not stale), but the health report's cache key lists only the active files, `_core/`, the
    trash and the two indexes: an agent removing the archived copy of a file it had copied back (nothing
    else touched) got the cached report, without the signal, until something else changed; and putting it
    back kept a signal that was no longer true."""
    import time

    from pmem_tui.core import cache

    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)  # out of the racy window
    apply(lifecycle.plan_archive(memory, "notes/standup.md", "done"), memory)
    archived = memory / "_archive/notes/standup.md"
    (memory / "notes/standup.md").write_bytes(archived.read_bytes())  # copied back by hand: both stand

    def stale() -> list[str]:
        report = check_health(memory)
        return [p.path for p in report.proposals if "stale-record" in p.kinds]

    assert stale() == []
    assert stale() == []  # (the report cached)
    kept = archived.read_bytes()
    archived.unlink()  # the agent removes the archived copy: the record finds no file, its path is active
    assert stale() == ["notes/standup.md"]
    archived.write_bytes(kept)  # and puts it back: the record finds its file again
    assert stale() == []


def test_the_expired_trash_and_the_stale_records_share_one_match_of_the_archive(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review of the change: the expired trash and the stale records each parsed
    `_archive/_index.md` and matched the archive (the second walked it again from disk)."""
    apply(lifecycle.plan_archive(memory, "notes/standup.md", "done"), memory)
    (memory / "_archive/notes/standup.md").rename(memory / "notes/standup.md")  # moved back by hand
    write(memory, "notes/gone.md", "# Gone\n\nText.\n")
    apply(lifecycle.plan_archive(memory, "notes/gone.md", "old"), memory)
    apply(lifecycle.plan_delete(memory, "notes/gone.md"), memory)  # trash to look at
    matches: list[int] = []
    real = tree.locate_archived
    monkeypatch.setattr(tree, "locate_archived", lambda *a, **k: matches.append(1) or real(*a, **k))
    report = check_health(memory, use_cache=False)
    assert matches == [1]
    proposal = report.proposal("notes/standup.md")
    assert proposal is not None and "stale-record" in proposal.kinds
