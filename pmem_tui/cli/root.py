"""Which memory root a command works on: --root DIR, else $PMEM_ROOT, else ~/.persistent-memory.

Its own module, with nothing but `os`, so that `status`'s fast path and the package's `main` both use it
without importing each other.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as in `cli/__init__.py`: `typing` costs start-up time
if TYPE_CHECKING:
    from pathlib import Path

ENV_ROOT = "PMEM_ROOT"
DEFAULT_ROOT = "~/.persistent-memory"


def root_str(arg: str | None) -> str:
    raw = arg or os.environ.get(ENV_ROOT) or DEFAULT_ROOT
    return os.path.abspath(os.path.expanduser(raw))


def resolve_root(arg: str | None) -> Path:
    """--root DIR, else $PMEM_ROOT, else ~/.persistent-memory."""
    from pathlib import Path

    return Path(root_str(arg))
