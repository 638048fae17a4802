"""Drafts: an edit whose save was refused is kept, outside the memory root, until it is saved or discarded.

A draft is keyed by the memory root and the file's relative path, and lives in the person's state folder
(`$XDG_STATE_HOME/pmem-tui/drafts/`, else `~/.local/state/...`; then the cache folder, then the temp
folder): never inside the memory root, where agents would read it (it may hold the very secret that was
refused). Files are private (0600 in a 0700 folder), written atomically, never through a symlink, and a
special file in their place is never opened for reading.

Beside each draft, its *base*: the fingerprint of the file the edit began from (`fingerprint`), so that a
save from the draft can say the file changed on disk since (an agent's edit the draft would replace).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from pmem_tui.core.errors import PmemError

DRAFT_CAP = 64 * 1024 * 1024  # a draft bigger than this is not ours: refuse rather than read it all


def _candidate_dirs(env: Mapping[str, str]) -> Iterator[Path]:
    home = Path.home()
    yield Path(env.get("XDG_STATE_HOME") or home / ".local" / "state") / "pmem-tui" / "drafts"
    yield Path(env.get("XDG_CACHE_HOME") or home / ".cache") / "pmem-tui" / "drafts"
    yield Path(tempfile.gettempdir()) / f"pmem-tui-{os.getuid()}" / "drafts"


def _inside(path: Path, root: Path) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def drafts_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The folder drafts of `root` go to: the first candidate outside the memory root."""
    for folder in _candidate_dirs(os.environ if env is None else env):
        if not _inside(folder, root):
            return folder
    raise PmemError("No folder outside the memory root is available for drafts.")


def draft_path(root: Path, rel: str, env: Mapping[str, str] | None = None) -> Path:
    """Where the draft of `rel` under `root` is kept (it need not exist)."""
    key = f"{os.path.realpath(root)}\0{rel}".encode("utf-8", "surrogatepass")  # any str, lone surrogates too
    digest = hashlib.sha256(key).hexdigest()[:20]
    name = _encodable(Path(rel).name) or "draft"
    while len(os.fsencode(name)) > 120:  # the name is for people (and the editor's syntax by extension)
        name = name[1:]
    return drafts_dir(root, env) / f"{digest}-{name}"


def _encodable(name: str) -> str:
    """`name` with any lone surrogate that no file name's bytes decode to (typed text can hold one) as `_`."""
    return "".join("_" if "\ud800" <= c < "\udc80" or "\udd00" <= c <= "\udfff" else c for c in name)


def _private_dir(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise OSError(errno.ENOTDIR, "not a folder", str(folder))


NO_FILE = "no file"  # the base of a draft of a file that did not exist when its edit began


def fingerprint(data: bytes | None) -> str:
    """What a draft's base records of the file's bytes (`NO_FILE` when there was no file)."""
    # The same digest as a plan's `Fingerprint.sha256` (`fingerprint.sha256_bytes`, a layer above this one).
    return NO_FILE if data is None else hashlib.sha256(data).hexdigest()


def keep(root: Path, rel: str, content: bytes, base: str | None) -> Path:
    """Write (or replace) the draft of `rel`, begun from the file whose `fingerprint` is `base` (None:
    unknown); returns where it is. OSError when it cannot be written."""
    path = draft_path(root, rel)
    _private_dir(path.parent)
    if base is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_base_path(path))
    else:
        _write_private(_base_path(path), base.encode("ascii"))
    _write_private(path, content)
    return path


def base_of(root: Path, rel: str) -> str | None:
    """The fingerprint the draft of `rel` was begun from; None when unknown (no draft, or one kept by an
    older pmem-tui)."""
    try:
        place = _base_path(draft_path(root, rel))
    except PmemError:
        return None
    data = _read_private(place, 128)
    return None if data is None else data.decode("ascii", "replace")


def _base_path(path: Path) -> Path:
    return path.with_name(path.name + ".base")


def _write_private(path: Path, content: bytes) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)  # replaces a symlink itself, never its target
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def read(root: Path, rel: str) -> tuple[Path, bytes] | None:
    """The draft of `rel` and its bytes, or None when there is none (or what is there is not a draft:
    a symlink, a folder, a FIFO)."""
    try:
        path = draft_path(root, rel)
    except PmemError:
        return None
    data = _read_private(path, DRAFT_CAP)
    return None if data is None else (path, data)


def _read_private(path: Path, cap: int) -> bytes | None:
    """The bytes of the regular file `path` (never through a link, never blocking on a FIFO), or None."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as src:
        info = os.fstat(src.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > cap:
            return None
        return src.read(cap + 1)


def discard(root: Path, rel: str) -> bool:
    """Remove the draft of `rel`; True when there was one."""
    try:
        path = draft_path(root, rel)
        info = os.lstat(path)
    except (PmemError, OSError):
        return False
    if stat.S_ISDIR(info.st_mode):
        return False
    try:
        os.unlink(path)
    except OSError:
        return False
    with contextlib.suppress(OSError):
        os.unlink(_base_path(path))
    return True
