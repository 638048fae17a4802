"""One door to the disk: every write, move and removal the tool makes goes through `FS`.

Each primitive system call goes through `FS._call(name, rel, fn, ...)`, which first calls the
step hook `hook(name, rel)`. Tests install a hook there to fail step k with an OSError or a hard
stop (a simulated process death). An injected OSError is raised exactly where the real system
call's error would be, so it takes the same recovery path (e.g. EXDEV on `link` takes the
no-hard-link fallback). This is how the fault-injection campaign reaches every boundary of every
action. Step names: mkdir, rmdir, open-temp, write, fsync-file, replace, link, rename, unlink,
fsync-dir.

Guarantees of the primitives:
- `write_atomic`: temp file in the same folder (mode of the file it replaces), every byte written,
  fsync, a last look that the file still holds the bytes the plan read, then `os.replace` (update)
  or a no-replace link (new file), then fsync of the folder.
  Readers see the old bytes or the new bytes, never a mix; an error removes the temp file.
- `move`: never replaces an existing destination, even one that appears after every check: it
  links the destination (the kernel refuses with EEXIST if anything is there), fsyncs its folder,
  then unlinks the source and fsyncs that folder. A crash between the two leaves the same file
  under both names, which `doctor` resolves. Without hard links (EXDEV, EPERM...), it renames with
  `renameat2(RENAME_NOREPLACE)`, and only where the kernel lacks that, checks then renames.
- `mkdir`/`rmdir`/`remove`: fsync the parent folder afterwards (the root's own parent for the root).
- A failed fsync is an error: it is raised, never retried into a false success.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pmem_tui.core.errors import StalePlan

TEMP_PREFIX = ".pmem-tmp-"
# A test-only way to kill the real process at a shim step (see `env_fault_hook`); unset in normal use.
ENV_FAULT_AT = "PMEM_TUI_FAULT_AT"

StepHook = Callable[[str, str], None]
T = TypeVar("T")

_NO_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK, errno.ENOSYS)


class HardStop(BaseException):
    """Raised by a test hook to simulate the process dying at a step: no cleanup may run."""


class FS:
    def __init__(self, root: Path, hook: StepHook | None = None) -> None:
        self.root = root
        self.hook = hook if hook is not None else env_fault_hook()
        self.steps = 0

    def step(self, name: str, rel: str) -> None:
        self.steps += 1
        if self.hook is not None:
            self.hook(name, rel)

    def _call(self, name: str, rel: str, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """One system call, preceded by its step (where a test may inject its failure)."""
        self.step(name, rel)
        return fn(*args, **kwargs)

    def abspath(self, rel: str) -> Path:
        return self.root / rel if rel not in ("", ".") else self.root

    # -- primitives -------------------------------------------------------------------------

    def fsync_dir(self, rel: str) -> None:
        self._fsync_dir_at(rel, self.abspath(rel))

    def _fsync_dir_at(self, rel: str, path: Path) -> None:
        fd = self._call("fsync-dir", rel, os.open, path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def mkdir(self, rel: str) -> bool:
        """Create one folder if it is missing; True when it was created (fsyncs its parent)."""
        path = self.abspath(rel)
        if path.is_dir() and not path.is_symlink():
            return False
        try:
            self._call("mkdir", rel, os.mkdir, path)
        except FileExistsError:
            if path.is_dir() and not path.is_symlink():
                return False  # another process made it in the meantime: same result
            raise
        if rel in ("", "."):
            self._fsync_dir_at("..", self.root.parent)
        else:
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

    def write_atomic(
        self, rel: str, data: bytes | list[bytes], *, create: bool = False, expect: str | None = None
    ) -> None:
        """Write `data` (or its parts, one after the other: a large file is not copied to be joined) to `rel`
        atomically. With `create`, refuse (EEXIST) if anything is there. With `expect` (a sha256), refuse
        with StalePlan when the file no longer has those bytes right before it is replaced (an agent may
        have edited it a moment ago)."""
        parent = _parent(rel)
        target = self.abspath(rel)
        tmp_rel = _join(parent, temp_name(Path(rel).name))
        tmp = self.abspath(tmp_rel)
        mode = 0o644
        if not create:
            with contextlib.suppress(FileNotFoundError):
                mode = stat.S_IMODE(os.lstat(target).st_mode)  # keep a private file private
        fd = self._call("open-temp", tmp_rel, os.open, tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, mode)
            self.step("write", tmp_rel)
            for part in data if isinstance(data, list) else [data]:
                view = memoryview(part)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            self._call("fsync-file", tmp_rel, os.fsync, fd)
        except BaseException as err:
            os.close(fd)
            if isinstance(err, OSError):
                _unlink_quietly(tmp)
            raise
        os.close(fd)
        try:
            if expect is not None and _sha256_of(target) != expect:
                _unlink_quietly(tmp)
                raise StalePlan(f"{rel} changed while the action ran")
            if create:
                self._place_new(tmp_rel, rel)
            else:
                self._call("replace", rel, os.replace, tmp, target)
        except OSError:
            _unlink_quietly(tmp)
            raise
        self.fsync_dir(parent)

    def _place_new(self, tmp_rel: str, rel: str) -> None:
        """Give the (fsynced) temp file its final name, refusing if anything is there."""
        if self._link_or_rename(tmp_rel, rel):
            self._call("unlink", tmp_rel, os.unlink, self.abspath(tmp_rel))

    def _link_or_rename(self, src: str, dst: str) -> bool:
        """Give `src` the name `dst` without ever replacing what is there: a hard link (True: `src` keeps its
        name too, for the caller to unlink), or a no-replace rename where the file system has no links."""
        try:
            self._call("link", dst, os.link, self.abspath(src), self.abspath(dst), follow_symlinks=False)
        except OSError as err:
            if err.errno not in _NO_LINKS:
                raise
            self._rename_noreplace(src, dst)
            return False
        return True

    def _rename_noreplace(self, src: str, dst: str) -> None:
        """Rename without replacing: the kernel's RENAME_NOREPLACE where it exists, else check then rename."""
        renameat2 = _renameat2()
        if renameat2 is not None:
            self.step("rename", dst)
            if renameat2(os.fsencode(self.abspath(src)), os.fsencode(self.abspath(dst))) == 0:
                return
            import ctypes

            code = ctypes.get_errno()
            if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise OSError(code, os.strerror(code), dst)
        # No atomic no-replace rename on this file system: a narrow race we cannot close there.
        if os.path.lexists(self.abspath(dst)):
            raise FileExistsError(errno.EEXIST, "destination exists", dst)
        self._call("rename", dst, os.rename, self.abspath(src), self.abspath(dst))

    def move(self, src: str, dst: str) -> None:
        """Move a file without ever replacing an existing destination."""
        linked = self._link_or_rename(src, dst)
        if linked or _parent(src) != _parent(dst):
            self.fsync_dir(_parent(dst))
        if linked:  # the destination's name is durable before the source's goes
            self._call("unlink", src, os.unlink, self.abspath(src))
        self.fsync_dir(_parent(src))

    def remove(self, rel: str, *, missing_ok: bool = False) -> bool:
        """Remove a file (fsyncs its folder); False when `missing_ok` and it was already gone."""
        try:
            self._call("unlink", rel, os.unlink, self.abspath(rel))
        except FileNotFoundError:
            if missing_ok:
                return False
            raise
        self.fsync_dir(_parent(rel))
        return True

    def rmdir(self, rel: str, *, only_if_empty: bool = False) -> bool:
        """Remove an empty folder (fsyncs its parent). With `only_if_empty`, a folder that is gone or
        holds something is left alone (False)."""
        try:
            self._call("rmdir", rel, os.rmdir, self.abspath(rel))
        except OSError as err:
            if only_if_empty and err.errno == errno.ENOENT:
                return False
            not_empty = err.errno in (errno.ENOTEMPTY, errno.EEXIST)
            if only_if_empty and not_empty and _has_entries(self.abspath(rel)):
                return False
            raise
        self.fsync_dir(_parent(rel))
        return True


