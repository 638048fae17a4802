"""What a memory root holds, asked by readers and planners alike: is the lifecycle structure complete, and
which `_index.md` line a file would get. Store layer: reads only, never plans."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pmem_tui.core import index, safeio, summary, textio
from pmem_tui.core.errors import LifecycleIncomplete, Refused
from pmem_tui.core.model import LIFECYCLE_PATHS

__all__ = ["missing_lifecycle", "propose_index_line", "refuse_linked_lifecycle", "require_lifecycle"]


def missing_lifecycle(root: Path) -> list[str]:
    return [p for p in LIFECYCLE_PATHS if not os.path.lexists(root / p)]  # a link is not missing


def require_lifecycle(root: Path, action: str) -> None:
    if not root.is_dir():
        if os.path.lexists(root):  # a file: no save can create the memory there
            raise LifecycleIncomplete(f"{root} is not a folder.")
        raise LifecycleIncomplete(f"There is no memory at {root}; the first save creates it.")
    missing = missing_lifecycle(root)
    if missing:
        raise LifecycleIncomplete(
            f"Cannot {action}: the lifecycle structure is incomplete (missing {', '.join(missing)}); "
            "run `pmem-tui upgrade` first."
        )


def refuse_linked_lifecycle(root: Path, action: str) -> None:
    """Refuse `action` when a lifecycle path is a symbolic link: what is behind it is never read, so "no
    expired trash" or "neither in the archive nor in the trash" would be said of what was not looked at
    (found in trial: a linked trash holding expired items, and `purge` said there were none)."""
    linked = [p for p in LIFECYCLE_PATHS if os.path.islink(root / p)]
    if linked:
        raise Refused(
            f"Cannot {action}: {', '.join(linked)} is a symbolic link, which pmem-tui never follows; what "
            "is behind it is not read (make it a folder or file of its own)."
        )


def propose_index_line(root: Path, location: str, rel: str) -> str:
    """A line built from the file's title and summary, for a record that lost its line. A file that is not
    UTF-8 gets its route alone: decoded, its title would show U+FFFD where the file has other bytes, and
    `_index.md` would then say something the file does not (`Caf\ufffd` for a Latin-1 `Café`)."""
    try:
        data = safeio.read_under(root, location)
    except OSError:
        data = b""
    if not textio.is_valid_utf8(data):
        return index.make_line(rel, None, None)
    text = data.decode("utf-8")
    title = summary.title_of(text)
    info = summary.inspect_summary(text)
    gist = info.bullets[0] if info.bullets else summary.first_prose_line(text)
    return index.make_line(rel, _plain(title), _plain(gist))


def _plain(part: str | None) -> str | None:
    """A title or summary for a proposed line, its control characters (an agent's terminal escapes) made
    spaces: a proposal never writes them into `_index.md`."""
    if part is None:
        return None
    return re.sub(" {2,}", " ", textio.controls_as_spaces(part)).strip(" ") or None  # (U+3000 kept)
