"""``pmem-tui loader [--project DIR] [--json]``: what the agent loads from a project's permanent memory.

Plain output is exactly the block the agent receives (UTF-8, one final newline), and nothing at all when the
loader is silent: no ``.claude/memory/``, no ``permanent_memory.md``, no epic, or every epic dropped. When the
file is skipped or has warnings, one ``note:``/``warning:`` line per item goes to stderr; stdout stays the
block. ``--json`` prints one object instead (always, even when silent, with its ``status``): per epic the id,
intent, shape, confidence, items, date and its source (``completed``, ``marker``, ``heading``, or ``none``
with ``date`` and ``age_days`` null), age, stale flag, tokens, the section's size against the producer's
500-token cap, loaded or dropped and by which step; the totals against the budget; the ladder trace. Exit 0,
or 1 with one sentence on stderr when the project folder is missing or the file cannot be read (a symlink
or a special file is not read), or 2 when ``PMEM_TUI_TODAY`` is out of its range.
``--project`` is accepted before or after ``loader``.

Imports no Textual and no Rich (tested in a subprocess).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pmem_tui.cli.args import path_option
from pmem_tui.core.errors import BadUsage, PmemError

if TYPE_CHECKING:  # the loader itself is imported by `run`: building the CLI's parser must stay cheap
    from pmem_tui.core.loader import EpicRow, LoaderResult

JSON_VERSION = 2  # 2: date_source values of PL-13; date and age_days may be null


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``loader`` subcommand on `subparsers`."""
    parser = subparsers.add_parser(
        "loader",
        help="show what an agent loads from .claude/memory/permanent_memory.md",
        description=(
            "Print the permanent-memory block exactly as the agent receives it (nothing when silent). "
            "--json adds every epic, its cost and the degradation step against the budget."
        ),
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        type=path_option,
        default=argparse.SUPPRESS,  # never hide a top-level `pmem-tui --project DIR loader`
        help="project folder holding .claude/memory/ (default: the current folder)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON report instead of the block")


def run(args: argparse.Namespace) -> int:
    """Run ``loader`` with parsed `args` (``project``, ``json``). Returns the exit code."""
    raw = getattr(args, "project", None)
    project = Path(raw) if raw is not None else Path.cwd()
    try:
        from pmem_tui.core.loader import load_permanent_memory

        result = load_permanent_memory(project)
    except PmemError as err:
        from pmem_tui.core.textio import printable

        print(f"pmem-tui: {printable(str(err))}", file=sys.stderr)
        return 2 if isinstance(err, BadUsage) else 1  # BadUsage: PMEM_TUI_TODAY out of range, as everywhere
    if args.json:
        from pmem_tui.cli import streams

        _write(json.dumps(result_to_json(result), indent=2, ensure_ascii=streams.ascii_json()) + "\n")
        return 0
    if result.block:
        _write(result.block + "\n")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.skip_reason is not None:
        print(f"note: nothing loaded ({result.step.label}: {result.skip_reason.value})", file=sys.stderr)
    return 0


def _write(text: str) -> None:
    """Write `text` to stdout as UTF-8 whatever the terminal's encoding, so the block is byte-exact."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8"))
    buffer.flush()


def _epic_to_json(row: EpicRow) -> dict[str, Any]:
    epic = row.epic
    return {
        "id": epic.id,
        "intent": epic.intent,
        "heading": epic.heading,
        "line_no": epic.line_no,
        "lines_read": list(epic.lines_read),
        "shape": epic.shape.value,
        "confidence": epic.confidence,
        "confidence_value": epic.confidence_value,
        "tentative": epic.tentative,
        "items": epic.items,
        "marker_extra": dict(epic.marker.extra) if epic.marker else {},
        "summary": epic.summary,
        "date": row.date.isoformat() if row.date is not None else None,
        "date_source": row.date_source.value,
        "date_field": epic.marker_date_key if row.date_source == "marker" else None,
        "completed_line_no": epic.completed_line_no,
        "age_days": row.age_days,
        "stale": row.stale,
        "status": "loaded" if row.loaded else "dropped",
        "step": row.step.value if row.step else None,
        "line": row.line,
        "tokens": row.tokens,
        "full_tokens": row.full_tokens,
        "section_tokens": row.section_tokens,
        "over_producer_cap": row.over_producer_cap,
        "summary_trimmed": row.summary_trimmed,
        "line_trimmed": row.line_trimmed,
        "warnings": list(epic.warnings),
    }


def result_to_json(result: LoaderResult) -> dict[str, Any]:
    """The ``--json`` report (``version`` 2)."""
    b = result.budget
    file = result.file
    return {
        "version": JSON_VERSION,
        "status": result.status.value,
        "project": str(result.project),
        "path": str(result.path),
        "today": result.today.isoformat(),
        "block": result.block,
        "budget": {
            "target": b.target,
            "cap": b.cap,
            "used": result.used,
            "within_target": result.within_target,
            "within_cap": result.within_cap,
            "step": result.step.value,
            "step_number": result.step.number,
            "skip_reason": result.skip_reason.value if result.skip_reason else None,
            "per_epic_summary": {"target": b.epic_summary_target, "cap": b.epic_summary_cap},
            "per_subsection_line": {
                "target": b.subsection_line_target,
                "cap": b.subsection_line_cap,
                "used": 0,
            },
            "line_chars": b.line_chars,
            "skip_file_over": b.skip_file_over,
            "stale_after_days": b.stale_after_days,
        },
        "ladder": [
            {
                "step": t.step.value,
                "step_number": t.step.number,
                "tokens": t.tokens,
                "saved": t.saved,
                "affected": list(t.affected),
            }
            for t in result.trace
        ],
        "file": None
        if file is None
        else {
            "size": file.size,
            "chars": file.chars,
            "tokens": file.tokens,
            "mtime": file.mtime.isoformat(timespec="seconds"),
            "bom": file.bom,
            "utf8": file.utf8,
        },
        "epics": [_epic_to_json(row) for row in result.rows],
        "warnings": list(result.warnings),
    }
