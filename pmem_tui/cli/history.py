"""History commands: ``history``, ``history show|diff|forget|prune``, ``changes`` and ``snapshot``.

    pmem-tui [--root DIR] history [PATH] [--json]                 versions, newest first
    pmem-tui [--root DIR] history show VERSION PATH               the exact bytes on standard output
    pmem-tui [--root DIR] history diff PATH [--from V] [--to V]   a unified diff
    pmem-tui [--root DIR] history forget PATH --version V [--yes] remove that content from the history
    pmem-tui [--root DIR] history prune --older-than DAYS [--yes] drop the records older than DAYS
    pmem-tui [--root DIR] changes [--json] [--mark-reviewed]      what changed since the last review
    pmem-tui [--root DIR] snapshot [--quiet] [--json]             record now (idempotent)

(`restore PATH --version V [--yes]` is an action: `cli/lifecycle.py`.) Every command takes `--json`; the
shapes are in the README's History section. A refusal is one sentence (exit 1); nothing here touches a
memory file. `record_seen` is what `health` (and `history`, `changes`) run first: it records what changed
on disk.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pmem_tui.cli.args import days_option
from pmem_tui.cli.snapshot import NOTHING
from pmem_tui.core import textio
from pmem_tui.core.errors import BadUsage, Refused
from pmem_tui.core.paths import normalize_user_path
from pmem_tui.core.textio import printable
from pmem_tui.core.words import plural

SUBCOMMANDS = ("show", "diff", "forget", "prune")


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    def add(name: str, text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".", parents=[common])
        p.add_argument("--json", action="store_true", help="print one JSON object")
        return p

    p = add(
        "history", "every recorded version of the memory's files (subcommands: show, diff, forget, prune)"
    )
    p.add_argument(
        "words",
        nargs="*",
        metavar="[PATH | show VERSION PATH | diff PATH | forget PATH | prune]",
        help="a memory file's path (its original path, also once archived), or a subcommand",
    )
    p.add_argument("--from", dest="from_version", metavar="V", help="diff: the older version")
    p.add_argument("--to", dest="to_version", metavar="V", help="diff: the newer version (default: newest)")
    p.add_argument("--version", dest="version", metavar="V", help="forget: the version whose content goes")
    p.add_argument("--older-than", type=days_option, metavar="DAYS", help="prune: records older than DAYS")
    p.add_argument("--yes", action="store_true", help="forget, prune: apply instead of previewing")

    p = add("changes", "the files changed since you last marked a review")
    p.add_argument("--mark-reviewed", action="store_true", help="mark everything recorded so far as reviewed")

    p = add("snapshot", "record the memory now (idempotent: nothing changed, nothing recorded)")
    p.add_argument("--quiet", action="store_true", help="print nothing unless something went wrong")


def record_seen(root: Path | str) -> bool:
    """Record what changed on disk since the last record, when the root has a history store (never made
    here); a store that cannot record says so on stderr and the command goes on. True when it recorded."""
    recorded, problem = _seen(root)
    _say(problem)
    return recorded


def _seen(root: Path | str) -> tuple[bool, str | None]:
    from pmem_tui.core.history import stat_table

    if not stat_table.store_exists(root):
        return False, None
    same, started, stamps, table = stat_table.unchanged(root)
    if same:
        return False, None
    from pmem_tui.core.history import record

    done = record.record(Path(root), seen=(started, stamps, table))
    return done.commit is not None, done.problem


def _say(problem: str | None) -> None:
    if problem is not None:
        said = f"History could not record what changed on disk: {printable(problem)}."
        print(f"pmem-tui: {said}", file=sys.stderr)


def run(args: argparse.Namespace, root: Path) -> int:
    if args.command == "changes":
        return _changes(root, args)
    if args.command == "snapshot":
        return _snapshot(root, args)
    words: list[str] = args.words
    if words and words[0] in SUBCOMMANDS:
        return {"show": _show, "diff": _diff, "forget": _forget, "prune": _prune}[words[0]](
            root, args, words[1:]
        )
    if len(words) > 1:
        raise BadUsage("history takes one PATH (or a subcommand: show, diff, forget, prune).")
    return _list(root, args, _path(words[0]) if words else None)


def _path(text: str) -> str:
    return normalize_user_path(text)


def _words(words: list[str], names: str) -> list[str]:
    wanted = names.split()
    if len(words) != len(wanted):
        raise BadUsage(f"expected {' '.join(wanted)}, got {plural(len(words), 'argument')}.")
    return words


def _emit_json(data: dict[str, Any]) -> None:
    from pmem_tui.cli import streams

    print(json.dumps(data, ensure_ascii=streams.ascii_json(), indent=2))


def _list(root: Path, args: argparse.Namespace, path: str | None) -> int:
    from pmem_tui.core.history import log

    problem = _seen(root)[1]
    found = log.versions(root, path)  # a damaged store: this sentence only
    _say(problem)
    if args.json:
        _emit_json({"versions": [v.to_json() for v in found]})
        return 0
    if not found:
        print(
            "No recorded versions." if path else "No history yet: `pmem-tui snapshot` records the memory now."
        )
        return 0
    for v in found:
        size = "-" if v.kind == log.DELETED else f"{v.bytes} B"
        when = log.iso_time(v.time)
        print(f"{v.id[:12]}  {when}  {v.kind:<8}  {size:>9}  {printable(v.path)}  ({printable(v.origin)})")
    return 0


def _show(root: Path, args: argparse.Namespace, words: list[str]) -> int:
    from pmem_tui.core.history import log

    version, path = _words(words, "VERSION PATH")
    data = log.version_bytes(root, version, _path(path))
    if args.json:
        _emit_json(
            {"version": log.resolve(root, version), "path": path, "text": data.decode("utf-8", "replace")}
        )
        return 0
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


def _diff(root: Path, args: argparse.Namespace, words: list[str]) -> int:
    from pmem_tui.core.history import log

    (path,) = _words(words, "PATH")
    rel = _path(path)
    problem = _seen(root)[1]  # so the newest version (the default --to) is what is on disk now
    text = log.diff(root, rel, args.from_version, args.to_version)
    _say(problem)
    if args.json:
        _emit_json({"path": rel, "diff": text})
    else:
        sys.stdout.write(textio.shown(text) if sys.stdout.isatty() else text)  # a terminal: escapes shown
    return 0


def _forget(root: Path, args: argparse.Namespace, words: list[str]) -> int:
    from pmem_tui.core.history import rewrite

    (path,) = _words(words, "PATH")
    if not args.version:
        raise BadUsage("history forget needs --version V (the version whose content goes).")
    plan = rewrite.plan_forget(root, _path(path), args.version)
    outcome = _acted(rewrite.apply_forget(root, plan)) if args.yes else None
    shown = {
        "path": plan.path,
        "version": plan.version,
        "records": plan.records,
        "live_has_it": plan.live_has_it,
    }
    return _previewed(args, plan.lines(), shown, outcome, True)


def _prune(root: Path, args: argparse.Namespace, words: list[str]) -> int:
    from pmem_tui.core.history import rewrite

    _words(words, "")
    if args.older_than is None:
        raise BadUsage("history prune needs --older-than DAYS.")
    plan = rewrite.plan_prune(root, args.older_than)
    outcome = _acted(rewrite.apply_prune(root, plan)) if args.yes else None
    shown = {"days": plan.days, "dropped": plan.dropped, "kept": plan.kept}
    return _previewed(args, plan.lines(), shown, outcome, plan.dropped > 0)


def _acted(outcome: str | None) -> str | None:
    """`outcome`, what a change did, once `streams` knows the command changed something."""
    from pmem_tui.cli import streams

    streams.acted()
    return outcome


def _previewed(
    args: argparse.Namespace, lines: list[str], shown: dict[str, Any], outcome: str | None, to_do: bool
) -> int:
    """A rewrite's preview (or, with --yes, its outcome), as text or as JSON with "applied" and "outcome"."""
    if args.json:
        _emit_json({**shown, "applied": outcome is not None, "outcome": outcome})
        return 0
    print("\n".join(lines))
    if to_do:
        print(outcome or "\nPreview only: nothing was changed. Run again with --yes to apply.")
    return 0


