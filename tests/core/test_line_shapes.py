"""`line_shapes`: a line packed with its parts comes back byte for byte, and lines of one shape share it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pmem_tui.core import line_shapes

_part = st.one_of(st.none(), st.text(max_size=6), st.sampled_from(["a", "—", " ", "x.md", "\udc80"]))


@given(st.text(max_size=30), st.tuples(_part, _part, _part))
def test_unpack_gives_back_the_line(line: str, parts: tuple[str | None, ...]) -> None:
    assert line_shapes.unpack(line_shapes.pack(line, parts), parts) == line


def test_lines_of_one_shape_share_it() -> None:
    a = line_shapes.pack("- [A](projects/a.md) — one", ("A", "projects/a.md", "one"))
    b = line_shapes.pack("- [B](notes/b.md) — two", ("B", "notes/b.md", "two"))
    assert a == ("- [", "](", ") — ", "")
    assert a is b


def test_parts_not_in_the_line_keep_the_line_whole() -> None:
    line = r"- [a\]b](x.md)"
    assert line_shapes.pack(line, ("a]b", "x.md", None)) is line
