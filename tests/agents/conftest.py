"""The hand-written roots' CLI runner as a fixture."""

from __future__ import annotations

import pytest

from tests.agents.agent_roots import Pm, cli


@pytest.fixture
def pm(capsys: pytest.CaptureFixture[str]) -> Pm:
    return cli(capsys)
