"""SIGTERM and SIGHUP end the app cleanly, instead of killing it mid-frame.

Killed by the default action, the process would leave the terminal in full-screen raw mode and skip
`run_app`'s clean-up (the demo's temporary folder). SIGTERM exits through the app (Textual restores the
terminal). SIGHUP usually means the terminal is gone: Textual's orderly exit then waits forever on its
output thread, so the clean-ups run here, the terminal is reset as far as it still listens, and the
process ends at once. The exit status is the shell's usual 128 + the signal's number.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from textual.app import App

from pmem_tui.tui.compat import terminal_attrs_before

# Leave the alternate screen, show the cursor, stop mouse reports and bracketed paste.
_RESET = b"\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l"

_cleanups: list[Callable[[], object]] = []


def at_hangup(cleanup: Callable[[], object]) -> None:
    """Run `cleanup` if the process ends on SIGHUP (`run_app` runs it itself on every other exit)."""
    _cleanups.append(cleanup)


def _hang_up(app: App[Any]) -> None:
    for cleanup in _cleanups:
        with contextlib.suppress(Exception):
            cleanup()
    with contextlib.suppress(Exception):
        attrs = terminal_attrs_before(app)
        fd = sys.__stderr__.fileno() if sys.__stderr__ is not None else 2
        if attrs is not None:
            import termios

            termios.tcsetattr(fd, termios.TCSANOW, attrs)
        os.write(fd, _RESET)
    os._exit(128 + signal.SIGHUP)


def exit_on_termination(app: App[Any]) -> None:
    """Handle SIGTERM and SIGHUP in the app's event loop (main thread only; elsewhere, nothing changes)."""
    try:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, partial(app.exit, return_code=128 + signal.SIGTERM))
        loop.add_signal_handler(signal.SIGHUP, partial(_hang_up, app))
    except (RuntimeError, ValueError, NotImplementedError):  # not the main thread, or no Unix signals
        pass
