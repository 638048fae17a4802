"""The suite's worker count (`tests/conftest.py`): `-n auto` is its own, xdist's knobs stay xdist's."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import pytest_xdist_auto_num_workers


def config(numprocesses: str) -> Any:
    return SimpleNamespace(option=SimpleNamespace(numprocesses=numprocesses))


def test_auto_is_one_and_a_half_workers_per_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    assert pytest_xdist_auto_num_workers(config("auto")) == 6


def test_xdists_own_knobs_still_set_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: the hook answered first, so PYTEST_XDIST_AUTO_NUM_WORKERS=1 (fewer workers on a
    shared machine) and `-n logical` were ignored: 3 workers on 2 cores whatever was asked. None lets
    xdist's own hook answer them."""
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
    assert pytest_xdist_auto_num_workers(config("auto")) is None
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS")
    assert pytest_xdist_auto_num_workers(config("logical")) is None
