"""The one codec of the health cache: a dataclass (or named tuple) <-> a JSON list of its fields in order.

What is stored is what the dataclasses say: adding a field to one of them changes the cache with no code
here (bump `ENGINE` in `check.py` so old caches are ignored). Rows, not objects with keys: a report of
thousands of proposals is read on every warm run, and rows are the cheapest JSON to parse. Decoding
converts only what JSON cannot carry (dates, tuples, nested records); anything malformed raises `ValueError`
or `TypeError`, and the caller then ignores the cache. `health_cache` stores the bytes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import operator
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["decode", "dumps", "loads"]

T = TypeVar("T")
_Convert = Callable[[Any], Any]


def dumps(value: Any) -> bytes:
    """`value` as compact UTF-8 JSON: a record as the list of its fields, a date as its ISO text."""
    text = json.dumps(value, default=_default, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def loads(cls: type[T], data: bytes) -> T:
    """The `cls` record `dumps` wrote; `ValueError` or `TypeError` when it is not one."""
    return decode(cls, json.loads(data))


def _default(value: Any) -> Any:
    """What `json` cannot write itself (it writes a named tuple as a list already)."""
    cls: type = type(value)
    fields = _fields(cls)
    if fields is not None:
        return fields(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not stored in the health cache")


@functools.cache
def _fields(cls: type) -> Callable[[Any], tuple[Any, ...]] | None:
    """A dataclass's fields in order, as a tuple (which `json` writes as a list); None for other types."""
    if not dataclasses.is_dataclass(cls):
        return None
    names = _names(cls)
    if len(names) == 1:
        return lambda value: (getattr(value, names[0]),)
    return operator.attrgetter(*names)


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(cls._fields) if hasattr(cls, "_fields") else tuple(f.name for f in dataclasses.fields(cls))


def decode(cls: type[T], raw: Any) -> T:
    """The instance of `cls` that `dumps` wrote as a list (parsed by JSON)."""
    klass: type = cls
    result: T = _decoder(klass)(raw)
    return result


@functools.cache
def _decoder(cls: type) -> _Convert:
    """One function per record type, made once: a warm health run decodes thousands of proposals."""
    names = _names(cls)
    count = len(names)
    hints = typing.get_type_hints(cls)
    plan = tuple((i, c) for i, name in enumerate(names) if (c := _converter(hints[name])) is not None)

    def convert(raw: Any) -> Any:
        if not isinstance(raw, list) or len(raw) != count:
            raise TypeError(f"a {cls.__name__} is stored as the list of its fields")
        if plan:
            raw = raw.copy()
            for i, field in plan:
                raw[i] = field(raw[i])
        return cls(*raw)

    return convert


def _converter(tp: Any) -> _Convert | None:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        one = _converter(inner[0]) if len(inner) == 1 else None
        return None if one is None else (lambda raw: None if raw is None else one(raw))
    if origin is tuple:
        item = _converter(args[0]) if args else None
        return tuple if item is None else (lambda raw: tuple(map(item, raw)))
    if tp is dt.date:
        return dt.date.fromisoformat
    if isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "_fields")):
        return _decoder(tp)
    return None  # str, int, float, bool: as JSON gave them
