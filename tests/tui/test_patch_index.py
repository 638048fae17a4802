"""The `_index.md` patch against its signature: a patched result equals a fresh scan, and anything that is not
an in-place edit of entry lines (or that changed during the read) falls back to the rescan (None)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pmem_tui.core import report, safeio, textio, tree
from pmem_tui.tui import patch
from pmem_tui.tui.panes import rows_for

FILES = 12
BOM = b"\xef\xbb\xbf"
WORDS = st.text(alphabet="abcxyz é—0123", min_size=1, max_size=12).map(str.strip).filter(bool)


def entry(n: int, summary: str = "about it", title: str | None = None) -> bytes:
    return f"- [{title or f'Note {n}'}](projects/p{n}.md) — {summary}".encode()


def build(root: Path, lines: list[bytes], bom: bool = False) -> None:
    (root / "projects").mkdir(parents=True, exist_ok=True)
    for n in range(FILES):
        (root / "projects" / f"p{n}.md").write_text(f"# Note {n}\n\nBody {n}.\n", encoding="utf-8")
    write_index(root, lines, bom)


def write_index(root: Path, lines: list[bytes], bom: bool = False) -> None:
    """An atomic save, as agents and editors do."""
    temp = root / "._index.md.tmp"
    temp.write_bytes((BOM if bom else b"") + b"\n".join(lines))
    temp.replace(root / "_index.md")


def standard_lines() -> list[bytes]:
    lines = [b"# Index", b""]
    for n in range(FILES):
        lines.append(entry(n))
        if n % 4 == 3:
            lines += [b"", f"## Part {n // 4}".encode()]
    return [*lines, entry(99, "a dead route"), b""]


def patch_index(root: Path, snap: Any, sig: patch.IndexSignature) -> patch.Patch | None:
    return patch.patch(root, snap, report.baseline(snap), sig, frozenset({"_index.md", ""}))


def assert_fresh(root: Path, found: patch.Patch) -> None:
    """The patched snapshot, baseline and rows are what a full scan of the disk gives."""
    fresh = tree.scan(root, deep=False)
    assert found.snapshot.index_entries == fresh.index_entries
    assert found.snapshot.active == fresh.active
    assert found.snapshot.problems == fresh.problems
    assert found.baseline == report.baseline(fresh)
    by_key = {row.key: row for row in rows_for("index", fresh)}
    for row in found.rows:
        assert row == by_key[row.key]
    # ...and the signature it returns serves the next patch as a fresh one would.
    fresh_sig = patch.index_signature(root, fresh)
    assert found.signature is not None
    assert found.signature.lines == fresh_sig.lines
    assert list(found.signature.offsets) == list(fresh_sig.offsets)
    assert list(found.signature.chunk_hashes) == list(fresh_sig.chunk_hashes)
    assert list(found.signature.line_hashes) == list(fresh_sig.line_hashes)
    assert found.signature.chars == fresh_sig.chars


@contextmanager
def chunked(lines: int, block: int) -> Iterator[None]:
    """Tiny chunks and blocks, so a dozen lines span many of each."""
    saved = patch.CHUNK_LINES, patch._BLOCK
    patch.CHUNK_LINES, patch._BLOCK = lines, block
    try:
        yield
    finally:
        patch.CHUNK_LINES, patch._BLOCK = saved


def is_entry(line: bytes) -> bool:
    return line.startswith(b"- [")


# One edit of a line list: what it does, where, and with which text.
EDITS = st.tuples(
    st.sampled_from(["summary", "title", "cr", "insert", "delete", "heading", "route", "bad-byte", "join"]),
    st.integers(min_value=0, max_value=40),
    WORDS,
)
IN_PLACE = st.tuples(st.sampled_from(["summary", "title"]), st.integers(min_value=0, max_value=40), WORDS)


def apply(lines: list[bytes], edits: list[tuple[str, int, str]]) -> list[bytes]:
    out = list(lines)
    for kind, at, text in edits:
        i = at % len(out)
        line = out[i]
        n = int(line.split(b"(projects/p")[1].split(b".md")[0]) if is_entry(line) else None
        if kind in ("summary", "title") and n is not None:
            out[i] = entry(n, text) if kind == "summary" else entry(n, title=text)
        elif kind == "cr" and i < len(out) - 1:
            out[i] = line[:-1] if line.endswith(b"\r") else line + b"\r"
        elif kind == "insert":
            out.insert(i, f"- [{text}](projects/p{at % FILES}.md)".encode())
        elif kind == "delete" and len(out) > 1:
            del out[i]
        elif kind == "heading" and not is_entry(line):
            out[i] = f"## {text}".encode()
        elif kind == "route" and n is not None:
            out[i] = line.replace(f"projects/p{n}.md".encode(), f"projects/p{(n + 1) % FILES}.md".encode())
        elif kind == "bad-byte":
            out[i] = line + b"\xff"
        elif kind == "join" and i < len(out) - 1:
            out[i : i + 2] = [line + out[i + 1]]
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(EDITS, min_size=1, max_size=3),
    again=st.lists(IN_PLACE, min_size=1, max_size=2),
    crlf=st.booleans(),
    bom=st.booleans(),
    sizes=st.sampled_from([(1, 1), (2, 7), (3, 64), (64, 1 << 16)]),
)
@example(  # found by Hypothesis: the second round rewrites the line the first gave a bad byte
    edits=[("insert", 15, "0"), ("bad-byte", 15, "0"), ("delete", 0, "0")],
    again=[("summary", 14, "0")],
    crlf=False,
    bom=False,
    sizes=(1, 1),
)
@example(  # found by Hypothesis: a line joined to the heading is no entry; the summary edit makes it one,
    # listing projects/p0.md a second time: the new text has the duplicate, the snapshot had none
    edits=[("insert", 0, "0"), ("join", 0, "0")],
    again=[("summary", 0, "0")],
    crlf=False,
    bom=False,
    sizes=(1, 1),
)
def test_a_patch_equals_a_fresh_scan_or_is_refused(
    edits: list[tuple[str, int, str]],
    again: list[tuple[str, int, str]],
    crlf: bool,
    bom: bool,
    sizes: tuple[int, int],
) -> None:
    with tempfile.TemporaryDirectory() as tmp, chunked(*sizes):
        root = Path(tmp)
        lines = standard_lines()
        if crlf:
            lines = [line + b"\r" for line in lines[:-1]] + lines[-1:]
        build(root, lines, bom)
        snap = tree.scan(root, deep=False)
        sig = patch.index_signature(root, snap)
        edited = apply(lines, edits)
        write_index(root, edited, bom)
        found = patch_index(root, snap, sig)
        if found is not None:
            assert_fresh(root, found)
            snap, sig = found.snapshot, found.signature  # type: ignore[assignment]
            lines = edited
        else:
            snap = tree.scan(root, deep=False)  # what the app does: rescan, and a new signature
            sig = patch.index_signature(root, snap)
            lines = edited
        # In-place edits of entry lines, keeping their routes, are patched, one after the other, unless the
        # route is listed twice, before or after the edit (an inserted line may have made a duplicate; an
        # edit may make a line that was no entry one) or an edited line is not UTF-8 (a bad byte from the
        # first round, before or after the edit).
        edited = apply(lines, again)
        write_index(root, edited, bom)
        found = patch_index(root, snap, sig)
        if found is not None:
            assert_fresh(root, found)
        else:
            changed = [b for pair in zip(lines, edited, strict=True) if pair[0] != pair[1] for b in pair]
            problems = (*snap.problems, *tree.scan(root, deep=False).problems)
            assert any(p.kind == "duplicate-route" for p in problems) or any(
                not textio.is_valid_utf8(line) for line in changed
            )


@given(edit=IN_PLACE, sizes=st.sampled_from([(1, 1), (3, 5), (64, 1 << 16)]))
@settings(max_examples=60, deadline=None)
def test_an_in_place_entry_edit_patches_exactly_its_row(
    edit: tuple[str, int, str], sizes: tuple[int, int]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, chunked(*sizes):
        root = Path(tmp)
        lines = standard_lines()
        build(root, lines)
        snap = tree.scan(root, deep=False)
        sig = patch.index_signature(root, snap)
        edited = apply(lines, [edit])
        write_index(root, edited)
        found = patch_index(root, snap, sig)
        assert found is not None
        assert_fresh(root, found)
        assert len(found.rows) == (0 if edited == lines else 1)


def _refused(root: Path, lines: list[bytes], edited: list[bytes], bom: bool = False) -> bool:
    build(root, lines, bom)
    snap = tree.scan(root, deep=False)
    sig = patch.index_signature(root, snap)
    write_index(root, edited, bom)
    return patch_index(root, snap, sig) is None


@pytest.mark.parametrize(
    ("case", "change"),
    [
        ("a line added", lambda ls: [*ls[:3], entry(5, "again"), *ls[3:]]),
        ("a line removed", lambda ls: ls[:2] + ls[3:]),
        ("a heading changed", lambda ls: [b"# Memory index", *ls[1:]]),
        ("a blank line filled", lambda ls: [ls[0], b"text", *ls[2:]]),
        ("a route changed", lambda ls: [*ls[:2], ls[2].replace(b"p0.md", b"p11.md"), *ls[3:]]),
        ("not UTF-8", lambda ls: [*ls[:2], ls[2] + b" \xff\xfe", *ls[3:]]),
        ("no longer an entry", lambda ls: [*ls[:2], b"plain text now", *ls[3:]]),
        ("two lines joined", lambda ls: [*ls[:2], ls[2] + ls[3], b"", *ls[4:]]),
        ("a line split", lambda ls: [*ls[:2], ls[2][:10], ls[2][10:], *ls[4:]]),
    ],
)
def test_structural_or_undecodable_edits_are_refused(tmp_path: Path, case: str, change: Any) -> None:
    lines = standard_lines()
    assert _refused(tmp_path, lines, change(lines)), case


def test_a_duplicated_route_is_refused_but_its_neighbour_is_patched(tmp_path: Path) -> None:
    lines = standard_lines()
    lines.insert(3, entry(0, "the same route again"))  # projects/p0.md listed twice
    edited = list(lines)
    edited[2] = entry(0, "edited")
    assert _refused(tmp_path, lines, edited)
    edited = list(lines)
    edited[4] = entry(1, "edited")
    assert not _refused(tmp_path, lines, edited)


def test_a_bom_added_or_removed_is_refused(tmp_path: Path) -> None:
    lines = standard_lines()[2:]  # line 0 is an entry
    build(tmp_path, lines)
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    write_index(tmp_path, lines, bom=True)
    assert patch_index(tmp_path, snap, sig) is None
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    edited = [entry(0, "edited"), *lines[1:]]  # line 0, after the BOM, edited in place: patched
    write_index(tmp_path, edited, bom=True)
    found = patch_index(tmp_path, snap, sig)
    assert found is not None and len(found.rows) == 1
    assert_fresh(tmp_path, found)
    write_index(tmp_path, edited, bom=False)
    assert found.signature is not None and patch_index(tmp_path, found.snapshot, found.signature) is None


def test_a_line_ending_change_patches_no_row_but_the_token_count(tmp_path: Path) -> None:
    lines = standard_lines()
    build(tmp_path, lines)
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    edited = list(lines)
    edited[2] += b"\r"
    write_index(tmp_path, edited)
    found = patch_index(tmp_path, snap, sig)
    assert found is not None and found.rows == [] and found.snapshot is snap
    assert_fresh(tmp_path, found)
    assert (
        found.signature is not sig and found.signature is not None and found.signature.chars == sig.chars + 1
    )


def test_an_index_that_changed_during_the_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = standard_lines()
    build(tmp_path, lines)
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    edited = list(lines)
    edited[2] = entry(0, "edited")
    write_index(tmp_path, edited)
    real_read = safeio.read_fd

    def saved_again_while_read(*args: Any) -> bytes:
        data = real_read(*args)
        write_index(tmp_path, [*edited[:3], entry(1, "saved again"), *edited[4:]])
        return data

    assert patch_index(tmp_path, snap, sig) is not None  # the same edit, read in peace: patched
    monkeypatch.setattr(safeio, "read_fd", saved_again_while_read)
    assert patch_index(tmp_path, snap, sig) is None


def test_no_index_when_scanned_is_refused(tmp_path: Path) -> None:
    build(tmp_path, standard_lines())
    (tmp_path / "_index.md").unlink()
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    assert sig.lines == -1
    write_index(tmp_path, standard_lines())
    assert patch_index(tmp_path, snap, sig) is None


def test_the_signature_keeps_hashes_not_lines(tmp_path: Path) -> None:
    """What a signature keeps per line is one 64-bit hash; per chunk of CHUNK_LINES lines, two numbers."""
    lines = [entry(n % FILES, f"line {n}") for n in range(1000)]
    build(tmp_path, lines)
    snap = tree.scan(tmp_path, deep=False)
    sig = patch.index_signature(tmp_path, snap)
    assert sig.lines == 1000
    assert sig.line_hashes.itemsize * len(sig.line_hashes) == 8 * 1000
    assert len(sig.chunk_hashes) == -(-1000 // patch.CHUNK_LINES) == len(sig.offsets) - 1


def test_a_line_boundary_moved_across_a_chunk_end_is_refused(tmp_path: Path) -> None:
    """Every byte after the changed chunk is unchanged, but a summary's last word moved to the next line."""
    lines = standard_lines()
    edited = list(lines)
    edited[2], edited[3] = entry(0, "about"), b" it" + lines[3]  # "...about\n it- [Note 1]..."
    with chunked(1, 1):
        assert _refused(tmp_path, lines, edited)


def test_several_chunks_shrunk_at_once_are_patched(tmp_path: Path) -> None:
    """Lines edited far shorter than the chunks after them: the unchanged tail is found at its new place."""
    lines = standard_lines()
    lines[2], lines[3] = entry(0, "long " * 20), entry(1, "long " * 20)
    edited = list(lines)
    edited[2], edited[3] = entry(0, "s"), entry(1, "s")
    with chunked(1, 1):
        build(tmp_path, lines)
        snap = tree.scan(tmp_path, deep=False)
        sig = patch.index_signature(tmp_path, snap)
        write_index(tmp_path, edited)
        found = patch_index(tmp_path, snap, sig)
        assert found is not None and len(found.rows) == 2
        assert_fresh(tmp_path, found)
