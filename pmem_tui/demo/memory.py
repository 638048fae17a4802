"""A realistic sample memory for `pmem-tui --demo`, built in a folder of the caller's choice.

This is sample data creation, not a lifecycle action: the files are written directly. The archive
index is written in the one format pmem-tui itself writes (`records.format_record`).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

from pmem_tui.core import index, records
from pmem_tui.core.model import RECOVERY_DAYS, ArchiveRecord

PROFILE = """\
# Profile

- Name: Sam Rivera, backend engineer at a small logistics company.
- Works mostly in Python and Go; reviews infrastructure changes on Fridays.
- Time zone: Europe/Lisbon. Prefers asynchronous updates over meetings.
"""

PREFERENCES = """\
# Preferences

- Answer concisely; show the command first, the explanation after.
- Use metric units and ISO dates (2026-03-01).
- Never store secrets in memory; point to the password manager entry instead.
"""

ATLAS = """\
# Atlas routing service

Owner: Sam · Status: active

## Summary
- Atlas computes delivery routes for 40 depots; the Go rewrite went live in January.
- Decision: keep PostGIS for geometry, Redis only as a cache (no source of truth).
- p95 latency is 180 ms after the rewrite, down from 900 ms.
- Constraint: routes must be recomputed within 5 minutes of a depot change.

## Details

The service reads depot changes from the `depot-events` topic and writes routes to
`routes.v2`. Load tests live in `~/work/atlas/bench`.

| depot set | routes | p95 |
|---|---|---|
| north | 12k | 150 ms |
| south | 9k | 180 ms |

## Open questions
- Should weekend schedules get their own profile?
"""

BEACON = """\
# Beacon alerting

## Summary
- Beacon pages the on-call engineer when a depot goes silent for 10 minutes.
- Still on the old Python 3.8 runtime.

## Notes

Migration to the shared alerting platform was discussed but not scheduled.
"""

COBALT = """\
# Cobalt database migration

The 2024 migration from MySQL to PostgreSQL. It finished in November; this file kept the
cut-over checklist and the rollback plan, which were never needed.

- Cut-over took 2 h 10 min on a Sunday morning.
- Rollback plan: restore the MySQL snapshot and replay the binlog.
"""

STANDUP = """\
# Stand-up habits

## Summary
- Stand-up is at 09:30 Lisbon time, 15 minutes, cameras optional.
- Updates follow "done / next / blocked", one line each.
- Blockers get a follow-up thread, never a long discussion in the stand-up.
"""

READING = """\
# Reading list

- Designing Data-Intensive Applications, chapters 5 to 9 (replication, partitioning).
- The PostgreSQL documentation on logical replication.
- "How to Make Things Faster" notes from the platform team.
- Site Reliability Engineering, the chapter on alerting on symptoms.
"""

READING_COPY = """\
# Reading list

- Designing Data-Intensive Applications, chapters 5 to 9 (replication, partitioning).
- The PostgreSQL documentation on logical replication.
- "How to Make Things Faster" notes from the platform team.
- Site Reliability Engineering, the chapter on alerting.
"""

CJK = """\
# 部署检查清单

## 摘要
- 每次发布前在预发布环境跑完整的回归测试。
- 数据库迁移必须先在副本上演练一次。
- 发布窗口为周二和周四下午，避开月底结算。

## 细节

回滚脚本放在 `deploy/rollback.sh`，执行前先通知值班同事。
"""

SCRATCH = """\
# Scratch: depot outage timeline

Raw notes from the 3 March outage, not yet summarised or indexed.
- 10:02 north depot stopped sending events
- 10:14 Beacon paged on-call
- 10:40 root cause: expired TLS certificate on the depot gateway
"""

LEGACY_API = """\
# Legacy dispatch API

## Summary
- The v1 dispatch API served the mobile app until 2025.
- Retired after all clients moved to v2.
- Kept for reference: the field mapping table below.

| v1 field | v2 field |
|---|---|
| `drv_id` | `driver.id` |
"""

OLD_MEETING = """\
# Planning meeting, Q3

Agreed to freeze new features for two sprints and pay down alerting debt.
"""

EXPIRED_DRAFT = """\
# Draft: team offsite ideas

