"""``pmem-tui [--root DIR] search QUERY [--json] [--archive] [--limit N]``: find text in the memory files.

Plain output is one line per hit, best first: ``location  path:line: snippet``, the matches in the snippet
marked with ``[`` ``]`` (in colour instead on a terminal with ``NO_COLOR`` unset). ``--json`` prints
``{"results": [{"path", "location", "line", "snippet", "score"}]}`` (and ``"note"``, a sentence, when some
files could not be indexed or the query was too broad to rank every match). The index (SQLite FTS5, in
the user's cache folder) is brought up to date first: only the files whose stamp changed are read.

Exit 0 with hits, 1 with none (like grep and ripgrep; ``{"results": []}`` is still printed with ``--json``),
2 for bad usage (an empty query, an unknown ``in:``, a bad ``--limit``). Imports no Textual, no Rich and
none of the health engine's libraries.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pmem_tui.core import ansi
from pmem_tui.core.textio import printable

MAX_LIMIT = 10_000
DEFAULT_LIMIT = 20


def limit_option(value: str) -> int:
    """`--limit`: a whole number from 1 to MAX_LIMIT."""
    if not value.isascii() or not value.isdigit() or len(value) > 6 or not 1 <= int(value) <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_LIMIT:,}")
    return int(value)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    text = 'find text in the memory files: words, "phrases", path:GLOB, in:archive (changes nothing)'
    parser = subparsers.add_parser(
        "search",
        help=text,
        description=text[0].upper() + text[1:] + ". Words must all occur (any case unless a word has a "
        "capital); parts of words and Chinese or Japanese text are found.",
        parents=[common],
    )
    parser.add_argument("query", metavar="QUERY", nargs="+", help="what to find (several words: all of them)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--archive",
        action="store_true",
        help="also search the archive and the trash (left out by default; in:archive asks for one place)",
    )
    parser.add_argument(
        "--limit",
        type=limit_option,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most N results (default {DEFAULT_LIMIT})",
    )


def marked(snippet: str, spans: tuple[tuple[int, int], ...], colour: bool) -> str:
    """The snippet with its matches in brackets, or in colour."""
    out, at = [], 0
    for start, end in spans:
        out.append(printable(snippet[at:start]))
        match = printable(snippet[start:end])
        out.append(f"\x1b[1;31m{match}{ansi.RESET}" if colour else f"[{match}]")
        at = end
    out.append(printable(snippet[at:]))
    return "".join(out)


def _progress(done: int, total: int) -> None:
    sys.stderr.write(f"\rpmem-tui: indexing {done:,} of {total:,} files…")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run(args: argparse.Namespace, root: Path) -> int:
    from pmem_tui.core.search import search

    text = " ".join(args.query)
    results = search(
        root,
        text,
        archive=args.archive,
        limit=args.limit,
        progress=_progress if sys.stderr.isatty() else None,
    )
    if args.json:
        shape: dict[str, object] = {
            "results": [
                {
                    "path": h.path,
                    "location": h.location,
                    "line": h.line,
                    "snippet": h.snippet,
                    "score": h.score,
                }
                for h in results.hits
            ]
        }
        if results.note:
            shape["note"] = results.note
        from pmem_tui.cli import streams

        out = json.dumps(shape, ensure_ascii=streams.ascii_json(), indent=2)
    else:
        colour = ansi.wanted(sys.stdout)
        out = "\n".join(
            f"{h.location:<7} {printable(h.path)}:{h.line}: {marked(h.snippet, h.spans, colour)}"
            for h in results.hits
        )
    sys.stdout.flush()
    if out:
        sys.stdout.buffer.write(out.encode("utf-8") + b"\n")
        sys.stdout.buffer.flush()
    if results.note and not args.json:
        print(f"pmem-tui: {results.note}", file=sys.stderr)
    if not results.hits:
        where = "" if args.archive else " (the archive and the trash were left out: add --archive)"
        print(f"pmem-tui: no match for {printable(text)!r}{where}.", file=sys.stderr)
        return 1
    return 0
