"""A CRLF file loads exactly like its LF twin: the 8,000-token skip too (the file's size counted CRLF as two
characters, so a file just under the limit with LF endings was skipped with CRLF ones)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core.loader import DEFAULT_BUDGET, Budget, Status, load_permanent_memory

TODAY = dt.date(2026, 3, 1)


def write(project: Path, text: str) -> Path:
    folder = project / ".claude" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "permanent_memory.md").write_bytes(text.encode("utf-8"))
    return project


def outcome(project: Path, budget: Budget = DEFAULT_BUDGET) -> tuple[object, ...]:
    r = load_permanent_memory(project, today=TODAY, budget=budget)
    assert r.file is not None
    return r.status, r.step, r.skip_reason, r.block, r.used, r.file.tokens, [x.line for x in r.rows]


@pytest.mark.rule("PL-8", "PL-14")
def test_a_crlf_file_under_the_limit_is_not_skipped(tmp_path: Path) -> None:
    # 50 epics: IDs only is over the 120 target but within the 200 cap, so the file's size decides.
    text = "".join(
        f"## Epic: E-{i:02d} — intent {i}\nSummary {i} of this epic, a short line.\n" for i in range(50)
    )
    text += ("x" * 39 + "\n") * ((31_900 - len(text)) // 40)
    lf = outcome(write(tmp_path / "lf", text))
    crlf = outcome(write(tmp_path / "crlf", text.replace("\n", "\r\n")))
    assert lf[0] is Status.LOADED and lf[5] <= 8000
    assert crlf == lf


LINES = st.sampled_from(
    [
        "## Epic: A-1 — one",
        "## Epic: B-2 — two (2025-01-02)",
        "<!-- af-memory:v2 epic=A-1 confidence=0.5 items=1 -->",
        "<!-- af-memory:v2 epic=B-2 confidence=0.9 items=2 -->",
        "A summary line of some length, with words.",
        "**Completed:** 2025-10-01",
        "```",
        "",
        "- [decision] a body line (confidence: 0.8)",
        "x" * 60,
    ]
)


@pytest.mark.rule("PL-8", "PL-14")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=40), skip_over=st.integers(1, 400))
def test_line_endings_never_change_the_outcome(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], skip_over: int
) -> None:
    budget = Budget(target=20, cap=40, skip_file_over=skip_over)
    base = tmp_path_factory.mktemp("eol")
    text = "\n".join(lines) + "\n"
    results = [
        outcome(write(base / name, text.replace("\n", eol)), budget)
        for name, eol in (("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r"))
    ]
    assert results[1] == results[0] and results[2] == results[0]
