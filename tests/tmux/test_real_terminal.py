"""The app in a real terminal (tmux): it starts and quits cleanly whatever the terminal, and the serious
keyboard defects of issue 14 stay fixed there (NO_COLOR at start, the preview after the filter, a missing
editor)."""

from __future__ import annotations

import os
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.escapes import escape_memory
from tests.tmux.terminal import Pane, column_text

SIZES = [(80, 24), (160, 48)]
TERMINALS = [
    {"NO_COLOR": "1", "TERM": "xterm-256color"},
    {"TERM": "xterm"},
    {"TERM": "xterm-256color"},
    {"TERM": "screen"},
]


def started(pane: Pane) -> str:
    """The main screen with the first row's preview drawn (the NO_COLOR crash came with that first draw)."""
    return pane.wait_for("projects/atlas.md", "Summary", "valid")


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a container's init may be slow to reap it)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def quit_cleanly(pane: Pane, workdir: Path, status: int = 0) -> None:
    if not status:
        pane.keys("q")
    code = pane.exit_status()
    screen = pane.wait_for("pmem exited")
    assert code == status, f"exit status {code}, not {status}; the pane shows:\n{screen}"
    assert "Traceback" not in screen and "Error" not in screen, screen
    assert not pane.alternate_screen()  # the terminal is back to the shell's screen
    assert not list(workdir.glob("pmem-demo-*"))  # the demo folder is removed


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    "env", TERMINALS, ids=lambda e: "-".join(f"{k}={v}" for k, v in e.items()).replace("TERM=", "")
)
def test_starts_and_quits_cleanly(
    pane: Pane, tmp_path: Path, env: dict[str, str], size: tuple[int, int]
) -> None:
    pane.start(size, env)
    started(pane)
    assert pane.alternate_screen()
    quit_cleanly(pane, tmp_path)


@pytest.mark.parametrize(
    "redirect", ["2>{log}", ">{out} 2>{log}", "2>&-"], ids=["stderr", "stdout-and-stderr", "stderr-closed"]
)
def test_starts_and_quits_cleanly_with_its_output_redirected(
    pane: Pane, tmp_path: Path, redirect: str
) -> None:
    """Found in trial: `pmem-tui --demo 2>err.log` (the usual way to keep a traceback) exited 2 on a blank
    screen. The app draws on the terminal all the same (standard output, else /dev/tty), and standard error
    is the file again once it ends. Closed (`2>&-`): before, "Bad file descriptor; nothing was changed."."""
    log, out = tmp_path / "err.log", tmp_path / "out.log"
    pane.start((80, 24), {"NO_COLOR": "1"}, app_args="--demo " + redirect.format(log=log, out=out))
    started(pane)
    assert pane.alternate_screen()
    quit_cleanly(pane, tmp_path)
    assert "{log}" not in redirect or log.read_bytes() == b""


def test_the_preview_follows_the_highlight_after_the_filter(pane: Pane, tmp_path: Path) -> None:
    pane.start((160, 48), {"TERM": "xterm-256color"})
    started(pane)
    pane.keys("j", "j")
    pane.wait_in_preview("Listed in _index.md (line 6).")  # cobalt-migration's preview
    # One key at a time, each awaited: sent in one burst, enter's move would hide the bug.
    pane.keys("/")
    pane.wait_for("filter: path, title, summary")
    pane.keys("o")  # every row matches: the highlight goes back to the first, atlas
    pane.wait(lambda s: "filter: path" not in s, "the typed filter")
    pane.wait_in_preview("Listed in _index.md (line 4).")
    pane.keys("Enter")
    pane.keys("a")
    screen = pane.wait_for("Why archive it?")
    assert "Archive projects/atlas.md" in screen
    pane.keys("Escape")
    pane.wait_for_notice("Cancelled: nothing was changed.")
    quit_cleanly(pane, tmp_path)


