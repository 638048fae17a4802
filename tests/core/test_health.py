"""The memory-health engine on planted corpora: every signal, the categories, the order, the cache."""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import random
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core import cache, index, summary
from pmem_tui.core.errors import LifecycleIncomplete, Refused
from pmem_tui.core.executor import apply
from pmem_tui.core.fix_planner import archive_reason, plan_fix
from pmem_tui.core.health import HealthReport, Proposal, check_health
from pmem_tui.core.health import sketch as sk
from pmem_tui.core.health.features import index_routes
from pmem_tui.core.health.text import _PLAIN_SUMMARY, _summary_info, extract_facts, normalized_text
from pmem_tui.core.health_cache import FEATURES_FILE, REPORT_FILE
from pmem_tui.core.lifecycle import plan_purge, propose_index_line
from pmem_tui.core.records import empty_archive_index
from pmem_tui.core.tree import scan
from tests.conftest import FROZEN_TODAY, cache_file, write


@pytest.fixture(autouse=True)
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's clock starts 10 s from now, so the files a test wrote (whose ctime is now, whatever `age`
    does to their mtime) are out of the racy window (`cache.fresh`), as in the scan cache's tests."""
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)


TODAY = FROZEN_TODAY
REPO = Path(__file__).resolve().parents[2]

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "importer",
    "catalogue",
    "release",
    "budget",
    "vendor",
    "migration",
    "schema",
    "review",
    "planning",
    "customer",
    "invoice",
    "metric",
    "latency",
    "cluster",
    "backup",
    "restore",
    "deploy",
    "rollout",
    "feature",
    "flag",
    "search",
    "ranking",
    "payment",
    "refund",
    "ledger",
    "audit",
    "report",
    "weekly",
    "sprint",
    "design",
    "contract",
    "renewal",
    "hiring",
    "onboarding",
    "security",
]


def prose(seed: int, words: int = 260) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(words):
        out.append(rng.choice(WORDS))
        if i % 12 == 11:
            out[-1] += "."
    return " ".join(out)


