"""The CLI's standard streams as its environment left them: checked once, before a command does anything.

* Standard output closed (`>&-`), or open but not writable (a read-only descriptor, `/dev/full`): a command
  would print nothing (a script would read its exit 0 as success) or fail after it acted. `refusal` says so
  first, in one sentence, and the command does nothing, `--yes` included: an action whose outcome cannot be
  reported is not applied. Only `snapshot --quiet`, which prints nothing, runs without it.
* An encoding that cannot hold every character (`PYTHONIOENCODING=latin-1`, an ISO-8859 locale): the output
  is UTF-8 whatever the stream declares, as `health`, `search` and `loader` always wrote it (`use_utf8`);
  JSON is then written in ASCII, every other character as a `\\uXXXX` escape (`json_text`): the same data
  whichever of the two encodings its reader assumes.
* The app reads its keys on standard input, which must be a terminal, and draws on a terminal
  (`app_terminal`): standard error, where Textual draws, else standard output, else `/dev/tty` (found in
  trial: `pmem-tui --demo 2>err.log`, the usual way to keep a traceback, was refused with exit 2 and a
  blank screen). `no_terminal` says why there is none, before Textual starts. An editor the app opens
  needs standard output, checked when it opens (`tui/editor.py`).

* Standard error closed (`2>&-`): `/dev/null` takes its place (`stderr_closed`), so a refusal, a note or a
  usage line goes nowhere and the exit code carries it, as with other Unix tools. Before, Python's `print`
  wrote them to standard output (inside the JSON a script reads, or a hook's loaded block), `search` failed
  on the missing stream, the app refused to start (a bad descriptor), and the first file a command opened
  would have taken descriptor 2.

* A reader that goes away (`pmem-tui changes | head -c 300`): what it did not read is dropped, the command
  finishes as it would have, and exits with its own code (`reader_may_leave`). Before, a command whose
  output went out in several writes exited 141 when the reader left between two of them, and 0 when it left
  after the last (found in trial: `changes --json | head -c 300` exited 141, `| head -1` 0); an action that
  was done and whose report was cut was indistinguishable from a failure, and a disk's error after its
  commit point (exit 3) went unsaid.

Imports only `os`, `sys` and two modules every interpreter has loaded before it runs (`io`, `stat`):
`status`'s quick path goes through here.
"""

from __future__ import annotations

import io
import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from _typeshed import ReadableBuffer

_ascii_json = False  # standard output declared an encoding other than UTF-8: JSON goes out in ASCII
_acted = False  # the command changed something: a failure to report it must not say "nothing was changed"


def stderr_closed() -> None:
    """Standard error was closed when the process started: `/dev/null` on descriptor 2, and `sys.stderr`
    (and `sys.__stderr__`, where Textual draws) writing to it. A descriptor 2 opened since is left alone."""
    if sys.stderr is not None:
        return
    try:
        os.fstat(2)
    except OSError:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != 2:
            os.dup2(null, 2)  # inherited: an editor's or a hook's standard error goes nowhere too
            os.close(null)
        fd = 2
    else:
        fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    stream = open(fd, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=fd != 2)  # noqa: SIM115
    sys.stderr = stream
    sys.__stderr__ = stream  # type: ignore[misc]  # Final in typeshed; set once, before anything reads it


def refusal(quiet: bool) -> str | None:
    """Why no command can run with standard output as it is (one sentence), else None. `quiet`: the command
    prints nothing (`snapshot --quiet`). Starts a command: nothing is changed yet (`acted`)."""
    global _acted, _ascii_json
    _acted = _ascii_json = False
    out = sys.stdout
    if out is None:
        return None if quiet else "standard output is closed; nothing was changed."
    try:
        fd = out.fileno()
    except (OSError, ValueError):  # not a file (a test's capture, a caller's StringIO): written as it is
        return None
    if quiet:
        return None
    try:
        os.write(fd, b"")  # nothing written; a descriptor not open for writing, or /dev/full, says so
    except OSError as err:
        import errno

        from pmem_tui.core.errors import describe_os_error

        why = "it is not open for writing" if err.errno == errno.EBADF else describe_os_error(err)
        return f"standard output cannot be written to ({why}); nothing was changed."
    return None


