"""The intent journal: what a multi-step action is about to do, written before its first change.

Layout, inside the root's hidden metadata folder `.pmem/`:

    .pmem/journal/intent.json     the action and its steps (the commit point: written last, atomically)
    .pmem/journal/<n>.new         the bytes step n writes
    .pmem/journal/<n>.old         the bytes step n replaces (to roll back)

`intent.json` exists exactly while an action is unfinished. `doctor` reads it, works out how far
each step got from the disk itself (never from a progress counter, which could lie after a crash),
and rolls the action forward, or back when forward is impossible.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmem_tui.core.fingerprint import sha256_bytes
from pmem_tui.core.fsops import FS
from pmem_tui.core.model import META_DIR
from pmem_tui.core.plan import MakeDir, MoveFile, Op, RemoveDir, RemoveFile, WriteFile

JOURNAL_DIR = f"{META_DIR}/journal"
INTENT = f"{JOURNAL_DIR}/intent.json"
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


def write_intent(fs: FS, action: str, title: str, ops: tuple[Op, ...], shas: dict[str, str]) -> Intent:
    """Journal `ops` before any of them runs. `shas` gives the sha256 of every file the ops move or remove."""
    fs.makedirs(JOURNAL_DIR)
    steps: list[JournalStep] = []
    for n, op in enumerate(ops):
        if isinstance(op, WriteFile):
            fs.write_atomic(f"{JOURNAL_DIR}/{n}.new", op.content)
            old_path = fs.abspath(op.path)
            old_blob = old_sha = None
            if not op.create and old_path.exists():
                old = old_path.read_bytes()
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
    intent = Intent(action, title, tuple(steps))
    fs.write_atomic(INTENT, json.dumps(_to_json(intent), ensure_ascii=False, indent=1).encode())
    return intent


def clear_intent(fs: FS) -> None:
    """The action is complete: remove the commit point first, then the blobs."""
    fs.remove(INTENT)
    clear_blobs(fs)


def clear_blobs(fs: FS) -> None:
    journal = fs.abspath(JOURNAL_DIR)
    if not journal.is_dir():
        return
    for entry in sorted(os.listdir(journal)):
        if entry != "intent.json":
            fs.remove(f"{JOURNAL_DIR}/{entry}")


def read_intent(root: Path) -> Intent | None:
    """The unfinished action, or None. An unreadable intent is reported as such, never ignored."""
    path = root / INTENT
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return _from_json(data)


def read_blob(root: Path, blob: str) -> bytes:
    return (root / blob).read_bytes()


def new_content(root: Path, n: int) -> bytes:
    return (root / f"{JOURNAL_DIR}/{n}.new").read_bytes()


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
    return {"version": VERSION, "action": intent.action, "title": intent.title, "steps": steps}


def _from_json(data: dict[str, Any]) -> Intent:
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
            JournalStep(op, new_sha=d.get("new_sha"), old_sha=d.get("old_sha"), old_blob=d.get("old_blob"),
                        sha=d.get("sha"))
        )
    return Intent(str(data["action"]), str(data["title"]), tuple(steps))