def edit(text: str, rate: float, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(w if rng.random() >= rate else rng.choice(WORDS) + "x" for w in text.split(" "))


def age(root: Path, rel: str, days: int) -> None:
    """Set a file's mtime to noon, `days` before the frozen today."""
    stamp = dt.datetime.combine(TODAY - dt.timedelta(days=days), dt.time(12)).timestamp()
    os.utime(root / rel, (stamp, stamp))


CORE_TEXT = "# Profile\n\n" + prose(1, 200) + "\n"
BASE = "# Standup notes\n\n" + prose(2, 300) + "\n"

# path -> (text, days since modified, indexed)
PLANTED: dict[str, tuple[str, int, bool]] = {
    "projects/current.md": ("# Current\n\n" + prose(3) + "\n", 3, True),
    "projects/old.md": ("# Old\n\n" + prose(4) + "\n", 200, True),
    "projects/stated-recent.md": ("# Stated\n\nUpdated: 2026-11-20\n\n" + prose(5) + "\n", 200, True),
    "projects/stated-old.md": ("# Stated old\n\nLast updated: 2026-07-01\n\n" + prose(6) + "\n", 300, True),
    "projects/front.md": ("---\nupdated: 2026-11-25\n---\n# Front\n\n" + prose(7) + "\n", 400, True),
    "notes/done.md": ("# Done\n\n**Status:** Done\n\n" + prose(8) + "\n", 5, True),
    "notes/cjk-done.md": ("# 项目\n\n状态：已完成\n\n" + "这是一个关于导入器的项目。" * 20 + "\n", 5, True),
    "notes/fm-status.md": ("---\nstatus: shipped\n---\n# Shipped\n\n" + prose(9) + "\n", 5, True),
    "notes/checklist.md": ("# Tasks\n\n- [x] write\n- [X] review\n- [x] ship\n", 5, True),
    "notes/partial.md": ("# Tasks\n\n- [x] write\n- [ ] review\n", 5, True),
    "notes/wip.md": ("# WIP\n\nStatus: in progress\n\n" + prose(10) + "\n", 150, True),
    "notes/dup-a.md": ("# Copy\n\n" + prose(11) + "\n", 10, True),
    "notes/dup-b.md": ("# COPY!\n\n" + prose(11).upper() + "\n", 20, True),
    "notes/standup-a.md": (BASE, 10, True),
    "notes/standup-b.md": (edit(BASE, 0.03, 12), 40, True),
    "notes/overlap.md": ("# Me\n\n" + prose(1, 200) + "\n", 2, True),
    "notes/orphan.md": ("# Orphan note\n\n## Summary\n- one\n- two\n- three\n\n## More\ntext\n", 2, False),
    "notes/bad-summary.md": (
        "# Bad\n\n## Summary\n- only one\n- and two\n\n## Body\n" + prose(13) + "\n",
        2,
        True,
    ),
}


def build(root: Path) -> Path:
    write(root, "_core/profile.md", CORE_TEXT)
    write(root, "_core/preferences.md", "# Preferences\n\n- Short answers.\n")
    lines = ["# Index", ""]
    for rel, (text, _, indexed) in PLANTED.items():
        write(root, rel, text)
        if indexed:
            lines.append(f"- [{rel}]({rel}) — about {rel}")
    lines.append("- [Gone](notes/gone.md) — a file that was removed by hand")
    lines.append("- projects/current.md — listed twice")
    write(root, "_index.md", "\n".join(lines) + "\n")
    write(root, "_archive/_trash/notes/expired.md", "# Expired\n")
    write(root, "_archive/_trash/notes/fresh.md", "# Fresh\n")
    write(
        root,
        "_archive/_index.md",
        empty_archive_index()
        + "\n## notes/expired.md\n- Original path: `notes/expired.md`\n- Index line: (not recorded)\n"
        "- Archived: 2026-09-01\n- Reason: old\n- Deleted: 2026-10-01\n- Recovery deadline: 2026-10-31\n"
        "\n## notes/fresh.md\n- Original path: `notes/fresh.md`\n- Index line: (not recorded)\n"
        "- Archived: 2026-11-01\n- Reason: old\n- Deleted: 2026-11-20\n- Recovery deadline: 2026-12-20\n",
    )
    for rel, (_, days, _) in PLANTED.items():
        age(root, rel, days)
    for rel in (
        "_core/profile.md",
        "_core/preferences.md",
        "_index.md",
        "_archive/_index.md",
        "_archive/_trash/notes/expired.md",
        "_archive/_trash/notes/fresh.md",
    ):
        age(root, rel, 1)
    return root


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return build(tmp_path / "mem")


@pytest.fixture
def report(planted: Path) -> HealthReport:
    return check_health(planted, use_cache=False)


def by_path(report: HealthReport) -> dict[str, Proposal]:
    return {p.path: p for p in report.proposals}


def kinds(report: HealthReport, path: str) -> set[str]:
    p = report.proposal(path)
    return set() if p is None else set(p.kinds)


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder below root except the tool's .pmem/ (bytes and mtime_ns)."""
    out: dict[str, tuple[bytes, int]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] == ".pmem":
            continue
        st = path.lstat()
        out[rel] = (path.read_bytes() if path.is_file() else b"<dir>", st.st_mtime_ns)
    return out


# -- signals -------------------------------------------------------------------------------------------------


@pytest.mark.rule("PM-HEALTH-2")
@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("projects/old.md", "inactive"),
        ("projects/stated-old.md", "inactive"),
        ("notes/done.md", "concluded"),
        ("notes/cjk-done.md", "concluded"),
        ("notes/fm-status.md", "concluded"),
        ("notes/checklist.md", "concluded"),
        ("notes/overlap.md", "overlaps-core"),
        ("notes/orphan.md", "orphan"),
        ("notes/gone.md", "dead-route"),
        ("projects/current.md", "duplicate-route"),
        ("notes/bad-summary.md", "invalid-summary"),
    ],
)
def test_each_signal_is_found(report: HealthReport, path: str, kind: str) -> None:
    assert kind in kinds(report, path)


