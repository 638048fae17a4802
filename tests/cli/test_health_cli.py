"""`pmem-tui health`: plain and JSON output, options, the lifecycle refusal, and no Textual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.cli.health import health_dict, health_lines
from pmem_tui.core.health import check_health
from tests.core.test_health import build, snapshot
from tests.core.test_health_secret import KEY, LEAKY, PASSWORD, build_leaky

REPO = Path(__file__).resolve().parents[2]


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "pmem_tui", *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return build(tmp_path / "mem")


@pytest.mark.rule("PM-HEALTH-4", "PM-HEALTH-6")
def test_plain_output_is_a_numbered_list(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(planted), "health"]) == 0
    lines = capsys.readouterr().out.splitlines()
    numbered = [line for line in lines if line.lstrip()[:1].isdigit() and ". " in line]
    assert [int(line.split(".")[0]) for line in numbered] == list(range(1, len(numbered) + 1))
    assert numbered[0].split()[1:3] == ["delete", "notes/dup-b.md"]
    assert any(line.startswith("Expired trash (1)") for line in lines)
    assert any("notes/expired.md" in line and "2026-10-31" in line for line in lines)


def test_json_shape(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["health", "--root", str(planted), "--json"]) == 0  # --root after the command too
    data = json.loads(capsys.readouterr().out)
    assert [p["n"] for p in data["proposals"]] == list(range(1, len(data["proposals"]) + 1))
    for p in data["proposals"]:
        assert {"n", "path", "category", "signals", "reason"} <= set(p)
        assert p["category"] in ("keep", "archive", "delete")
        assert all({"kind", "detail"} <= set(s) for s in p["signals"])
    assert data["expired_trash"] == [
        {"path": "notes/expired.md", "location": "_archive/_trash/notes/expired.md", "deadline": "2026-10-31"}
    ]


def test_inactive_days_option(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(planted), "health", "--json", "--inactive-days", "500", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inactive_days"] == 500
    assert not any(s["kind"] == "inactive" for p in data["proposals"] for s in p["signals"])
    assert not (planted / ".pmem").exists()


@pytest.mark.parametrize("value", ["0", "-3", "soon"])
def test_inactive_days_must_be_positive(planted: Path, value: str) -> None:
    proc = run("--root", str(planted), "health", "--inactive-days", value)
    assert proc.returncode == 2 and "--inactive-days" in proc.stderr


@pytest.mark.rule("PM-UPG-4")
def test_refused_while_lifecycle_is_incomplete(tmp_path: Path) -> None:
    root = tmp_path / "legacy"
    (root / "projects").mkdir(parents=True)
    (root / "projects/a.md").write_text("# A\n\nStatus: done\n", encoding="utf-8")
    (root / "_index.md").write_text("- projects/a.md — a\n", encoding="utf-8")
    before = snapshot(root)
    proc = run("--root", str(root), "health")
    assert proc.returncode == 1
    assert "upgrade" in proc.stderr and proc.stderr.count("\n") == 1
    assert proc.stdout == ""
    assert snapshot(root) == before and not (root / ".pmem").exists()


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-3")
def test_the_cli_changes_no_memory_file(planted: Path) -> None:
    before = snapshot(planted)
    for _ in range(2):
        assert run("--root", str(planted), "health").returncode == 0
    assert snapshot(planted) == before


def test_health_never_imports_textual(planted: Path) -> None:
    code = (
        "import sys\n"
        "from pmem_tui.cli import main\n"
        f"rc = main(['--root', {str(planted)!r}, 'health', '--json'])\n"
        "roots = ('textual', 'rich')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in roots or m.startswith('pmem_tui.tui'))\n"
        "assert rc == 0 and not bad, bad\n"
        "print('ok', file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.endswith("ok\n")


def test_a_memory_without_history_loads_no_git_library(planted: Path, tmp_path: Path) -> None:
    """dulwich (~10 ms) loads only to read kept versions, and a memory without a history has none."""
    code = (
        "import sys\n"
        "from pmem_tui.cli import main\n"
        f"rc = main(['--root', {str(planted)!r}, 'health', '--json'])\n"
        "assert rc == 0 and 'numpy' in sys.modules and 'dulwich' not in sys.modules\n"
        "print('ok', file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PMEM_TUI_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.endswith("ok\n")


def test_output_is_utf8_whatever_the_terminal_encoding(planted: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run(
        [sys.executable, "-m", "pmem_tui", "--root", str(planted), "health"],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "identical to notes/dup-a.md" in proc.stdout.decode("utf-8")
    assert "— " in proc.stdout.decode("utf-8")


# -- the output, as functions -----------------------------------------------------------------------------


def test_health_dict_shape(planted: Path) -> None:
    data = health_dict(check_health(planted, use_cache=False))
    assert {"proposals", "expired_trash"} <= set(data)
    first = data["proposals"][0]
    assert {"n", "path", "category", "signals", "reason"} <= set(first)
    assert all({"kind", "detail"} <= set(s) for p in data["proposals"] for s in p["signals"])
    assert data["expired_trash"] == [
        {"path": "notes/expired.md", "location": "_archive/_trash/notes/expired.md", "deadline": "2026-10-31"}
    ]


def test_health_lines(planted: Path) -> None:
    lines = health_lines(check_health(planted, use_cache=False))
    assert any(
        line.lstrip().startswith("1. delete  notes/dup-b.md — identical to notes/dup-a.md") for line in lines
    )
    assert any("fix: add to _index.md: - [Orphan note](notes/orphan.md) — one" in line for line in lines)
    assert any(line.startswith("Expired trash (1)") for line in lines)
    assert lines[-1].startswith("Nothing was changed.")


# -- the secret signal ---------------------------------------------------------------------------------------


def test_health_names_a_secret_by_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leaky = build_leaky(tmp_path / "mem")
    assert main(["--root", str(leaky), "health"]) == 0
    out = capsys.readouterr().out
    assert KEY not in out and PASSWORD not in out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if f" keep    {LEAKY} — " in line)
    assert lines[at].endswith(
        "line 5 looks like a secret (AWS access key); line 7 looks like a secret (password)"
    )
    assert lines[at + 1].strip() == (
        f"fix: save it with lines 5, 7 redacted (`f` in the app's health review, or `pmem-tui save {LEAKY} "
        "--from FILE`, the preview first); pmem-tui's history (.pmem/history) still holds the secret then: "
        f"`pmem-tui history forget {LEAKY} --version V` for each version the next `health` names"
    )


def test_health_json_names_a_secret_by_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaky = build_leaky(tmp_path / "mem")
    assert main(["--root", str(leaky), "health", "--json"]) == 0
    out = capsys.readouterr().out
    assert KEY not in out and PASSWORD not in out
    (p,) = [p for p in json.loads(out)["proposals"] if p["path"] == LEAKY]
    assert p["signals"] == [
        {"kind": "secret", "detail": "line 5 looks like a secret (AWS access key)"},
        {"kind": "secret", "detail": "line 7 looks like a secret (password)"},
    ]
    assert (p["category"], p["fix_action"], p["fix"]) == ("keep", "redact", "lines 5, 7")