def _changes(root: Path, args: argparse.Namespace) -> int:
    from pmem_tui.core.history import log, record, stat_table

    problem = _seen(root)[1]
    changed = log.changes_since_review(root)  # a damaged store: this sentence only
    _say(problem)
    if args.mark_reviewed:
        marked = _acted(record.mark_reviewed(root))
        if args.json:
            _emit_json({"reviewed": marked})
        else:
            print("Marked reviewed." if marked else "No history yet: nothing to mark.")
        return 0
    if args.json:
        _emit_json(
            {
                "since": stat_table.read_head(root, log.REVIEWED_REF),
                "head": stat_table.read_head(root),
                "changes": [c.to_json() for c in changed],
            }
        )
        return 0
    if not changed:
        print("Nothing changed since the last review.")
    for c in changed:
        moved = f" -> {printable(c.now_path)}" if c.now_path != c.path else ""
        size = f"+{c.lines_added} -{c.lines_removed}"
        print(
            f"{log.iso_time(c.time)}  {c.kind:<8}  {printable(c.path)}{moved}  {size}"
            f"  ({printable(c.origin)}, {c.version[:12]})"
        )
    return 0


def _snapshot(root: Path, args: argparse.Namespace) -> int:
    from pmem_tui.core import memory_root
    from pmem_tui.core.history import record

    if not memory_root.is_memory(root):  # a wrong --root (`~`, `/`) is left without a history store
        raise Refused(f"{printable(memory_root.not_a_memory(root))}; nothing was recorded.")
    done = record.record(root, create=True)
    if done.problem is not None:
        raise Refused(f"History could not record the memory: {done.problem}.")
    if args.json:
        _emit_json({"recorded": done.commit})
    elif not args.quiet:
        print(f"Recorded {done.commit[:12]}." if done.commit else NOTHING)
    return 0
