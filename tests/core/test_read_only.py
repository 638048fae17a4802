"""A memory file the person made read-only is said in the preview of an action that rewrites it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pmem_tui.core import lifecycle
from pmem_tui.core.executor import apply


def test_a_read_only_index_is_said_before_it_is_replaced_and_keeps_its_mode(memory: Path) -> None:
    """Found in trial: a `chmod 444` `_index.md` was rewritten without a word."""
    index = memory / "_index.md"
    os.chmod(index, 0o444)
    plan = lifecycle.plan_archive(memory, "projects/alpha.md", "done")
    assert (
        "_index.md is read-only (mode 444); confirming replaces it all the same, keeping that mode."
        in plan.preview.notes
    )
    apply(plan, memory)
    assert stat.S_IMODE(index.stat().st_mode) == 0o444
    os.chmod(index, 0o644)
    assert not any(
        "read-only" in n for n in lifecycle.plan_recover(memory, "projects/alpha.md").preview.notes
    )
