"""``pmem-tui [--root DIR] status [--json] [--no-cache]``: what the memory holds.

The command most often run: a plain `status` argv skips argparse (`quick`), and a warm one prints the stored
output (`status_cache`) after importing little more than `os`.
"""

from __future__ import annotations

import os
import sys

from pmem_tui.cli.root import root_str


def quick(argv: list[str]) -> tuple[str | None, bool, bool] | None:
    """(root, --json, cache) when `argv` is plainly a `status` command, else None (argparse decides)."""
    plain = plain_command(argv, "status", ("--json", "--no-cache"))
    if plain is None:
        return None
    root, flags = plain
    return root, "--json" in flags, "--no-cache" not in flags


def answer(argv: list[str]) -> int | None:
    """The exit code when `argv` is plainly a `status` command (run here), else None (argparse decides)."""
    plain = quick(argv)
    return None if plain is None else run(*plain)


def plain_command(
    argv: list[str], command: str, options: tuple[str, ...]
) -> tuple[str | None, set[str]] | None:
    """(root, the `options` given) when `argv` is plainly `command`, else None (argparse decides).

    Accepts only `[--root DIR]... COMMAND [OPTION | --root DIR]...`, spelled in full, with exactly the
    meaning argparse gives it (the last --root wins): a warm `status` or `health` then never imports or
    builds the parser (about 15 ms). Anything else, `--help` and abbreviations included, goes to argparse.
    """
    root: str | None = None
    roots: list[str] = []  # argparse checks every one given, not only the last
    seen = False
    given: set[str] = set()
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
        elif tok == command and not seen:
            seen = True
        elif seen and tok in options:
            given.add(tok)
        else:
            return None
        i += 1
    if any(not r or "\0" in r for r in roots):
        return None  # bad usage: argparse says so
    return (root, given) if seen else None


def run(root_arg: str | None, as_json: bool, use_cache: bool) -> int:
    """`status`: the stored output when nothing the listing sees has changed (`status_cache`), else a scan."""
    from pmem_tui.core import settled

    root = root_str(root_arg)
    probe = None
    before = settled.mark(root)  # before the cache's key: an action between them must not be stored
    if use_cache:
        from pmem_tui.core import status_cache

        probe = status_cache.probe(root, "json" if as_json else "text")
        if probe is not None and probe.cached is not None:
            _emit(probe.cached, as_json)
            return 0
    import gc
    from pathlib import Path

    from pmem_tui.core import report

    # Tens of thousands of short-lived objects, no cycles worth collecting: skip the collector's passes.
    collecting = gc.isenabled()
    gc.disable()
    try:
        listed = probe.folders() if probe is not None else None  # the key's listing: the tree listed once
        snap, quiet = settled.scan(Path(root), before=before, cache=use_cache, listed=listed)
        text = report.status_json(snap) if as_json else "\n".join(report.status_lines(snap))
    finally:
        if collecting:
            gc.enable()
    try:
        data = (text + "\n").encode("utf-8")
    except UnicodeEncodeError:  # cannot happen (both texts are cleaned); print fails as it always did
        print(text)
        return 0
    _emit(data, as_json)
    if probe is not None and quiet and report.status_cacheable(snap):
        status_cache.store(probe, data)
    return 0


def _emit(data: bytes, as_json: bool) -> None:
    """Write UTF-8 `data` exactly as `print` would write its text, straight to bytes when that is the same;
    JSON in ASCII when standard output declared another encoding (`streams.use_utf8`)."""
    from pmem_tui.cli import streams

    if as_json:
        data = streams.json_bytes(data)
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    encoding = (getattr(out, "encoding", None) or "").lower().replace("_", "-")
    if buffer is not None and encoding in ("utf-8", "utf8") and os.linesep == "\n":
        out.flush()
        buffer.write(data)
    else:
        print(data.decode("utf-8"), end="")
