"""What the deep scan learns about one active file (its title, its summary, whether it is valid UTF-8: the
app's background check reads the same), and what the scan's cache (`SCAN_FILE`, through `core/cache.py`)
keeps of it and of the entries parsed from one `_index.md` text, checked as read back."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from pmem_tui.core import cache, folder_reads, safeio, summary, textio
from pmem_tui.core import index as index_mod
from pmem_tui.core.model import IndexEntry, Problem, SummaryInfo, SummaryState

SCAN_FILE = "scan-v5.bin"  # the deep scan's per-file cache, in the root's cache folder
_STATES = {state.value: state for state in SummaryState}
_OPTIONAL_STR = (str, type(None))
_FACTS_ROW = ((bool,), _OPTIONAL_STR, (str,), _OPTIONAL_STR, (tuple,), (str,))  # `facts_row`'s places
_INDEX_ROW = ((int,), (str,), (str,), _OPTIONAL_STR, _OPTIONAL_STR)  # line_no, raw, route, title, summary


@dataclass(frozen=True)
class FileContent:
    """What a deep read learns about one active file."""

    title: str | None
    summary: SummaryInfo
    valid_utf8: bool


def inspect_file(root: Path, rel: str, reader: folder_reads.Reader | None = None) -> FileContent:
    """A file's title and summary, and whether it is valid UTF-8 (read through `safeio`: never through a link,
    never a FIFO or a device, never over the cap; `reader`: one kept open over many files)."""
    data = reader.read(rel) if reader is not None else safeio.read_under(root, rel)
    title, info = summary.inspect(textio.decode(data))
    return FileContent(title, info, textio.is_valid_utf8(data))


def content_problems(path: str, content: FileContent) -> list[Problem]:
    """What a deep read finds wrong with one active file (the app's background check says the same)."""
    found = []
    if not content.valid_utf8:
        found.append(Problem("unreadable", path, "not valid UTF-8; shown with replacement characters"))
    if content.summary.state is SummaryState.INVALID:
        found.append(Problem("invalid-summary", path, content.summary.detail))
    return found


def facts_row(content: FileContent) -> tuple[object, ...]:
    """What the scan's cache keeps of `content` (`marshal`-able)."""
    info = content.summary
    return (
        content.valid_utf8,
        content.title,
        info.state.value,
        info.heading,
        tuple(info.bullets),
        info.detail,
    )


def _typed(row: object, kinds: tuple[tuple[type, ...], ...]) -> TypeGuard[tuple[Any, ...]]:
    """Whether `row`, as `marshal` read it from the cache, is a tuple with one value of `kinds` a place."""
    if type(row) is not tuple or len(row) != len(kinds):
        return False
    for value, allowed in zip(row, kinds, strict=True):  # a loop, not `all()`: this runs once per file
        if type(value) not in allowed:
            break
    else:
        return True
    return False


def facts_from(row: object) -> FileContent | None:
    """The `FileContent` a cached row holds, or None when it is not one."""
    if not _typed(row, _FACTS_ROW):
        return None
    valid, title, state, heading, bullets, detail = row
    if state not in _STATES:
        return None
    for bullet in bullets:
        if type(bullet) is not str:
            return None
    return FileContent(title, SummaryInfo(_STATES[state], heading, bullets, detail), valid)


def _entries_from(rows: object) -> list[IndexEntry] | None:
    """The index entries cached rows hold, or None when they are not such rows."""
    if type(rows) is not list or not all(_typed(row, _INDEX_ROW) for row in rows):
        return None
    return [IndexEntry(*row) for row in rows]


def index_entries(facts: cache.FileEntries, text: str) -> list[IndexEntry]:
    """`index.parse_index(text)`, from the cache when it was made from the very same text."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    cached = _entries_from(facts.derived(digest))
    if cached is not None:
        return cached
    rows = index_mod.parse_rows(text)
    facts.derive(digest, rows)
    return [IndexEntry(*row) for row in rows]
