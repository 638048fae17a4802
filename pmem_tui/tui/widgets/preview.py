"""The preview of the selected item: facts, the summary with its badge, then the Markdown.

The file is read (capped) and rendered to lines in a worker thread, off the UI thread; the widget
only scrolls ready-made lines (Line API). User text is never parsed as Rich markup.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import work
from textual.binding import BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from pmem_tui.core import safeio, textio
from pmem_tui.core.dead_routes import why_dead
from pmem_tui.core.model import INDEX_FILE, SummaryInfo, SummaryState
from pmem_tui.core.report import human_size
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import PREVIEW
from pmem_tui.tui.compat import set_virtual_size
from pmem_tui.tui.focus import RemembersKeyFocus
from pmem_tui.tui.messages import PreviewShown
from pmem_tui.tui.rows import ARCHIVED, CORE, DEAD, TRASHED, Row, dead_note, fmt_mtime

PREVIEW_CAP = 64 * 1024  # bytes shown; bigger files are cut (textual#4586: big Markdown freezes)
REST_S = 0.05  # while selections come faster than this, the preview waits for the cursor to rest
PLAIN_ABOVE = 256 * 1024  # beyond this size, show plain text instead of rendering Markdown
INDEX_LINE_SHOWN = 400  # characters of an index line the facts show (each line is one file's entry)


@dataclass(frozen=True)
class FileRead:
    text: str  # for display: undecodable bytes shown as U+FFFD
    valid_utf8: bool
    truncated: bool
    total_size: int


def _trim_partial(data: bytes) -> bytes:
    """Drop a UTF-8 sequence cut in half by the cap (it is not an encoding error of the file)."""
    for k in range(1, min(4, len(data)) + 1):
        b = data[-k]
        if b & 0xC0 == 0x80:
            continue
        if b >= 0xC0:
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return data[:-k] if need > k else data
        return data
    return data


def read_capped(root: Path, rel: str, cap: int = PREVIEW_CAP) -> FileRead:
    """The first `cap` bytes of `rel` through `safeio` (no link at any depth, no FIFO or device)."""
    data, st = safeio.read_head(root, rel, cap + 1)
    total = max(st.st_size, len(data))
    truncated = len(data) > cap
    if truncated:
        data = _trim_partial(data[:cap])
    text = textio.shown(textio.decode(data))
    if len(text) > cap:  # control characters, each shown as four (`\\xNN`)
        text, truncated = text[:cap], True
    return FileRead(text, textio.is_valid_utf8(data), truncated, total)


def summary_badge(info: SummaryInfo) -> Text:
    if info.state is SummaryState.VALID:
        return Text(f" valid · {len(info.bullets)} bullets ", style="bold black on green")
    if info.state is SummaryState.INVALID:
        return Text(" invalid ", style="bold white on red")
    if info.state is SummaryState.MISSING:
        return Text(" missing ", style="bold black on yellow")
    return Text(" not read ", style="bold white on grey37")


def facts_block(row: Row, dead: str | None = None) -> Text:
    """The facts above the file; `dead`: what is at a dead route's path instead of a file."""
    text = Text()
    text.append(textio.printable(row.path), style="bold")
    if row.location and row.location != row.path:
        text.append(f"\nat {textio.printable(row.location)}", style="dim")
    facts: list[str] = []
    if row.size is not None:
        facts.append(human_size(row.size))
    if row.mtime_ns is not None:
        facts.append(f"modified {fmt_mtime(row.mtime_ns)}")
    if row.in_index is not None:
        facts.append(f"in {INDEX_FILE}" if row.in_index else f"not in {INDEX_FILE}")
    if facts:
        text.append("\n" + " · ".join(facts), style="dim")
    note = dead_note(row.line_no, dead) if dead and row.line_no is not None else row.facts_note
    if note:
        text.append("\n" + textio.shown(note))
    if row.index_line is not None:
        saved = row.kind in (ARCHIVED, TRASHED)
        text.append("\nsaved index line: " if saved else "\nindex line: ", style="dim")
        text.append(textio.printable(shown_line(row.index_line)))
    return text


