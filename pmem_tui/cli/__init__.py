"""The scriptable front: argparse over the core services, one module per command group.

Without `--yes` an action prints its preview and changes nothing (exit 0); with `--yes` it applies.
A refusal exits 1 with one sentence on stderr (none when stderr is closed: never on stdout); bad usage
exits 2; an action that was done while the disk reported an error after its commit point exits 3 (its
outcome on stdout, the disk's error on stderr).
Non-TUI commands never import Textual: the app is imported only when no command is given.

`parser` builds the argument parser; `status`, `lifecycle` (the actions: a preview, `--yes` applies),
`health`, `search` and `loader` run their commands; `args` holds the options' argparse types; `streams`
checks the standard streams first (standard output closed or not writable: a refusal; UTF-8 whatever the
declared encoding; the app needs a terminal).
"""

from __future__ import annotations

import os
import sys

from pmem_tui.cli.root import resolve_root
from pmem_tui.core.errors import BadUsage, PmemError

# Start-up time is most of a warm `status`: everything else is imported where it is used (even `typing`,
# 5 ms with `re`; mypy treats any `TYPE_CHECKING` as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence


def _dispatch(args: argparse.Namespace) -> int:
    cmd = args.command
    if cmd == "loader":  # reads a project's .claude/memory/, not the memory root
        from pmem_tui.cli import loader

        return loader.run(args)
    if cmd == "status":
        from pmem_tui.cli import status

        return status.run(getattr(args, "root", None), args.json, not args.no_cache)
    root = resolve_root(getattr(args, "root", None))
    if cmd == "health":
        from pmem_tui.cli import health

        return health.run(args, root)
    if cmd == "search":
        from pmem_tui.cli import search

        return search.run(args, root)
    if cmd in ("history", "changes", "snapshot"):
        from pmem_tui.cli import history

        return history.run(args, root)
    from pmem_tui.cli import lifecycle

    return lifecycle.run(args, root)


def _open_app(args: argparse.Namespace) -> int:
    from pmem_tui.cli.streams import app_terminal, no_terminal

    why = no_terminal()
    if why is not None:  # Textual would fail, or wait forever on input that never comes
        raise BadUsage(
            f"pmem-tui's app needs a terminal, and {why}; use a command such as `pmem-tui status` in scripts."
        )
    from pmem_tui.core.clock import today

    today()  # a malformed PMEM_TUI_TODAY is bad usage before the app starts
    from pmem_tui.tui.allocator import keep_mmap_threshold
    from pmem_tui.tui.app import run_app  # the only place the CLI imports Textual

    keep_mmap_threshold()  # a long-lived process: freed buffers go back to the system
    root = resolve_root(getattr(args, "root", None))
    give_back = app_terminal()  # standard error redirected (`2>err.log`): drawn on the terminal anyway
    try:
        return run_app(root=root, demo=args.demo, project=args.project)
    finally:
        give_back()


def _status(argv: list[str]) -> int | None:
    from pmem_tui.cli import status

    return status.answer(argv)


def _snapshot(argv: list[str]) -> int | None:
    from pmem_tui.cli import snapshot

    return snapshot.answer(argv)


def _health(argv: list[str]) -> int | None:
    """`health_quick` prints a plain `health`'s stored output when it is current; a miss runs here (the
    full command stores its output), never from `health_quick`, which `health` imports."""
    from pmem_tui.cli import health_quick

    plain = health_quick.quick(argv)
    if plain is None or isinstance(plain, int):
        return plain
    from pmem_tui.cli import health

    return health.run_plain(*plain)


# The commands a hook or a script runs often: a plain line of theirs (`status.plain_command`) is answered
# without argparse (~15 ms of a ~60 ms warm run); None, and any other line, goes to argparse.
QUICK: dict[str, Callable[[list[str]], int | None]] = {
    "status": _status,
    "snapshot": _snapshot,
    "health": _health,
}


def _end_now(code: int) -> None:
    """End the process with `code` once stdout and stderr are flushed, without the interpreter's teardown.

    A quick command (`QUICK`) has written and closed all it wrote (a `snapshot` also fsynced it; `status` and
    `health` write only their caches, atomically), and freeing its objects one by one is pure waste: ~15 ms
    of a ~130 ms `snapshot` (dulwich's modules, the stamps of every file), ~10 ms of a cold `status` and
    50-80 ms of a cold `health` at 10,000 files (numpy, detect-secrets, a report of every file). Flushing
    fails: the usual exit, which says so."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # closed (`snapshot --quiet >&-`)
                stream.flush()
    except OSError:
        return
    os._exit(code)


def _streams(arg_list: list[str]) -> str | None:
    """Why no command can run with standard output as it is (`streams.refusal`), else None, having made it
    UTF-8. The app's own check (`_open_app`) speaks for it: it needs a terminal."""
    from pmem_tui.cli import streams
    from pmem_tui.cli.status import plain_command

    streams.stderr_closed()  # before anything is said or opened
    plain = plain_command(arg_list, "snapshot", ("--quiet",))
    said = streams.refusal(quiet=plain is not None and "--quiet" in plain[1])
    if said is None:
        streams.reader_may_leave()  # a pipe's reader that goes away ends no command
        streams.use_utf8()
        return None
    from pmem_tui.cli.parser import command_of

    asks = ("-h", "--help", "--version")
    return None if command_of(arg_list) is None and not any(a in asks for a in arg_list) else said


def main(argv: Sequence[str] | None = None) -> int:
    arg_list = sys.argv[1:] if argv is None else list(argv)
    try:
        said = _streams(arg_list)
        if said is not None:
            print(f"pmem-tui: {said[0].upper()}{said[1:]}", file=sys.stderr)
            return 1
        for word, answer in QUICK.items():
            if word in arg_list:
                done = answer(arg_list)
                if done is not None:
                    if argv is None:  # this process's own command line: a quick command reads or records
                        _end_now(done)
                    return done
        from pmem_tui.cli.parser import LIGHT, build_parser, command_of

        command = command_of(arg_list)
        args = build_parser(command if command in LIGHT else None).parse_args(arg_list)
        if args.command is None:
            return _open_app(args)
        code = _dispatch(args)
        if sys.stdout is not None:
            sys.stdout.flush()  # here, where a failure is said (`OSError` below), not at the exit
        return code
    except PmemError as err:
        from pmem_tui.core.textio import printable

        print(f"pmem-tui: {printable(str(err))}", file=sys.stderr)
        return 2 if isinstance(err, BadUsage) else 1
    except BrokenPipeError:
        # A pipe's reader went away before `streams.reader_may_leave` was in place: stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as err:
        from pmem_tui.cli import streams
        from pmem_tui.core.errors import describe_os_error, refusal_of
        from pmem_tui.core.textio import printable

        if streams.has_acted():  # done: its report could not be written (a disk that filled meanwhile)
            what = describe_os_error(err)
            said = f"{what}: the change was made, but its report could not be written in full"
            print(f"pmem-tui: {printable(said[0].upper() + said[1:])}.", file=sys.stderr)
            return 3
        print(f"pmem-tui: {printable(refusal_of(err))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pmem-tui: interrupted.", file=sys.stderr)
        return 130
