"""The CLI's standard streams as its environment left them: checked once, before a command does anything.

* Standard output closed (`>&-`), or open but not writable (a read-only descriptor, `/dev/full`): a command
  would print nothing (a script would read its exit 0 as success) or fail after it acted. `refusal` says so
  first, in one sentence, and the command does nothing, `--yes` included: an action whose outcome cannot be
  reported is not applied. Only `snapshot --quiet`, which prints nothing, runs without it.
* An encoding that cannot hold every character (`PYTHONIOENCODING=latin-1`, an ISO-8859 locale): the output
  is UTF-8 whatever the stream declares, as `health`, `search` and `loader` always wrote it (`use_utf8`);
  JSON is then written in ASCII, every other character as a `\\uXXXX` escape (`json_text`): the same data
  whichever of the two encodings its reader assumes.
* The app needs a terminal on standard input and error (Textual reads the first, draws on the last; an
  editor it opens also needs standard output, checked when it opens): `no_terminal` names the one that is
  not, before Textual starts.

Imports only `os` and `sys`: `status`'s quick path goes through here.
"""

from __future__ import annotations

import os
import sys

_ascii_json = False  # standard output declared an encoding other than UTF-8: JSON goes out in ASCII
_acted = False  # the command changed something: a failure to report it must not say "nothing was changed"


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
    """The first standard stream the app needs that is not a terminal ("standard input", ...), else None.
    Not standard output: the app draws on standard error (found in review: `pmem-tui > log` ran the app
    before, and was refused); the editor, which needs it, says so when it is asked for (`tui/editor.py`)."""
    for fd, name in ((0, "standard input"), (2, "standard error")):
        if not os.isatty(fd):  # a closed descriptor is not a terminal either
            return name
    return None
