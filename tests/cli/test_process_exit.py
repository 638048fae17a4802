"""A quick command run as its own process (`status`, `health`) ends without the interpreter's teardown
(`cli._end_now`): what it printed is all there, flushed, with its exit code, cold and warm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.cli import main
from tests.core.test_health import build

REPO = Path(__file__).resolve().parents[2]


def process(root: Path, cache: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PMEM_TUI_CACHE_DIR": str(cache)}
    env.pop("PYTHONUNBUFFERED", None)  # buffered, as usual: what was not flushed would be lost
    cmd = [sys.executable, "-m", "pmem_tui", "--root", str(root), *argv]
    return subprocess.run(cmd, capture_output=True, env=env, timeout=120, check=False)


@pytest.mark.parametrize("command", ["status", "health"])
def test_a_quick_command_process_prints_all_of_its_output(
    tmp_path: Path, command: str, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = build(tmp_path / "mem")
    monkeypatch.setenv("PMEM_TUI_CACHE_DIR", str(tmp_path / "in-process"))
    assert main(["--root", str(root), command, "--json"]) == 0
    expected = json.loads(capsysbinary.readouterr().out)
    expected.pop("stats", None)  # health's run figures (time, cache use)
    for _run in ("cold", "warm"):
        proc = process(root, tmp_path / "cache", command, "--json")
        assert proc.returncode == 0 and proc.stderr == b""
        assert proc.stdout.endswith(b"}\n")
        got = json.loads(proc.stdout)
        got.pop("stats", None)
        assert got == expected
    nowhere = tmp_path / "nowhere"  # status: a sentence, exit 0; health: a refusal, exit 1
    code = main(["--root", str(nowhere), command])
    said = capsysbinary.readouterr()
    missing = process(nowhere, tmp_path / "cache", command)
    assert (missing.returncode, missing.stdout, missing.stderr) == (code, said.out, said.err)
    assert said.out or said.err
