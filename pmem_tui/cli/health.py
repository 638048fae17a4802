"""``pmem-tui [--root DIR] health [--json] [--inactive-days N] [--no-cache]``: what to keep or archive.

Plain output is a numbered list, most certain first, one line per proposal (its category, path and reason),
the index fix under it when there is one, then the expired trash apart. ``--json`` prints one object:
``{"proposals": [{"n", "path", "category", "signals": [{"kind", "detail"}], "reason", "certainty", "fix",
"fix_action"}], "expired_trash": [{"path", "location", "deadline"}], ...}`` (`Proposal` says what each
``fix_action`` does with ``fix``: for "reroute", ``fix`` is the dead route whose line is rewritten to name
``path``). Nothing is changed: each proposal is acted on with ``archive`` / ``delete`` (or its index fix),
each with its own preview and confirmation.

Exit 0; 1 with one sentence naming ``upgrade`` while the lifecycle structure is incomplete (the core's
`LifecycleIncomplete`, mapped by `cli.main`). Imports no Textual and no Rich (tested in a subprocess).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pmem_tui.cli import health_quick
from pmem_tui.cli.args import days_option
from pmem_tui.cli.json_text import dumps_indented
from pmem_tui.core.model import DEFAULT_INACTIVE_DAYS, INDEX_FILE
from pmem_tui.core.textio import display, printable
from pmem_tui.core.user_input import MAX_INACTIVE_DAYS
from pmem_tui.core.words import plural

if TYPE_CHECKING:
    from pmem_tui.core.health import HealthReport, Proposal


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


def run(args: argparse.Namespace, root: Path, served: health_quick.Served | None = None) -> int:
    """`health`; `served`: the stored output's key, taken by `health_quick` (which found no output for it)."""
    started = time.perf_counter()
    # The engine (numpy, rapidfuzz) loads only when health runs, not for every command's parser.
    from pmem_tui.cli.history import record_seen
    from pmem_tui.core.health import check_health

    record_seen(root)  # what changed on disk goes into the history first
    if served is None and not args.no_cache and args.inactive_days == DEFAULT_INACTIVE_DAYS:
        served = health_quick.serve(str(root), args.json, started)
        if served is None:
            return 0
    probe = served.probe if served is not None else None
    report = check_health(
        root,
        inactive_days=args.inactive_days,
        use_cache=not args.no_cache,
        listed=probe.folders() if probe is not None else None,  # the key's listing: the tree listed once
        listed_ns=probe.started_ns if probe is not None else 0,
    )
    if args.json:
        text = display(dumps_indented(health_dict(report)))
    else:
        text = "\n".join(printable(line) for line in health_lines(report))
    # UTF-8 whatever the terminal's encoding; undecodable bytes in names show as U+FFFD, like `status`.
    health_quick.write(text.encode("utf-8") + b"\n", args.json)
    if served is not None:
        health_quick.keep(served, report, text)
    return 0


def run_plain(root: str, as_json: bool, served: health_quick.Served) -> int:
    """A plain `health [--json]` (argparse's defaults) whose stored output `health_quick` did not find."""
    args = argparse.Namespace(json=as_json, inactive_days=DEFAULT_INACTIVE_DAYS, no_cache=False)
    return run(args, Path(root), served)


def health_dict(report: HealthReport) -> dict[str, Any]:
    """The JSON shape of `pmem-tui health --json`."""
    return {
        "root": str(report.root),
        "today": report.today.isoformat(),
        "inactive_days": report.inactive_days,
        "proposals": [
            {
                "n": p.n,
                "path": p.path,
                "category": p.category,
                "signals": [
                    {"kind": s.kind, "detail": s.detail, **({"other": s.other} if s.other else {})}
                    for s in p.signals
                ],
                "reason": p.reason,
                "certainty": p.certainty,
                "fix": p.fix,
                "fix_action": p.fix_action,
            }
            for p in report.proposals
        ],
        "expired_trash": [
            {
                "path": t.path,
                "location": t.location,
                "deadline": t.deadline.isoformat() if t.deadline else None,
            }
            for t in report.expired_trash
        ],
        "stats": asdict(report.stats),
    }


def fix_words(p: Proposal) -> str:
    """What a proposal's fix does, after "fix: "."""
    assert p.fix is not None
    if p.fix_action == "redact":  # no command redacts: the app's `f`, or a save of the file edited by hand
        return (
            f"save it with {p.fix} redacted (`f` in the app's health review, or "
            f"`pmem-tui save {p.path} --from FILE`, the preview first); pmem-tui's history (.pmem/history) "
            "still holds the secret then: "
            f"`pmem-tui history forget {p.path} --version V` for each version the next `health` names"
        )
    if p.fix_action == "forget":
        return f"`pmem-tui history forget {p.path} --version {p.fix[:12]}` (its preview first)"
    if p.fix_action == "reroute":
        return (
            f"rewrite the route {display(p.fix)} in its {INDEX_FILE} line to {display(p.path)}, the rest of "
            "the line kept (`f` in the app's health review, the preview first)"
        )
    verb = "add to" if p.fix_action == "add" else "drop from"
    return f"{verb} {INDEX_FILE}: {display(p.fix)}"


def health_lines(report: HealthReport) -> list[str]:
    """A readable numbered list (PM-HEALTH-4) and the expired trash apart (PM-HEALTH-6)."""
    from pmem_tui.core.health import CATEGORIES

    props = report.proposals
    counts = Counter(p.category for p in props)
    lines = [
        f"Memory health of {report.root} ({report.today.isoformat()}, "
        f"inactive after {report.inactive_days} days): "
        f"{report.stats.files} active files",
    ]
    if props:
        summary = ", ".join(f"{counts[c]} {c}" for c in CATEGORIES if counts[c])
        lines.append(
            f"{plural(len(props), 'proposal')} ({summary}), most certain first "
            "(delete = archive first, then move to the trash):"
        )
        width = len(str(len(props)))
        for p in props:
            lines.append(f"{p.n:>{width}}. {p.category:<7} {display(p.path)} — {p.reason}")
            if p.fix is not None:
                lines.append(f"{'':>{width}}  fix: {fix_words(p)}")
    else:
        lines.append("Nothing to propose: every active file looks current and the index is in sync.")
    if report.expired_trash:
        lines.append(
            f"Expired trash ({len(report.expired_trash)}), removed only by `pmem-tui purge` after its own "
            "confirmation:"
        )
        for t in report.expired_trash:
            deadline = t.deadline.isoformat() if t.deadline else "?"
            lines.append(f"  {display(t.path)}  at {display(t.location)}  (deadline {deadline})")
    lines.append(
        "Nothing was changed. Act item by item: `pmem-tui archive PATH --reason ...`, "
        "then `pmem-tui delete PATH` for a delete; each shows its preview first."
    )
    return lines
