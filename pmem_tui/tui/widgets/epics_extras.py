"""The Epics pane's read-only extras (PL-16): typed entries, archived epics, ``history.jsonl`` events.

Pure rendering of :mod:`pmem_tui.core.epic_entries` and :mod:`pmem_tui.core.epic_archive` data. None of
this is in the agent's block; every title says so. User text is always a Rich ``Text``, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from pmem_tui.core.epic_archive import ARCHIVE_DIR, HISTORY_FILE, Archive, History
from pmem_tui.core.epic_entries import Entry
from pmem_tui.core.textio import printable
from pmem_tui.core.words import plural

MAX_EVENTS_SHOWN = 12  # the newest history events listed
MAX_NOTES_SHOWN = 3


def entries_renderable(entries: Sequence[Entry]) -> RenderableType:
    """Each typed entry with its confidence, under its subsection (the full view only)."""
    head = Text("Typed entries", style="bold")
    head.append(f" ({len(entries)}; shown here only, never loaded)", style="dim")
    parts: list[RenderableType] = [head]
    grid: Table | None = None
    subsection: str | None = None
    for entry in entries:
        if grid is None or entry.subsection != subsection:
            subsection = entry.subsection
            parts.append(Text(printable(subsection) or "(no subsection)", style="dim italic"))
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True, min_width=13)
            grid.add_column(justify="right", no_wrap=True, min_width=4)
            grid.add_column(ratio=1, overflow="fold")
            parts.append(grid)
        conf = Text(printable(entry.confidence) if entry.confidence else "—")
        conf.stylize("yellow" if entry.tentative else "dim" if entry.confidence is None else "")
        grid.add_row(Text(f"[{printable(entry.tag)}]", style="bold"), conf, Text(printable(entry.text)))
    return Group(*parts)


def _notes(notes: Sequence[str]) -> list[RenderableType]:
    out: list[RenderableType] = [Text("⚠ " + printable(n), style="yellow") for n in notes[:MAX_NOTES_SHOWN]]
    if len(notes) > MAX_NOTES_SHOWN:
        out.append(Text(f"⚠ …and {len(notes) - MAX_NOTES_SHOWN} more", style="yellow"))
    return out


def _title(title: str, missing: str, found: Archive | History | None) -> tuple[Text, bool]:
    """The section's title, and whether there is anything to list under it."""
    head = Text(title, style="bold")
    if found is not None and not found.exists:
        head.append(f": none ({missing})", style="dim")
    return head, found is not None and found.exists


def archive_renderable(archive: Archive | None) -> RenderableType:
    """The epics in ``archive/``, one line each: file, ID, intent, age source."""
    head, there = _title(f"Archived epics ({ARCHIVE_DIR}/)", "no archive folder", archive)
    if archive is None or not there:
        return head
    count = f": {len(archive.epics)} in {plural(archive.files, 'file')}"
    head.append(count + " · read-only, the agent never loads them", style="dim")
    parts: list[RenderableType] = [head, *_notes(archive.notes)]
    if archive.epics:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1, overflow="ellipsis", no_wrap=True)
        grid.add_column(no_wrap=True, style="dim")
        for item in archive.epics:
            dated = f"{item.date.isoformat()} ({item.date_source.value})" if item.date else "age unknown"
            grid.add_row(
                Text(printable(item.file)),
                Text(printable(item.epic.id), style="bold"),
                Text(printable(item.epic.intent)),
                Text(dated),
            )
        parts.append(grid)
    return Group(*parts)


def history_renderable(history: History | None) -> RenderableType:
    """The newest ``history.jsonl`` events, newest first, and how many lines were skipped."""
    head, there = _title(f"History ({HISTORY_FILE})", "no history file", history)
    if history is None or not there:
        return head
    if history.problem is not None:
        return Group(head, Text("⚠ " + printable(history.problem), style="yellow"))
    head.append(f": {plural(len(history.events), 'event')}", style="dim")
    if history.partial:
        head.append(" in the file's last MiB", style="dim")
    head.append(" · newest first · read-only", style="dim")
    parts: list[RenderableType] = [head]
    if history.bad_lines:
        are = "is not a JSON object" if history.bad_lines == 1 else "are not JSON objects"
        parts.append(Text(f"⚠ {plural(history.bad_lines, 'line')} {are}: skipped", style="yellow"))
    shown = history.events[-MAX_EVENTS_SHOWN:][::-1]
    if shown:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True, style="bold")
        grid.add_column(justify="right", no_wrap=True)
        for event in shown:
            grid.add_row(
                Text(printable(event.when or "—")),
                Text(printable(event.event or "?")),
                Text(printable(event.feature or "—")),
                Text(f"{event.tokens} tok" if event.tokens is not None else "", style="dim"),
            )
        parts.append(grid)
    if len(history.events) > MAX_EVENTS_SHOWN:
        parts.append(Text(f"…and {len(history.events) - MAX_EVENTS_SHOWN} older", style="dim"))
    return Group(*parts)
