"""The header: root, counts, lifecycle state, problems, baseline cost, watcher state."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from pmem_tui.core.model import Snapshot
from pmem_tui.core.report import CORE_TOKEN_WARNING, Baseline
from pmem_tui.core.textio import printable
from pmem_tui.tui.words import plural

WATCH_LABELS = {
    "live": ("● live", "green"),
    "polling": ("● polling (the file watcher could not start; checking every second)", "yellow"),
    "off": ("○ not watching", "grey50"),
}


def header_text(
    root_label: str,
    snap: Snapshot | None,
    base: Baseline | None,
    watch_mode: str,
    scanning: bool = False,
    problems: int | None = None,
    note: str = "",
) -> Text:
    """`problems`: the whole count, the summaries read too (None: the scan's count); `note`: what the
    count leaves out, if anything."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("pmem-tui ", style="bold")
    text.append(printable(root_label))
    label, colour = WATCH_LABELS.get(watch_mode, WATCH_LABELS["off"])
    text.append("  ")
    text.append(label, style=colour)
    text.append("\n")
    if snap is None:
        text.append("scanning…", style="dim")
        return text
    if not snap.exists:
        text.append("no memory here yet", style="yellow")
        return text
    counts = [
        (len(snap.active), "active"),
        (len(snap.core), "core"),
        (len(snap.archived), "archived"),
        (len(snap.trash), "trash"),
    ]
    for n, what in counts:
        text.append(f"{n}", style="bold")
        text.append(f" {what}  ")
    expired = len(snap.expired_trash)
    text.append(f"{expired}", style="bold red" if expired else "bold")
    text.append(" expired  ")
    if snap.lifecycle_linked:
        text.append("lifecycle blocked (a link)", style="bold yellow")
    elif snap.lifecycle_ready:
        text.append("lifecycle ready", style="green")
    else:
        text.append("lifecycle incomplete", style="bold yellow")
    text.append("  ")
    count = len(snap.problems) if problems is None else problems
    text.append(f"{count}", style="bold yellow" if count else "bold")
    text.append(" problem" if count == 1 else " problems")
    if note:
        text.append(f" ({note})", style="dim")
    if base is not None:
        text.append("  ·  baseline ", style="dim")
        text.append(f"≈{base.tokens:,} tokens", style="bold")
        text.append(f" ({plural(base.files, 'file')})", style="dim")
        if base.core_too_big:
            text.append(f"  ⚠ _core/ ≈{base.core_tokens:,} tokens > {CORE_TOKEN_WARNING:,}", style="bold red")
    if scanning:
        text.append("  ↻", style="dim")
    return text


class StatusHeader(Static):
    """Shows `header_text`, as the main screen hands it over."""