def temp_name(name: str) -> str:
    """A temp file's name: hidden, recognisable by `doctor`, short enough for any file system."""
    short = os.fsencode(name)[:60].decode(sys.getfilesystemencoding(), "surrogateescape")
    return f"{TEMP_PREFIX}{short}-{os.urandom(4).hex()}"  # not `secrets`: its import is 3 ms


def _renameat2_fn() -> Callable[[bytes, bytes], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here, not at the import: a short process (a hook's `snapshot`) never moves a file

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    at_fdcwd, rename_noreplace = -100, 1

    def call(src: bytes, dst: bytes) -> int:
        return int(fn(at_fdcwd, src, at_fdcwd, dst, rename_noreplace))

    return call


_found: list[Callable[[bytes, bytes], int] | None] = []


def _renameat2() -> Callable[[bytes, bytes], int] | None:
    """The kernel's renameat2, looked up at the first no-replace rename."""
    if not _found:
        _found.append(_renameat2_fn())
    return _found[0]


_env_steps = 0


def env_fault_hook() -> StepHook | None:
    """`PMEM_TUI_FAULT_AT=k`: the real process kills itself with SIGKILL right before shim step k.

    Test-only (the real-process fault campaign falls back to it where strace cannot inject); without
    the variable there is no hook at all. Steps are counted across the whole process.
    """
    raw = os.environ.get(ENV_FAULT_AT)
    if not raw:
        return None
    target = int(raw)

    def hook(name: str, rel: str) -> None:
        global _env_steps
        _env_steps += 1
        if _env_steps == target:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)

    return hook


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _join(parent: str, name: str) -> str:
    return f"{parent}/{name}" if parent else name


def _sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _has_entries(path: Path) -> bool:
    try:
        return bool(os.listdir(path))
    except OSError:
        return False


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
