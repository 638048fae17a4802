"""The header: root, counts, lifecycle state, problems, baseline cost, watcher state."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from pmem_tui.core.model import Snapshot
from pmem_tui.core.report import CORE_TOKEN_WARNING, Baseline
from pmem_tui.core.textio import printable
from pmem_tui.core.words import plural

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
    width: int | None = None,
) -> Text:
    """`problems`: the whole count, the summaries read too (None: the scan's count); `note`: what the
    count leaves out, if anything; `width`: the cells each line has (None: no limit)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("pmem-tui ", style="bold")
    label, colour = WATCH_LABELS.get(watch_mode, WATCH_LABELS["off"])
    shown = printable(root_label)
    room = None if width is None else width - len("pmem-tui ") - 2 - cell_len(label)
    if room is not None and cell_len(shown) > room:
        # The path's end, which names the memory (found in review: a long root wrapped, pushing line 2 away).
        shown = "…" + _last_cells(shown, max(room - 1, 8))
    text.append(shown)
    text.append("  ")
    text.append(label, style=colour)
    text.append("\n")
    if snap is None:
        text.append("scanning…", style="dim")
        return text
    if not snap.exists:
        text.append("no memory here yet", style="yellow")
        return text
    text.append_text(_fitted(_counts_line(snap, base, problems, note, scanning), width))
    return text


# Line 2's parts, each said whole or not at all (found in trial: at 80 columns the line ended
# "lifecycle ready  15", the word "problems" cut off). The lower a part's rank, the sooner it goes when the
# line is too long; the rest keep their order. _KEEP (the active count, the problems, a warning, a lifecycle
# in trouble): dropped only from the end, after every other part (found in review: "0 trash" outlived them).
_BASELINE, _READY, _NO_EXPIRED, _NOTE, _NONE, _COUNT, _KEEP = range(7)
_DROPPED_FIRST = (_BASELINE, _READY, _NO_EXPIRED, _NOTE, _NONE, _COUNT)
_GAP = "  "


def _counts_line(
    snap: Snapshot, base: Baseline | None, problems: int | None, note: str, scanning: bool
) -> list[tuple[int, Text]]:
    parts: list[tuple[int, Text]] = []
    counts = [
        (len(snap.active), "active"),
        (len(snap.core), "core"),
        (len(snap.archived), "archived"),
        (len(snap.trash), "trash"),
    ]
    for i, (n, what) in enumerate(counts):  # active first and always; then the others, an empty one first
        rank = _KEEP if not i else _COUNT if n else _NONE
        parts.append((rank, Text.assemble((f"{n}", "bold"), f" {what}")))
    expired = len(snap.expired_trash)
    parts.append(
        (
            _KEEP if expired else _NO_EXPIRED,
            Text.assemble((f"{expired}", "bold red" if expired else "bold"), " expired"),
        )
    )
    if snap.lifecycle_linked:
        parts.append((_KEEP, Text("lifecycle blocked (a link)", style="bold yellow")))
    elif snap.lifecycle_ready:
        parts.append((_READY, Text("lifecycle ready", style="green")))
    else:
        parts.append((_KEEP, Text("lifecycle incomplete", style="bold yellow")))
    count = len(snap.problems) if problems is None else problems
    parts.append(
        (
            _KEEP,
            Text.assemble(
                (f"{count}", "bold yellow" if count else "bold"), " problem" if count == 1 else " problems"
            ),
        )
    )
    if note:  # one space after the count it qualifies
        parts.append((_NOTE, Text(f" ({note})", style="dim")))
    if base is not None:
        line = Text.assemble(
            ("·  baseline ", "dim"),
            (f"≈{base.tokens:,} tokens", "bold"),
            (f" ({plural(base.files, 'file')})", "dim"),
        )
        parts.append((_BASELINE, line))
        if base.core_too_big:
            warning = f"⚠ _core/ ≈{base.core_tokens:,} tokens > {CORE_TOKEN_WARNING:,}"
            parts.append((_KEEP, Text(warning, style="bold red")))
    if scanning:
        parts.append((_KEEP, Text("↻", style="dim")))
    return parts


def _fitted(parts: list[tuple[int, Text]], width: int | None) -> Text:
    """`parts` joined by two spaces, without the lowest-ranked ones while the line is over `width`, then
    without the last ones: a part is never cut."""

    def joined(kept: list[tuple[int, Text]]) -> Text:
        line = Text()
        for n, (_rank, part) in enumerate(kept):
            line.append_text(part if not n or part.plain.startswith(" ") else Text(_GAP) + part)
        return line

    if width is not None:
        for rank in _DROPPED_FIRST:  # before the problems, the warnings and the lifecycle's trouble
            if joined(parts).cell_len <= width:
                break
            parts = [p for p in parts if p[0] != rank]
        while len(parts) > 1 and joined(parts).cell_len > width:
            parts = parts[:-1]
    return joined(parts)


class StatusHeader(Static):
    """Shows `header_text`, as the main screen hands it over, fitted to its width (again on a resize)."""

    _args: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def show(self, *args: Any, **kwargs: Any) -> None:
        """`header_text`'s arguments, but `width`."""
        self._args = (args, kwargs)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        args = self._args
        if args is not None:
            width = self.content_size.width
            self.update(header_text(*args[0], **{**args[1], "width": width if width > 0 else None}))


def _last_cells(text: str, cells: int) -> str:
    """The end of `text` that fits in `cells` cells."""
    out = ""
    for char in reversed(text):
        if cell_len(char + out) > cells:
            break
        out = char + out
    return out