def test_a_missing_editor_restores_the_screen_and_says_so(pane: Pane, tmp_path: Path) -> None:
    pane.start((80, 24), {"NO_COLOR": "1", "TERM": "xterm-256color", "EDITOR": "nosuch-editor"})
    started(pane)
    pane.keys("e")
    pane.wait_for_notice("The editor 'nosuch-editor' could not start (No such file or directory)")
    pane.wait_for_notice("Nothing was saved.")
    assert pane.alternate_screen()
    pane.keys("j")  # keys are the app's again (before: echoed by the terminal, ctrl+c did nothing)
    pane.wait_in_preview("Listed in _index.md (line 5).")
    quit_cleanly(pane, tmp_path)


def test_an_editor_with_arguments_runs_and_the_app_comes_back(pane: Pane, tmp_path: Path) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\nflag, words, path = sys.argv[1:]\nassert (flag, words) == ('-w', 'two words')\n"
        "open(path, 'a').write('- Added in a real terminal.\\n')\n",
        encoding="utf-8",
    )
    pane.start((160, 48), {"TERM": "screen", "VISUAL": f"{sys.executable} {editor} -w 'two words'"})
    started(pane)
    pane.keys("e")
    pane.wait_for("Save projects/atlas.md", "+- Added in a real terminal.")
    pane.keys("Escape")
    pane.wait_for_notice("Cancelled: nothing was changed.")
    quit_cleanly(pane, tmp_path)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_termination_signal_restores_the_terminal_and_removes_the_demo(
    pane: Pane, tmp_path: Path, signum: signal.Signals
) -> None:
    pane.start((80, 24), {"TERM": "xterm-256color"})
    started(pane)
    os.kill(pane.app_pid(), signum)
    quit_cleanly(pane, tmp_path, status=128 + signum)


def test_a_closed_terminal_still_removes_the_demo(pane: Pane, tmp_path: Path) -> None:
    pane.start((80, 24), {"TERM": "xterm-256color"})
    started(pane)
    pid = pane.app_pid()
    pane.tmux("kill-pane", "-t", "app")  # the window closes: SIGHUP, and the terminal is gone
    deadline = time.monotonic() + 30
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(pid)  # before: Textual's exit waited forever on the closed terminal
    assert not list(tmp_path.glob("pmem-demo-*"))


def test_a_crash_restores_the_terminal_and_exits_non_zero(pane: Pane, tmp_path: Path) -> None:
    crash = (
        "import pmem_tui.tui.app as a, pmem_tui.cli as c; "
        "a.PmemApp._show_head = lambda self: 1 / 0; "
        "raise SystemExit(c.main(['--demo']))"
    )
    pane.start((80, 24), {"TERM": "xterm-256color"}, app_args="", python_args=f"-c {shlex.quote(crash)}")
    screen = pane.wait_for("ZeroDivisionError", "pmem exited")
    assert pane.exit_status() == 1
    assert not pane.alternate_screen()
    assert not list(tmp_path.glob("pmem-demo-*"))
    assert "pmem exited" in screen


def test_an_agents_terminal_escapes_are_shown_not_obeyed(pane: Pane, tmp_path: Path) -> None:
    """Found in trial: an OSC an agent wrote into a memory file renamed the terminal window, and a
    clear-screen wiped the app, in the preview; the index line's colour codes reached it raw too."""
    root = escape_memory(tmp_path / "memory")
    pane.start((120, 30), {"TERM": "xterm-256color"}, app_args=f"--root {shlex.quote(str(root))}")
    pane.wait_in_preview("PWNED-TITLE")  # the preview of the only row is drawn
    # The header and the escaped preview on one screen (a capture can catch a frame half drawn: the
    # condition is awaited, not read once); a clear-screen that got through would leave the header gone.
    screen = pane.wait(
        lambda s: s.splitlines()[0].lstrip().startswith("pmem-tui") and "\\x1b[2J" in column_text(s, "▏"),
        "the header and the escaped clear-screen",
    )
    assert "esc \\x1b[31mRED" in screen.replace("\n", "")
    assert "PWNED" not in pane.tmux("display-message", "-p", "-t", "app", "#{pane_title}")
    pane.keys("q")
    assert pane.exit_status() == 0
