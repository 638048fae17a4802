"""The producer's other files, read for display only (PL-16): archived epics and ``history.jsonl``.

The epic-summarizer writes, besides ``permanent_memory.md``, an append-only ``.claude/memory/history.jsonl``
(one event per summarized epic: ``event``, the feature id, its token count) and ``.claude/memory/archive/``,
where the oldest epic moves when ``permanent_memory.md`` passes 8,000 tokens. The loader never reads them (the
agent never gets them); the Epics view shows them, read-only.

Reading, whatever an agent left there: never a symlink followed (the folder or a file), never a special file
opened for reading (a FIFO is opened non-blocking and refused), every read bounded: at most
:data:`MAX_ARCHIVE_FILES` ``*.md`` files directly in ``archive/``, :data:`MAX_FILE_BYTES` of each, and the
last :data:`MAX_HISTORY_BYTES` of the history. A history line that is not a JSON object is skipped and
counted, never an error.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmem_tui.core import safeio
from pmem_tui.core.loader_age import DateSource, epic_date
from pmem_tui.core.loader_parse import Epic, iter_lines, parse_epics
from pmem_tui.core.model import PROJECT_MEMORY_DIR

ARCHIVE_DIR = "archive"
HISTORY_FILE = "history.jsonl"
MAX_ARCHIVE_FILES = 200
MAX_FILE_BYTES = 512 * 1024
MAX_HISTORY_BYTES = 1024 * 1024
_FEATURE_KEYS = ("feature", "feature_id", "epic", "epic_id", "id")
_TOKEN_KEYS = ("tokens", "token_count", "tokens_used")
_TIME_KEYS = ("ts", "timestamp", "time", "at", "date")


@dataclass(frozen=True)
class ArchivedEpic:
    file: str  # its file's name in archive/
    epic: Epic
    date: dt.date | None
    date_source: DateSource


@dataclass(frozen=True)
class Archive:
    folder: Path
    exists: bool
    files: int  # *.md files read
    epics: tuple[ArchivedEpic, ...] = ()
    notes: tuple[str, ...] = ()  # one sentence per file not read, or read only in part


@dataclass(frozen=True)
class HistoryEvent:
    number: int  # 1-based among the lines read
    event: str
    feature: str | None
    tokens: int | None
    when: str | None
    fields: tuple[tuple[str, str], ...]  # every field, as text


@dataclass(frozen=True)
class History:
    path: Path
    exists: bool
    events: tuple[HistoryEvent, ...] = ()
    bad_lines: int = 0  # not JSON, or not an object: skipped
    partial: bool = False  # only the file's last MAX_HISTORY_BYTES were read
    problem: str | None = None  # why it could not be read at all


class Unreadable(Exception):
    """A file refused: its message is one sentence for the view."""


def _open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file `path` and its stat (`safeio`'s open: no link, no FIFO or
    device); the caller closes it. Raises FileNotFoundError, or :class:`Unreadable` (the view's sentence)."""
    try:
        return safeio.open_regular(path.parent, path.name)
    except FileNotFoundError:
        raise
    except safeio.UnsafeFile as err:
        if err.kind == "symlink":
            raise Unreadable(f"{path.name} is a symlink: not followed") from err
        raise Unreadable(f"{path.name} is not a regular file: not read") from err
    except OSError as err:
        raise Unreadable(f"{path.name} cannot be read ({err.strerror or err})") from err


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bounded(path: Path, limit: int, *, tail: bool = False) -> tuple[bytes, bool]:
    """At most `limit` bytes of the regular file `path` (its end when `tail`), and whether it was cut.

    Raises FileNotFoundError, or :class:`Unreadable` for a symlink, a special file or an OS error.
    """
    fd, st = _open_regular(path)
    try:
        cut = st.st_size > limit
        if cut and tail:
            os.lseek(fd, st.st_size - limit, os.SEEK_SET)
        return _read_fd(fd, limit), cut
    except OSError as err:
        raise Unreadable(f"{path.name} cannot be read ({err.strerror or err})") from err
    finally:
        os.close(fd)



