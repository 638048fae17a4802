"""The CLI contract, through the real entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core import scan_facts
from tests.conftest import cache_file, tree_bytes, write


def run(
    *argv: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pmem_tui", *argv],
        capture_output=True,
        text=True,
        input=stdin.decode() if stdin is not None else None,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.mark.rule("PM-STATUS-1", "PM-STATUS-2", "PM-LOAD-1")
def test_status_json_shape(memory: Path) -> None:
    proc = run("--root", str(memory), "status", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["root"] == str(memory)
    assert data["lifecycle"] == {"ready": True, "missing": [], "linked": []}
    assert {c["path"] for c in data["core"]} == {"_core/profile.md", "_core/preferences.md"}
    alpha = next(a for a in data["active"] if a["path"] == "projects/alpha.md")
    assert alpha["index_line"] == "- [Alpha](projects/alpha.md) — the importer project"
    assert alpha["summary"] == "the importer project"
    assert alpha["bytes"] == (memory / "projects/alpha.md").stat().st_size
    assert data["archived"] == [] and data["trash"] == [] and data["problems"] == []
    assert data["baseline"]["files"] == 3 and data["baseline"]["tokens"] > 0


def test_status_prints_user_text_literally(memory: Path) -> None:
    write(memory, "notes/[bold]x[/bold].md", "# [red]t[/red]\n")
    out = run("--root", str(memory), "status").stdout
    assert "notes/[bold]x[/bold].md" in out


@pytest.mark.rule("PM-SAFE-6", "PM-CORE-3", "PM-ARC-6")
def test_preview_then_yes(memory: Path) -> None:
    before = tree_bytes(memory)
    proc = run("--root", str(memory), "archive", "projects/alpha.md", "--reason", "done")
    assert proc.returncode == 0
    assert "move    projects/alpha.md -> _archive/projects/alpha.md" in proc.stdout
    assert "Preview only" in proc.stdout
    assert tree_bytes(memory) == before
    proc = run("--root", str(memory), "archive", "projects/alpha.md", "--reason", "done", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Archived projects/alpha.md to _archive/projects/alpha.md."


def test_refusal_is_one_sentence_exit_1(memory: Path) -> None:
    before = tree_bytes(memory)
    proc = run("--root", str(memory), "delete", "projects/alpha.md", "--yes")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "archive it first" in proc.stderr
    assert tree_bytes(memory) == before


def test_bad_usage_exit_2(memory: Path) -> None:
    assert run("--root", str(memory), "archive", "projects/alpha.md").returncode == 2
    assert run("frobnicate").returncode == 2


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("pmem-tui ")


def test_root_from_env(memory: Path) -> None:
    proc = run("status", "--json", env={"PMEM_ROOT": str(memory)})
    assert json.loads(proc.stdout)["root"] == str(memory)


@pytest.mark.rule("PM-FIRST-1", "PM-SAVE-3")
def test_save_from_stdin_first_save(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    proc = run(
        "--root", str(root), "save", "notes/hello.md", "--from", "-", "--yes", stdin=b"# Hello\n\nhi\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert (root / "notes/hello.md").read_bytes() == b"# Hello\n\nhi\n"
    assert (root / "_index.md").read_text(encoding="utf-8") == "- [Hello](notes/hello.md) — hi\n"


def test_full_cycle_in_process(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--root", str(memory)]
    before = tree_bytes(memory)
    assert main([*root, "archive", "notes/日本語 メモ.md", "--reason", "old", "--yes"]) == 0
    assert main([*root, "delete", "notes/日本語 メモ.md", "--yes"]) == 0
    assert "recoverable until 2026-12-30" in capsys.readouterr().out
    assert main([*root, "recover", "notes/日本語 メモ.md", "--yes"]) == 0
    assert tree_bytes(memory) == before
    assert main([*root, "purge"]) == 0
    assert "No expired trash" in capsys.readouterr().out


def test_io_error_is_one_sentence(memory: Path) -> None:
    proc = run("--root", str(memory), "save", "notes/x.md", "--from", str(memory / "nope.md"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("pmem-tui: Cannot read")


@pytest.mark.rule("PM-SAFE-3")
def test_symlink_out_of_root_is_refused(memory: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "secret.md", "# outside\n")
    os.symlink(outside, memory / "notes" / "link")
    proc = run("--root", str(memory), "archive", "notes/link/secret.md", "--reason", "x", "--yes")
    assert proc.returncode == 1
    assert (outside / "secret.md").exists()


def test_non_utf8_file_in_status(memory: Path) -> None:
    write(memory, "notes/latin1.md", b"# caf\xe9\n")
    proc = run("--root", str(memory), "status", "--json")
    assert proc.returncode == 0
    kinds = {(p["kind"], p["path"]) for p in json.loads(proc.stdout)["problems"]}
    assert ("unreadable", "notes/latin1.md") in kinds


def test_status_uses_the_scan_cache_unless_told_not_to(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_name = os.fsdecode(b"notes/bad-\xff.md")  # an undecodable file name: U+FFFD in the JSON
    write(memory, bad_name, b"# caf\xe9\n")
    before = tree_bytes(memory)
    assert main(["--root", str(memory), "status", "--json", "--no-cache"]) == 0
    cold = capsys.readouterr().out
    assert not (memory / ".pmem").exists()
    assert main(["--root", str(memory), "status", "--json"]) == 0
    assert cache_file(memory, scan_facts.SCAN_FILE).is_file()
    assert not (memory / ".pmem").exists()
    assert main(["--root", str(memory), "status", "--json"]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first == second == cold.rstrip("\n")
    data = json.loads(cold)
    assert "notes/bad-\ufffd.md" in {a["path"] for a in data["active"]}
    assert tree_bytes(memory) == before


def test_a_linked_lifecycle_folder_is_said_blocked_not_ready(memory: Path, tmp_path: Path) -> None:
    """Found in trial: with `_archive/_trash` a symbolic link, status said "Lifecycle: ready" (upgrade had
    nothing to do) and every delete was then refused."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(memory / "_archive/_trash")
    (memory / "_archive/_trash").symlink_to(elsewhere)
    done = run("--root", str(memory), "status")
    assert done.returncode == 0
    assert (
        "Lifecycle: blocked: _archive/_trash is a symbolic link, which pmem-tui never follows" in done.stdout
    )
    done = run("--root", str(memory), "status", "--json")
    assert json.loads(done.stdout)["lifecycle"] == {
        "ready": True,
        "missing": [],
        "linked": ["_archive/_trash"],
    }
    assert not list(elsewhere.iterdir())  # nothing was followed into
