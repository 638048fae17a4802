"""The app's process gives freed big buffers back to the system (`pmem_tui.tui.allocator`)."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui import cli
from pmem_tui.tui import allocator
from pmem_tui.tui import app as app_module

# A big buffer freed (glibc then raises its mmap threshold to its size), then 12 MiB in blocks of 256 KiB
# freed: how much of them the process gives back (MiB).
GIVEN_BACK = """
import sys
from pmem_tui.tui.allocator import keep_mmap_threshold
kept = keep_mmap_threshold()
def rss(): return int(open("/proc/self/statm").read().split()[1]) * 4096
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
    assert cli.main(["--root", str(tmp_path)]) == 0
    assert calls == ["threshold", "app"]
