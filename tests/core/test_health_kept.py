"""Issue 16: health's secret signal also looks at the versions the history keeps, and proposes to forget one
(`secret-in-history`); only the blobs that are not the live content are read, each once (cached by id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmem_tui.cli.health import health_dict, health_lines
from pmem_tui.core.executor import apply
from pmem_tui.core.fix_planner import plan_fix
from pmem_tui.core.health import check_health, kept
from pmem_tui.core.history import log, record, rewrite
from tests.core.test_health_secret import LEAKY, PASSWORD, build_leaky


@pytest.fixture
def redacted(tmp_path: Path) -> Path:
    """The leaky memory recorded with its secrets, then redacted through the health fix (recorded too)."""
    root = build_leaky(tmp_path / "mem")
    assert record.record(root, create=True).commit is not None
    p = check_health(root, use_cache=False).proposal(LEAKY)
    assert p is not None and p.fix_action == "redact"
    apply(plan_fix(root, p), root)
    return root


def test_a_secret_only_in_a_kept_version_is_proposed_with_forget(redacted: Path) -> None:
    assert PASSWORD not in (redacted / LEAKY).read_text(encoding="utf-8")
    report = check_health(redacted)
    p = report.proposal(LEAKY)
    assert p is not None and p.kinds == ("secret-in-history",) and p.category == "keep"
    first = log.versions(redacted, LEAKY)[-1]
    assert p.fix_action == "forget" and p.fix == first.id
    assert p.signals[0].detail == (
        f"its kept version {first.id[:8]} has lines 5, 7 that look like a secret (AWS access key, password)"
    )
    shown = "\n".join(health_lines(report)) + json.dumps(health_dict(report))
    assert PASSWORD not in shown
    assert f"history forget {LEAKY} --version {first.id[:12]}" in shown


def test_forget_clears_it_and_the_cached_report_follows(redacted: Path) -> None:
    p = check_health(redacted).proposal(LEAKY)
    assert p is not None and p.fix is not None
    rewrite.apply_forget(redacted, rewrite.plan_forget(redacted, LEAKY, p.fix))
    assert check_health(redacted).proposal(LEAKY) is None  # not the report cached before the forget


def test_each_kept_blob_is_screened_once(redacted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert kept.kept_secrets(redacted)
    calls: list[str] = []
    monkeypatch.setattr(kept, "find_secrets", lambda text, screened: calls.append(text) or [])
    again = kept.kept_secrets(redacted)
    assert [k.path for k in again] == [LEAKY] and calls == []  # from the cache, by blob id


def test_the_live_content_and_a_memory_without_history_are_not_read_again(tmp_path: Path) -> None:
    root = build_leaky(tmp_path / "mem")
    assert kept.kept_secrets(root) == []  # no history: nothing kept
    record.record(root, create=True)
    assert kept.kept_secrets(root) == []  # the secret is the live content: the `secret` signal's
    p = check_health(root, use_cache=False).proposal(LEAKY)
    assert p is not None and "secret-in-history" not in p.kinds


def test_a_damaged_store_has_no_kept_secret(redacted: Path) -> None:
    ref = redacted / ".pmem/history/refs/heads/main"
    ref.write_text("0" * 40 + "\n")
    assert kept.kept_secrets(redacted) == []