Half-written list from last year; superseded by the offsite plan.
"""

TEMP_BENCH = """\
# Temporary benchmark numbers

Numbers from a one-off load test; the real ones are in projects/atlas.md.
"""


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _age(path: Path, days: int) -> None:
    when = time.time() - days * 86400
    os.utime(path, (when, when))


def _archived(root: Path, text: str, record: ArchiveRecord) -> str:
    """Write an archived file where its record places it (the trash once deleted); its record, to append."""
    _write(root, f"{'_archive/_trash' if record.deleted else '_archive'}/{record.path}", text)
    return "\n" + records.format_record(record)


def _trashed(
    root: Path, text: str, entry: tuple[str, str, str], deleted: dt.date, days: int, reason: str
) -> str:
    """A file in the trash, archived `days` before it was deleted; its record, to append."""
    path, title, summary = entry
    line = index.make_line(path, title, summary)
    deadline = deleted + dt.timedelta(days=RECOVERY_DAYS)
    archived = deleted - dt.timedelta(days=days)
    record = ArchiveRecord(path, line, archived, reason, deleted=deleted, deadline=deadline)
    return _archived(root, text, record)


def build_demo(root: Path, today: dt.date) -> Path:
    """Create the sample memory at `root` (which must not exist yet) and return it."""
    root = Path(root)
    root.mkdir(parents=True)
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    _write(root, "_core/profile.md", PROFILE)
    _write(root, "_core/preferences.md", PREFERENCES)

    active = {
        "projects/atlas.md": (ATLAS, "Atlas routing service", "Go rewrite live, p95 180 ms; PostGIS", 2),
        "projects/beacon.md": (BEACON, "Beacon alerting", "pages on-call for silent depots; old runtime", 12),
        "projects/cobalt-migration.md": (COBALT, "Cobalt migration", "MySQL to Postgres, done 2024", 420),
        "notes/standup-habits.md": (STANDUP, "Stand-up habits", "09:30, done / next / blocked", 30),
        "notes/reading-list.md": (READING, "Reading list", "books and docs to read next", 60),
        "notes/reading-list-2.md": (READING_COPY, "Reading list (copy)", "same list, saved twice", 58),
        "notes/部署清单.md": (CJK, "部署检查清单", "发布前回归测试、迁移演练、发布窗口", 5),
    }
    lines = ["# Memory index", "", "## Projects"]
    for rel, (text, title, summary, days) in active.items():
        _age(_write(root, rel, text), days)
        if rel.startswith("notes/") and "## Notes" not in lines:
            lines += ["", "## Notes"]
        lines.append(index.make_line(rel, title, summary))
    # A dead route: listed, but the file is gone.
    lines.append(index.make_line("notes/ideas.md", "Ideas", "product ideas backlog"))
    (root / "_index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # An orphan: on disk, not in the index.
    _age(_write(root, "projects/outage-scratch.md", SCRATCH), 1)

    archive = records.empty_archive_index()
    legacy_line = index.make_line("projects/legacy-api.md", "Legacy dispatch API", "v1 API, retired")
    archived, why = today - dt.timedelta(days=40), "all clients moved to the v2 API"
    legacy = ArchiveRecord("projects/legacy-api.md", legacy_line, archived, why, after="## Projects")
    archive += _archived(root, LEGACY_API, legacy)
    # A legacy record without the saved index line: recovering it asks to confirm a proposed line.
    q3 = ArchiveRecord("notes/q3-planning.md", None, today - dt.timedelta(days=100), "quarter is over")
    archive += _archived(root, OLD_MEETING, q3)
    # Trash: one expired, one still recoverable.
    expired = today - dt.timedelta(days=RECOVERY_DAYS + 15)
    offsite = ("notes/offsite-ideas.md", "Offsite ideas", "draft list")
    archive += _trashed(root, EXPIRED_DRAFT, offsite, expired, 10, "superseded by the offsite plan")
    recent = today - dt.timedelta(days=5)
    bench = ("projects/temp-benchmarks.md", "Temp benchmarks", "one-off numbers")
    archive += _trashed(root, TEMP_BENCH, bench, recent, 3, "one-off numbers, real ones live in atlas.md")
    (root / "_archive/_index.md").write_text(archive, encoding="utf-8")
    return root
