"""One door to the disk: every write, move and removal the tool makes goes through `FS`.

Each primitive system-call step first calls `FS.step(name, path)`. Tests install a hook there to
fail step k with an OSError or a hard stop (a simulated process death), which is how the
fault-injection campaign reaches every boundary of every action.

Guarantees of the primitives:
- `write_atomic`: temp file in the same folder, fsync, `os.replace` (or a no-replace link for a
  new file), fsync of the folder. Readers see the old bytes or the new bytes, never a mix.
- `move`: never replaces an existing destination, even if one appears after the checks: it links
  the destination (which fails with EEXIST if anything is there) and then unlinks the source.
  A crash between the two leaves the same file under both names, which `doctor` resolves.
- A failed fsync is an error: it is raised, never retried into a false success.
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Callable
from pathlib import Path

TEMP_PREFIX = ".pmem-tmp-"

StepHook = Callable[[str, str], None]


class HardStop(BaseException):
    """Raised by a test hook to simulate the process dying at a step: no cleanup may run."""


class FS:
    def __init__(self, root: Path, hook: StepHook | None = None) -> None:
        self.root = root
        self.hook = hook
        self.steps = 0

    def step(self, name: str, rel: str) -> None:
        self.steps += 1
        if self.hook is not None:
            self.hook(name, rel)

    def abspath(self, rel: str) -> Path:
        return self.root / rel if rel not in ("", ".") else self.root

    # -- primitives -------------------------------------------------------------------------

    def fsync_dir(self, rel: str) -> None:
        self.step("fsync-dir", rel)
        fd = os.open(self.abspath(rel), os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def mkdir(self, rel: str) -> bool:
        """Create one folder if it is missing; True when it was created."""
        path = self.abspath(rel)
        if path.is_dir() and not path.is_symlink():
            return False
        self.step("mkdir", rel)
        os.mkdir(path)
        self.fsync_dir(_parent(rel))
        return True

    def makedirs(self, rel: str) -> list[str]:
        """Create every missing folder of `rel`, outermost first; returns those created."""
        created: list[str] = []
        parts = [p for p in rel.split("/") if p]
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if self.mkdir(sub):
                created.append(sub)
        return created

    def write_atomic(self, rel: str, data: bytes, *, create: bool = False) -> None:
        """Write `data` to `rel` atomically. With `create`, refuse (EEXIST) if the file exists."""
        parent = _parent(rel)
        tmp_rel = _join(parent, f"{TEMP_PREFIX}{Path(rel).name}-{secrets.token_hex(4)}")
        tmp = self.abspath(tmp_rel)
        self.step("open-temp", tmp_rel)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            self.step("write", tmp_rel)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            self.step("fsync-file", tmp_rel)
            os.fsync(fd)
        except OSError:
            os.close(fd)
            _unlink_quietly(tmp)
            raise
        os.close(fd)
        try:
            if create:
                self.step("link", rel)
                os.link(tmp, self.abspath(rel))
                self.step("unlink", tmp_rel)
                os.unlink(tmp)
            else:
                self.step("replace", rel)
                os.replace(tmp, self.abspath(rel))
        except OSError:
            _unlink_quietly(tmp)
            raise
        self.fsync_dir(parent)

    def move(self, src: str, dst: str) -> None:
        """Move a file without ever replacing an existing destination."""
        self.step("link", dst)
        try:
            os.link(self.abspath(src), self.abspath(dst), follow_symlinks=False)
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                raise
            # File systems without hard links: check, then rename (a narrow race we cannot close there).
            if os.path.lexists(self.abspath(dst)):
                raise FileExistsError(errno.EEXIST, "destination exists", dst) from err
            self.step("rename", dst)
            os.rename(self.abspath(src), self.abspath(dst))
            if _parent(src) != _parent(dst):
                self.fsync_dir(_parent(dst))
        else:
            self.fsync_dir(_parent(dst))
            self.step("unlink", src)
            os.unlink(self.abspath(src))
        self.fsync_dir(_parent(src))

    def remove(self, rel: str) -> None:
        self.step("unlink", rel)
        os.unlink(self.abspath(rel))
        self.fsync_dir(_parent(rel))

    def rmdir(self, rel: str) -> None:
        self.step("rmdir", rel)
        os.rmdir(self.abspath(rel))
        self.fsync_dir(_parent(rel))


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _join(parent: str, name: str) -> str:
    return f"{parent}/{name}" if parent else name


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
