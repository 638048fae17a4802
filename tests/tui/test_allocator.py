"""The app's process gives freed big buffers back to the system (`pmem_tui.tui.allocator`)."""

from __future__ import annotations

import ctypes
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui import cli
from pmem_tui.cli import streams
from pmem_tui.tui import allocator
from pmem_tui.tui import app as app_module

# A big buffer freed (glibc then raises its mmap threshold to its size), then 12 MiB in blocks of 256 KiB
# freed: how much of them the process gives back (MiB).
GIVEN_BACK = """
import os
from pmem_tui.tui.allocator import keep_mmap_threshold
kept = keep_mmap_threshold()
def rss(): return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
big = bytearray(8 << 20)
del big
blocks = [bytearray(256 << 10) for _ in range(48)]
before = rss()
del blocks
print(kept, (before - rss()) / 2**20)
"""

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's allocator only"
)


@glibc
def test_freed_blocks_go_back_to_the_system_after_a_big_one_was_freed() -> None:
    out = subprocess.run([sys.executable, "-c", GIVEN_BACK], capture_output=True, text=True, check=True)
    kept, given_back = out.stdout.split()
    assert kept == "True"
    assert float(given_back) >= 10  # without the fixed threshold: 0 (the blocks stay in the heap)


def test_elsewhere_nothing_is_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert allocator.keep_mmap_threshold() is False


@pytest.mark.parametrize(
    "env",
    [
        {"MALLOC_MMAP_THRESHOLD_": "65536"},
        {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=4096"},
    ],
)
def test_a_threshold_the_person_set_is_theirs(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(ctypes, "CDLL", _never)  # `mallopt` is not even looked up
    assert allocator.keep_mmap_threshold() is False


def _never(*_: object) -> None:
    raise AssertionError("mallopt looked up")


def test_the_app_command_keeps_the_threshold_before_it_opens_the_app(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[str] = []

    def keep() -> bool:
        calls.append("threshold")
        return True

    def run_app(**_: object) -> int:
        calls.append("app")
        return 0

    monkeypatch.setattr(allocator, "keep_mmap_threshold", keep)
    monkeypatch.setattr(app_module, "run_app", run_app)
    monkeypatch.setattr(streams, "no_terminal", lambda: None)  # under pytest: no terminal
    monkeypatch.setattr(streams, "app_terminal", lambda: lambda: None)  # nor one to draw on
    assert cli.main(["--root", str(tmp_path)]) == 0
    assert calls == ["threshold", "app"]
