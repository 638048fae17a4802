"""The health cache's codec: a record is the JSON list of its fields in order, and comes back equal."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import NamedTuple

import pytest

from pmem_tui.core.health import codec


@dataclass(frozen=True)
class One:
    day: dt.date


@dataclass(frozen=True, slots=True)
class Many:
    name: str
    count: int
    ones: tuple[One, ...]
    maybe: One | None
    pair: tuple[str, int]


class Row(NamedTuple):
    a: str
    b: Many


def test_records_are_lists_of_their_fields_in_order() -> None:
    one = One(dt.date(2026, 12, 3))
    many = Many("n", 2, (one, one), None, ("x", 1))
    assert json.loads(codec.dumps(one)) == ["2026-12-03"]  # one field: still a list
    assert json.loads(codec.dumps(many)) == ["n", 2, [["2026-12-03"], ["2026-12-03"]], None, ["x", 1]]
    assert json.loads(codec.dumps(Row("é", many)))[1][0] == "n"
    assert codec.dumps("é") == '"é"'.encode()  # UTF-8, not escaped


def test_what_dumps_writes_loads_gives_back() -> None:
    one = One(dt.date(2026, 1, 2))
    many = Many("name", 3, (one,), one, ("y", 2))
    assert codec.loads(Many, codec.dumps(many)) == many
    assert codec.loads(One, codec.dumps(one)) == one


def test_anything_else_is_refused() -> None:
    with pytest.raises(TypeError):
        codec.dumps(object())
    with pytest.raises(TypeError):
        codec.dumps(One)  # a class, not a record
