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
