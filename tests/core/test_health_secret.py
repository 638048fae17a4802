"""The `secret` signal: secrets already in memory files, named by file, line and kind (never by value),
fixed by a save of the file with only the secret's bytes replaced, through the save preview."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import time
from pathlib import Path

import pytest

from pmem_tui.cli.health import health_dict, health_lines
from pmem_tui.core import cache
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.fix_planner import plan_fix
from pmem_tui.core.health import HealthReport, check_health, signals
from pmem_tui.core.secrets import REDACTED, find_secrets, redact_secrets
from tests.core.test_health import TODAY, age, build
from tests.core.test_secrets import NEGATIVES, POSITIVES, fake


@pytest.fixture(autouse=True)
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's clock starts 10 s from now, so the files a test wrote (whose ctime is now, whatever `age`
    does to their mtime) are out of the racy window (`cache.fresh`), as in the scan cache's tests."""
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)


KEY = fake("AKIA·IOSFODNN7EXAMPLE")
PASSWORD = "hunter22"
LEAKY = "projects/leaky.md"
LEAKY_TEXT = (
    f"# Leaky\n\nDeploy notes.\n\n- aws key id: {KEY} (prod)\n- nothing here\n- db password: {PASSWORD}\n"
)
LEAKY_LINE = f"- [Leaky]({LEAKY}) — deploy notes\n"


def build_leaky(root: Path) -> Path:
    """The planted memory of `test_health`, plus an indexed file holding two secrets."""
    build(root)
    (root / LEAKY).write_text(LEAKY_TEXT, encoding="utf-8")
    with (root / "_index.md").open("a", encoding="utf-8") as index:
        index.write(LEAKY_LINE)
    age(root, LEAKY, 3)
    age(root, "_index.md", 1)
    return root


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    return build_leaky(tmp_path / "mem")


def outputs(report: HealthReport) -> str:
    return "\n".join(health_lines(report)) + json.dumps(health_dict(report)) + repr(report)


def test_a_secret_is_proposed_with_its_file_line_and_kind_never_its_value(
    leaky: Path, tmp_path: Path
) -> None:
    report = check_health(leaky, use_cache=False)
    p = report.proposal(LEAKY)
    assert p is not None and p.kinds == ("secret", "secret") and p.category == "keep"
    assert [s.detail for s in p.signals] == [
        "line 5 looks like a secret (AWS access key)",
        "line 7 looks like a secret (password)",
    ]
    assert (p.fix_action, p.fix) == ("redact", "lines 5, 7")
    assert p.certainty == 0.9
    assert KEY not in outputs(report) and PASSWORD not in outputs(report)
    # Every other proposal is what it is in the same memory without the secret file.
    without = check_health(build(tmp_path / "plain"), use_cache=False)
    assert [q for q in report.proposals if q.path != LEAKY] == [
        dataclasses.replace(q, n=q.n + (q.n >= p.n)) for q in without.proposals
    ]


def test_the_secret_comes_back_from_both_caches(leaky: Path) -> None:
    cold = check_health(leaky)
    warm = check_health(leaky)
    next_day = check_health(leaky, today=TODAY + dt.timedelta(days=1))
    assert warm.stats.cache == "report" and next_day.stats.cache == "features"
    assert next_day.stats.cache_hits == cold.stats.files
    for report in (warm, next_day):
        assert report.proposal(LEAKY) == cold.proposal(LEAKY)


def test_the_fix_is_a_save_with_only_the_secret_bytes_redacted(leaky: Path) -> None:
    p = check_health(leaky, use_cache=False).proposal(LEAKY)
    assert p is not None
    before = (leaky / LEAKY).read_bytes()
    plan = plan_fix(leaky, p)
    assert (
        plan.action == "save" and plan.title == f"Save {LEAKY}" and (leaky / LEAKY).read_bytes() == before
    )  # planning changes nothing
    preview = repr(plan.preview)
    assert KEY not in preview and PASSWORD not in preview  # the preview shows where, never what
    diff = "\n".join(plan.preview.diffs[0].unified())
    assert "-- aws key id: <secret> (prod)" in diff and "+- aws key id: [redacted] (prod)" in diff
    assert "-- db password: <secret>" in diff and "+- db password: [redacted]" in diff
    apply(plan, leaky)
    after = (leaky / LEAKY).read_text(encoding="utf-8")
    assert after == LEAKY_TEXT.replace(KEY, REDACTED).replace(PASSWORD, REDACTED)
    again = check_health(leaky, use_cache=False).proposal(LEAKY)
    assert again is None or "secret" not in again.kinds
    with pytest.raises(Refused, match="no secret any more"):
        plan_fix(leaky, p)


