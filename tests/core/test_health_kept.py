"""Issue 16: health's secret signal also looks at the versions the history keeps, and proposes to forget one
(`secret-in-history`); only the blobs that are not the live content are read, each once (cached by id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmem_tui.cli.health import health_dict, health_lines
from pmem_tui.core.errors import Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.fix_planner import plan_fix, secret_forgets
from pmem_tui.core.health import check_health, kept
from pmem_tui.core.history import log, record, rewrite
from tests.core.history_git import GIT, git
from tests.core.test_health_secret import LEAKY, LEAKY_TEXT, PASSWORD, build_leaky


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


def _recorded_twice(tmp_path: Path) -> Path:
    """The leaky memory recorded, then changed by an agent with the secret kept and recorded again: two
    versions of the file hold the secret (the live one and an earlier one)."""
    root = build_leaky(tmp_path / "mem")
    assert record.record(root, create=True).commit is not None
    (root / LEAKY).write_text(LEAKY_TEXT + "- one more line\n", encoding="utf-8")
    assert record.record(root).commit is not None
    return root


@pytest.mark.rule("PM-CORE-6")
def test_the_redact_preview_says_the_history_keeps_the_secret_and_how_to_forget_it(tmp_path: Path) -> None:
    """Found in trial: the preview said "nothing else changes" while the history kept the secret."""
    root = _recorded_twice(tmp_path)
    p = check_health(root, use_cache=False).proposal(LEAKY)
    assert p is not None and p.fix_action == "redact"
    plan = plan_fix(root, p)
    notes = " ".join(plan.preview.notes)
    assert "The secret stays in pmem-tui's history (.pmem/history)" in notes
    assert (
        "the version on disk now (recorded before this save) and 1 earlier version of it still hold" in notes
    )
    assert f"`pmem-tui history forget {LEAKY} --version V`" in notes
    assert "stays in pmem-tui's history" in plan.preview.recovery
    assert PASSWORD not in repr(plan.preview)


def _redacted_step_two(tmp_path: Path) -> tuple[Path, rewrite.ForgetAllPlan]:
    """`_recorded_twice`, redacted through the health fix (step 1), and its step 2 planned."""
    root = _recorded_twice(tmp_path)
    p = check_health(root, use_cache=False).proposal(LEAKY)
    assert p is not None
    apply(plan_fix(root, p), root)
    plan = secret_forgets(root, LEAKY)
    assert plan is not None
    return root, plan


@pytest.mark.rule("PM-CORE-6")
def test_after_a_redaction_every_version_holding_the_secret_is_forgotten_at_once(tmp_path: Path) -> None:
    root, plan = _redacted_step_two(tmp_path)
    assert len(plan.versions) == 2 and len(plan.blobs) == 2
    assert plan.others == () and plan.live == ()
    lines = "\n".join(plan.lines())
    assert f"Forget 2 contents of {LEAKY} from the history" in lines and PASSWORD not in lines
    assert rewrite.apply_forget_all(root, plan) == f"2 contents of {LEAKY} are gone from the history."
    for v in log.versions(root, LEAKY):
        assert v.kind == "deleted" or PASSWORD.encode() not in log.version_bytes(root, v.id, LEAKY)
    if GIT is not None:
        assert all(git(root, "cat-file", "-e", b).returncode != 0 for b in plan.blobs)
    assert secret_forgets(root, LEAKY) is None
    again = check_health(root, use_cache=False).proposal(LEAKY)
    assert again is None or not {"secret", "secret-in-history"} & set(again.kinds)
    assert PASSWORD not in (root / LEAKY).read_text(encoding="utf-8")


def _with_a_copy(tmp_path: Path) -> tuple[Path, str, str]:
    """The review's history: LEAKY with secret A recorded, then secret B, then copied to a second file, then
    the copy cleaned and a line added to LEAKY (B still in it): B's newest version is the copy's."""
    root = build_leaky(tmp_path / "mem")
    dup = "projects/dup.md"
    assert record.record(root, create=True).commit is not None
    b_text = LEAKY_TEXT.replace(PASSWORD, "correcthorse99")
    (root / LEAKY).write_text(b_text, encoding="utf-8")
    assert record.record(root).commit is not None
    (root / dup).write_text(b_text, encoding="utf-8")
    assert record.record(root).commit is not None
    (root / dup).write_text("# Dup\n\nNothing secret.\n", encoding="utf-8")
    (root / LEAKY).write_text(b_text + "- one more line\n", encoding="utf-8")
    assert record.record(root).commit is not None
    return root, dup, "correcthorse99"


@pytest.mark.rule("PM-CORE-6")
def test_step_two_forgets_a_content_another_file_also_had_and_names_that_file(tmp_path: Path) -> None:
    """Found in review: the kept secret's content B was credited to the copy (its newest path), so step 2,
    keeping only this file's entries, left B in the history (`history show` of an old version printed it)."""
    root, dup, second = _with_a_copy(tmp_path)
    p = check_health(root, use_cache=False).proposal(LEAKY)
    assert p is not None and p.fix_action == "redact"
    apply(plan_fix(root, p), root)
    plan = secret_forgets(root, LEAKY)
    assert plan is not None and len(plan.versions) == 3  # A, B, and B with the line (redacted since)
    assert plan.others == (dup,)
    lines = " ".join(" ".join(plan.lines()).split())
    assert f"The same content was also kept as {dup}: the versions of that file holding it go too." in lines
    # The plan counts the records holding the contents from their changes: as many as their trees say.
    trees = [log._tree_map(log._Reader(root), r.id) for r in log.records(root)]
    assert plan.records == sum(1 for files in trees if plan.blobs & set(files.values()))
    rewrite.apply_forget_all(root, plan)
    for path in (LEAKY, dup):
        for v in log.versions(root, path):
            if v.kind != "deleted":
                data = log.version_bytes(root, v.id, path)
                assert PASSWORD.encode() not in data and second.encode() not in data
    if GIT is not None:
        assert all(git(root, "cat-file", "-e", b).returncode != 0 for b in plan.blobs)


@pytest.mark.rule("PM-CORE-6")
def test_step_two_refuses_when_the_history_changed_since_its_preview(tmp_path: Path) -> None:
    """Found in review: step 2 was never checked again before it ran."""
    root, plan = _redacted_step_two(tmp_path)
    # An agent writes a secret again and it is recorded: the preview did not see that version.
    (root / LEAKY).write_text(LEAKY_TEXT.replace(PASSWORD, "n3wsecret77"), encoding="utf-8")
    assert record.record(root).commit is not None
    before = [v.id for v in log.versions(root)]
    with pytest.raises(Refused, match=f"The history of {LEAKY} changed since the preview; nothing was"):
        rewrite.apply_forget_all(root, plan, lambda: secret_forgets(root, LEAKY))
    assert [v.id for v in log.versions(root)] == before
    # Without a replan, the same contents are planned again: a record holding one of them has changed too.
    other = secret_forgets(root, LEAKY)
    assert other is not None and other != plan
    rewrite.apply_forget_all(root, other)
    with pytest.raises(Refused, match="changed since the preview"):
        rewrite.apply_forget_all(root, other)