@pytest.mark.rule("PM-HEALTH-2")
def test_exact_and_near_duplicates_name_the_other_file(report: HealthReport) -> None:
    dup = [p for p in report.proposals if "duplicate" in p.kinds]
    assert [p.path for p in dup] == ["notes/dup-b.md"]  # the older of two indexed copies
    assert "identical to notes/dup-a.md" in dup[0].reason
    near = [p for p in report.proposals if "near-duplicate" in p.kinds]
    assert [p.path for p in near] == ["notes/standup-b.md"]
    signal = next(s for s in near[0].signals if s.kind == "near-duplicate")
    assert signal.other == "notes/standup-a.md"
    assert signal.score is not None and 0.9 <= signal.score < 1.0
    assert f"{int(signal.score * 100)}% similar to notes/standup-a.md" in near[0].reason
    assert [(p.a, p.b) for p in report.near_pairs] == [("notes/standup-a.md", "notes/standup-b.md")]


def test_quiet_files_are_not_proposed(report: HealthReport) -> None:
    props = by_path(report)
    for path in (
        "projects/stated-recent.md",
        "projects/front.md",
        "notes/partial.md",
        "notes/dup-a.md",
        "notes/standup-a.md",
    ):
        assert path not in props, props.get(path)


@pytest.mark.rule("PM-HEALTH-1", "PM-SAFE-5", "PM-CORE-4")
def test_core_and_control_files_are_never_candidates(tmp_path: Path) -> None:
    root = build(tmp_path / "mem")
    # a core file duplicated in core, an old core file, control-looking names: none may be proposed
    write(root, "_core/copy.md", CORE_TEXT)
    age(root, "_core/copy.md", 900)
    write(root, "notes/.hidden.md", "# Hidden\n\nStatus: done\n")
    write(root, "_archive/notes/archived.md", "# Archived\n\nStatus: done\n")
    report = check_health(root, use_cache=False)
    for p in report.proposals:
        assert p.path.startswith(("projects/", "notes/")), p
        assert not p.path.startswith(("_core", "_archive", "_index")) and "/." not in p.path
        assert all(s.other is None or not s.other.startswith("_archive") for s in p.signals)
    assert report.stats.files == len(PLANTED)


# -- dates ---------------------------------------------------------------------------------------------------


def test_inactivity_uses_the_newest_of_mtime_and_stated_date(report: HealthReport) -> None:
    old = next(s for s in by_path(report)["projects/old.md"].signals if s.kind == "inactive")
    assert old.detail == "no change for 200 days (file modified 2026-05-14)"
    stated = next(s for s in by_path(report)["projects/stated-old.md"].signals if s.kind == "inactive")
    assert stated.detail == "no change for 152 days (the file states `Last updated: 2026-07-01`)"


def test_the_frozen_clock_decides_what_is_inactive(planted: Path) -> None:
    later = check_health(planted, today=TODAY + dt.timedelta(days=100), use_cache=False)
    assert "inactive" in kinds(later, "projects/stated-recent.md")
    assert "inactive" in kinds(later, "projects/front.md")
    sig = next(s for s in by_path(later)["projects/front.md"].signals if s.kind == "inactive")
    assert "front matter updated: 2026-11-25" in sig.detail
    tight = check_health(planted, inactive_days=180, use_cache=False)
    assert "inactive" in kinds(tight, "projects/old.md")
    assert "inactive" not in kinds(tight, "notes/wip.md")


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("# T\n\nUpdated: 2026-11-20\n", "2026-11-20"),
        ("# T\n\n- **Last updated:** 2026/11/21 (Sat)\n", "2026-11-21"),
        ("# T\n\n> Last-Modified: 22 Nov 2026\n", "2026-11-22"),
        ("---\ndate: 2026-01-02\nupdated: 2026-03-04\n---\n# T\n", "2026-03-04"),
        ("# 笔记\n\n更新时间：2026年11月23日\n", "2026-11-23"),
        ("# T\n\nUpdated 2026-11-24 by the agent\n", "2026-11-24"),
        ("# T\n\nUpdated: 2026-01-01\nUpdated: 2026-02-01\n", "2026-02-01"),
        ("# T\n\nWe updated the API on 2026-11-20.\n", None),
        ("# T\n\nUpdated the API docs 2026-11-20\n", None),
        ("# T\n\nUpdated: soon\n", None),
    ],
)
def test_stated_dates(text: str, stated: str | None) -> None:
    facts = extract_facts(text.encode())
    assert facts.stated == stated


