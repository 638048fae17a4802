"""argparse types for the CLI's options: a value out of range is bad usage (exit 2), named by argparse.

The ranges themselves live in `core/user_input.py`, shared with the app.
"""

from __future__ import annotations

import argparse

from pmem_tui.core.errors import BadUsage


def path_option(value: str) -> str:
    """`--root`, `--project`, `--from`: an empty path would silently mean the default; a NUL is no path."""
    if not value:
        raise argparse.ArgumentTypeError("the path is empty")
    if "\0" in value:
        raise argparse.ArgumentTypeError("the path contains a NUL character")
    return value


def days_option(value: str) -> int:
    """`--inactive-days`."""
    from pmem_tui.core.user_input import parse_days  # datetime, unicodedata: not on a search's path

    try:
        return parse_days(value)
    except BadUsage as err:
        raise argparse.ArgumentTypeError(str(err)) from None