def reader_may_leave() -> None:
    """Standard output and standard error, when a pipe or a socket (whose reader can go away), drop what
    their reader did not stay for (`Dropping`) instead of failing the command; a file or a terminal is left
    as it is."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            fd = stream.fileno()
            mode = os.fstat(fd).st_mode
            buffer = stream.buffer
        except (AttributeError, OSError, ValueError):  # closed, or not a file (a test's capture)
            continue
        raw = getattr(buffer, "raw", buffer)  # standard error has no buffer: its writes go out at once
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)) or isinstance(raw, Dropping):
            continue
        stream.flush()
        _kept.append(stream)  # never collected: that would close the descriptor
        dropping = Dropping(fd)
        inner: Dropping | io.BufferedWriter = dropping if raw is buffer else io.BufferedWriter(dropping)
        wrapped = io.TextIOWrapper(
            inner,  # type: ignore[type-var]  # either is a binary stream TextIOWrapper takes
            encoding=stream.encoding,
            errors=stream.errors,
            line_buffering=stream.line_buffering,
            write_through=stream.write_through,
        )
        setattr(sys, name, wrapped)


_kept: list[object] = []


class Dropping(io.RawIOBase):
    """The raw writer under a pipe's stream: its writes go through until the reader has gone (`EPIPE`); then
    `/dev/null` takes the descriptor (an editor or a hook started later writes nowhere too), and every
    write since is dropped. The descriptor is not its to close."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data: ReadableBuffer) -> int:
        """All of `data`, or what is left of it dropped: standard error's text layer writes straight here
        and would lose what a short write (a signal during a pipe write) left (found in review)."""
        view = memoryview(data).cast("B")
        done = 0
        try:
            while done < len(view):
                done += os.write(self._fd, view[done:])
        except BrokenPipeError:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._fd)
            os.close(null)
        return len(view)


def acted() -> None:
    """The command has changed something (an action applied, a history rewrite): from now on, a failure to
    write its report is said as such (`cli.main`), never as "nothing was changed"."""
    global _acted
    _acted = True


def has_acted() -> bool:
    return _acted


def use_utf8() -> None:
    """Make standard output UTF-8 if it declares another encoding (`PYTHONIOENCODING=latin-1`), and write JSON
    in ASCII from then on; its error handler is kept."""
    global _ascii_json
    out = sys.stdout
    encoding = getattr(out, "encoding", None)
    reconfigure = getattr(out, "reconfigure", None)
    if not encoding or reconfigure is None:
        return
    import codecs

    try:
        if codecs.lookup(encoding).name == "utf-8":
            return
    except LookupError:
        pass
    out.flush()
    reconfigure(encoding="utf-8", errors=getattr(out, "errors", None) or "strict")
    _ascii_json = True


def ascii_json() -> bool:
    """JSON is written in ASCII (standard output declared an encoding other than UTF-8)."""
    return _ascii_json


def json_text(text: str) -> str:
    """JSON text as written to standard output: as it is, or in ASCII (`use_utf8`)."""
    if not _ascii_json or text.isascii():
        return text
    return "".join(ch if ch < "\x80" else _escape(ch) for ch in text)


def json_bytes(data: bytes) -> bytes:
    """UTF-8 JSON as written to standard output: as it is, or in ASCII (`use_utf8`)."""
    if not _ascii_json or data.isascii():
        return data
    return json_text(data.decode("utf-8", "surrogatepass")).encode("ascii")


def _escape(ch: str) -> str:
    """`ch` as JSON escapes it with `ensure_ascii` (outside ASCII, only inside strings: JSON's own syntax is
    ASCII): `\\uXXXX`, a surrogate pair above U+FFFF."""
    code = ord(ch)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def no_terminal() -> str | None:
    """Why the app cannot run here (the end of "…needs a terminal, and …"), else None."""
    if not os.isatty(0):  # a closed descriptor is not a terminal either
        return "standard input is not one"
    drawn = _drawing_fd()
    if drawn is None:
        return "neither standard error nor standard output is one, and there is no /dev/tty"
    if drawn[1]:
        os.close(drawn[0])
    return None


def app_terminal() -> Callable[[], None]:
    """Make standard error the terminal the app draws on, when it is redirected (`2>err.log`): standard
    output if that is a terminal, else `/dev/tty`. Returns what gives standard error back once the app has
    ended (a crash's traceback, which Textual prints when it ends, is then on the screen, not in the file)."""
    drawn = None if os.isatty(2) else _drawing_fd()
    if drawn is None:
        return lambda: None
    fd, opened = drawn
    if sys.stderr is not None:
        sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(fd, 2)
    if opened:
        os.close(fd)

    def give_back() -> None:
        if sys.stderr is not None:
            sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)

    return give_back


def _drawing_fd() -> tuple[int, bool] | None:
    """A terminal to draw on: standard error, standard output, or `/dev/tty` opened (then True)."""
    for fd in (2, 1):
        if os.isatty(fd):
            return fd, False
    try:
        return os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC), True
    except OSError:  # no controlling terminal (cron, a service, `setsid`)
        return None
