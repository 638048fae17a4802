"""`pmem-tui search`: plain and JSON output, --archive, --limit, exit codes, colour, the tree unchanged, and
a light import path (no Textual, no Rich, none of the health engine's libraries)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.cli import main
from tests.cli.test_cli_colour import on_a_terminal
from tests.core.test_search import memory

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return memory(
        tmp_path / "mem",
        {
            "notes/plans.md": "# Zeppelin plans\n\n## Summary\n- airships\n\nThe zeppelin flies at dawn.\n",
            "notes/other.md": "# Other\n\nA zeppelin once.\n",
            "notes/bad.md": b"\xff\xfe zeppelin",
            "_archive/notes/old.md": "# Old\n\nzeppelin archived\n",
        },
    )


def python(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def tree(root: Path) -> list[tuple[str, bytes]]:
    return sorted((p.relative_to(root).as_posix(), p.read_bytes()) for p in root.rglob("*") if p.is_file())


def test_plain_output_marks_matches(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(root), "search", "zeppelin"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "active  notes/plans.md:1: # [Zeppelin] plans",
        "active  notes/other.md:3: A [zeppelin] once.",
    ]
    assert "1 file not indexed: 1 not text (not UTF-8, or holding a NUL byte)." in err


def test_json_shape(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(root), "search", "zeppelin", "--json", "--archive"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"results", "note"}
    assert data["note"] == "1 file not indexed: 1 not text (not UTF-8, or holding a NUL byte)."
    assert data["results"][0]["path"] == "notes/plans.md"
    assert {r["path"]: r["location"] for r in data["results"]}["_archive/notes/old.md"] == "archive"
    for r in data["results"]:
        assert set(r) == {"path", "location", "line", "snippet", "score"}
        assert isinstance(r["line"], int) and isinstance(r["score"], float)
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_limit_and_several_words(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(root), "search", "zeppelin", "--json", "--limit", "1"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 1
    assert main(["--root", str(root), "search", "zeppelin", "dawn", "--json"]) == 0
    assert [r["path"] for r in json.loads(capsys.readouterr().out)["results"]] == ["notes/plans.md"]


def test_no_match_exits_1_and_says_archive_was_left_out(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(root), "search", "archived"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "no match for 'archived'" in err and "--archive" in err
    assert main(["--root", str(root), "search", "archived", "--archive"]) == 0
    capsys.readouterr()
    assert main(["--root", str(root), "search", "nothing-like-it", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "results": [],
        "note": "1 file not indexed: 1 not text (not UTF-8, or holding a NUL byte).",
    }


@pytest.mark.rule("PM-AGENT-3")
@pytest.mark.parametrize(
    "argv",
    [
        ["search", "in:bogus", "x"],
        ["search", "in:archive"],
        ["search", '""'],
        ["search", "x", "--limit", "0"],
        ["search", "x", "--limit", "many"],
        ["search"],
    ],
)
def test_bad_usage_is_one_sentence_exit_2_tree_unchanged(root: Path, argv: list[str]) -> None:
    before = tree(root)
    proc = python("-m", "pmem_tui", "--root", str(root), *argv)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") <= 3 and "Traceback" not in proc.stderr
    assert tree(root) == before


def test_coloured_on_a_terminal_plain_with_no_color(root: Path) -> None:
    argv = ["--root", str(root), "search", "dawn"]
    assert "\x1b[1;31mdawn\x1b[0m" in on_a_terminal(argv, None)
    plain = on_a_terminal(argv, "1")
    assert "\x1b[" not in plain and "[dawn]" in plain


def test_search_imports_no_ui_and_no_health_engine(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pmem_tui.core import cache

    monkeypatch.setattr(
        cache, "clock", lambda: 2**62
    )  # long after every write: no file racy, none read again
    assert main(["--root", str(root), "search", "zeppelin"]) == 0  # the index built: the next one is warm
    code = (
        "import sys\n"
        "from pmem_tui.core import cache\n"
        "cache.clock = lambda: 2**62\n"
        "from pmem_tui.cli import main\n"
        f"rc = main(['--root', {str(root)!r}, 'search', 'zeppelin', '--json'])\n"
        "roots = ('textual', 'rich', 'numpy', 'rapidfuzz', 'detect_secrets')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in roots or m.startswith('pmem_tui.tui'))\n"
        "assert rc == 0 and not bad, bad\n"
        # the light parser (no other command's module), no `dataclasses` or `typing`, no model
        # nor `shutil` (argparse's formatter asked it the width)
        "heavy = ('pmem_tui.cli.health', 'pmem_tui.cli.history', 'pmem_tui.cli.loader',\n"
        "         'pmem_tui.core.model', 'dataclasses', 'typing', 'shutil')\n"
        "loaded = sorted(m for m in heavy if m in sys.modules)\n"
        "assert not loaded, loaded\n"
        "print('ok', file=sys.stderr)\n"
    )
    proc = python("-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.endswith("ok\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "zeppelin"],
        ["--root", "/tmp/r", "search", "a", "b", "--json", "--archive", "--limit", "3"],
        ["search", "--root", "/tmp/r", "--", "-dash"],
        ["--root=/tmp/r", "search", "x", "--limit", "7"],
    ],
)
def test_the_light_parser_parses_a_search_as_the_whole_one(argv: list[str]) -> None:
    from pmem_tui.cli.parser import build_parser, command_of

    assert command_of(argv) == "search"
    assert build_parser("search").parse_args(argv) == build_parser().parse_args(argv)


def test_command_of() -> None:
    from pmem_tui.cli.parser import command_of

    assert command_of(["--root", "search", "status"]) == "status"  # `search` is --root's value here
    assert command_of(["--demo"]) is None and command_of(["--", "search"]) is None
    assert command_of(["--project", "p", "health", "--json"]) == "health"


@pytest.mark.parametrize("columns", ["57", "", "0", "x"])
def test_the_help_is_as_wide_as_with_shutil(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from pmem_tui.cli import parser

    monkeypatch.setenv("COLUMNS", columns)
    assert parser._columns() == shutil.get_terminal_size().columns
    monkeypatch.delenv("COLUMNS")
    assert parser._columns() == shutil.get_terminal_size().columns

