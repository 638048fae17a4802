"""What the app keeps of a large memory, kept small without changing what it shows: lookups by bisection
instead of tables, the baseline from the index's signature, rows that read their cells from their entry."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core import report, tree
from pmem_tui.core.index import parse_index
from pmem_tui.core.model import ACTIVE_DIRS
from pmem_tui.tui import patch
from pmem_tui.tui.panes import rows_for
from pmem_tui.tui.rows import ENTRY, Row, entry_row

# Names whose byte order and folder nesting disagree: "a b.md" < "a-b.md" < "a.md" < "a/..." < "a0.md".
NAMES = ["a.md", "a b.md", "a-b.md", "a0.md", "a/b.md", "a/b/c.md", "a.b/c.md", "ab/c.md", "é.md", "z.md"]


def _tree(root: Path, names: list[str]) -> None:
    for folder in ACTIVE_DIRS:
        for name in names:
            path = root / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {name}\n", encoding="utf-8")
    (root / "_core").mkdir()
    (root / "_core" / "me.md").write_bytes(b"\xef\xbb\xbf# Me \xff\r\n")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=8, unique=True))
def test_bisection_finds_what_a_table_would(names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _tree(root, names)
        snap = tree.scan(root, deep=False)
    active = snap.active
    table = {a.path: i for i, a in enumerate(active)}
    folders = {a.path.rsplit("/", k)[0] for a in active for k in range(1, a.path.count("/") + 1)}
    probes = {f"{d}/{n}" for d in ACTIVE_DIRS for n in NAMES} | {
        f"{d}/{n}"[:-3] for d in ACTIVE_DIRS for n in NAMES
    }
    for path in sorted(probes | set(table) | folders | {"projects", "notes", "other/a.md"}):
        assert patch.position(active, path) == table.get(path), path
        assert patch.holds_active(active, path) == (path in folders), path


@pytest.mark.parametrize(
    "index", [b"", b"- [A](projects/a.md) \xe2\x80\x94 x\r\n", b"\xef\xbb\xbf- a.md \xff\n# x"]
)
def test_the_baseline_from_the_signature_is_the_reports(tmp_path: Path, index: bytes) -> None:
    _tree(tmp_path, ["a.md"])
    (tmp_path / "_index.md").write_bytes(index)
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    assert patch.baseline(snap, sig) == report.baseline(snap)
    (tmp_path / "_index.md").unlink()
    snap = tree.scan(tmp_path, deep=False)
    assert patch.baseline(snap, patch.index_signature(tmp_path, snap)) == report.baseline(snap)


def test_a_signature_read_before_the_scan_is_checked_against_it(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.md"])
    (tmp_path / "_index.md").write_text("- projects/a.md\n", encoding="utf-8")
    early = patch.read_signature(tmp_path)
    (tmp_path / "_index.md").write_text("# Index\n\n- projects/a.md\n", encoding="utf-8")  # changed since
    snap = tree.scan(tmp_path, deep=False)
    assert patch.checked(early, snap.index_entries).lines == -1  # its line 2 cannot be in a 1-line file
    assert patch.checked(patch.read_signature(tmp_path), snap.index_entries).lines == 4  # 3, then ""


def test_an_entry_row_reads_its_cells_and_line_from_the_entry() -> None:
    (entry,) = parse_index("- [Atlas](projects/atlas.md) — the importer\n")
    row = entry_row(entry, None)
    assert row.cells == ("projects/atlas.md", "Atlas", "the importer")
    assert row.index_line == "- [Atlas](projects/atlas.md) — the importer"
    assert row == entry_row(entry, None) and hash(row) == hash(entry_row(entry, None))
    plain = Row("k", ENTRY, "p.md", "p.md", ("p.md", "t", "s"), index_line="- p.md")
    assert plain.cells == ("p.md", "t", "s") and plain.index_line == "- p.md"
    with pytest.raises(ValueError, match="cells"):
        Row("k", ENTRY, "p.md", "p.md", None, index_line="- p.md")


def test_orphans_and_listed_files_keep_their_index_facts(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.md", "b.md"])
    (tmp_path / "_index.md").write_text("- [A](projects/a.md) — first\n", encoding="utf-8")
    snap = tree.scan(tmp_path, deep=False)
    listed = snap.active_file("projects/a.md")
    orphan = snap.active_file("projects/b.md")
    assert listed is not None and orphan is not None
    assert (listed.index_line, listed.index_summary) == ("- [A](projects/a.md) — first", "first")
    assert (orphan.index_line, orphan.index_summary) == (None, None)
    kinds = {r.path: r.kind for r in rows_for("index", snap)}
    assert kinds["projects/a.md"] == "entry" and kinds["projects/b.md"] == "orphan"


def _three_notes(root: Path) -> tuple[bytes, bytes]:
    (root / "notes").mkdir()
    for n in range(3):
        (root / "notes" / f"n{n}.md").write_text(f"# N{n}\n")
    v1 = "".join(f"- [N{n}](notes/n{n}.md) — first summary {n}\n" for n in range(3)).encode()
    return v1, v1.replace(b"first summary 1", b"SECOND summary 1")


@pytest.mark.parametrize("revert", ["same-lines", "other-line"])
def test_an_index_saved_between_the_signature_and_the_scan_is_never_patched_against(
    tmp_path: Path, revert: str
) -> None:
    """Found in review: the signature (version 1) and the scan (version 2) describe different files; a patch
    that compares only changed lines would then keep version 2's row after the file went back to version 1."""
    root = tmp_path
    v1, v2 = _three_notes(root)
    (root / "_index.md").write_bytes(v1)
    early = patch.read_signature(root)
    (root / "_index.md").write_bytes(v2)  # an agent saves between the two reads
    snap = tree.scan(root, deep=False)
    sig = patch.checked(early, snap.index_entries, root)
    assert sig.lines == -1
    back = v1 if revert == "same-lines" else v1.replace(b"summary 0", b"summary zero")
    (root / "_index.md").write_bytes(back)
    found = patch.patch(root, snap, report.baseline(snap), sig, frozenset({"_index.md"}))
    assert found is None  # a rescan, not a patch