def read_archive(project: Path) -> Archive:
    """The epics in ``<project>/.claude/memory/archive/*.md``, file by file (names sorted)."""
    folder = Path(project) / PROJECT_MEMORY_DIR / ARCHIVE_DIR
    try:
        st = os.lstat(folder)
    except OSError:
        return Archive(folder, exists=False, files=0)
    if stat.S_ISLNK(st.st_mode):
        return Archive(folder, exists=True, files=0, notes=("archive/ is a symlink: not followed",))
    if not stat.S_ISDIR(st.st_mode):
        return Archive(folder, exists=False, files=0)
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if e.name.endswith(".md") and not e.name.startswith("."))
    except OSError as err:
        return Archive(folder, exists=True, files=0, notes=(f"archive/ cannot be listed ({err.strerror})",))
    notes: list[str] = []
    if len(names) > MAX_ARCHIVE_FILES:
        notes.append(f"{len(names)} files: only the first {MAX_ARCHIVE_FILES} are read")
        names = names[:MAX_ARCHIVE_FILES]
    epics: list[ArchivedEpic] = []
    files = 0
    for name in names:
        try:
            data, cut = read_bounded(folder / name, MAX_FILE_BYTES)
        except FileNotFoundError:
            continue  # gone since the listing
        except Unreadable as err:
            notes.append(str(err))
            continue
        files += 1
        if cut:
            notes.append(f"{name} is over {MAX_FILE_BYTES // 1024} KiB: only its start is read")
        for epic in parse_epics(iter_lines(data.decode("utf-8-sig", errors="replace"))).epics:
            date, source = epic_date(epic)
            epics.append(ArchivedEpic(name, epic, date, source))
    return Archive(folder, exists=True, files=files, epics=tuple(epics), notes=tuple(notes))


def _first(obj: dict[str, Any], keys: tuple[str, ...], kind: type) -> Any:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, kind) and not isinstance(value, bool):
            return value
    return None


def _event(number: int, obj: dict[str, Any]) -> HistoryEvent:
    feature = _first(obj, _FEATURE_KEYS, str)
    if feature is None:
        number_id = _first(obj, _FEATURE_KEYS, int)
        feature = str(number_id) if number_id is not None else None
    fields = tuple(
        (str(k), v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for k, v in obj.items()
    )
    return HistoryEvent(
        number=number,
        event=str(obj.get("event") or obj.get("type") or ""),
        feature=feature,
        tokens=_first(obj, _TOKEN_KEYS, int),
        when=_first(obj, _TIME_KEYS, str),
        fields=fields,
    )


def parse_history(text: str, *, partial: bool = False) -> tuple[tuple[HistoryEvent, ...], int]:
    """The events of a ``history.jsonl`` text and how many lines were skipped as bad. `partial`: the text
    starts mid-file, so its first line is cut and dropped."""
    events: list[HistoryEvent] = []
    bad = 0
    lines = list(iter_lines(text))
    if partial and lines:
        lines = lines[1:]
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            bad += 1
            continue
        if not isinstance(obj, dict):
            bad += 1
            continue
        events.append(_event(len(events) + 1, obj))
    return tuple(events), bad


def read_history(project: Path) -> History:
    """``<project>/.claude/memory/history.jsonl``, tolerantly (see the module docstring)."""
    path = Path(project) / PROJECT_MEMORY_DIR / HISTORY_FILE
    try:
        data, cut = read_bounded(path, MAX_HISTORY_BYTES, tail=True)
    except FileNotFoundError:
        return History(path, exists=False)
    except Unreadable as err:
        return History(path, exists=True, problem=str(err))
    events, bad = parse_history(data.decode("utf-8", errors="replace"), partial=cut)
    return History(path, exists=True, events=events, bad_lines=bad, partial=cut)