# -- concluded -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("# T\n\nStatus: done\n", "done"),
        ("# T\n\n- **Status**: ✅ Completed (2026-11-01)\n", "Completed"),
        ("# T\n\nState: closed\n", "closed"),
        ("---\nstatus: superseded\n---\n# T\n", "superseded"),
        ("# 项目\n\n状态：已完成\n", "已完成"),
        ("# 项目\n\n**狀態：** 已關閉\n", "已關閉"),
        ("# 项目\n\n- 状态: 已放弃\n", "已放弃"),
        ("# T\n\nStatus: abandoned\n", "abandoned"),
        ("# T\n\nStatus: not done yet\n", None),
        ("# T\n\nStatus: in progress\n\nLater: Status: done\n", None),
        ("# T\n\nThe status is done.\n", None),
    ],
)
def test_concluded_status(text: str, status: str | None) -> None:
    assert extract_facts(text.encode()).status == status


def test_open_status_keeps_an_inactive_file(report: HealthReport) -> None:
    wip = by_path(report)["notes/wip.md"]
    assert wip.category == "keep"
    assert wip.kinds == ("inactive",)
    assert "in progress" in wip.reason


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("- [x] a\n- [x] b\n", True),
        ("* [X] a\n1. [x] b\n  - [x] c\n", True),
        ("- [x] only one\n", False),
        ("- [x] a\n- [ ] b\n", False),
        ("- [x] a\n- [x] b\n```\n- [ ] in code\n```\n", True),
    ],
)
def test_checklist(text: str, done: bool) -> None:
    assert extract_facts(text.encode()).checklist_done is done


# -- proposals -----------------------------------------------------------------------------------------------


@pytest.mark.rule("PM-HEALTH-3", "PM-ARC-2")
def test_categories(report: HealthReport) -> None:
    props = by_path(report)
    assert props["notes/dup-b.md"].category == "delete"  # an exact duplicate
    assert props["notes/standup-b.md"].category == "delete"  # 97% similar
    assert props["projects/old.md"].category == "archive"
    assert props["notes/done.md"].category == "archive"
    assert props["notes/orphan.md"].category == "keep"  # index drift alone: fix the index, keep the file
    assert props["notes/gone.md"].category == "keep"
    assert {p.category for p in report.proposals} <= {"keep", "archive", "delete"}


@pytest.mark.rule("PM-HEALTH-4")
def test_numbered_most_certain_first_one_line_reasons(report: HealthReport) -> None:
    assert [p.n for p in report.proposals] == list(range(1, len(report.proposals) + 1))
    certainties = [p.certainty for p in report.proposals]
    assert certainties == sorted(certainties, reverse=True)
    assert report.proposals[0].path == "notes/dup-b.md"
    for p in report.proposals:
        assert p.reason and "\n" not in p.reason and len(p.reason) <= 240
        assert 0.0 < p.certainty <= 0.99


def test_a_latin1_orphan_s_line_names_its_route_and_writes_no_replacement_character(planted: Path) -> None:
    """A note an agent wrote in Latin-1: its title and summary, decoded, show U+FFFD where the bytes are not
    UTF-8; the line proposed for `_index.md` leaves them out rather than write `Caf\ufffd` into the index."""
    (planted / "notes/latin1.md").write_bytes(b"# Caf\xe9 notes\n\nCaf\xe9 au lait, every morning.\n")
    line = propose_index_line(planted, "notes/latin1.md", "notes/latin1.md")
    assert line == "- notes/latin1.md"
    fix = by_path(check_health(planted, use_cache=False))["notes/latin1.md"]
    assert (fix.fix_action, fix.fix) == ("add", line)
    # Valid UTF-8 that holds U+FFFD itself keeps its title: the bytes decide, not the character.
    (planted / "notes/replacement.md").write_text("# The \ufffd sign\n\nWhat it means.\n", encoding="utf-8")
    assert propose_index_line(planted, "notes/replacement.md", "notes/replacement.md").startswith(
        "- [The \ufffd sign](notes/replacement.md)"
    )


def test_index_fixes(report: HealthReport, planted: Path) -> None:
    props = by_path(report)
    orphan = props["notes/orphan.md"]
    assert (orphan.fix_action, orphan.fix) == (
        "add",
        propose_index_line(planted, "notes/orphan.md", "notes/orphan.md"),
    )
    assert orphan.fix == "- [Orphan note](notes/orphan.md) — one"
    gone = props["notes/gone.md"]
    assert (gone.fix_action, gone.fix) == (
        "drop",
        "- [Gone](notes/gone.md) — a file that was removed by hand",
    )
    twice = props["projects/current.md"]
    assert (twice.fix_action, twice.fix) == ("drop", "- projects/current.md — listed twice")
    assert props["notes/bad-summary.md"].fix is None  # a summary is never written automatically (PM-SAVE-5)