def shown_line(line: str) -> str:
    """An index line as the facts show it: a line over INDEX_LINE_SHOWN characters is cut (found in trial:
    an agent's 12.5 KB line pushed the summary and the file ~200 lines down)."""
    if len(line) <= INDEX_LINE_SHOWN:
        return line
    return f"{line[:INDEX_LINE_SHOWN]}… ({len(line):,} characters in all)"


def build_preview(
    row: Row, read: FileRead | None, error: str | None = None, dead: str | None = None
) -> RenderableType:
    """The whole preview as one renderable (pure: used by the worker and by tests)."""
    from rich.markdown import Markdown  # loaded with the first preview, in its worker

    from pmem_tui.core import summary as summary_mod

    parts: list[RenderableType] = [facts_block(row, dead)]
    if error:
        parts.append(Text(f"Cannot read the file: {error}", style="bold red"))
        return Group(*parts)
    if read is None:
        return Group(*parts)
    if not read.valid_utf8:
        parts.append(Text("⚠ Not valid UTF-8: undecodable bytes are shown as \ufffd.", style="bold yellow"))
    if read.truncated:
        parts.append(
            Text(
                f"⚠ Large file: the preview shows the first {human_size(PREVIEW_CAP)} "
                f"of {human_size(read.total_size)}."
                if read.total_size > PREVIEW_CAP
                else f"⚠ The preview shows the first {PREVIEW_CAP:,} characters: its control characters, "
                "shown as \\xNN, make it longer than the file.",
                style="bold yellow",
            )
        )
    if row.kind in ("entry", "orphan"):
        info = summary_mod.inspect_summary(read.text)
        head = Text("Summary ", style="bold")
        head.append_text(summary_badge(info))
        if info.state is SummaryState.INVALID and info.detail:
            head.append(" " + info.detail, style="red")
        elif info.state is SummaryState.MISSING:
            head.append(" agents read the whole file", style="dim")
        parts.append(Text())
        parts.append(head)
        if info.bullets:
            bullets = Table.grid(padding=(0, 1))
            bullets.add_column(width=3, justify="right")
            bullets.add_column(ratio=1)
            for bullet in info.bullets:
                bullets.add_row(Text("•"), Text(bullet))
            parts.append(bullets)
    elif row.kind in (CORE, ARCHIVED, TRASHED):
        where = "_core/" if row.kind == CORE else "_archive/"
        parts.append(Text(f"Summary-first loading does not apply to {where}.", style="dim italic"))
    parts.append(Rule(style="grey37"))
    if len(read.text) > PLAIN_ABOVE:
        parts.append(Text(read.text))
    else:
        parts.append(Markdown(read.text, hyperlinks=False))
    return Group(*parts)


def render_lines(renderable: RenderableType, width: int) -> list[list[Segment]]:
    console = Console(
        width=width,
        file=io.StringIO(),
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
        markup=False,
        emoji=False,
        highlight=False,
    )
    return console.render_lines(renderable, console.options.update_width(width), pad=True)


_DIM = Style(dim=True)
_PLAIN = Style()


def strip_of(line: list[Segment], width: int) -> Strip:
    """A rendered line as a Strip of `width` cells. Rich leaves plain text and padding without a style
    (None); Textual's line filters (the monochrome one under NO_COLOR) read every segment's style, so each
    gets an empty one. A control character that got this far (a renderable built from a file's text that
    was not `textio.shown`) is shown as `\\xNN`, never sent to the terminal."""
    raw = any(textio.has_control(seg.text) for seg in line)
    if raw:
        line = [Segment(textio.printable(seg.text), seg.style) for seg in line]
    segments = [seg if seg.style is not None else Segment(seg.text, _PLAIN, seg.control) for seg in line]
    return Strip(segments).adjust_cell_length(width, _PLAIN) if raw else Strip(segments, width)


