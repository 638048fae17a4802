"""The save planner: create or update a memory file in `_core/`, `projects/` or `notes/`, with its index
line and the summary revision it implies; on a root with no memory yet, the first save's whole structure."""

from __future__ import annotations

import os
from pathlib import Path

from pmem_tui.core import index, journal, memory_root, records, summary, textio
from pmem_tui.core.draft import Draft
from pmem_tui.core.errors import Refused
from pmem_tui.core.model import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CORE_DIR,
    INDEX_FILE,
    META_DIR,
    TRASH_DIR,
)
from pmem_tui.core.paths import Area, check_memory_path
from pmem_tui.core.plan import Plan
from pmem_tui.core.secrets import check_no_secrets
from pmem_tui.core.user_input import one_line


def is_unborn(root: Path) -> bool:
    """No memory yet: the root is missing, or an empty folder (perhaps holding only the tool's own
    metadata, which an interrupted first save leaves). The first save creates the whole structure."""
    if not root.exists():
        return True
    try:
        return root.is_dir() and all(name == META_DIR for name in os.listdir(root))
    except OSError:
        return False


FIRST_SAVE_DIRS = (CORE_DIR, *ACTIVE_DIRS, ARCHIVE_DIR, TRASH_DIR)


def savable(content: bytes) -> bool:
    """Whether a save can write `content`: memory files are UTF-8 text (`plan_save` refuses other bytes; the
    app asks before it opens an editor on a file, `tui/edit_flow.py`)."""
    return textio.is_valid_utf8(content)


def plan_save(root: Path, path: str, content: bytes, index_line: str | None = None) -> Plan:
    """Create or update a memory file in `_core/`, `projects/` or `notes/` (and its index line)."""
    first_save = is_unborn(root)
    if root.exists() and not root.is_dir():
        raise Refused(f"{root} is not a folder.")
    if not first_save and not memory_root.is_memory(root, places=True):  # a wrong root (`~`): no file
        raise Refused(
            f"Cannot save: {memory_root.not_a_memory(root, places=True)}, and a first save creates a memory "
            "only in a missing or empty folder; nothing was changed."
        )
    rel = check_memory_path(root, path, Area.CORE)
    journal.check_quiet(root)
    if not savable(content):
        raise Refused(f"The content for {rel} is not valid UTF-8 text; memory files are plain text.")
    new_text = content.decode("utf-8")
    check_no_secrets(new_text, rel)
    draft = Draft(root)
    if first_save:
        for d in FIRST_SAVE_DIRS:
            draft.make_dir(d)
        draft.set_text(INDEX_FILE, "")
        draft.set_text(ARCHIVE_INDEX, records.empty_archive_index())
        draft.notes.append(
            "First save: creates " + ", ".join([*FIRST_SAVE_DIRS, INDEX_FILE, ARCHIVE_INDEX]) + "."
        )
        old = None
    else:
        if (root / rel).is_dir():
            raise Refused(f"{rel} is a folder.")
        old = draft.read_bytes(rel)  # read before writing (PM-SAVE-1)
    draft.ensure_parents(rel)
    if old == content:
        draft.outcomes.append(f"{rel} is unchanged; nothing to save.")
        return draft.plan("save", f"Save {rel}")
    if old is not None and rel.split("/", 1)[0] in ACTIVE_DIRS:  # the summary flow skips _core/ (PM-SUM-3)
        _summary_revision(draft, textio.decode(old), new_text)
    if rel.split("/", 1)[0] in ACTIVE_DIRS:
        _index_for_save(draft, rel, new_text, index_line)
    elif index_line is not None:
        raise Refused(f"{CORE_DIR}/ files are baseline context and have no index line.")
    draft.originals[rel] = None if old is None else textio.decode(old)
    draft.create_file(rel, content)
    draft.recovery.append(
        "The previous content is replaced; the diff below shows it."
        if old is not None
        else f"{rel} can later be archived and recovered like any memory file."
    )
    draft.outcomes.append(f"Saved {rel}{' (new file)' if old is None else ''}.")
    if first_save:  # the report names the structure the first save created, not only the file
        draft.outcomes.append(f"Created {', '.join([*FIRST_SAVE_DIRS, INDEX_FILE, ARCHIVE_INDEX])}.")
    draft.items.append(rel)
    return draft.plan("save", f"Save {rel}")


def _summary_revision(draft: Draft, old_text: str, new_text: str) -> None:
    before, after = summary.inspect_summary(old_text), summary.inspect_summary(new_text)
    if before.bullets == after.bullets:
        return
    lines = [f"- {b}" for b in before.bullets if b not in after.bullets]
    lines += [f"+ {b}" for b in after.bullets if b not in before.bullets]
    draft.notes.append("Summary revision (confirmed together with this save):")
    draft.notes.extend(f"  {line}" for line in lines)


def _index_for_save(draft: Draft, rel: str, new_text: str, index_line: str | None) -> None:
    text = draft.text(INDEX_FILE)
    if text is None:
        text = ""
        draft.notes.append(f"{INDEX_FILE} is missing; it is created with this file's line.")
    entries = index.find_entries(text, rel)
    if index_line is not None:
        line = one_line(index_line, "index line")
        parsed = index.parse_line(line)
        if parsed is None or parsed[0] != rel:
            raise Refused(f"The index line given does not name {rel}: {line}")
    elif entries:
        return
    else:
        info = summary.inspect_summary(new_text)
        gist = info.bullets[0] if info.bullets else summary.first_prose_line(new_text)
        line = index.make_line(rel, summary.title_of(new_text), gist)
    if entries:
        if entries[0].raw == line:
            return
        draft.set_text(INDEX_FILE, index.replace_line(text, entries[0].line_no, line))
        draft.index_removed.append(entries[0].raw)
    else:
        draft.set_text(INDEX_FILE, index.append_line(text, line))
    draft.index_added.append(line)
