"""What the Epics view shows besides the block (PL-16): typed entries, archived epics, history events.

All read-only and display-only: the loader never reads them, and reading them never writes, never follows a
symlink and never blocks on a FIFO.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core import epic_archive
from pmem_tui.core.epic_archive import parse_history, read_archive, read_history
from pmem_tui.core.epic_entries import typed_entries
from pmem_tui.core.loader import PRODUCER_EPIC_CAP, DateSource, load_permanent_memory

V2_SECTION = """\
## Epic: FEAT-A — cursor pagination for feed
<!-- af-memory:v2 epic=FEAT-A confidence=0.82 items=5 -->
One-line human summary.

### Architectural decisions
- [decision] Keyset pagination over OFFSET (confidence: 0.91)
* [antipattern] OFFSET on big tables (confidence=0.8)
### Gotchas discovered
```
- [gotcha] inside a code block: not an entry (confidence: 0.1)
```
- [gotcha] tz-naive cursors (conf 75%)
- a plain item, no tag
### Tentative (low confidence — review)
- [gotcha] suspected N+1 on author hydration (confidence: 0.61)
- [conflict] two teams disagree
"""


def memory(tmp_path: Path) -> Path:
    folder = tmp_path / "proj" / ".claude" / "memory"
    folder.mkdir(parents=True)
    return folder


# ------------------------------------------------------------------------------------------------ entries


@pytest.mark.rule("PL-16")
def test_typed_entries_with_their_confidence_and_subsection() -> None:
    entries = typed_entries(V2_SECTION.splitlines(), 10)
    assert [(e.line_no, e.subsection, e.tag, e.text, e.confidence, e.tentative) for e in entries] == [
        (15, "Architectural decisions", "decision", "Keyset pagination over OFFSET", "0.91", False),
        (16, "Architectural decisions", "antipattern", "OFFSET on big tables", "0.8", False),
        (21, "Gotchas discovered", "gotcha", "tz-naive cursors", "75%", False),
        (
            24,
            "Tentative (low confidence — review)",
            "gotcha",
            "suspected N+1 on author hydration",
            "0.61",
            True,
        ),
        (25, "Tentative (low confidence — review)", "conflict", "two teams disagree", None, True),
    ]
    assert entries[0].confidence_value == 0.91 and entries[2].confidence_value == 0.75


@pytest.mark.rule("PL-16", "PL-10")
def test_typed_entries_never_reach_the_block(tmp_path: Path) -> None:
    (memory(tmp_path) / "permanent_memory.md").write_text(V2_SECTION, encoding="utf-8")
    result = load_permanent_memory(tmp_path / "proj", today=dt.date(2026, 3, 1))
    assert result.lines[1:] == ("Epic: FEAT-A — cursor pagination for feed — One-line human summary.",)


# ------------------------------------------------------------------------------------------------ size


@pytest.mark.rule("PL-16")
def test_an_epic_over_the_producers_500_token_cap_is_flagged(tmp_path: Path) -> None:
    body = "".join(f"- step {i}: a hand-written runbook line of some length\n" for i in range(60))
    text = V2_SECTION + "\n## Epic: OPS-4 — deploys\nBlue-green.\n\n" + body + "## Notes\nnot an epic\n"
    (memory(tmp_path) / "permanent_memory.md").write_text(text, encoding="utf-8")
    rows = load_permanent_memory(tmp_path / "proj", today=dt.date(2026, 3, 1)).rows
    assert [(r.id, r.over_producer_cap) for r in rows] == [("FEAT-A", False), ("OPS-4", True)]
    ops = rows[1]
    expected = len("## Epic: OPS-4 — deploys\nBlue-green.\n\n" + body)  # up to the next "## "
    assert ops.epic.chars == expected and ops.section_tokens == -(-expected // 4) > PRODUCER_EPIC_CAP
    assert rows[0].section_tokens < 200  # the loaded line is a small part of it


# ------------------------------------------------------------------------------------------------ archive


@pytest.mark.rule("PL-16")
def test_archived_epics_are_listed_with_their_dates(tmp_path: Path) -> None:
    folder = memory(tmp_path) / "archive"
    folder.mkdir()
    (folder / "2025-q3.md").write_text(
        "# Archive\n\n## Epic: CART-2 — guest checkout\nGuest carts.\n**Completed:** 2025-05-14\n"
        "## Epic: IMG-1 — thumbnails\nOn upload.\n",
        encoding="utf-8",
    )
    (folder / "2025-q1.md").write_text("## Epic: OLD-1 — first\nFirst.\n", encoding="utf-8")
    (folder / "notes.txt").write_text("## Epic: TXT-1 — not markdown\n", encoding="utf-8")
    archive = read_archive(tmp_path / "proj")
    assert archive.exists and archive.files == 2 and archive.notes == ()
    assert [(a.file, a.epic.id, a.date, a.date_source) for a in archive.epics] == [
        ("2025-q1.md", "OLD-1", None, DateSource.NONE),
        ("2025-q3.md", "CART-2", dt.date(2025, 5, 14), DateSource.COMPLETED),
        ("2025-q3.md", "IMG-1", None, DateSource.NONE),
    ]


def test_no_archive_folder(tmp_path: Path) -> None:
    memory(tmp_path)
    archive = read_archive(tmp_path / "proj")
    assert (archive.exists, archive.files, archive.epics) == (False, 0, ())


@pytest.mark.rule("PL-16")
def test_archive_never_follows_a_symlink_nor_blocks_on_a_fifo(tmp_path: Path) -> None:
    folder = memory(tmp_path) / "archive"
    folder.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("## Epic: SECRET-1 — elsewhere\nOutside the project.\n", encoding="utf-8")
    (folder / "link.md").symlink_to(outside)
    os.mkfifo(folder / "pipe.md")
    (folder / "real.md").write_text("## Epic: R-1 — real\nReal.\n", encoding="utf-8")
    done: list[object] = []
    reader = threading.Thread(target=lambda: done.append(read_archive(tmp_path / "proj")), daemon=True)
    reader.start()
    reader.join(timeout=10)  # a FIFO opened for reading without O_NONBLOCK would hang here
    assert done, "read_archive blocked"
    archive = done[0]
    assert isinstance(archive, epic_archive.Archive)
    assert [a.epic.id for a in archive.epics] == ["R-1"]
    assert sorted(archive.notes) == [
        "link.md is a symlink: not followed",
        "pipe.md is not a regular file: not read",
    ]


def test_an_archive_folder_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.md").write_text("## Epic: X-1 — x\nx\n", encoding="utf-8")
    (memory(tmp_path) / "archive").symlink_to(elsewhere)
    archive = read_archive(tmp_path / "proj")
    assert archive.epics == () and archive.notes == ("archive/ is a symlink: not followed",)


def test_archive_reads_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(epic_archive, "MAX_ARCHIVE_FILES", 2)
    monkeypatch.setattr(epic_archive, "MAX_FILE_BYTES", 64)
    folder = memory(tmp_path) / "archive"
    folder.mkdir()
    for i in range(3):
        (folder / f"{i}.md").write_text(
            f"## Epic: A-{i} — a\nsummary\n" + "x" * 100 + "\n## Epic: LATE — b\n"
        )
    archive = read_archive(tmp_path / "proj")
    assert [a.epic.id for a in archive.epics] == ["A-0", "A-1"]  # LATE is past the 64 bytes read
    assert archive.notes[0] == "3 files: only the first 2 are read"
    assert "0.md is over 0 KiB: only its start is read" in archive.notes


# ------------------------------------------------------------------------------------------------ history


@pytest.mark.rule("PL-16")
def test_history_events_bad_lines_skipped_and_counted(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {"event": "epic_summarized", "feature": "FEAT-A", "tokens": 412, "ts": "2026-02-01T10:00Z"}
        ),
        "",
        '{"event": "epic_summarized", "feature": "FEAT-B", "tok',  # cut short
        "[1, 2, 3]",  # JSON, not an object
        "not json at all",
        "[" * 100_000,  # nested past the parser's recursion limit
        json.dumps({"event": "epic_summarized", "epic_id": "FEAT-C", "token_count": 99, "extra": [1]}),
        json.dumps({"event": "epic_archived", "id": 7, "tokens": True}),
    ]
    (memory(tmp_path) / "history.jsonl").write_text("\n".join(lines), encoding="utf-8")
    history = read_history(tmp_path / "proj")
    assert history.exists and history.bad_lines == 4 and not history.partial and history.problem is None
    assert [(e.event, e.feature, e.tokens, e.when) for e in history.events] == [
        ("epic_summarized", "FEAT-A", 412, "2026-02-01T10:00Z"),
        ("epic_summarized", "FEAT-C", 99, None),
        ("epic_archived", "7", None, None),  # a bool is not a token count
    ]
    assert ("extra", "[1]") in history.events[1].fields


def test_history_reads_only_its_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(epic_archive, "MAX_HISTORY_BYTES", 100)
    events = [json.dumps({"event": "epic_summarized", "feature": f"F-{i}"}) for i in range(20)]
    (memory(tmp_path) / "history.jsonl").write_text("\n".join(events) + "\n", encoding="utf-8")
    history = read_history(tmp_path / "proj")
    assert history.partial and history.bad_lines == 0  # the cut first line is dropped, not counted
    assert [e.feature for e in history.events][-1] == "F-19" and len(history.events) < 20


def test_history_that_is_not_a_file(tmp_path: Path) -> None:
    os.mkfifo(memory(tmp_path) / "history.jsonl")
    history = read_history(tmp_path / "proj")
    assert history.problem == "history.jsonl is not a regular file: not read" and history.events == ()
    assert read_history(tmp_path / "none").exists is False


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=400))
@pytest.mark.rule("PL-16")
def test_any_history_text_parses_without_an_error(text: str) -> None:
    events, bad = parse_history(text)
    assert len(events) + bad <= len([line for line in text.splitlines() if line.strip()]) + 1