# --- what the app's process holds besides the snapshot ----------------------------------------------------


def test_measuring_plain_rows_leaves_nothing_in_richs_cell_cache() -> None:
    from rich.cells import cached_cell_len, cell_len

    from pmem_tui.tui.widgets.columns import width_of
    from pmem_tui.tui.widgets.list_render import measure

    for text in ("projects/a.md", "", "部署清单.md", "tab\there", "e\u0301", "\x1b[1m"):
        assert width_of(text) == cell_len(text)
    paths = [f"projects/plain-{i:05d}.md" for i in range(3000)]
    rows = [Row(p, ENTRY, p, p, (p, f"summary {i}")) for i, p in enumerate(paths)]
    cached_cell_len.cache_clear()
    widths, _ = measure(rows)
    assert widths == [len(paths[0]), len("summary 2999")]
    assert cached_cell_len.cache_info().currsize == 0  # was 4,096 entries (~0.7 MB) kept for good


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60), st.integers(0, 70))
def test_cutting_a_plain_path_leaves_nothing_in_richs_cell_cache(text: str, width: int) -> None:
    """The visible rows' paths are cut on every draw: by cells, each cut kept up to `width` suffixes in Rich's
    cache (~0.18 MB at 10,000 files, settled). A plain path is cut by length, to the same text."""
    from rich.cells import cached_cell_len, set_cell_size

    from pmem_tui.tui.widgets.columns import ELLIPSIS, cut_middle

    cached_cell_len.cache_clear()
    cut = cut_middle(text, width)
    assert cached_cell_len.cache_info().currsize == 0
    if len(text) <= width:
        assert cut == text
    elif width <= 1:
        assert cut == ELLIPSIS[:width]
    else:  # what the cut by cells gives
        room = width - 1
        tail_room = room - room // 3
        assert cut == set_cell_size(text, room - tail_room).rstrip() + ELLIPSIS + text[-tail_room:]


@pytest.mark.parametrize("store", [False, True], ids=["no history", "history, nothing changed"])
def test_the_apps_scan_loads_no_module_only_an_action_needs(tmp_path: Path, store: bool) -> None:
    import subprocess
    import sys

    _tree(tmp_path, NAMES)
    (tmp_path / "_index.md").write_text("- [A](projects/a.md) — a\n", encoding="utf-8")
    (tmp_path / "_archive").mkdir()
    (tmp_path / "_archive" / "_index.md").write_text("## projects/old.md\n- archived: 2026-01-02\n", "utf-8")
    if store:
        from pmem_tui.core.history import record

        assert record.record(tmp_path, create=True).problem is None
    code = (
        "import sys; from pathlib import Path; from pmem_tui.core import cache;"
        "from pmem_tui.tui import scanning;"
        "cache.is_racy = lambda *_: False;"  # files made just now: trusted, as they are a few seconds later
        f"done = scanning.scan(Path({str(tmp_path)!r}), 1, None, None); assert done.snapshot.records;"
        "assert done.history is not None and done.history.commit is None and done.history.problem is None;"
        "print(sorted(m for m in ('pmem_tui.core.fsops', 'pmem_tui.core.record_edit',"
        " 'pmem_tui.core.record_update', 'pmem_tui.core.records', 'dulwich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"  # ~1 MB of code the app's peak memory no longer holds (BENCHMARKS.md, 7)
