"""A batch plan parses each control file once, and plans what planning each item on a fresh parse plans.

`index_places.Taking` (the index's entries found once, moved up as lines go) against `find_entries` +
`take_out` on the text as it is at each item; `record_read.Reading` (the records read once, then the lines
around each record added) with `add_record` against `add_record` + `parse_records`; and a whole archive batch
against the same batch planned with a fresh parse at every item.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pmem_tui.core import index, index_places, lifecycle, record_edit, record_read, records
from pmem_tui.core.draft import Draft
from pmem_tui.core.errors import PmemError
from pmem_tui.core.index import make_line
from pmem_tui.core.model import ArchiveRecord, IndexPlace
from pmem_tui.core.record_read import Reading
from tests.campaign import examples

ROUTES = ["notes/a.md", "notes/b.md", "projects/c d.md", "notes/日记.md", "e.md"]
DAY = dt.date(2026, 11, 30)

# --- `_index.md` in the shapes agents write ---------------------------------------------------------------

_route = st.sampled_from(ROUTES)
_words = st.sampled_from([None, "x", "the plan — v2", "`code`", "a: b"])
_entry = st.one_of(
    st.builds(lambda r, t, s: make_line(r, t, s), _route, _words, _words),
    st.builds(
        lambda bullet, r, s: f"{bullet} `{r}`" + (f" — {s}" if s else ""),
        st.sampled_from(["-", "*", "+", "1.", "12)"]),
        _route,
        _words,
    ),
    st.builds(lambda r: f"  - {r}: summary", _route),
    st.builds(lambda r: f"- [{r}](./{r})", _route),
    st.builds(lambda r: f"- `{r}` <!-- kept -->", _route),
)
_other = st.sampled_from(
    ["", "", "# Index", "## Projects", "```", "~~~", "<!--", "-->", "---", "...", "text", "- ", "<!-- c -->"]
)
_index_text = st.builds(
    lambda head, lines, eol, bom, final: (
        ("\ufeff" if bom else "") + eol.join(head + lines) + (eol if final else "")
    ),
    # An entry above a "---": once it goes, the "---" is the first line and may open front matter.
    st.sampled_from([[], ["- notes/a.md", "---"], ["- e.md", "---", "- notes/a.md"]]),
    st.lists(st.one_of(_entry, _entry, _other), min_size=1, max_size=16),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)
_batch = st.lists(st.sampled_from([*ROUTES, "notes/absent.md"]), min_size=1, max_size=8)


@pytest.mark.rule("PM-ARC-4", "PM-ARC-5", "PM-CORE-5")
@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_index_text, _batch)
@example("- notes/a.md\n---\n- notes/b.md\n---\n", ["notes/a.md", "notes/b.md"])
def test_taking_equals_a_parse_at_each_route(text: str, batch: list[str]) -> None:
    taking = index_places.Taking(text)
    for route in batch:
        entries = index.find_entries(text, route)  # the text as it is when this route is taken out
        text, places = index_places.take_out(text, entries)
        assert taking.take_out(route) == (entries, places)
        assert taking.text == text


# --- `_archive/_index.md` in the shapes agents write ------------------------------------------------------

_line = st.sampled_from([None, "- notes/a.md — a", "- [B](notes/b.md)", "", "`x`"])
_record = st.builds(
    lambda path, line, after, before, reason, more: ArchiveRecord(
        path=path,
        index_line=line,
        archived=DAY,
        reason=reason,
        after=after,
        before=before,
        more_lines=(IndexPlace("- e.md", after, None),) if more and line is not None else (),
    ),
    _route,
    _line,
    _line,
    _line,
    st.sampled_from(["old", "done: kept", ""]),
    st.booleans(),
)
_A = ArchiveRecord(path="notes/a.md", index_line=None, archived=DAY, reason="old")
_agent_line = st.one_of(
    st.sampled_from(
        [
            "",
            "",
            "# Archive index",
            "# Trash 2026-01-05",
            "# Deleted on 2026-02-01",
            "## 2026-01-01",
            "## Trash",
            "- Deleted: 2026-03-01",
            "- Archived: 2026-01-02",
            "- Reason: tidy",
            "- Index line:",
            "  more words",
            "```",
            "~~~",
            "| path | archived |",
            "|---|---|",
            "| notes/a.md | 2026-01-03 |",
            "text",
        ]
    ),
    st.builds(lambda r: f"## {r}", _route),
    st.builds(lambda r: f"### Archived: {r}", _route),
    st.builds(lambda r: f"- **{r}** — archived 2026-01-04, deleted 2026-01-09", _route),
    st.builds(lambda r: f"- `{r}` — reason: old — index line: `- {r}`", _route),
    st.builds(lambda r: f"- Original path: `{r}`", _route),
)
_archive_text = st.one_of(
    st.just(""),
    st.just(records.empty_archive_index()),
    st.builds(
        lambda lines, tail, eol, bom, final: (
            ("\ufeff" if bom else "") + eol.join(lines + tail) + (eol if final else "")
        ),
        st.lists(_agent_line, min_size=1, max_size=14),
        # A dated heading above the records added: its date is theirs too unless they say otherwise.
        st.sampled_from([[], ["# Trash 2026-01-05"], ["# Deleted on 2026-02-01", "```"]]),
        st.sampled_from(["\n", "\r\n"]),
        st.booleans(),
        st.booleans(),
    ),
)


@pytest.mark.rule("PM-ARC-5")
@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_archive_text, st.lists(st.tuples(_record, st.booleans()), min_size=1, max_size=6))
@example("# Trash 2026-01-05\n", [(_A, True), (_A, False), (_A, True)])
def test_reading_equals_a_parse_at_each_record_added(
    text: str, added: list[tuple[ArchiveRecord, bool]]
) -> None:
    reading = Reading()
    mine = text  # the text as the draft hands it back: the very string `add_record` made last
    for rec, ask in added:
        text = records.add_record(text, rec)
        mine = records.add_record(mine, rec, reading)
        assert mine == text
        if ask:  # asked at some items only, as archive does (when the path is in the text already)
            assert reading.records(text) == records.parse_records(text)


# --- a whole archive batch ----------------------------------------------------------------------------------


def _fresh_each_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plan every item on a fresh parse of both control files (as before `Taking` and `Reading`)."""
    archive_into = lifecycle._archive_into

    def fresh(draft: Draft, path: str, reason: str, today: dt.date) -> None:
        draft.taking, draft.reading = None, Reading()
        archive_into(draft, path, reason, today)

    monkeypatch.setattr(lifecycle, "_archive_into", fresh)


