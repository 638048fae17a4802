"""The app in a real terminal: a tmux pane (its own `-L` server), driven by `send-keys` and read by
`capture-pane`. Waits poll the pane for the expected text, bounded by a generous hang guard."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

HANG_GUARD_S = 30.0  # generous: 2 cores shared by many; a hang fails here instead of blocking the suite
POLL_S = 0.05


def column_text(screen: str, bar: str) -> str:
    """The text right of the last `bar` on each line (the preview: `▏`; a notification: `▌`), its wrapped
    lines joined by single spaces."""
    parts = [line.rpartition(bar)[2] for line in screen.splitlines() if bar in line]
    return " ".join(" ".join(parts).split())


class Pane:
    """One tmux server (`-L` socket of its own) with one pane running the app, then a shell line that
    writes its exit status to a file and keeps the pane open."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.socket = f"pmem-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.status_file = workdir / "exit-status"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
            check=True,
        )
        return done.stdout

    def start(
        self,
        size: tuple[int, int],
        env: dict[str, str],
        app_args: str = "--demo",
        python_args: str = "-m pmem_tui",
    ) -> None:
        settings = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
        workdir = shlex.quote(str(self.workdir))
        command = (
            # COLUMNS/LINES: something in the test process sets them in the C environment (80x24), and
            # they would override the pane's real size.
            f"cd {workdir} && env -u COLUMNS -u LINES -u NO_COLOR -u VISUAL -u EDITOR TMPDIR={workdir} "
            f"{settings} "
            f"{shlex.quote(sys.executable)} {python_args} {app_args}; "
            f'echo "$?" > {shlex.quote(str(self.status_file))}; echo "pmem exited"; exec sleep 600'
        )
        width, height = size
        self.tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), command)

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def alternate_screen(self) -> bool:
        """The app's full-screen mode is on (off: the terminal is back to the shell's screen)."""
        return self.tmux("display-message", "-p", "-t", "app", "#{alternate_on}").strip() == "1"

    def wait(self, condition: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + HANG_GUARD_S
        screen = ""
        while time.monotonic() < deadline:
            screen = self.text()
            if condition(screen):
                return screen
            time.sleep(POLL_S)  # polling the pane; the condition, not this interval, decides
        size = self.tmux("display-message", "-p", "-t", "app", "#{window_width}x#{window_height}").strip()
        raise AssertionError(f"no {what} within {HANG_GUARD_S:.0f} s; the pane ({size}) shows:\n{screen}")

    def wait_for(self, *texts: str) -> str:
        return self.wait(lambda s: all(t in s for t in texts), " and ".join(map(repr, texts)))

    def wait_in_preview(self, text: str) -> str:
        """Wait for `text` in the preview column (right of the last `▏`), however the pane wrapped it."""
        return self.wait(lambda s: text in column_text(s, "▏"), f"{text!r} in the preview")

    def wait_for_notice(self, text: str) -> str:
        """Wait for `text` in a notification, however it wrapped."""
        return self.wait(lambda s: text in column_text(s, "▌"), f"{text!r} in a notification")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def app_pid(self) -> int:
        """The app's process (the shell's child in the pane)."""
        shell = self.tmux("list-panes", "-t", "app", "-F", "#{pane_pid}").strip()
        children = (Path("/proc") / shell / "task" / shell / "children").read_text().split()
        assert len(children) == 1, children
        return int(children[0])

    def exit_status(self) -> int:
        self.wait(lambda _s: self.status_file.exists() and self.status_file.read_text().strip() != "", "exit")
        return int(self.status_file.read_text().strip())

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)
