"""Stock git over a root's history store (the tests that check git reads what pmem-tui writes)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pmem_tui.core.history import names

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="the git binary reads the store in this test")


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert GIT is not None
    return subprocess.run(
        [GIT, f"--git-dir={root / names.HISTORY_DIR}", *args], capture_output=True, text=True, check=False
    )
