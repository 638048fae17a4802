"""The argument parser: the top-level options, then each command's (`health` and `loader` add their own).

`build_parser(only="search")` builds the top-level options and the `search` command alone: the same parse
of a search's command line, without importing the other commands' modules (`health` alone costs ~15 ms,
most of a search's process with the index up to date). `command_of` says which command a line names."""

from __future__ import annotations

import argparse
import os
import sys

from pmem_tui import __version__
from pmem_tui.cli.args import path_option

LIGHT = frozenset({"search"})  # the commands whose line is parsed by a parser of their own (`only`)
_VALUED = frozenset({"--root", "--project"})  # top-level options followed by their value


def command_of(argv: list[str]) -> str | None:
    """The command `argv` names (its first word that is neither an option nor an option's value; None:
    none, or `--` first). A guess only used to build a smaller parser, which parses the line as the full
    one does."""
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            return None
        if tok in _VALUED:
            i += 2
            continue
        if not tok.startswith("-"):
            return tok
        i += 1
    return None


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` gives it ($COLUMNS, else stdout's terminal, else
    80), without importing `shutil` (2.4 ms with the bz2 and lzma it loads)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's own formatter, its width found without `shutil`: argparse makes one for every option it
    adds (to check its metavar), so a search process loaded `shutil` for a parser that prints no help."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` with `_Formatter` (its subcommands' parsers are of its class too)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (`only`, one of `LIGHT`) the top-level options and that command's."""
    common: argparse.ArgumentParser = Parser(add_help=False)
    common.add_argument(
        "--root",
        metavar="DIR",
        type=path_option,
        default=argparse.SUPPRESS,
        help="memory root (default: $PMEM_ROOT, else ~/.persistent-memory)",
    )
    parser: argparse.ArgumentParser = Parser(  # its subcommands' parsers: of its class
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
    if only == "search":
        from pmem_tui.cli import search

        search.add_parser(sub, common)
        return parser

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, parents=[common])

    p = add("status", "show what the memory holds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    no_cache = "read every file anew; neither use nor update the caches in the user's cache folder"
    p.add_argument("--no-cache", action="store_true", help=no_cache)

    # Every action previews; its last option, --yes, applies (`lifecycle.run`).
    actions: dict[str, argparse.ArgumentParser] = {}

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        actions[name] = add(name, help_text)
        return actions[name]

    p = action("save", "create or update a memory file (preview; --yes applies)")
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

    p = action("archive", "move an active file to _archive/ (preview; --yes applies)")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--reason", metavar="TEXT", required=True, help="why it is archived (kept in the record)")

    p = action("delete", "move an archived file to the trash, recoverable for 30 days")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--reason", metavar="TEXT", help="for an active PATH: the reason in its archive preview")

    p = action("recover", "bring a file back from the archive or the trash")
    p.add_argument("path", metavar="PATH")
    p.add_argument(
        "--index-line", metavar="LINE", help="the index line to restore (for a record without one)"
    )

    action("purge", "permanently remove expired trash items")
    action("upgrade", "create the missing lifecycle folders and archive index")
    action("doctor", "finish or undo an interrupted action and repair what a crash left")
    p = action("restore", "put a memory file back to a recorded version (preview; --yes applies)")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--version", dest="version", metavar="V", required=True, help="a version `history` lists")
    yes_help = {"save": "apply instead of previewing"}  # the others' --help has always shown a bare --yes
    for name, p in actions.items():
        p.add_argument("--json", action="store_true", help="print one JSON object: the preview as data")
        p.add_argument("--yes", action="store_true", help=yes_help.get(name))

    from pmem_tui.cli import health, history, loader, search

    loader.add_parser(sub)  # these two never import Textual either
    health.add_parser(sub, common)
    search.add_parser(sub, common)
    history.add_parsers(sub, common)
    return parser
