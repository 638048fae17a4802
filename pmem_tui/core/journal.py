"""The intent journal: what a multi-step action is about to do, written before its first change.

Layout, inside the root's hidden metadata folder `.pmem/`:

    .pmem/journal/intent.json     the action and its steps (written last, atomically: from then on
                                  doctor can finish or undo the action)
    .pmem/journal/<n>.new         the bytes step n writes
    .pmem/journal/<n>.old         the bytes step n replaces (to roll back)

`intent.json` exists exactly while an action is unfinished. `doctor` reads it, works out how far
each step got from the disk itself (never from a progress counter, which could lie after a crash),
and rolls the action forward, or back when forward is impossible.

Every journal file is written with `FS.write_atomic` (temp file, fsync, rename, fsync of the
folder), the blobs before the intent: a crash while journaling leaves blobs without an intent,
which mean nothing happened (doctor sweeps them). Besides the steps, the intent names what a person
would want to read: the items, the exact `_index.md` lines that go or come back, and the record
changes. JSON is written ASCII-only, so any file name (even undecodable bytes, kept as surrogates)
survives the round trip.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pmem_tui.core import safeio
from pmem_tui.core.errors import Busy, UnfinishedAction
from pmem_tui.core.fingerprint import sha256_bytes
from pmem_tui.core.fsops import FS
from pmem_tui.core.model import META_DIR
from pmem_tui.core.plan import MakeDir, MoveFile, Op, RemoveDir, RemoveFile, WriteFile

JOURNAL_DIR = f"{META_DIR}/journal"
INTENT = f"{JOURNAL_DIR}/intent.json"
LOCK_FILE = f"{META_DIR}/lock"
VERSION = 1


@dataclass(frozen=True)
class JournalStep:
    op: Op
    new_sha: str | None = None  # write: sha256 of the new bytes
    old_sha: str | None = None  # write: sha256 of the bytes replaced (None: the file was new)
    old_blob: str | None = None  # write: journal file holding the replaced bytes
    sha: str | None = None  # move/remove: sha256 of the file moved or removed


@dataclass(frozen=True)
class Intent:
    action: str
    title: str
    steps: tuple[JournalStep, ...]
    detail: dict[str, Any] = field(default_factory=dict)


def write_intent(
    fs: FS,
    action: str,
    title: str,
    ops: tuple[Op, ...],
    shas: dict[str, str],
    detail: dict[str, Any] | None = None,
) -> Intent:
    """Journal `ops` before any of them runs. `shas` gives the sha256 of every file the ops move or remove;
    `detail` what a person would want to read (items, index lines, record changes)."""
    fs.makedirs(JOURNAL_DIR)
    steps: list[JournalStep] = []
    for n, op in enumerate(ops):
        if isinstance(op, WriteFile):
            fs.write_atomic(f"{JOURNAL_DIR}/{n}.new", op.content)
            old_path = fs.abspath(op.path)
            old_blob = old_sha = None
            if not op.create and old_path.exists():
                old = safeio.read_path(old_path)
                old_blob = f"{JOURNAL_DIR}/{n}.old"
                fs.write_atomic(old_blob, old)
                old_sha = sha256_bytes(old)
            steps.append(
                JournalStep(op, new_sha=sha256_bytes(op.content), old_sha=old_sha, old_blob=old_blob)
            )
        elif isinstance(op, MoveFile):
            steps.append(JournalStep(op, sha=shas.get(op.src)))
        elif isinstance(op, RemoveFile):
            steps.append(JournalStep(op, sha=shas.get(op.path)))
        else:
            steps.append(JournalStep(op))
    intent = Intent(action, title, tuple(steps), dict(detail or {}))
    fs.write_atomic(INTENT, json.dumps(_to_json(intent), ensure_ascii=True, indent=1).encode("ascii"))
    return intent


def clear_blobs(fs: FS) -> None:
    for entry in leftovers(fs.root):
        fs.remove(f"{JOURNAL_DIR}/{entry}", missing_ok=True)


def leftovers(root: Path) -> list[str]:
    """The journal's files other than the intent (blobs, and temp files of an interrupted journal write)."""
    try:
        # Reached without following a link: a `.pmem/journal` that is a link to a folder elsewhere must not
        # have that folder's files listed (and then removed as "leftovers").
        entries = safeio.list_dir(root, JOURNAL_DIR)
    except OSError:
        return []
    return sorted(e for e, st in entries if e != "intent.json" and not stat.S_ISDIR(st.st_mode))


