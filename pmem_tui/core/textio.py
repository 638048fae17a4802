"""Text that keeps its bytes: decoding, encoding and line splitting for memory files.

Memory files are read as UTF-8 with ``errors="surrogateescape"``: bytes that are not valid UTF-8 become lone
surrogates (U+DC80..U+DCFF) and turn back into the very same bytes on encoding, so
``encode(decode(data)) == data`` for any ``data``. A byte-order mark stays in the text as U+FEFF.

Only ``\\n`` and ``\\r\\n`` end a line. ``str.splitlines`` also splits on ``\\r``, ``\\x0b``, ``\\x0c``,
``\\x1c``..``\\x1e``, ``\\x85``, U+2028 and U+2029; Markdown does not, and neither do we.
"""

from __future__ import annotations

import re

BOM = "\ufeff"
_SURROGATES = re.compile("[\ud800-\udfff]")
_ESCAPABLE = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # surrogates that surrogateescape cannot encode


def decode(data: bytes) -> str:
    """Decode UTF-8 without losing a byte: invalid bytes become lone surrogates."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    """Encode text made by `decode` back to exactly the bytes it came from.

    A lone surrogate that `decode` can never produce (outside U+DC80..U+DCFF, e.g. from pasted text) cannot be
    written as UTF-8; it is written as U+FFFD instead of failing.
    """
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return _ESCAPABLE.sub("\ufffd", text).encode("utf-8", errors="surrogateescape")


def display(text: str) -> str:
    """The text for showing: every undecodable byte (a lone surrogate) becomes U+FFFD."""
    return _SURROGATES.sub("\ufffd", text)


# Control characters, and the format characters that reorder or break a line on a terminal: the bidi
# embeddings, overrides and isolates, and the line and paragraph separators (U+2028, U+2029).
_FORMAT = r"\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029"  # DEL, C1, bidi, line separators
_CONTROL = re.compile(rf"[\x00-\x08\x0a-\x1f{_FORMAT}]")


def printable(text: str) -> str:
    """`display`, and control characters shown as `\\xNN` (bidi overrides and line separators as `\\uNNNN`),
    never sent raw: terminal escapes, and line breaks (a file name may hold one; a line of output or a row
    must stay one line). For one-line texts."""
    return _CONTROL.sub(_escaped, display(text))


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# Control characters but for a line break and a tab (a CR only before its LF: a CRLF file's lines).
_CONTROL_IN_TEXT = re.compile(rf"[\x00-\x08\x0b\x0c\x0e-\x1f{_FORMAT}]|\r(?!\n)")


def controls_as_spaces(text: str) -> str:
    """`text` with each character `printable` would escape, and each tab, made a space: for a line that
    will be written (a proposed index line), where `\\xNN` would be wrong too."""
    return _CONTROL.sub(" ", text).replace("\t", " ")


def has_control(text: str) -> bool:
    """Whether `text` holds a character `printable` shows escaped (a line break included, not a tab)."""
    return _CONTROL.search(text) is not None


def shown(text: str) -> str:
    """`printable` for a text of many lines (a file's body, a note): its line breaks and tabs are kept.
    A terminal escape an agent wrote into a memory file is shown, never sent to the terminal."""
    text = display(text)
    if _CONTROL_IN_TEXT.search(text) is None:  # the usual case: no new string
        return text
    return _CONTROL_IN_TEXT.sub(_escaped, text)


def is_valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def lines_of(text: str) -> list[str]:
    """The lines of `text` without their endings, for a diff: only ``\\n`` (or ``\\r\\n``) ends a line, as
    everywhere else here (``str.splitlines`` also breaks at a lone CR, a form feed, U+2028...)."""
    lines = text.split("\n")
    last = lines.pop()  # what follows the last line feed: "" or a line without an ending (its CR kept)
    ended = [line[:-1] if line.endswith("\r") else line for line in lines]
    return [*ended, last] if last else ended


def split_lines(text: str) -> list[str]:
    """Split after every ``\\n``, keeping each line's ending (``\\n`` or ``\\r\\n``).

    ``"".join(split_lines(t)) == t`` always. The last line has no ending when the text does not end with
    ``\\n``. The empty text has no lines.
    """
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def line_bodies(text: str) -> list[str]:
    """`[strip_ending(line) for line in split_lines(text)]`, without a Python call per line."""
    bodies = text.split("\n")
    if not bodies[-1]:
        bodies.pop()  # the text ends with a line ending (or is empty): no unterminated last line
        last = None
    else:
        last = bodies.pop()  # unterminated: a final lone "\r" is content and stays
    if "\r" in text:
        bodies = [b[:-1] if b.endswith("\r") else b for b in bodies]
    if last is not None:
        bodies.append(last)
    return bodies


def line_ending(line: str) -> str:
    """The ending of one line from `split_lines`: ``"\\r\\n"``, ``"\\n"`` or ``""``."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def strip_ending(line: str) -> str:
    """The line without its ending (a lone ``\\r`` that does not precede ``\\n`` is content and stays)."""
    return line[: len(line) - len(line_ending(line))]


def dominant_eol(text: str) -> str:
    """``"\\r\\n"`` if most line endings are CRLF, else ``"\\n"`` (also for a tie or no endings at all)."""
    total = text.count("\n")
    crlf = text.count("\r\n")
    return "\r\n" if crlf > total - crlf else "\n"


def split_bom(text: str) -> tuple[str, str]:
    """``(bom, rest)``: the byte-order mark belongs to the file, not to its first line."""
    if text.startswith(BOM):
        return BOM, text[len(BOM) :]
    return "", text


def code_span(content: str) -> str:
    """Markdown inline code that CommonMark reads back as exactly `content` (one line, not empty).

    The fence is one backtick longer than the longest backtick run inside. One space of padding goes on each
    side when the content starts or ends with a backtick, or starts and ends with a space without being all
    spaces (CommonMark strips exactly one space from each side in that case, and only then).
    """
    if not content or "\n" in content:
        raise ValueError("a code span holds one non-empty line")
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    stripped_by_reader = content[0] == " " and content[-1] == " " and content.strip(" ") != ""
    pad = " " if content[0] == "`" or content[-1] == "`" or stripped_by_reader else ""
    return f"{fence}{pad}{content}{pad}{fence}"


def read_code_span(s: str) -> tuple[str, str] | None:
    """If `s` starts with inline code: ``(content, rest)``, the content read as CommonMark does; else None."""
    n = len(s) - len(s.lstrip("`"))
    if n == 0:
        return None
    i = n
    while True:
        j = s.find("`" * n, i)
        if j < 0:
            return None
        k = j
        while k < len(s) and s[k] == "`":
            k += 1
        if k - j == n:
            content = s[n:j]
            if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
                content = content[1:-1]
            return content, s[k:]
        i = k
