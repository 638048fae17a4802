"""`pmem-tui loader [--project DIR] [--json]` (spec/permanent-memory-loader.md, PL-1..PL-12)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pmem_tui
from pmem_tui.cli import loader as cli_loader
from pmem_tui.core.loader import HEADER, STALE_PREFIX, load_permanent_memory

TODAY = "2026-03-01"
REPO = Path(pmem_tui.__file__).resolve().parent.parent
CLI_EXISTS = (REPO / "pmem_tui" / "cli" / "__init__.py").exists()
needs_cli = pytest.mark.skipif(not CLI_EXISTS, reason="pmem_tui/cli/ is not there yet")

SAMPLE = (
    "# Permanent memory\n\n"
    "## Epic: FEAT-A — cursor pagination for feed\n"
    "<!-- af-memory:v2 epic=FEAT-A confidence=0.82 items=5 date=2026-02-01 -->\n"
    "Cursor-based pagination chosen over offset; opaque base64 cursor.\n\n"
    "### Architectural decisions\n- [decision] keyset pagination (confidence: 0.91)\n\n"
    "## Epic: FEAT-007 — JWT auth\n"
    "**Completed:** 2025-01-10 token storage in httpOnly cookie\n"
    "### Gotchas discovered\n- refresh rotation needs CSRF re-issue\n"
)


@pytest.fixture(autouse=True)
def frozen_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", TODAY)


def make_project(root: Path, content: str | bytes | None = SAMPLE, *, memory_dir: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if memory_dir:
        (root / ".claude" / "memory").mkdir(parents=True, exist_ok=True)
    if content is not None:
        raw = content.encode("utf-8") if isinstance(content, str) else content
        (root / ".claude" / "memory" / "permanent_memory.md").write_bytes(raw)
    return root


def harness(argv: list[str]) -> int:
    """The subcommand alone, registered on a bare parser as `pmem_tui.cli` does."""
    parser = argparse.ArgumentParser(prog="pmem-tui")
    sub = parser.add_subparsers(dest="command")
    cli_loader.add_parser(sub)
    args = parser.parse_args(argv)
    assert args.command == "loader"
    return cli_loader.run(args)


def expected_block(project: Path) -> bytes:
    return (load_permanent_memory(project).block + "\n").encode("utf-8")


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PMEM_TUI_TODAY"] = TODAY
    env.update(extra)
    return env


# ------------------------------------------------------------------------------------------------ harness


@pytest.mark.rule("PL-5", "PL-6", "PL-11")
def test_plain_prints_exactly_the_block(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    project = make_project(tmp_path / "p")
    assert harness(["loader", "--project", str(project)]) == 0
    out, err = capsysbinary.readouterr()
    assert out == expected_block(project)
    assert out.decode("utf-8").splitlines() == [
        HEADER,
        "Epic: FEAT-A — cursor pagination for feed — "
        "Cursor-based pagination chosen over offset; opaque base64 cursor.",
        STALE_PREFIX
        + "Epic: FEAT-007 — JWT auth — **Completed:** 2025-01-10 token storage in httpOnly cookie",
    ]
    assert err == b""


@pytest.mark.rule("PL-1")
@pytest.mark.parametrize("memory_dir", [False, True])
def test_silent_without_memory(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], memory_dir: bool
) -> None:
    project = make_project(tmp_path / "p", None, memory_dir=memory_dir)
    assert harness(["loader", "--project", str(project)]) == 0
    assert capsysbinary.readouterr() == (b"", b"")


@pytest.mark.rule("PL-1")
@pytest.mark.parametrize(("memory_dir", "status"), [(False, "no_memory_dir"), (True, "no_file")])
def test_json_reports_the_silent_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory_dir: bool, status: str
) -> None:
    project = make_project(tmp_path / "p", None, memory_dir=memory_dir)
    assert harness(["loader", "--project", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == status
    assert report["block"] == "" and report["epics"] == [] and report["file"] is None
    assert report["budget"]["used"] == 0


@pytest.mark.rule("PL-3", "PL-4", "PL-7", "PL-9", "PL-11")
def test_json_per_epic_and_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(tmp_path / "p")
    assert harness(["loader", "--json", "--project", str(project)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == 2 and report["status"] == "loaded" and report["today"] == TODAY
    assert report["block"] == load_permanent_memory(project).block
    a, b = report["epics"]
    assert {k: a[k] for k in ("id", "intent", "shape", "confidence", "items", "date", "date_source")} == {
        "id": "FEAT-A",
        "intent": "cursor pagination for feed",
        "shape": "v2",
        "confidence": "0.82",
        "items": 5,
        "date": "2026-02-01",
        "date_source": "marker",
    }
    # 265 characters, heading to the line before FEAT-007: 67 tokens
    assert (a["date_field"], a["section_tokens"], a["over_producer_cap"]) == ("date", 67, False)
    assert (a["age_days"], a["stale"], a["status"], a["step"], a["lines_read"]) == (
        28,
        False,
        "loaded",
        None,
        [3, 4, 5],
    )
    assert a["tokens"] == a["full_tokens"] > 0
    assert (b["shape"], b["confidence"], b["items"], b["date_source"], b["stale"]) == (
        "v1",
        None,
        None,
        "completed",
        True,
    )
    assert b["completed_line_no"] == 11
    assert b["age_days"] == (dt.date.fromisoformat(TODAY) - dt.date(2025, 1, 10)).days
    budget = report["budget"]
    assert (budget["target"], budget["cap"], budget["step"], budget["step_number"]) == (120, 200, "none", 0)
    assert budget["used"] <= 120 and budget["within_target"] and budget["within_cap"]
    assert budget["per_epic_summary"] == {"target": 12, "cap": 20}
    assert budget["per_subsection_line"] == {"target": 1, "cap": 2, "used": 0}
    assert report["ladder"] == [
        {"step": "none", "step_number": 0, "tokens": budget["used"], "saved": 0, "affected": []}
    ]
    assert report["file"]["utf8"] and not report["file"]["bom"]


@pytest.mark.rule("PL-8", "PL-9")
def test_json_reports_the_step_and_what_it_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sections = []
    for i in range(6):
        conf = "0.4" if i % 2 else "0.9"
        sections.append(
            f"## Epic: F-{i} — intent {i}\n<!-- af-memory:v2 epic=F-{i} confidence={conf} items=1 -->\n"
            + "word " * 14
            + "\n"
        )
    project = make_project(tmp_path / "p", "".join(sections))
    assert harness(["loader", "--project", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["budget"]["step"] == "drop_tentative"
    assert [s["step"] for s in report["ladder"]] == ["none", "drop_tentative"]
    assert report["ladder"][1]["affected"] == ["F-1", "F-3", "F-5"]
    dropped = [(e["id"], e["status"], e["step"]) for e in report["epics"] if e["status"] == "dropped"]
    assert dropped == [
        ("F-1", "dropped", "drop_tentative"),
        ("F-3", "dropped", "drop_tentative"),
        ("F-5", "dropped", "drop_tentative"),
    ]


@pytest.mark.rule("PL-8")
def test_skipped_file_prints_nothing_and_notes_on_stderr(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    many = "".join(f"## Epic: E-{i:03} — x\nshort\n" for i in range(40))  # IDs only: over the target
    project = make_project(tmp_path / "p", SAMPLE + many + "x" * 40_000)
    assert harness(["loader", "--project", str(project)]) == 0
    out, err = capsysbinary.readouterr()
    assert out == b""
    assert b"skipped" in err and b"file_over_limit" in err


def test_default_project_is_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert harness(["loader"]) == 0
    assert capsysbinary.readouterr().out == expected_block(project)


def test_missing_project_folder_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness(["loader", "--project", str(tmp_path / "nope")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "does not exist" in err and err.count("\n") == 1


def test_not_utf8_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(tmp_path / "p", b"## Epic: F-1 - x\nsummary \xff here\n")
    assert harness(["loader", "--project", str(project)]) == 0
    out, err = capsys.readouterr()
    assert "summary \ufffd here" in out and "not valid UTF-8" in err
    assert harness(["loader", "--project", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["file"]["utf8"] is False
    assert any("not valid UTF-8" in w for w in report["warnings"])


@pytest.mark.rule("PL-10", "PL-12")
def test_cli_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(tmp_path / "p")
    (project / ".claude" / "memory" / "manual_overrides.md").write_text("## Epic: OVR — x\nsecret\n")

    def snap() -> dict[str, tuple[bytes, int]]:
        return {
            str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(project.rglob("*")) if p.is_file()
        }

    before = snap()
    assert harness(["loader", "--project", str(project)]) == 0
    assert harness(["loader", "--project", str(project), "--json"]) == 0
    assert snap() == before
    assert "secret" not in capsys.readouterr().out


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        harness(["loader", "--help"])
    text = capsys.readouterr().out
    assert "--project DIR" in text and "--json" in text


# ---------------------------------------------------------------------------------------------- Textual-free


def test_loader_cli_never_imports_textual(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    code = (
        "import sys, argparse\n"
        "from pmem_tui.cli import loader as cli_loader\n"
        "p = argparse.ArgumentParser(); s = p.add_subparsers(dest='command'); cli_loader.add_parser(s)\n"
        f"rc = cli_loader.run(p.parse_args(['loader', '--project', {str(project)!r}, '--json']))\n"
        "roots = ('textual', 'rich')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in roots or m.startswith('pmem_tui.tui'))\n"
        "assert rc == 0 and not bad, bad\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("ok\n")


def test_block_bytes_are_utf8_whatever_the_terminal_encoding(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    code = (
        "import argparse\n"
        "from pmem_tui.cli import loader as cli_loader\n"
        "p = argparse.ArgumentParser(); s = p.add_subparsers(dest='command'); cli_loader.add_parser(s)\n"
        f"raise SystemExit(cli_loader.run(p.parse_args(['loader', '--project', {str(project)!r}])))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        env=child_env(PYTHONIOENCODING="ascii"),
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected_block(project)


# ---------------------------------------------------------------------------------------- via pmem_tui.cli


def _main(argv: list[str]) -> int:
    from pmem_tui import cli

    main: Any = cli.main
    return int(main(argv))


@needs_cli
@pytest.mark.rule("PL-5", "PL-6")
def test_main_loader(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    project = make_project(tmp_path / "p")
    assert _main(["loader", "--project", str(project)]) == 0
    assert capsysbinary.readouterr().out == expected_block(project)


@needs_cli
def test_main_loader_with_top_level_project(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    project = make_project(tmp_path / "p")
    assert _main(["--project", str(project), "loader"]) == 0
    assert capsysbinary.readouterr().out == expected_block(project)


@needs_cli
@pytest.mark.rule("PL-1")
def test_main_loader_silent_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = make_project(tmp_path / "empty", None, memory_dir=False)
    assert _main(["loader", "--project", str(empty)]) == 0
    assert capsys.readouterr() == ("", "")
    project = make_project(tmp_path / "p")
    assert _main(["loader", "--project", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "loaded"


@needs_cli
@pytest.mark.rule("PL-1", "PL-6")
def test_python_m_pmem_tui_loader(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pmem_tui", "loader", "--project", str(project)],
        capture_output=True,
        env=child_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert proc.stdout == expected_block(project)
    imported = [line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line]
    assert not [m for m in imported if m.split(".")[0] in ("textual", "rich")]

    silent = make_project(tmp_path / "silent", None, memory_dir=False)
    proc = subprocess.run(
        [sys.executable, "-m", "pmem_tui", "loader"],
        capture_output=True,
        env=child_env(),
        cwd=silent,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
