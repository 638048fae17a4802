"""Delete and recover batches read `_archive/_index.md` once and then only what each item changed
(`record_read.Reading`), and parse `_index.md` once to put lines back (`index_places.Putting`); their plans
are those of the same batch with a fresh parse at every step.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pmem_tui.core import index, index_places, lifecycle, record_read, record_values, records, textio
from pmem_tui.core.draft import Draft
from pmem_tui.core.errors import PmemError
from pmem_tui.core.index import make_line
from pmem_tui.core.model import ArchiveRecord, IndexPlace
from pmem_tui.core.plan import Plan
from tests.campaign import examples
from tests.core.test_batch_plans import (
    ROUTES,
    _agent_line,
    _archive_text,
    _entry,
    _index_text,
    _memory,
    _other,
)

DAY = dt.date(2026, 12, 4)

# --- `Reading` against `parse_records` after each edit ----------------------------------------------------

_edit = st.tuples(st.sampled_from(["insert", "remove", "replace"]), st.integers(0, 40), _agent_line)


@pytest.mark.rule("PM-ARC-5")
@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_archive_text, st.lists(_edit, min_size=1, max_size=8))
@example("# Trash 2026-01-05\n## notes/a.md\n- Reason: x\n", [("remove", 0, "")])
@example("## notes/a.md\n- Reason: x\n\n## e.md\n", [("insert", 2, "```")])
def test_reading_equals_a_parse_after_each_edit(text: str, edits: list[tuple[str, int, str]]) -> None:
    reading = record_read.Reading()
    assert reading.records(text) == records.parse_records(text)
    for kind, at, line in edits:
        lines = text.splitlines(keepends=True)
        at = min(at, len(lines))
        if kind == "insert":
            lines.insert(at, line + "\n")
        elif lines:
            at = min(at, len(lines) - 1)
            if kind == "remove":
                del lines[at]
            else:
                lines[at] = line + "\n"
        text = "".join(lines)
        assert reading.records(text) == records.parse_records(text)


_piece = st.one_of(
    st.sampled_from(
        ["\n", "\r\n", "\r", "x", "\ufeff", "- Deleted: 2026-03-01\n", "```\n", "## notes/a.md\n"]
    ),
    st.builds(lambda line, eol: line + eol, _agent_line, st.sampled_from(["\n", "\r\n", ""])),
)
_cut = st.tuples(st.integers(0, 400), st.integers(0, 30), st.lists(_piece, max_size=3))


@pytest.mark.rule("PM-ARC-5")
@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_archive_text, st.lists(_cut, min_size=1, max_size=6))
@example("## notes/a.md\r\n- Reason: x\r\n", [(13, 1, [])])  # a CRLF ending becomes a lone CR
@example("\ufeff## notes/a.md\n", [(0, 1, [])])  # the BOM goes
def test_reading_equals_a_parse_after_each_edit_of_the_text(
    text: str, cuts: list[tuple[int, int, list[str]]]
) -> None:
    """Any edit of the characters: inside a line, across line endings, a BOM coming or going."""
    reading = record_read.Reading()
    assert reading.records(text) == records.parse_records(text)
    for at, gone, pieces in cuts:
        at = min(at, len(text))
        text = text[:at] + "".join(pieces) + text[at + gone :]
        assert reading.records(text) == records.parse_records(text)
        bodies = [textio.strip_ending(line) for line in textio.split_lines(textio.split_bom(text)[1])]
        assert reading.open_fence(text) == record_values.fence_state(bodies)[1]


# --- `Putting` against `find_entries` + `insert_line` at each route -----------------------------------------


def _put_back_fresh(text: str, route: str, places: list[IndexPlace]) -> tuple[str, list[str], list[str]]:
    """`put_back` as it was: the entries found in the whole text, each line put back by `insert_line`."""
    present = Counter(e.raw for e in index.find_entries(text, route))
    added: list[str] = []
    kept: list[str] = []
    for place in places:
        if present[place.line] > 0:
            present[place.line] -= 1
            kept.append(place.line)
            continue
        text = index.insert_line(text, place.line, place.after, place.before)
        added.append(place.line)
    return text, added, kept


_near = st.one_of(st.none(), _entry, _other)
_place = st.builds(IndexPlace, st.one_of(_entry, _entry, _other, st.just("a\rb")), _near, _near)
_puts = st.lists(st.tuples(st.sampled_from(ROUTES), st.lists(_place, min_size=1, max_size=3)), max_size=6)


@pytest.mark.rule("PM-ARC-4", "PM-CORE-5")
@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_index_text, _puts)
@example(
    "- e.md\n", [("notes/a.md", [IndexPlace("```", "- e.md", None), IndexPlace("- notes/a.md", None, None)])]
)
@example(  # an empty line after an unterminated last line only ends that line
    "  - notes/a.md: summary",
    [("notes/a.md", [IndexPlace("", None, None), IndexPlace("- e.md", None, None)])],
)
@example(  # a line starting with U+FEFF (an index made of two files, one with a BOM): not a BOM in the middle
    "# Index\n",
    [
        ("e.md", [IndexPlace("\ufeff- notes/a.md", None, None)]),
        ("notes/a.md", [IndexPlace("- notes/a.md", None, None)]),
    ],
)
def test_putting_equals_a_parse_at_each_route(text: str, puts: list[tuple[str, list[IndexPlace]]]) -> None:
    putting = index_places.Putting(text)
    for route, places in puts:
        text, added, kept = _put_back_fresh(text, route, places)
        assert putting.put_back(route, places) == (added, kept)
        assert putting.text == text


# --- whole delete and recover batches -----------------------------------------------------------------------


def _fresh_each_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of the records a whole parse, and `_index.md` parsed again at every item (as before)."""
    monkeypatch.setattr(record_read.Reading, "records", lambda self, text: records.parse_records(text))
    monkeypatch.setattr(
        Draft, "index_putting", lambda self: index_places.Putting(self.text("_index.md") or "")
    )


