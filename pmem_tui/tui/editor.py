"""Run the person's editor on a file, with the app suspended around it, and always come back.

`$VISUAL`, else `$EDITOR`, else `vi`, split like a shell would (`code -w`, `vim -u NONE`). An editor that
cannot start, exits non-zero (vim's `:cq`) or is killed is an `EditorFailed` with one sentence; the app's
screen is restored whatever happens (Textual's `suspend` does not resume when its block raises).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

Editor = Callable[[Path], None]


class EditorFailed(Exception):
    """The editor did not finish normally; the message is one sentence for the person."""


def editor_command(environ: dict[str, str] | None = None) -> list[str]:
    """The editor's command line (without the file): `$VISUAL`, else `$EDITOR`, else `vi`."""
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "")
        if not value.strip():
            continue
        try:
            words = shlex.split(value)
        except ValueError as err:  # an unclosed quote
            raise EditorFailed(f"${name} ({value!r}) cannot be read as a command: {err}.") from None
        if words:
            return words
    return ["vi"]


@contextlib.contextmanager
def _interrupts_go_to_the_editor() -> Iterator[None]:
    """ctrl+c while the editor runs is the editor's: this process ignores it (a Python handler, not
    SIG_IGN, which the editor would inherit), instead of dying with the editor's terminal taken."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda _sig, _frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_editor(path: Path) -> None:
    """Run the editor on `path` and wait for it; `EditorFailed` unless it exits with status 0."""
    command = editor_command()
    shown = shlex.join(command)
    with _interrupts_go_to_the_editor():
        try:
            done = subprocess.run([*command, str(path)], check=False)
        except OSError as err:
            raise EditorFailed(
                f"The editor '{shown}' could not start ({err.strerror or err}); set $VISUAL or $EDITOR "
                "to an editor you have (for example EDITOR=nano)."
            ) from None
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        raise EditorFailed(f"The editor '{shown}' was killed ({name}).")
    if done.returncode > 0:
        raise EditorFailed(f"The editor '{shown}' exited with status {done.returncode}.")


def _attempt(editor: Editor, path: Path) -> str | None:
    try:
        editor(path)
    except EditorFailed as err:
        return str(err)
    except OSError as err:
        return f"The editor could not start: {err.strerror or err}."
    except Exception as err:
        return f"The editor failed: {err}."
    return None


def edit_suspended(app: App[Any], editor: Editor, path: Path) -> str | None:
    """Suspend the app, run `editor` on `path`, resume: None when it finished normally, else the sentence
    saying what happened."""
    try:
        with app.suspend():
            # Inside the block nothing may raise: the app resumes only when the block ends normally.
            if not os.isatty(1):  # the app draws on standard error; an editor, on standard output
                return "The editor needs a terminal, and pmem-tui's standard output is not one (redirected)."
            return _attempt(editor, path)
    except SuspendNotSupported:  # no terminal to hand over (tests, Textual web)
        return _attempt(editor, path)