@pytest.mark.rule("PM-HEALTH-5", "PM-ARC-5", "PM-DEL-1")
def test_an_accepted_delete_is_archive_then_delete(planted: Path) -> None:
    from pmem_tui.core.lifecycle import plan_archive, plan_delete

    dup = by_path(check_health(planted, use_cache=False))["notes/dup-b.md"]
    assert dup.category == "delete"
    reason = archive_reason(dup)
    assert reason == "health check: identical to notes/dup-a.md" and "\n" not in reason
    with pytest.raises(Refused):
        plan_delete(planted, dup.path)  # an active file is archived first (PM-DEL-1)
    apply(plan_archive(planted, dup.path, reason), planted)
    apply(plan_delete(planted, dup.path), planted)
    assert (planted / "_archive/_trash/notes/dup-b.md").exists()
    assert "notes/dup-b.md" not in {p.path for p in check_health(planted, use_cache=False).proposals}


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-3", "PM-SAFE-6")
def test_fixes_go_through_a_preview_and_apply_one_by_one(planted: Path) -> None:
    report = check_health(planted, use_cache=False)
    props = by_path(report)
    before = snapshot(planted)
    plan = plan_fix(planted, props["notes/orphan.md"])
    assert plan.preview.index_added == ("- [Orphan note](notes/orphan.md) — one",)
    assert snapshot(planted) == before  # planning changes nothing
    apply(plan, planted)
    gone = plan_fix(planted, props["notes/gone.md"])
    assert gone.outcome == "Dropped 1 line for notes/gone.md from _index.md."  # counted in words
    apply(gone, planted)
    apply(plan_fix(planted, props["projects/current.md"]), planted)
    problems = {(p.kind, p.path) for p in scan(planted).problems}
    assert not problems & {
        ("orphan", "notes/orphan.md"),
        ("dead-route", "notes/gone.md"),
        ("duplicate-route", "projects/current.md"),
    }
    assert [e.route for e in index.parse_index((planted / "_index.md").read_text())].count(
        "projects/current.md"
    ) == 1
    with pytest.raises(Refused):
        plan_fix(planted, props["notes/orphan.md"])  # already added
    with pytest.raises(Refused):
        plan_fix(planted, props["notes/done.md"])  # no fix


@pytest.mark.rule("PM-HEALTH-6", "PM-DEL-5")
def test_expired_trash_is_listed_apart_and_never_removed(planted: Path) -> None:
    report = check_health(planted)
    assert [(t.path, t.location, t.deadline) for t in report.expired_trash] == [
        ("notes/expired.md", "_archive/_trash/notes/expired.md", dt.date(2026, 10, 31))
    ]
    assert [t.path for t in report.expired_trash] == [t.path for t in scan(planted).expired_trash]
    assert all(p.path != "notes/expired.md" for p in report.proposals)
    assert (planted / "_archive/_trash/notes/expired.md").exists()
    assert [i for i in plan_purge(planted).items] == [
        "notes/expired.md"
    ]  # removal is purge's, confirmed apart
    cached = check_health(planted)  # the same from the cached report, record included
    assert cached.stats.cache == "report"
    assert cached.expired_trash == report.expired_trash


@pytest.mark.rule("PM-UPG-4")
def test_refused_while_the_lifecycle_structure_is_incomplete(planted: Path) -> None:
    (planted / "_archive/_trash/notes/expired.md").unlink()
    (planted / "_archive/_trash/notes/fresh.md").unlink()
    (planted / "_archive/_trash/notes").rmdir()
    (planted / "_archive/_trash").rmdir()
    before = snapshot(planted)
    with pytest.raises(LifecycleIncomplete, match="upgrade"):
        check_health(planted)
    assert snapshot(planted) == before
    assert not (planted / ".pmem").exists()