def _with_archive(root: Path, archived: list[str], trashed: list[str]) -> None:
    for folder, routes in (("_archive", archived), ("_archive/_trash", trashed)):
        for route in routes:
            path = root / folder / route
            path.parent.mkdir(parents=True, exist_ok=True)
            if (root / route).exists():
                (root / route).replace(path)
            else:
                path.write_text("x\n")


def _record(route: str, line: str | None, after: str | None, deleted: bool) -> ArchiveRecord:
    return ArchiveRecord(
        path=route,
        index_line=line,
        archived=DAY - dt.timedelta(days=9),
        reason="old",
        after=after,
        before=None,
        deleted=DAY - dt.timedelta(days=2) if deleted else None,
        deadline=DAY + dt.timedelta(days=28) if deleted else None,
    )


_routes = st.lists(st.sampled_from(ROUTES), unique=True, max_size=5)
_own = st.lists(
    st.tuples(st.sampled_from(ROUTES), st.one_of(st.none(), _entry), _near, st.booleans()), max_size=6
)


def _plans(root: Path, action: str, batch: list[str]) -> object:
    try:
        if action == "delete":
            return lifecycle.plan_delete_many(root, batch, DAY)
        return lifecycle.plan_recover_many(root, batch)
    except PmemError as err:
        return str(err)


