"""`json.dumps(value, ensure_ascii=False, indent=2)`, the same text, several times faster.

With `indent`, `json` gives up its C encoder for a pure-Python one that walks the value through nested
generators: most of a warm `health --json` at 10,000 files (3,500 proposals). This writes the same text
with one recursive function, and the C encoder's own string escaping (`json.encoder.encode_basestring`).
Only what the CLI's outputs hold (dicts with string keys, lists, tuples, strings, ints, floats, booleans,
None); anything else goes to `json.dumps` itself. Tested against `json.dumps` on arbitrary values.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["dumps_indented"]


class _Other(Exception):
    """A value this writer leaves to `json.dumps`."""


def dumps_indented(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2)`."""
    out: list[str] = []
    try:
        _write(value, "\n", out)
    except _Other:
        return json.dumps(value, ensure_ascii=False, indent=2)
    return "".join(out)


_INF = float("inf")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INF or value == -_INF:
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _write(value: Any, newline: str, out: list[str]) -> None:
    """Append `value`'s text; `newline` is a line break and the indentation of the line `value` is on."""
    kind = type(value)
    if kind is str:
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float:
        out.append(_float(value))
    elif kind is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        sep = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Other
            out.append(sep)
            out.append(encode_basestring(key))
            out.append(": ")
            if type(item) is str:  # most values: written here, not through another call
                out.append(encode_basestring(item))
            else:
                _write(item, inner, out)
            sep = "," + inner
        out.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        sep = "[" + inner
        for item in value:
            out.append(sep)
            if type(item) is str:
                out.append(encode_basestring(item))
            else:
                _write(item, inner, out)
            sep = "," + inner
        out.append(newline + "]")
    else:
        raise _Other