# -- reading only --------------------------------------------------------------------------------------------


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-3")
@pytest.mark.parametrize("use_cache", [True, False])
def test_nothing_is_written_touched_or_created(planted: Path, use_cache: bool) -> None:
    before = snapshot(planted)
    for _ in range(2):
        check_health(planted, use_cache=use_cache)
    assert snapshot(planted) == before
    assert not (planted / ".pmem").exists()
    folder = cache_file(planted, FEATURES_FILE).parent
    cached = {p.name for p in folder.iterdir()} if use_cache else set()
    assert cached == ({FEATURES_FILE, REPORT_FILE} if use_cache else set())
    assert folder.exists() is use_cache


# -- cache ---------------------------------------------------------------------------------------------------


def test_warm_run_reuses_the_report_and_reads_nothing(planted: Path) -> None:
    cold = check_health(planted)
    assert cold.stats.cache == "cold" and cold.stats.cache_written and cold.stats.read >= len(PLANTED)
    warm = check_health(planted)
    assert warm.stats.cache == "report" and warm.stats.read == 0
    assert warm.proposals == cold.proposals and warm.near_pairs == cold.near_pairs
    next_day = check_health(planted, today=TODAY + dt.timedelta(days=1))
    assert next_day.stats.cache == "features" and next_day.stats.cache_hits == len(PLANTED)
    assert next_day.stats.read <= 6  # core files and duplicate candidates only: no other memory file
    assert [p.path for p in next_day.proposals if "inactive" not in p.kinds] == [
        p.path for p in cold.proposals if "inactive" not in p.kinds
    ]


def test_a_changed_file_invalidates_its_cache_entry(planted: Path) -> None:
    check_health(planted)
    path = planted / "notes/partial.md"
    path.write_text("# Tasks\n\n- [x] write\n- [x] review\n- [x] ship\n", encoding="utf-8")
    age(planted, "notes/partial.md", 5)
    after = check_health(planted)
    assert after.stats.cache == "features"
    assert after.stats.cache_hits == len(PLANTED) - 1
    assert "concluded" in kinds(after, "notes/partial.md")
    # the same size and mtime but other content is not seen (by design); a new mtime is
    text = (planted / "notes/done.md").read_text(encoding="utf-8").replace("Done", "Open")
    (planted / "notes/done.md").write_text(text, encoding="utf-8")
    age(planted, "notes/done.md", 4)
    assert "concluded" not in kinds(check_health(planted), "notes/done.md")


def test_a_file_changed_just_now_is_read_again(planted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "clock", time.time_ns)  # the real clock: this test is about the racy window
    check_health(planted)
    (planted / "notes/done.md").write_text("# Done\n\nStatus: open\n", encoding="utf-8")  # mtime: now
    first = check_health(planted)
    assert "concluded" not in kinds(first, "notes/done.md")
    second = check_health(planted)  # still within the racy window: not trusted from the cache
    assert second.stats.cache == "features" and second.stats.read >= 1


@pytest.mark.parametrize(
    "change",
    ["nested note", "core ctime", "trash file", "index size"],
)
def test_the_report_is_reused_only_while_every_listed_stamp_is_the_same(planted: Path, change: str) -> None:
    """A warm run keys its stored report on the listing: a new note in a nested folder, a core file whose
    ctime alone moved (chmod), a new trash file or a changed `_index.md` each make the report run again."""
    check_health(planted)
    assert check_health(planted).stats.cache == "report"
    if change == "nested note":
        write(planted, "notes/deep/er/new.md", "# New\n\n" + prose(40) + "\n")
    elif change == "core ctime":
        core = next((planted / "_core").iterdir())
        core.chmod(0o600 if core.stat().st_mode & 0o777 != 0o600 else 0o644)
    elif change == "trash file":
        write(planted, "_archive/_trash/notes/gone.md", "# Gone\n")
    else:
        with (planted / "_index.md").open("a", encoding="utf-8") as fh:
            fh.write("\n")
    assert check_health(planted).stats.cache != "report"


