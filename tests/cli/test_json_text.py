"""`cli.json_text.dumps_indented` writes exactly what `json.dumps(..., ensure_ascii=False, indent=2)` does."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.cli.json_text import dumps_indented

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and the infinities too
    st.text(),  # lone surrogates, control characters, CJK...
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=5), inner, max_size=4),
        st.dictionaries(st.integers(), inner, max_size=2),  # not a string key: left to `json.dumps`
    ),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(_VALUES)
def test_the_same_text_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, ensure_ascii=False, indent=2)


def test_a_value_json_cannot_write_fails_as_json_dumps_does() -> None:
    for value in ({"a": {1, 2}}, [object()]):
        try:
            json.dumps(value, ensure_ascii=False, indent=2)
        except TypeError as err:
            expected = str(err)
        try:
            dumps_indented(value)
        except TypeError as err:
            assert str(err) == expected
        else:
            raise AssertionError("no TypeError")
