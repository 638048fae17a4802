"""The scriptable front: argparse over the core services.

Without `--yes` an action prints its preview and changes nothing (exit 0); with `--yes` it applies.
A refusal exits 1 with one sentence on stderr; bad usage exits 2; an action that was done while the disk
reported an error after its commit point exits 3 (its outcome on stdout, the disk's error on stderr).
Non-TUI commands never import Textual: the app is imported only when no command is given.
"""

from __future__ import annotations

import os
import sys

from pmem_tui.core.errors import PmemError

# Start-up time is most of a warm `status`: everything else is imported where it is used (even `typing`,
# 5 ms with `re`; mypy treats any `TYPE_CHECKING` as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path

    from pmem_tui.core.plan import Plan

ENV_ROOT = "PMEM_ROOT"
EXIT_DONE_WITH_DISK_ERROR = 3  # the action was done, but the disk reported an error after its commit point
DEFAULT_ROOT = "~/.persistent-memory"


def _root_str(arg: str | None) -> str:
    raw = arg or os.environ.get(ENV_ROOT) or DEFAULT_ROOT
    return os.path.abspath(os.path.expanduser(raw))


def resolve_root(arg: str | None) -> Path:
    """--root DIR, else $PMEM_ROOT, else ~/.persistent-memory."""
    from pathlib import Path

    return Path(_root_str(arg))


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from pmem_tui import __version__
    from pmem_tui.cli.args import path_option

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--root",
        metavar="DIR",
        type=path_option,
        default=argparse.SUPPRESS,
        help="memory root (default: $PMEM_ROOT, else ~/.persistent-memory)",
    )
    parser = argparse.ArgumentParser(
        prog="pmem-tui",
        description="See, search, review and safely change what your AI agents remember. "
        "Without a command, opens the app.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"pmem-tui {__version__}")
    parser.add_argument(
        "--demo", action="store_true", help="open the app on a fresh sample memory in a temp folder"
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        type=path_option,
        default=None,
        help="project whose .claude/memory/ the app's Epics pane shows (default: current folder)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, parents=[common])

    p = add("status", "show what the memory holds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="read every file anew; neither use nor update the caches in the user's cache folder",
    )

    p = add("save", "create or update a memory file (preview; --yes applies)")
    p.add_argument("path", metavar="PATH", help="e.g. notes/standup.md or _core/profile.md")
    p.add_argument(
        "--from",
        dest="source",
        metavar="FILE",
        type=path_option,
        required=True,
        help="file with the content, or - for stdin",
    )
    p.add_argument("--index-line", metavar="LINE", help="the exact _index.md line for this file")
    p.add_argument("--yes", action="store_true", help="apply instead of previewing")

    p = add("archive", "move an active file to _archive/ (preview; --yes applies)")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--reason", metavar="TEXT", required=True, help="why it is archived (kept in the record)")
    p.add_argument("--yes", action="store_true")

    p = add("delete", "move an archived file to the trash, recoverable for 30 days")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--reason", metavar="TEXT", help="for an active PATH: the reason in its archive preview")
    p.add_argument("--yes", action="store_true")

    p = add("recover", "bring a file back from the archive or the trash")
    p.add_argument("path", metavar="PATH")
    p.add_argument(
        "--index-line", metavar="LINE", help="the index line to restore (for a record without one)"
    )
    p.add_argument("--yes", action="store_true")

    p = add("purge", "permanently remove expired trash items")
    p.add_argument("--yes", action="store_true")

    p = add("upgrade", "create the missing lifecycle folders and archive index")
    p.add_argument("--yes", action="store_true")

    p = add("doctor", "finish or undo an interrupted action and repair what a crash left")
    p.add_argument("--yes", action="store_true")

    _add_optional_commands(sub, common)
    return parser


def _add_optional_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Commands that live in their own modules (they never import Textual either)."""
    from pmem_tui.cli import health, loader

    loader.add_parser(sub)
    health.add_parser(sub, common)


def _print_plan(plan: Plan) -> None:
    from pmem_tui.core import ansi
    from pmem_tui.core.report import plan_lines

    print("\n".join(plan_lines(plan, colour=ansi.wanted(sys.stdout))))


def _run_plan(plan: Plan, root: Path, yes: bool) -> int:
    if not yes:
        _print_plan(plan)
        if not plan.is_empty:
            print("\nPreview only: nothing was changed. Run again with --yes to apply.")
        return 0
    from pmem_tui.core.executor import apply  # not on the app's start-up path (filelock, journal)

    result = apply(plan, root)
    print(result.outcome)
    if result.warning is not None:  # done, but the disk reported an error (`core/after_commit.py`)
        from pmem_tui.core.textio import printable

        sys.stdout.flush()
        print(f"pmem-tui: {printable(result.warning)}", file=sys.stderr)
        return EXIT_DONE_WITH_DISK_ERROR
    return 0


def _offer_archive(root: Path, path: str, reason: str | None) -> int:
    """Delete on an active file: show the archive preview instead, as the app does."""
    from pmem_tui.core import lifecycle

    plan = lifecycle.plan_archive(root, path, reason or "(reason)")
    print(
        f"{path} is active: only an archived file can be deleted (delete = archive first, then the trash, "
        "recoverable for 30 days). Here is the archive preview instead:\n"
    )
    _print_plan(plan)
    print(
        f"\nPreview only: nothing was changed. Run `pmem-tui archive {path} --reason TEXT --yes` to archive "
        "it, then delete it."
    )
    return 0


def _read_source(source: str) -> bytes:
    """The content for `save --from`: a regular file or standard input, at most `safeio.SOURCE_CAP` bytes."""
    from pmem_tui.core import safeio

    cap = safeio.SOURCE_CAP
    try:
        if source == "-":
            data: bytes = sys.stdin.buffer.read(cap + 1)
            if len(data) > cap:
                raise safeio.too_large("standard input", None, cap)
            return data
        return safeio.read_source(source, cap)
    except safeio.UnsafeFile as err:
        raise PmemError(f"Cannot save: {err.strerror}.") from err
    except OSError as err:
        from pmem_tui.core.errors import describe_os_error

        raise PmemError(f"Cannot read {source}: {describe_os_error(err)}.") from err


def _quick_status(argv: list[str]) -> tuple[str | None, bool, bool] | None:
    """(root, --json, cache) when `argv` is plainly a `status` command, else None (argparse decides).

    Accepts only `[--root DIR]... status [--json | --no-cache | --root DIR]...`, spelled in full, with
    exactly the meaning argparse gives it (the last --root wins): a warm `status` then never imports or
    builds the parser (about 15 ms). Anything else, `--help` and abbreviations included, goes to argparse.
    """
    root: str | None = None
    roots: list[str] = []  # argparse checks every one given, not only the last
    seen = as_json = no_cache = False
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--root" and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            root = argv[i + 1]
            roots.append(root)
            i += 2
            continue
        if tok.startswith("--root="):
            root = tok[len("--root=") :]
            roots.append(root)
        elif tok == "status" and not seen:
            seen = True
        elif seen and tok == "--json":
            as_json = True
        elif seen and tok == "--no-cache":
            no_cache = True
        else:
            return None
        i += 1
    if any(not r or "\0" in r for r in roots):
        return None  # bad usage: argparse says so
    return (root, as_json, not no_cache) if seen else None


def _status(root_arg: str | None, as_json: bool, use_cache: bool) -> int:
    """`status`: the stored output when nothing the listing sees has changed (`status_cache`), else a scan."""
    from pmem_tui.core import settled

    root = _root_str(root_arg)
    probe = None
    before = settled.mark(root)  # before the cache's key: an action between them must not be stored
    if use_cache:
        from pmem_tui.core import status_cache

        probe = status_cache.probe(root, "json" if as_json else "text")
        if probe is not None and probe.cached is not None:
            _emit(probe.cached)
            return 0
    import gc
    from pathlib import Path

    from pmem_tui.core import report

    # Tens of thousands of short-lived objects, no cycles worth collecting: skip the collector's passes.
    collecting = gc.isenabled()
    gc.disable()
    try:
        snap, quiet = settled.scan(Path(root), before=before, cache=use_cache)
        text = report.status_json(snap) if as_json else "\n".join(report.status_lines(snap))
    finally:
        if collecting:
            gc.enable()
    try:
        data = (text + "\n").encode("utf-8")
    except UnicodeEncodeError:  # cannot happen (both texts are cleaned); print fails as it always did
        print(text)
        return 0
    _emit(data)
    if probe is not None and quiet and report.status_cacheable(snap):
        status_cache.store(probe, data)
    return 0


def _emit(data: bytes) -> None:
    """Write UTF-8 `data` exactly as `print` would write its text, straight to bytes when that is the same."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    encoding = (getattr(out, "encoding", None) or "").lower().replace("_", "-")
    if buffer is not None and encoding in ("utf-8", "utf8") and os.linesep == "\n":
        out.flush()
        buffer.write(data)
    else:
        print(data.decode("utf-8"), end="")


def _dispatch(args: argparse.Namespace) -> int:
    cmd = args.command
    if cmd == "loader":  # reads a project's .claude/memory/, not the memory root
        from pmem_tui.cli import loader

        return loader.run(args)
    if cmd == "status":
        return _status(getattr(args, "root", None), args.json, not args.no_cache)
    root = resolve_root(getattr(args, "root", None))
    from pmem_tui.core import doctor, lifecycle  # after status, which needs neither (start-up time)

    if cmd == "save":
        plan = lifecycle.plan_save(root, args.path, _read_source(args.source), args.index_line)
    elif cmd == "archive":
        plan = lifecycle.plan_archive(root, args.path, args.reason)
    elif cmd == "delete":
        try:
            plan = lifecycle.plan_delete(root, args.path)
        except lifecycle.NeedsArchive as err:
            if args.yes:  # --yes confirms a delete, never an archive the person has not seen
                raise
            return _offer_archive(root, err.path, args.reason)
    elif cmd == "recover":
        plan = lifecycle.plan_recover(root, args.path, args.index_line)
    elif cmd == "purge":
        plan = lifecycle.plan_purge(root)
    elif cmd == "upgrade":
        plan = lifecycle.plan_upgrade(root)
    elif cmd == "doctor":
        plan = doctor.plan_doctor(root)
    elif cmd == "health":
        from pmem_tui.cli import health

        return int(health.run(args, root))
    else:  # pragma: no cover - argparse rejects unknown commands
        raise AssertionError(cmd)
    return _run_plan(plan, root, args.yes)


def _open_app(args: argparse.Namespace) -> int:
    from pmem_tui.core.clock import today

    today()  # a malformed PMEM_TUI_TODAY is bad usage before the app starts
    from pmem_tui.tui.app import run_app  # the only place the CLI imports Textual

    return run_app(root=resolve_root(getattr(args, "root", None)), demo=args.demo, project=args.project)


def main(argv: Sequence[str] | None = None) -> int:
    arg_list = sys.argv[1:] if argv is None else list(argv)
    quick = _quick_status(arg_list)
    args = build_parser().parse_args(arg_list) if quick is None else None
    try:
        if quick is not None:
            return _status(*quick)
        assert args is not None
        if args.command is None:
            return _open_app(args)
        return _dispatch(args)
    except PmemError as err:
        from pmem_tui.core.errors import BadUsage
        from pmem_tui.core.textio import printable

        print(f"pmem-tui: {printable(str(err))}", file=sys.stderr)
        return 2 if isinstance(err, BadUsage) else 1
    except BrokenPipeError:
        # The reader went away (`pmem-tui status | head`): stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as err:
        from pmem_tui.core.errors import describe_os_error
        from pmem_tui.core.textio import printable

        what = describe_os_error(err)
        print(f"pmem-tui: {printable(what[0].upper() + what[1:])}; nothing was changed.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pmem-tui: interrupted.", file=sys.stderr)
        return 130