def test_links_fifos_and_hidden_files_are_not_listed_nor_opened(planted: Path, tmp_path: Path) -> None:
    """What a warm run keys on is what a cold run reads: a FIFO, a link (to a file or a folder outside the
    root) and a hidden file named like a note change nothing, and no run blocks on the FIFO."""
    check_health(planted)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n", encoding="utf-8")
    os.mkfifo(planted / "notes/pipe.md")
    (planted / "notes/link.md").symlink_to(outside / "secret.md")
    (planted / "projects/away").symlink_to(outside, target_is_directory=True)
    write(planted, "notes/.hidden.md", "# Hidden\n")
    warm = check_health(planted)
    assert warm.stats.cache == "report" and warm.stats.read == 0
    paths = {p.path for p in check_health(planted, use_cache=False).proposals}
    assert not {"notes/pipe.md", "notes/link.md", "notes/.hidden.md"} & paths
    assert not any(p.startswith("projects/away") for p in paths)


def test_a_listing_taken_before_gives_the_same_key(planted: Path) -> None:
    """`health` in the CLI hands the status probe's listing over (the tree listed once): the key is the
    same as a run that lists the tree itself, so either finds the other's report."""
    from pmem_tui.core import folder_reads
    from pmem_tui.core.health.check import _list

    listing: folder_reads.Listing = {}
    folder_reads.stamps_below(planted, "", listing=listing)
    listing = {k.removeprefix("/"): v for k, v in listing.items()}
    own, handed = _list(planted), _list(planted, listing)
    assert "notes" not in listing and "_core" not in listing  # walked from the listing, not listed again
    assert own == handed and own.active and own.core
    assert own.key(TODAY, 90) == handed.key(TODAY, 90)


def test_a_broken_cache_is_ignored(planted: Path) -> None:
    check_health(planted)
    cache_file(planted, FEATURES_FILE).write_bytes(b"{not json\n\x00")
    cache_file(planted, REPORT_FILE).write_text("[]", encoding="utf-8")
    report = check_health(planted)
    assert report.stats.cache == "cold" and report.stats.cache_written
    assert report.proposals == check_health(planted, use_cache=False).proposals


def test_a_cache_folder_that_is_a_symlink_is_not_used(planted: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = cache_file(planted, REPORT_FILE).parent
    folder.parent.mkdir(exist_ok=True)
    folder.symlink_to(elsewhere)
    report = check_health(planted)
    assert not report.stats.cache_written
    assert list(elsewhere.iterdir()) == []


# -- near duplicates: the parts ------------------------------------------------------------------------------


def test_numpy_banding_gives_the_same_candidates_as_datasketch() -> None:
    texts = [("# N\n\n" + prose(100 + i, 120)).encode() for i in range(60)]
    texts += [edit(t.decode(), 0.05, i).encode() for i, t in enumerate(texts[:20])]
    texts += [b"tiny", b""]
    batch = sk.sketch(texts)
    eligible = batch.shingle_counts >= sk.MIN_SHINGLES
    ours = sk.candidate_pairs(batch.signatures, eligible)
    theirs = sk.candidates_datasketch(batch.signatures, eligible)
    assert np.array_equal(ours, theirs)
    found = {tuple(p) for p in ours.tolist()}
    assert all((i, 60 + i) in found for i in range(20))


def test_estimated_jaccard_tracks_the_true_jaccard() -> None:
    a = prose(7, 400)
    b = edit(a, 0.1, 3)
    batch = sk.sketch([a.encode(), b.encode()])

    def grams(t: str) -> set[tuple[str, ...]]:
        w = normalized_text(t.encode()).decode().split()
        return {tuple(w[i : i + 3]) for i in range(len(w) - 2)}

    true = len(grams(a) & grams(b)) / len(grams(a) | grams(b))
    est = float(sk.estimated_jaccard(batch.signatures, np.array([[0, 1]]))[0])
    assert abs(est - true) < 0.15


def test_normalization_ignores_case_spacing_punctuation_and_splits_cjk() -> None:
    assert normalized_text(b"Hello,  WORLD!\n-- ok") == b"hello world ok"
    assert normalized_text("Ship it — now “please”".encode()) == b"ship it now please"
    assert normalized_text("已完成，项目。".encode()) == "已 完 成 项 目".encode()


def _hint_docs() -> st.SearchStrategy[str]:
    pieces = st.sampled_from(
        [
            "# Title\n",
            "Updated: 2026-01-02\n",
            "lastUpdated: 2026-01-03\n",
            "Status: done\n",
            "状态：已完成\n",
            "- [x] a\n",
            "- [✓] b\n",
            "## Summary\n- a\n- b\n- c\n",
            "## 摘要\n- 甲\n- 乙\n- 丙\n",
            "plain words here\n",
            "---\nstatus: closed\n---\n",
            "更新：2026年1月2日\n",
            "State: open\n",
            "Modified: 2026-02-02\n",
        ]
    )
    return st.lists(pieces, max_size=8).map("".join)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_hint_docs())
