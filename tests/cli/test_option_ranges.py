"""Every numeric option has a range and every string option its edges: one sentence, never a traceback.

Out of range: a usage error (exit 2) for `--inactive-days`, `PMEM_TUI_TODAY`, an empty or NUL path option;
a refusal (exit 1) for a `--reason` / `--index-line` the records or the index could not hold as one line,
or a `--from` that is not a regular file. The tree is unchanged either way.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.cli import main
from pmem_tui.core import lifecycle, records, user_input
from pmem_tui.core.errors import BadUsage, Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.model import ARCHIVE_INDEX
from pmem_tui.core.plan import WriteFile
from tests.conftest import tree_bytes, write

HUGE = "9" * 5000
LONG = "x" * (user_input.MAX_LINE_CHARS + 1)
# Pieces of the record format an adversarial reason may carry.
RECORD_SYNTAX = ["## ", "- ", "**Reason:**", "Reason: ", "|", "`", ":", "\t", "\u200d", "\\", "<!--", "-->"]

USAGE = [
    (["health", "--inactive-days", "1000000"], {}),
    (["health", "--inactive-days", "99999999999999999999"], {}),
    (["health", "--inactive-days", HUGE], {}),
    (["health", "--inactive-days", "0"], {}),
    (["health", "--inactive-days", "36501"], {}),
    (["health", "--inactive-days", "-3"], {}),
    (["health", "--inactive-days", ""], {}),
    (["health", "--inactive-days", " 5"], {}),
    (["health", "--inactive-days", "1_000"], {}),
    (["health", "--inactive-days", "\u0663"], {}),  # an Arabic-Indic digit: int() takes it, we do not
    (["status"], {"PMEM_TUI_TODAY": "0001-01-01"}),
    (["status"], {"PMEM_TUI_TODAY": "9999-12-31"}),
    (["status", "--json"], {"PMEM_TUI_TODAY": "garbage"}),
    (["health"], {"PMEM_TUI_TODAY": "1969-12-31"}),
    (["delete", "projects/old.md", "--yes"], {"PMEM_TUI_TODAY": "9999-12-25"}),
    (["status", "--root", ""], {}),
    (["status", "--root", "a\0b"], {}),
    (["archive", "projects/alpha.md", "--reason", "x", "--root", ""], {}),
    (["save", "notes/n.md", "--from", ""], {}),
    (["loader", "--project", ""], {}),
]

REFUSED = [
    ["archive", "projects/alpha.md", "--reason", "a\nb", "--yes"],
    ["archive", "projects/alpha.md", "--reason", "a\0b", "--yes"],
    ["archive", "projects/alpha.md", "--reason", "a\u2028b", "--yes"],
    ["archive", "projects/alpha.md", "--reason", "a\x85b", "--yes"],
    ["archive", "projects/alpha.md", "--reason", "right\u202eto left", "--yes"],
    ["archive", "projects/alpha.md", "--reason", "\udcff", "--yes"],
    ["archive", "projects/alpha.md", "--reason", LONG, "--yes"],
    ["archive", "projects/alpha.md", "--reason", " ", "--yes"],
    ["recover", "projects/old.md", "--index-line", "- projects/old.md — a\n- injected.md", "--yes"],
    ["recover", "projects/old.md", "--index-line", "", "--yes"],
    ["recover", "projects/old.md", "--index-line", "- projects/old.md " + LONG, "--yes"],
    ["save", "notes/n.md", "--from", "/dev/zero", "--yes"],
    ["save", "notes/n.md", "--from", "{root}", "--yes"],
]


@pytest.fixture
def root(memory: Path) -> Path:
    write(memory, "projects/old.md", "# Old\n\nOld.\n")
    index = memory / "_index.md"
    index.write_bytes(index.read_bytes() + "- projects/old.md — old\n".encode())
    apply(lifecycle.plan_archive(memory, "projects/old.md", "done"), memory)
    return memory


def _one_sentence(err: str) -> None:
    assert "Traceback" not in err and err.strip(), err
    last = err.strip().splitlines()[-1]
    assert last.startswith("pmem-tui"), err
    assert len(last) < 400, last  # a huge value is cut, not echoed


@pytest.mark.parametrize(("argv", "env"), USAGE, ids=lambda v: repr(v)[:40])
def test_out_of_range_is_bad_usage(
    root: Path, argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    before = tree_bytes(root)
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["--root", str(root), *argv]))
    assert exit_info.value.code == 2
    _one_sentence(capsys.readouterr().err)
    assert tree_bytes(root) == before


@pytest.mark.rule("PM-CORE-1")
@pytest.mark.parametrize("argv", REFUSED, ids=lambda v: repr(v)[:40])
def test_a_string_an_action_cannot_write_is_refused(
    root: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_bytes(root)
    assert main(["--root", str(root), *[a.replace("{root}", str(root)) for a in argv]]) == 1
    _one_sentence(capsys.readouterr().err)
    assert tree_bytes(root) == before


EDGES = [("1", "1970-01-01"), ("36500", "1970-01-01"), ("36500", "9000-12-31")]


@pytest.mark.parametrize(("days", "today"), EDGES)
def test_the_edges_of_the_ranges_work(
    root: Path, days: str, today: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", today)
    assert main(["--root", str(root), "health", "--no-cache", "--inactive-days", days]) == 0
    assert main(["--root", str(root), "delete", "projects/old.md"]) == 0  # its 30-day deadline is a real date
    assert "Traceback" not in capsys.readouterr().err


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_any_days_value_is_a_number_in_range_or_bad_usage(text: str) -> None:
    try:
        n = user_input.parse_days(text)
    except BadUsage as err:
        assert "\n" not in str(err)
    else:
        assert 1 <= n <= user_input.MAX_INACTIVE_DAYS and text == str(n).zfill(len(text))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=12), st.dates().map(dt.date.isoformat)))
def test_any_frozen_date_is_a_date_in_range_or_bad_usage(text: str) -> None:
    try:
        day = user_input.parse_today(text, "PMEM_TUI_TODAY")
    except BadUsage:
        return
    assert user_input.MIN_TODAY <= day <= user_input.MAX_TODAY and day.isoformat() == text
    # The deadline of a delete made that day, and the oldest inactivity cut-off, are real dates.
    assert day + dt.timedelta(days=30) > day - dt.timedelta(days=user_input.MAX_INACTIVE_DAYS)


@pytest.mark.rule("PM-ARC-5")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reason=st.lists(st.one_of(st.characters(), st.sampled_from(RECORD_SYNTAX)), max_size=20).map("".join))
def test_any_reason_is_refused_or_recorded_exactly(memory: Path, reason: str) -> None:
    """Whatever the reason, the planned record reads back with exactly that reason, and nothing else moves."""
    try:
        plan = lifecycle.plan_archive(memory, "projects/alpha.md", reason)
    except Refused as err:
        assert "\n" not in str(err)
        return
    text = next(op.content for op in plan.ops if isinstance(op, WriteFile) and op.path == ARCHIVE_INDEX)
    recs = records.parse_records(text.decode("utf-8"))  # valid UTF-8: no undecodable byte was written
    assert [r.reason for r in recs if r.path == "projects/alpha.md"] == [reason.strip()]
    assert len(recs) == 1


@pytest.mark.parametrize("text", ["99999999999999999999", "36501", "0"])
def test_a_whole_number_of_days_out_of_range_is_said_so(text: str) -> None:
    """Before: a number too long to convert was "not a whole number of days"."""
    with pytest.raises(BadUsage, match=r"must be from 1 to 36,500 days"):
        user_input.parse_days(text)
