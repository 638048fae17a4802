"""Fixtures of the fault campaign."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """In-process runs simulate a process dying at a system call, not a power cut: the kernel keeps every
    write, so a real fsync changes nothing they can observe. It is replaced by a counter to keep the campaign
    fast; each fsync call still passes through the shim's step hook, where faults are injected. The
    real-process tests (`test_real_kill.py`) keep real fsyncs."""
    calls: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd))
    yield calls