def action_running(root: Path) -> bool:
    """Another process holds the root's lock right now (an action is being applied). A probe only: it
    never creates the lock file or its folder."""
    path = root / LOCK_FILE
    if not path.is_file():
        return False
    import filelock  # only here: the scan (and the app's start-up) imports this module

    probe = filelock.FileLock(str(path), timeout=0)
    try:
        probe.acquire()
    except filelock.Timeout:
        return True
    except OSError:
        return False
    probe.release()
    return False


def check_quiet(root: Path) -> None:
    """Planning reads without the lock: refuse while an action is half-applied, rather than plan from (and
    describe) its intermediate state. Busy when another process is applying it; UnfinishedAction when it
    was interrupted."""
    if not os.path.lexists(root / INTENT):
        return
    if action_running(root):
        raise Busy("Another pmem-tui action is changing this memory right now; try again in a moment.")
    if not os.path.lexists(root / INTENT):
        return  # the action finished between the two looks (it removes its intent, then lets go of the lock)
    raise UnfinishedAction(
        "An earlier action was interrupted; run `pmem-tui doctor` to finish or undo it first."
    )


def read_intent(root: Path) -> Intent | None:
    """The unfinished action, or None. An unreadable intent raises OSError or ValueError: it is reported as
    such, never ignored."""
    path = root / INTENT
    if not path.exists():
        return None
    data = json.loads(safeio.read_under(root, INTENT).decode("utf-8"))
    try:
        return _from_json(data)
    except (KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"the journal is malformed ({err!r})") from err


def read_blob(root: Path, blob: str) -> bytes:
    return safeio.read_under(root, blob)


def new_content(root: Path, n: int) -> bytes:
    return safeio.read_under(root, f"{JOURNAL_DIR}/{n}.new")


# -- JSON ------------------------------------------------------------------------------------


def _to_json(intent: Intent) -> dict[str, Any]:
    steps = []
    for step in intent.steps:
        op = step.op
        if isinstance(op, WriteFile):
            d: dict[str, Any] = {"op": "write", "path": op.path, "create": op.create}
        elif isinstance(op, MoveFile):
            d = {"op": "move", "src": op.src, "dst": op.dst}
        elif isinstance(op, RemoveFile):
            d = {"op": "remove", "path": op.path}
        elif isinstance(op, RemoveDir):
            d = {"op": "rmdir", "path": op.path}
        else:
            d = {"op": "mkdir", "path": op.path}
        d.update(new_sha=step.new_sha, old_sha=step.old_sha, old_blob=step.old_blob, sha=step.sha)
        steps.append(d)
    return {
        "version": VERSION,
        "action": intent.action,
        "title": intent.title,
        "detail": intent.detail,
        "steps": steps,
    }


def _from_json(data: dict[str, Any]) -> Intent:
    if data.get("version") != VERSION:
        raise ValueError(f"journal version {data.get('version')!r} is not {VERSION}")
    steps = []
    for n, d in enumerate(data["steps"]):
        kind = d["op"]
        op: Op
        if kind == "write":
            # The new bytes live in their blob; the op carries none (doctor reads the blob when needed).
            op = WriteFile(d["path"], b"", create=bool(d["create"]))
        elif kind == "move":
            op = MoveFile(d["src"], d["dst"])
        elif kind == "remove":
            op = RemoveFile(d["path"])
        elif kind == "rmdir":
            op = RemoveDir(d["path"])
        elif kind == "mkdir":
            op = MakeDir(d["path"])
        else:
            raise ValueError(f"unknown journal step {n}: {kind!r}")
        steps.append(
            JournalStep(
                op,
                new_sha=d.get("new_sha"),
                old_sha=d.get("old_sha"),
                old_blob=d.get("old_blob"),
                sha=d.get("sha"),
            )
        )
    detail = data.get("detail")
    detail = detail if isinstance(detail, dict) else {}
    return Intent(str(data["action"]), str(data["title"]), tuple(steps), detail)
