"""The tool's own folder in the root, `.pmem/`: only what belongs to the root's integrity, named in previews.

    .pmem/.gitignore    `*`: git ignores the folder, this file included (memory roots are often repositories)
    .pmem/lock          the lock an action holds while it applies
    .pmem/history/      the history store (`history`): a bare git repository, every version of every file
    .pmem/journal/      the intent journal (`journal`)

Caches are not kept here (`cache_home`). An action makes what is missing of this folder when it applies (the
executor, before it takes the lock), and its preview names each path it will make (`to_create`, PM-AGENT-3);
the executor refuses a plan whose preview does not name one of them. Doctor makes no history store (it
records in one that exists). Nothing here is ever rewritten: a
`.gitignore` someone edited stays as they left it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from pmem_tui.core.fsops import FS
from pmem_tui.core.journal import JOURNAL_DIR, LOCK_FILE
from pmem_tui.core.model import META_DIR
from pmem_tui.core.plan import Op

__all__ = ["GITIGNORE", "GITIGNORE_BYTES", "HISTORY_DIR", "ensure", "to_create"]

GITIGNORE = f"{META_DIR}/.gitignore"
# The history store: made by an action's first record, before its journal (kept equal to
# `history.names.HISTORY_DIR`, tested: the history package sits above this layer).
HISTORY_DIR = f"{META_DIR}/history"
GITIGNORE_BYTES = b"# pmem-tui's own folder (the lock and the journal of actions): never committed.\n*\n"


def to_create(root: Path, action: str, ops: Sequence[Op]) -> tuple[str, ...]:
    """The paths of `.pmem/` that applying an `action` plan with `ops` would create now, in the order they
    are made: none for a plan with nothing to do (it is not applied). Doctor takes the lock but writes no
    journal; every other action journals its steps."""
    if not ops:
        return ()
    wanted = (META_DIR, GITIGNORE, LOCK_FILE) + (() if action == "doctor" else (HISTORY_DIR, JOURNAL_DIR))
    return tuple(rel for rel in wanted if not os.path.lexists(root / rel))


def ensure(fs: FS) -> None:
    """Make `.pmem/` and its `.gitignore` if they are missing (the lock and the journal make their own)."""
    fs.mkdir(META_DIR)
    if os.path.lexists(fs.abspath(GITIGNORE)):
        return
    with contextlib.suppress(FileExistsError):  # another process's action made it a moment ago: the same
        fs.write_atomic(GITIGNORE, GITIGNORE_BYTES, create=True)