def _memory(parent: Path, index_text: str, archive_text: str) -> Path:
    root = parent / "memory"
    for folder in ("_core", "notes", "projects", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    for route in ROUTES:
        (root / route).write_text(f"# {route}\n", encoding="utf-8")
    (root / "_index.md").write_bytes(index_text.encode("utf-8", "surrogateescape"))
    (root / "_archive/_index.md").write_bytes(archive_text.encode("utf-8", "surrogateescape"))
    return root


@pytest.mark.rule("PM-ARC-4", "PM-ARC-5", "PM-CORE-5")
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_index_text, _archive_text, _batch)
def test_batch_archive_plans_what_a_parse_at_each_item_plans(
    index_text: str, archive_text: str, batch: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as monkeypatch:
        root = _memory(Path(tmp), index_text, archive_text)
        try:
            plan = lifecycle.plan_archive_many(root, batch, "tidy", DAY)
        except PmemError as err:
            plan = err  # type: ignore[assignment]
        _fresh_each_item(monkeypatch)
        try:
            reference = lifecycle.plan_archive_many(root, batch, "tidy", DAY)
        except PmemError as err:
            assert str(plan) == str(err)
            return
        assert plan == reference


@pytest.mark.rule("PM-ARC-5")
def test_a_batch_archive_parses_each_index_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each item used to parse all of `_index.md` (0.1 s at 10^4 lines) and, when its path is named in
    `_archive/_index.md`, every record again, and look for an open fence in every line of it: 100 items took
    5 to 12 s."""
    lines = [make_line(f"notes/n{i}.md", None, "s") for i in range(40)]
    archive_text = records.empty_archive_index()
    for i in range(20):  # records from before: a whole read of the archive index is a long one
        archive_text = records.add_record(archive_text, replace(_A, path=f"projects/old{i}.md"))
    root = _memory(tmp_path, "# Index\n\n" + "\n".join(lines) + "\n", archive_text)
    for i in range(40):
        (root / f"notes/n{i}.md").write_text("x\n", encoding="utf-8")
    calls = {"index": 0, "records": 0, "fences": 0}
    parse_rows, read_lines, fence_state = index.parse_rows, record_read._read_lines, record_edit.fence_state

    def count_rows(text: str) -> list[index.EntryRow]:
        calls["index"] += 1
        return parse_rows(text)

    def count_records(bodies: list[str]) -> tuple[list[ArchiveRecord], list[int]]:
        calls["records"] += 1 if len(bodies) > 60 else 0  # the few lines around a record added do not count
        return read_lines(bodies)

    def count_fences(bodies: list[str]) -> tuple[list[bool], str | None]:
        calls["fences"] += 1 if len(bodies) > 60 else 0
        return fence_state(bodies)

    monkeypatch.setattr(index, "parse_rows", count_rows)
    monkeypatch.setattr(record_read, "_read_lines", count_records)
    monkeypatch.setattr(record_edit, "fence_state", count_fences)
    plan = lifecycle.plan_archive_many(root, [f"notes/n{i}.md" for i in range(1, 40)], "tidy", DAY)
    assert len(plan.items) == 39
    # Each record names the next file in its "Line below": every item after the first asks for the records.
    assert calls == {"index": 1, "records": 1, "fences": 0}


# --- an item skipped half-way, a path named twice ---------------------------------------------------------


@pytest.mark.rule("PM-ARC-4", "PM-CORE-5")
def test_a_skipped_item_leaves_nothing_in_the_batch_plan(tmp_path: Path) -> None:
    """Found in review: the destination folder `_archive/notes` being a link refused notes/a.md only at
    its move, after its index line was taken out: the plan removed that line and archived nothing."""
    root = _memory(tmp_path, "# Index\n- notes/a.md\n- projects/c d.md\n", records.empty_archive_index())
    (tmp_path / "elsewhere").mkdir()
    (root / "_archive/notes").symlink_to(tmp_path / "elsewhere")
    plan = lifecycle.plan_archive_many(root, ["notes/a.md", "projects/c d.md"], "tidy", DAY)
    assert plan.items == ("projects/c d.md",)
    assert plan.preview.index_removed == ("- projects/c d.md",)
    index_diff = next(d for d in plan.preview.diffs if d.path == "_index.md")
    assert index_diff.new == "# Index\n- notes/a.md\n"
    assert [n for n in plan.preview.notes if "notes/a.md" in n and not n.startswith("Skipped")] == []


@pytest.mark.rule("PM-SAFE-4", "PM-DEL-3", "PM-REC-5")
@pytest.mark.parametrize("action", ["archive", "delete", "recover"])
def test_a_path_named_twice_in_a_batch_is_planned_once(action: str, tmp_path: Path) -> None:
    """Found in review: a batch naming notes/a.md twice planned its move twice (and, with two records of
    it, wrote the deletion date into both, or removed both)."""
    archive_text = records.empty_archive_index()
    for _ in range(2):  # two records of the same file: the second item found the other one
        archive_text = records.add_record(archive_text, replace(_A, index_line="- notes/a.md"))
    root = _memory(tmp_path, "# Index\n- notes/a.md\n", archive_text)
    if action != "archive":
        (root / "_archive/notes").mkdir()
        (root / "notes/a.md").replace(root / "_archive/notes/a.md")
    batch = ["notes/a.md", "notes/a.md", "./notes/a.md"]
    if action == "archive":
        plan = lifecycle.plan_archive_many(root, batch, "tidy", DAY)
    elif action == "delete":
        plan = lifecycle.plan_delete_many(root, batch, DAY)
    else:
        plan = lifecycle.plan_recover_many(root, batch)
    assert plan.items == ("notes/a.md",)
    assert len(plan.preview.moves) == 1 and len(plan.preview.record_changes) == 1
    assert sum(n.startswith("Skipped") for n in plan.preview.notes) == 2
