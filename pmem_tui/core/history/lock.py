"""The store's lock (`names.LOCK_NAME`): one recorder or rewriter at a time.

An advisory `flock` on a file inside the store, standard library only: a record of one changed file runs in
a short process (`snapshot`, an agent's hook), where the `filelock` package's import is a fifth of the time
a whole record may take. The lock goes with the process: a crash leaves nothing to clean up. The file is
opened without following a link and without blocking, and is never removed (removing it would let two
holders lock two files of one name).
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["TIMEOUT_S", "held"]

TIMEOUT_S = 5.0
_POLL_S = 0.01
_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


@contextmanager
def held(path: Path | str, timeout: float = TIMEOUT_S) -> Iterator[None]:
    """Hold the lock on `path` for the block; TimeoutError (an OSError) when another holds it past
    `timeout` seconds."""
    fd = os.open(path, _FLAGS, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        errno.ETIMEDOUT,
                        f"another pmem-tui kept the history store locked for {timeout:g} s",
                        os.fspath(path),
                    ) from None
                time.sleep(_POLL_S)
        yield
    finally:
        os.close(fd)  # releases the lock
