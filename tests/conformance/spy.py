"""Watch which files a piece of code opens, and refuse some of them, without relying on permissions.

`chmod 000` does not stop root, and a FIFO is skipped by the scan as "not a regular file" (so it would prove
nothing). Instead every way the code reads a file is wrapped: `builtins.open`, `io.open` (what
`Path.read_bytes`/`read_text` call) and `os.open`. A refused path raises `PermissionError`, exactly as an
unreadable file would.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


class OpenSpy:
    """Records every path opened below `root` (as POSIX paths relative to it) and refuses `deny(rel)`."""

    def __init__(self, root: Path, deny: Callable[[str], bool] = lambda rel: False) -> None:
        self.root = Path(os.path.realpath(root))
        self.deny = deny
        self.opened: list[str] = []
        self.refused: list[str] = []

    def _rel(self, file: Any, dir_fd: int | None = None) -> str | None:
        if isinstance(file, int):
            return None
        try:
            name = os.fsdecode(file)
            if dir_fd is not None:  # `safeio` opens each name relative to the folder above it
                name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
            path = Path(os.path.realpath(name))
        except TypeError:
            return None
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _check(self, file: Any, dir_fd: int | None = None) -> None:
        rel = self._rel(file, dir_fd)
        if rel is None:
            return
        self.opened.append(rel)
        if self.deny(rel):
            self.refused.append(rel)
            raise PermissionError(errno.EACCES, "refused by the test", os.fsdecode(file))

    def install(self, monkeypatch: pytest.MonkeyPatch) -> OpenSpy:
        real_open = builtins.open
        real_os_open = os.open

        def spy_open(file: Any, *args: Any, **kwargs: Any) -> Any:
            self._check(file)
            return real_open(file, *args, **kwargs)

        def spy_os_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
            if not flags & getattr(os, "O_DIRECTORY", 0):  # a folder opened to list it is no file read
                self._check(path, dir_fd)
            return real_os_open(path, flags, mode, dir_fd=dir_fd)

        monkeypatch.setattr(builtins, "open", spy_open)
        monkeypatch.setattr(io, "open", spy_open)
        monkeypatch.setattr(os, "open", spy_os_open)
        return self


def in_archive(rel: str) -> bool:
    """An archived or trashed memory file (its contents), as opposed to the archive index."""
    return rel.startswith("_archive/") and rel != "_archive/_index.md"