def test_sketch_hints_never_skip_a_fact(text: str) -> None:
    data = text.encode()
    hints = int(sk.sketch([data]).hints[0])
    assert extract_facts(data, hints) == extract_facts(data)


@settings(max_examples=200)
@given(
    title=st.text(alphabet="abc #*-", max_size=8),
    meta=st.lists(
        st.sampled_from(
            [
                "Updated: 2026-01-01",
                "Owner: me",
                "Key:",
                "A b: c d",
                "x: **y**",
                "---",
                "===",
                "Status: done",
                "Long key name here for the test: v",
                "",
            ]
        ),
        max_size=3,
    ),
    heading=st.sampled_from(["## Summary", "## summary", "## SUMMARY", "## 摘要", "## Summary ##"]),
    bullets=st.lists(st.text(alphabet="ab -*#1.>", min_size=0, max_size=6), max_size=8),
    blanks=st.integers(0, 2),
)
def test_plain_summary_shortcut_agrees_with_inspect_summary(
    title: str, meta: list[str], heading: str, bullets: list[str], blanks: int
) -> None:
    head = f"# {title}\n" + "".join(f"{m}\n" for m in meta) + "\n" * blanks
    text = head + heading + "\n" + "".join(f"- {b}\n" for b in bullets) + "\n" * blanks
    if _PLAIN_SUMMARY.match(text):
        info = summary.inspect_summary(text)
        assert _summary_info(text, text.lower(), ("summary", "摘要")) == (info.state.value, info.detail)


_INDEX_LINES = st.sampled_from(
    [
        "- [A](projects/a.md) — x",
        "- [A](projects/a.md)",
        "- [A](projects/a.md)x",
        "- [A](projects/a.md)- y",
        "- [A](projects/a.md) - y",
        "- [A](projects/a.md): y",
        "- [A](projects/a.md),y",
        "* [B b](notes/b-1.md) — z",
        "- [C](./notes/c.md) — c",
        "- [D](notes/.md) — d",
        "- [E](x/.persistent-memory/notes/e.md)",
        '- [F](notes/f.md "t") — f',
        "  - [G](notes/g.md)\t",
        "- notes/h.md — h",
        "```",
        "<!--",
        "-->",
        "---",
        "- [I](https://x/i.md)",
        "# Title",
        "",
        "- [J](notes/j.md)—j",
        "+ [K](notes/k%20k.md)",
        "1. [L](notes/l.md)",
        "- notes/m.md",
        "- notes/n.md: n",
        "- notes/o.md -o",
        "- notes/p.md - p",
        "- notes/q.md-",
        "- notes/r.md —",
        "* notes/s.mdx.md — s",
        "- notes/t.md.md",
        "- notes/u.md\tx",
        "- notes/v.md ：v",
        "- notes/w.md, w",
        "- x/.persistent-memory/notes/y.md — y",
        "- notes/.md",
        "- `notes/z.md` — z",
        "- **notes/aa.md** — aa",
        "- notes/bb.md:cc.md — d",
    ]
)


@settings(max_examples=300)
@given(st.lists(_INDEX_LINES, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_index_routes_agree_with_parse_index(lines: list[str], eol: str, bom: bool) -> None:
    text = ("\ufeff" if bom else "") + eol.join(lines) + (eol if lines else "")
    assert index_routes(text) == [(e.route, e.raw, e.line_no) for e in index.parse_index(text)]


# -- benchmarks, smoke-run small (the full runs are in benchmarks/) ------------------------------------------


def _load(name: str) -> ModuleType:
    path = REPO / "benchmarks" / f"{name}.py"
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


def test_near_duplicate_benchmark_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    assert _load("near_duplicates").main(["--files", "200", "--pairs", "12", "--check"]) == 0
    out = capsys.readouterr().out
    assert "| recall |" in out and "| precision |" in out


def test_health_speed_benchmark_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    assert _load("health_speed").main(["--files", "200", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    for row in ("scandir+stat floor", "read-all floor", "health cold", "health warm"):
        assert f"| {row}" in out
