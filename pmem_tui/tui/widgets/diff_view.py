"""A Plan's preview, diff-style, as Rich Text (never markup): what the person confirms."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from pmem_tui.core import textio
from pmem_tui.core.model import ARCHIVE_INDEX, INDEX_FILE
from pmem_tui.core.plan import FileDiff, Plan

ADD = "green"
DEL = "red"
MOVE = "cyan"
HEAD = "bold"
NOTE = "yellow"


def _section(title: str) -> Text:
    return Text(f"\n{title}", style="bold underline")


def _line(prefix: str, body: str, style: str, prefix_style: str | None = None) -> Text:
    text = Text(no_wrap=False)
    text.append(prefix, style=prefix_style or style)
    text.append(textio.shown(body), style=style)
    return text


def diff_text(diff: FileDiff) -> Text:
    lines = diff.unified()
    if not lines:
        return Text(f"{diff.path}: no change\n", style="dim")
    return unified_text(lines)


def unified_text(lines: list[str]) -> Text:
    """Unified diff lines, styled: headers bold, hunks cyan, additions green, removals red."""
    text = Text()
    for line in lines:
        shown = textio.printable(line)
        if line.startswith(("+++", "---")):
            style = HEAD
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = ADD
        elif line.startswith("-"):
            style = DEL
        else:
            style = ""
        text.append(shown + "\n", style=style)
    text.rstrip()
    return text


def render_plan(plan: Plan) -> RenderableType:
    pv = plan.preview
    parts: list[RenderableType] = []
    if plan.is_empty:
        parts.append(Text(plan.outcome or "Nothing to do.", style="bold"))
        parts.extend(_line("", note, NOTE) for note in pv.notes)
        parts.append(Text("Nothing on disk changes.", style="dim"))
        return Group(*parts)
    if pv.creates:
        parts.append(_section("Create"))
        parts.extend(_line("  + ", rel, ADD) for rel in pv.creates)
    if pv.moves:
        parts.append(_section("Move"))
        for src, dst in pv.moves:
            text = Text("  ")
            text.append(textio.printable(src), style=MOVE)
            text.append("  ->  ", style="bold")
            text.append(textio.printable(dst), style=MOVE)
            parts.append(text)
    if pv.removes_dirs:
        parts.append(_section(f"Remove the empty folder{'s' if len(pv.removes_dirs) > 1 else ''} it created"))
        parts.extend(_line("  - ", f"{rel}/", DEL) for rel in pv.removes_dirs)
        parts.append(_line("  ", "(a folder that holds anything else by then stays)", NOTE))
    if pv.removes:
        parts.append(_section("Remove permanently"))
        parts.extend(_line("  x ", rel, DEL) for rel in pv.removes)
    if pv.index_removed or pv.index_added:
        parts.append(_section(f"{INDEX_FILE} (active index)"))
        parts.extend(_line("  line removed  ", line, "", DEL) for line in pv.index_removed)
        parts.extend(_line("  line added    ", line, "", ADD) for line in pv.index_added)
    if pv.record_changes:
        parts.append(_section(f"{ARCHIVE_INDEX} (archive record)"))
        parts.extend(_line("  • ", change, "") for change in pv.record_changes)
    if pv.notes:
        parts.append(_section("Notes"))
        parts.extend(_line("  ", note, NOTE) for note in pv.notes)
    if pv.recovery:
        parts.append(_section("Recovery"))
        parts.append(_line("  ", pv.recovery, ""))
    if pv.meta_creates:
        parts.append(_section("pmem-tui's own folder (lock and journal; ignored by git)"))
        parts.append(_line("  + ", "  + ".join(pv.meta_creates), ADD))
    for diff in pv.diffs:
        parts.append(
            _section(f"Diff: {textio.printable(diff.path)}" + (" (new file)" if diff.is_new else ""))
        )
        parts.append(diff_text(diff))
    return Group(*parts)


def plain_text(renderable: RenderableType, width: int = 200) -> str:
    """A renderable as plain text (for tests and logs)."""
    import io

    from rich.console import Console

    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(renderable)
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue()
