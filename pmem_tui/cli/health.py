"""``pmem-tui [--root DIR] health [--json] [--inactive-days N] [--no-cache]``: what to keep or archive.

Plain output is a numbered list, most certain first, one line per proposal (its category, path and reason),
the index fix under it when there is one, then the expired trash apart. ``--json`` prints one object:
``{"proposals": [{"n", "path", "category", "signals": [{"kind", "detail"}], "reason", "certainty", "fix",
"fix_action"}], "expired_trash": [{"path", "location", "deadline"}], ...}``. Nothing is changed: each
proposal is acted on with ``archive`` / ``delete`` (or its index fix), each with its own preview and
confirmation.

Exit 0; 1 with one sentence naming ``upgrade`` while the lifecycle structure is incomplete (the core's
`LifecycleIncomplete`, mapped by `cli.main`). Imports no Textual and no Rich (tested in a subprocess).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pmem_tui.cli.args import days_option
from pmem_tui.core.model import DEFAULT_INACTIVE_DAYS
from pmem_tui.core.textio import display, printable
from pmem_tui.core.user_input import MAX_INACTIVE_DAYS


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Register the ``health`` subcommand (``common`` carries ``--root``, accepted after the command too)."""
    text = "propose what to keep, archive or delete, and how to fix the index (changes nothing)"
    parser = subparsers.add_parser(
        "health", help=text, description=text[0].upper() + text[1:] + ".", parents=[common]
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--inactive-days",
        type=days_option,
        default=DEFAULT_INACTIVE_DAYS,
        metavar="N",
        help=f"a file unchanged for N days is inactive (1 to {MAX_INACTIVE_DAYS}; "
        f"default {DEFAULT_INACTIVE_DAYS})",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the health cache (in the user's cache folder)",
    )


def run(args: argparse.Namespace, root: Path) -> int:
    # The engine (numpy, rapidfuzz) loads only when health runs, not for every command's parser.
    from pmem_tui.core.health import check_health, health_dict, health_lines

    report = check_health(root, inactive_days=args.inactive_days, use_cache=not args.no_cache)
    if args.json:
        text = display(json.dumps(health_dict(report), ensure_ascii=False, indent=2))
    else:
        text = "\n".join(printable(line) for line in health_lines(report))
    # UTF-8 whatever the terminal's encoding; undecodable bytes in names show as U+FFFD, like `status`.
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()
    return 0
