"""Malformed input: the CLI stays up, says one clear sentence, and changes nothing it was not asked to.

Every command goes through the real entry point (`pmem_tui.cli.main`, in-process for speed; a few through
`python -m pmem_tui` to see the process's own stderr): exit 0 or 1, never a traceback, a refusal is one line
on stderr. Around each command the whole tree is compared byte for byte: status and refusals change nothing;
an action changes only its own file's places, `_index.md` and `_archive/_index.md`, and in those only the
lines it means to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui import cli
from tests.faults.harness import base_memory, capture, write

REPO = Path(__file__).resolve().parents[2]


def run(root: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--root", str(root), *argv])
    out, err = capsys.readouterr()
    assert code in (0, 1), (argv, code, err)
    assert "Traceback" not in err
    if code == 1:
        assert err.startswith("pmem-tui: ") and err.count("\n") == 1, err
    assert "\x1b" not in out + err  # no raw terminal escape from a file name ever reaches the terminal
    return code, out, err


def unchanged_by(root: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    before = capture(root)
    result = run(root, capsys, *argv)
    assert capture(root) == before, f"{argv} changed the memory"
    return result


def only_changes(before: dict[str, bytes], after: dict[str, bytes], allowed: set[str]) -> None:
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed <= allowed, changed - allowed


def lines_kept(before: bytes, after: bytes, gone: bytes | None = None) -> None:
    """Every line of `before` except `gone` is in `after`, byte for byte and in order."""
    it = iter(after.splitlines(keepends=True))
    for line in before.splitlines(keepends=True):
        if gone is not None and line.rstrip(b"\r\n") == gone:
            continue
        assert any(line == other for other in it), line


ACTION_FILES = {"_index.md", "_archive/_index.md"}


def _round_trip(root: Path, capsys: pytest.CaptureFixture[str], rel: str) -> None:
    """status, archive, status, delete, recover, status: nothing else changes, the file comes back intact."""
    unchanged_by(root, capsys, "status")
    unchanged_by(root, capsys, "status", "--json")
    start = capture(root).files
    code, _, err = run(root, capsys, "archive", rel, "--reason", "malformed input test", "--yes")
    assert code == 0, err
    after = capture(root).files
    only_changes(start, after, {rel, f"_archive/{rel}", *ACTION_FILES})
    assert after[f"_archive/{rel}"] == start[rel]
    unchanged_by(root, capsys, "status", "--json")
    assert run(root, capsys, "delete", rel, "--yes")[0] == 0
    code, _, err = run(root, capsys, "recover", rel, "--yes")
    if code == 1:  # no index line was saved: the refusal proposes one; confirm it
        assert "--index-line" in err
        code, _, err = run(root, capsys, "recover", rel, "--index-line", f"- {rel} — back", "--yes")
    assert code == 0, err
    end = capture(root).files
    assert end[rel] == start[rel]
    only_changes(start, end, ACTION_FILES)
    unchanged_by(root, capsys, "doctor")


@pytest.mark.parametrize("eol,bom", [("\r\n", ""), ("\n", "\ufeff"), ("\r\n", "\ufeff")])
def test_crlf_and_bom_index_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], eol: str, bom: str
) -> None:
    root = tmp_path / "mem"
    base_memory(root, eol=eol, bom=bom)
    before = (root / "_index.md").read_bytes()
    code, _, _ = run(root, capsys, "archive", "projects/beta.md", "--reason", "x", "--yes")
    assert code == 0
    after = (root / "_index.md").read_bytes()
    assert after.startswith(bom.encode()) and after.count(b"\r\n") == before.count(b"\r\n") - (eol == "\r\n")
    lines_kept(before, after, gone=b"- projects/beta.md \xe2\x80\x94 beta")
    _round_trip(root, capsys, "notes/standup.md")


def test_index_without_final_newline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    index = root / "_index.md"
    index.write_bytes(index.read_bytes().rstrip(b"\n"))
    before = index.read_bytes()
    _round_trip(root, capsys, "notes/delta.md")  # the last line, without its newline
    assert index.read_bytes() == before


def test_duplicate_index_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    index = root / "_index.md"
    index.write_bytes(index.read_bytes() + b"- projects/beta.md \xe2\x80\x94 beta\n")
    _, out, _ = unchanged_by(root, capsys, "status", "--json")
    assert any(p["kind"] == "duplicate-route" for p in json.loads(out)["problems"])
    code, out, _ = run(root, capsys, "archive", "projects/beta.md", "--reason", "x")
    assert code == 0 and "listed 2 times" in out
    assert run(root, capsys, "archive", "projects/beta.md", "--reason", "x", "--yes")[0] == 0
    assert b"projects/beta.md" not in index.read_bytes()


@pytest.mark.parametrize("which", ["_index.md", "_archive/_index.md"])
def test_invalid_utf8_in_either_index(tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    path = root / which
    path.write_bytes(path.read_bytes() + b"Bad bytes \xff\xfe\xc3( here\n")
    before = path.read_bytes()
    _, out, _ = unchanged_by(root, capsys, "status", "--json")
    json.loads(out)  # valid JSON
    _round_trip(root, capsys, "projects/beta.md")
    assert b"Bad bytes \xff\xfe\xc3( here\n" in path.read_bytes()
    lines_kept(before, path.read_bytes())


def test_a_truncated_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    records = root / "_archive/_index.md"
    text = records.read_bytes()
    records.write_bytes(text[: text.index(b"notes/gone.md") + 20])  # cut in the middle of the trash record
    unchanged_by(root, capsys, "status")
    unchanged_by(root, capsys, "status", "--json")
    code, _, _ = unchanged_by(root, capsys, "recover", "notes/gone.md")  # a preview changes nothing
    if code == 0:
        assert run(root, capsys, "recover", "notes/gone.md", "--yes")[0] in (0, 1)
    unchanged_by(root, capsys, "doctor")  # shows its plan; changes nothing without --yes
    _round_trip(root, capsys, "projects/beta.md")


def test_empty_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    (root / "_index.md").write_bytes(b"")
    (root / "_archive/_index.md").write_bytes(b"")
    write(root, "notes/empty.md", b"")
    _round_trip(root, capsys, "notes/empty.md")


def test_a_binary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    blob = bytes(range(256)) * 64 + b"\x00\x89PNG\r\n\x1a\n"
    write(root, "notes/picture.md", blob)
    _, out, _ = unchanged_by(root, capsys, "status", "--json")
    assert any(p["kind"] == "unreadable" for p in json.loads(out)["problems"])
    _round_trip(root, capsys, "notes/picture.md")
    src = tmp_path / "binary.bin"
    src.write_bytes(blob)
    code, _, err = unchanged_by(root, capsys, "save", "notes/other.md", "--from", str(src), "--yes")
    assert code == 1 and "not valid UTF-8" in err


@pytest.mark.slow
def test_a_50_mb_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    line = b"- a line of a very large memory file, repeated to fifty megabytes\n"
    big = b"# Big\n\n" + line * (50 * 1024 * 1024 // len(line))
    write(root, "projects/big.md", big)
    _round_trip(root, capsys, "projects/big.md")
    assert (root / "projects/big.md").stat().st_size == len(big)


@pytest.mark.parametrize(
    "name",
    ["notes/[bold]x[/bold].md", "notes/[red]alert[/red] (1).md", "notes/esc\x1b[31mred.md",
     "notes/bell\x07.md", "notes/tab\there.md", "notes/new\nline.md"],
)
def test_names_with_markup_or_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    write(root, name, b"# Odd name\n")
    _, out, _ = unchanged_by(root, capsys, "status")
    _, js, _ = unchanged_by(root, capsys, "status", "--json")
    json.loads(js)
    if "[" in name and "\x1b" not in name:
        assert name.split("/", 1)[1] in out  # markup is printed literally
        _round_trip(root, capsys, name)
    else:
        shown = name.replace("\x1b", "\\x1b").replace("\x07", "\\x07").replace("\n", "\\x0a")
        assert shown in out  # one line, escaped (before: a line break in a name split the status line)
        code, _, _ = unchanged_by(root, capsys, "archive", name, "--reason", "x", "--yes")
        assert code == 1  # the path check refuses control characters, in one escaped sentence


def test_an_undecodable_file_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    (root / "notes").joinpath(os.fsdecode(b"caf\xe9.md")).write_bytes(b"# Cafe\n")
    _, js, _ = unchanged_by(root, capsys, "status", "--json")
    assert any("caf\ufffd.md" in a["path"] for a in json.loads(js)["active"])
    unchanged_by(root, capsys, "doctor")


def test_the_real_process_stays_up_on_malformed_input(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    base_memory(root)
    index = b"\xef\xbb\xbf# Index\r\n- projects/beta.md \xe2\x80\x94 b\xff\r\n- broken"
    (root / "_index.md").write_bytes(index)
    (root / "_archive/_index.md").write_bytes(b"## projects/old.md\n- Original path: `proj")
    write(root, "notes/esc\x1b]0;title\x07.md", b"\x00\x01binary")
    before = capture(root)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for argv in (["status"], ["status", "--json"], ["doctor"], ["recover", "projects/old.md"],
                 ["archive", "projects/beta.md", "--reason", "x"], ["delete", "projects/beta.md", "--yes"]):
        proc = subprocess.run([sys.executable, "-m", "pmem_tui", "--root", str(root), *argv],
                              capture_output=True, env=env, cwd=str(REPO), timeout=60, check=False)
        assert proc.returncode in (0, 1), (argv, proc.stderr)
        assert b"Traceback" not in proc.stderr and b"\x1b" not in proc.stdout + proc.stderr, argv
        if proc.returncode == 1:
            assert proc.stderr.count(b"\n") == 1, proc.stderr
        assert capture(root) == before, argv