class PreviewView(RemembersKeyFocus, ScrollView, can_focus=True):
    """Scrolls lines rendered in a worker."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(PREVIEW),
    ]

    class Loaded(Message):
        def __init__(self, token: int, lines: list[list[Segment]], width: int) -> None:
            super().__init__()
            self.token = token
            self.lines = lines
            self.width = width

    def __init__(self, root: Path, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root = root
        self._lines: list[Strip] = []
        self._token = 0
        self._subject: Row | RenderableType | None = None
        self._rendered_width = 0
        self.loading_row: Row | None = None
        self.reveal: tuple[str, str] | None = None  # (file, text): scroll there when that file is shown
        self._last_start = 0.0

    @property
    def text(self) -> str:
        """The preview as plain text (tests read it)."""
        return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in self._lines)

    def show_row(self, row: Row | None) -> None:
        if row is not None and row is self._subject and self._rendered_width == self._width():
            return  # already shown (the list announces the row `show_row_now` rendered)
        self._subject = row
        self._start()

    def _width(self) -> int:
        return self.scrollable_content_region.width

    def show_renderable(self, renderable: RenderableType) -> None:
        self._subject = renderable
        self._start()

    def _start(self) -> None:
        self._token += 1
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # rendered on the first resize
        subject = self._subject
        if subject is None:
            # No Console for one line; padded to the width, or the end of the last line shown stays on screen.
            self._set_lines([[Segment("Nothing selected.".ljust(width), _DIM)]], width)
            return
        # The first selection after a pause loads at once; while the cursor keeps moving (key repeat),
        # each load waits until the cursor has rested for REST_S (a newer one cancels it meanwhile).
        now = time.monotonic()
        delay = REST_S if now - self._last_start < REST_S else 0.0
        self._last_start = now
        self._load(self._token, subject, width, delay)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False, description="preview")
    def _load(self, token: int, subject: Row | RenderableType, width: int, delay: float = 0.0) -> None:
        worker = get_current_worker()
        if delay:
            time.sleep(delay)
            if worker.is_cancelled:
                return
        renderable = self._renderable(subject)
        if worker.is_cancelled:
            return
        lines = render_lines(renderable, width)
        if not worker.is_cancelled:
            self.post_message(self.Loaded(token, lines, width))

    def _renderable(self, subject: Row | RenderableType) -> RenderableType:
        if not isinstance(subject, Row):
            return subject
        read: FileRead | None = None
        error: str | None = None
        if subject.location is not None:
            try:
                read = read_capped(self.root, subject.location)
            except OSError as err:
                error = err.strerror or str(err)
        dead = why_dead(self.root, subject.path) if subject.kind == DEAD else None
        return build_preview(subject, read, error, dead)

    def show_row_now(self, row: Row) -> None:
        """Render `row` on the UI thread, for the first frame: a worker would cost a frame more at start-up,
        when its thread competes with the first layout. Later selections load in workers (`show_row`)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            self.show_row(row)
            return
        self._token += 1
        self._subject = row
        self._set_lines(render_lines(self._renderable(row), width), width)
        self.post_message(PreviewShown())

    def on_preview_view_loaded(self, message: PreviewView.Loaded) -> None:
        message.stop()
        if message.token != self._token:
            return
        self._set_lines(message.lines, message.width)
        if isinstance(self._subject, Row):
            self.post_message(PreviewShown())

    def _set_lines(self, lines: list[list[Segment]], width: int) -> None:
        self._lines = [strip_of(line, width) for line in lines]
        self._rendered_width = width
        set_virtual_size(self, Size(width, len(self._lines)))  # no relayout: only the content changed
        self.scroll_to(y=self._revealed_line(), animate=False)
        self.refresh()

    def _revealed_line(self) -> int:
        """The line to scroll to: the first one below the facts' rule showing the search's match (0: the
        top, for any other file)."""
        subject, reveal = self._subject, self.reveal
        if reveal is None or not isinstance(subject, Row) or subject.location != reveal[0]:
            return 0
        self.reveal = None
        needle = reveal[1].casefold()
        lines = self.text.split("\n")
        below = next((i for i, line in enumerate(lines) if line.strip().startswith("───")), 0)
        at = next((i for i in range(below, len(lines)) if needle in lines[i].casefold()), below)
        return max(at - 2, 0)

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width > 0 and width != self._rendered_width:
            self._start()

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if 0 <= index < len(self._lines):
            return self._lines[index].crop_extend(0, width, self.rich_style)
        return Strip.blank(width, self.rich_style)