def test_an_orphan_with_a_secret_is_redacted_first(leaky: Path) -> None:
    text = (leaky / "_index.md").read_text(encoding="utf-8").replace(LEAKY_LINE, "")
    (leaky / "_index.md").write_text(text, encoding="utf-8")
    p = check_health(leaky, use_cache=False).proposal(LEAKY)
    assert p is not None and p.kinds == ("secret", "secret", "orphan") and p.fix_action == "redact"


def test_the_signal_is_one_row_of_the_table() -> None:
    # A live secret's redaction comes before forgetting kept ones: its second step forgets them all.
    fixes = ("secret", "secret-in-history", "orphan", "dead-route", "duplicate-route", "invalid-summary")
    assert signals.SIGNAL_KINDS[-6:] == fixes
    row = next(k for k in signals.KINDS if k.name == "secret")
    assert row.category == "keep" and "never its value" in row.reason


def test_every_secret_shape_sends_its_file_to_the_detector(tmp_path: Path) -> None:
    """The sketch's gate (a secret-sounding word, a token-long word, a URL) lets every known shape through."""
    root = build(tmp_path / "mem")
    for i, (line, _kind) in enumerate(POSITIVES):
        (root / f"notes/s{i}.md").write_text(f"# Note {i}\n\nsome words here\n{line}\n", encoding="utf-8")
    report = check_health(root, use_cache=False)
    for i, (line, kind) in enumerate(POSITIVES):
        p = report.proposal(f"notes/s{i}.md")
        assert p is not None and p.signals[0].detail == f"line 4 looks like a secret ({kind})", line


def test_screened_scan_finds_what_the_full_scan_finds() -> None:
    lines = [line for line, _ in POSITIVES] + NEGATIVES
    text = "\n".join(lines)
    assert find_secrets(text, screened=True) == find_secrets(text)
    for line in lines:
        assert find_secrets(line, screened=True) == find_secrets(line)


@pytest.mark.parametrize(("line", "kind"), POSITIVES)
def test_redaction_leaves_no_secret_and_keeps_the_rest(line: str, kind: str) -> None:
    text = f"# Notes\n\nbefore\n{line}\nafter\n"
    redacted = redact_secrets(text)
    assert find_secrets(redacted) == []
    assert redacted.startswith("# Notes\n\nbefore\n") and redacted.endswith("\nafter\n")
    assert REDACTED in redacted


def test_a_private_key_body_is_redacted_with_its_header() -> None:
    body = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\nAbCdEf0123456789ghijkl\n"
    text = fake("intro\n-----BEGIN RSA PRIV·ATE KEY-----\n") + body + "-----END RSA PRIVATE KEY-----\nend\n"
    redacted = redact_secrets(text)
    assert "MIIEow" not in redacted and "AbCdEf" not in redacted
    assert redacted == f"intro\n{REDACTED}\n{REDACTED}\n-----END RSA PRIVATE KEY-----\nend\n"


@pytest.mark.parametrize(
    ("texts", "sent"),
    [
        (["# API design\n\nThe public API changed; see the api notes.\n"], [False]),
        (["api_key: 9f8e7d6c"], [True]),
        (["OPENAI API-Key = x"], [True]),
        (["the API keys: 'abc'"], [True]),  # detect-secrets' `api_?key\w*`
        (["api\nkey"], [True]),
        (["apikey"], [True]),
        (["the api", "key points"], [False, False]),  # "api" ends one file, "key" starts the next
    ],
)
def test_api_sends_a_file_to_the_detector_only_before_a_key_word(texts: list[str], sent: list[bool]) -> None:
    from pmem_tui.core.health import sketch
    from pmem_tui.core.health.text import H_SECRET

    hints = sketch.sketch([t.encode() for t in texts]).hints.tolist()
    assert [bool(h & H_SECRET) for h in hints] == sent


@pytest.mark.rule("PM-CORE-6")
@pytest.mark.parametrize(
    ("before", "after"), [("\r\n", "\n"), ("\n", "\r\n")], ids=["CRLF to LF", "LF to CRLF"]
)
def test_a_save_that_changes_only_line_endings_removes_no_secret(before: str, after: str) -> None:
    """The secret's line was compared with its "\\r", so a save that only turned CRLF into LF (or back) was
    said to have removed it. (The `e` flow cannot reach this today: `plan_save` refuses any text that still
    holds a secret, so the wrong note was never shown; the check is right on its own now.)"""
    from pmem_tui.core.fix_planner import removes_secret

    lines = ["# Deploy keys", "", "- db password: hunter22", "Where the keys live.", ""]
    assert not removes_secret(before.join(lines), after.join(lines))
    assert removes_secret(before.join(lines), after.join(lines[:2] + lines[3:]))