@pytest.mark.rule("PM-ARC-4", "PM-ARC-5", "PM-CORE-5")
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["delete", "recover"]),
    _index_text,
    _archive_text,
    _own,
    _routes,
    _routes,
    st.lists(st.sampled_from([*ROUTES, "notes/absent.md"]), min_size=1, max_size=8),
)
def test_batch_delete_and_recover_plan_what_a_parse_at_each_step_plans(
    action: str,
    index_text: str,
    archive_text: str,
    own: list[tuple[str, str | None, str | None, bool]],
    archived: list[str],
    trashed: list[str],
    batch: list[str],
) -> None:
    for route, line, after, deleted in own:  # the records pmem-tui wrote, after the agent's text
        archive_text = records.add_record(archive_text, _record(route, line, after, deleted))
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as monkeypatch:
        root = _memory(Path(tmp), index_text, archive_text)
        _with_archive(root, archived, [r for r in trashed if r not in archived])
        plan = _plans(root, action, batch)
        _fresh_each_step(monkeypatch)
        assert plan == _plans(root, action, batch)


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"index": 0, "records": 0}
    parse_rows, parse = index.parse_rows, record_read._read_lines

    def count_rows(text: str) -> list[index.EntryRow]:
        calls["index"] += 1 if text.count("\n") > 1 else 0  # a line put back, read alone, does not count
        return parse_rows(text)

    def count_records(bodies: list[str]) -> tuple[list[ArchiveRecord], list[int]]:
        calls["records"] += 1 if len(bodies) > 60 else 0  # the few lines around a change do not count
        return parse(bodies)

    monkeypatch.setattr(index, "parse_rows", count_rows)
    monkeypatch.setattr(record_read, "_read_lines", count_records)
    return calls


@pytest.mark.rule("PM-ARC-5")
@pytest.mark.parametrize("action", ["delete", "recover"])
def test_a_delete_or_recover_batch_parses_each_index_once(
    action: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delete read every record 4 times an item, a recover 3 times and all of `_index.md` once: 10 files on
    a memory of 10^4 lines took 1 to 4 s."""
    routes = [f"notes/n{i}.md" for i in range(40)]
    lines = [make_line(r, None, "s") for r in routes]
    archive_text = records.empty_archive_index()
    for n, route in enumerate(routes):
        archive_text = records.add_record(
            archive_text, _record(route, lines[n], lines[n - 1] if n else None, False)
        )
    root = _memory(tmp_path, "# Index\n\n- e.md\n", archive_text)
    _with_archive(root, routes, [])
    calls = _counting(monkeypatch)
    plan = _plans(root, action, routes[1:])
    assert isinstance(plan, Plan) and len(plan.items) == 39
    assert calls == {"index": 1 if action == "recover" else 0, "records": 1}


# --- purge -------------------------------------------------------------------------------------------------

LATER = DAY + dt.timedelta(days=60)  # every deadline of `_record` (and of the agents' shapes) gone by


def _purge(root: Path) -> object:
    try:
        return lifecycle.plan_purge(root, LATER)
    except PmemError as err:
        return str(err)


@pytest.mark.rule("PM-DEL-5", "PM-REC-5")
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_archive_text, _own, _routes)
def test_purge_plans_what_a_parse_at_each_step_plans(
    archive_text: str, own: list[tuple[str, str | None, str | None, bool]], trashed: list[str]
) -> None:
    for route, line, after, deleted in own:
        archive_text = records.add_record(archive_text, _record(route, line, after, deleted))
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as monkeypatch:
        root = _memory(Path(tmp), "# Index\n", archive_text)
        _with_archive(root, [], trashed)
        plan = _purge(root)
        _fresh_each_step(monkeypatch)
        assert plan == _purge(root)


@pytest.mark.rule("PM-DEL-5")
def test_a_purge_reads_the_archive_index_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A purge parsed every record twice an expired item (its records, then `remove_record`'s look-up)."""
    routes = [f"notes/n{i}.md" for i in range(40)]
    archive_text = records.empty_archive_index()
    for route in routes:
        archive_text = records.add_record(
            archive_text, _record(route, make_line(route, None, "s"), None, True)
        )
    root = _memory(tmp_path, "# Index\n\n- e.md\n", archive_text)
    _with_archive(root, [], routes)
    calls = _counting(monkeypatch)
    plan = lifecycle.plan_purge(root, LATER)
    assert len(plan.items) == 40
    assert calls["records"] == 2  # the scan's, and the plan's
