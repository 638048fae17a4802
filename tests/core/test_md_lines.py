"""`md_lines`: the one Markdown line classifier and its fence / comment tracking."""

from __future__ import annotations

from pmem_tui.core.md_lines import (
    Blocks,
    Kind,
    Line,
    atx,
    classify,
    commonmark_closes,
    commonmark_opens,
    fence_closes,
    fence_opens,
)


def test_classify() -> None:
    assert classify("") == Line(Kind.BLANK)
    assert classify(" \t") == Line(Kind.BLANK)
    assert classify("  ```py") == Line(Kind.FENCE)
    assert classify("## Title ##") == Line(Kind.HEADING, level=2, text="Title")
    assert classify("#Title") == Line(Kind.TEXT)
    assert classify("  1. first") == Line(Kind.ITEM, marker="1.", text="first")
    assert classify("-") == Line(Kind.ITEM, marker="-")  # an empty item
    assert classify("> quoted") == Line(Kind.QUOTE, text="quoted")
    assert classify("<!-- x -->") == Line(Kind.COMMENT)
    assert classify("plain") == Line(Kind.TEXT)


def test_atx_drops_only_a_closing_run_after_a_space() -> None:
    assert atx("### C# ##") == (3, "C#")
    assert atx("# a#") == (1, "a#")
    assert atx("    # code") is None


def test_fence_rules_loose_and_commonmark() -> None:
    assert fence_opens("\t\t~~~~ info") == "~~~~"
    assert fence_opens("```x```") is None  # inline code
    assert fence_closes("  ~~~~~  ", "~~~~") and not fence_closes("~~~", "~~~~")
    assert not fence_closes("```", "~~~")
    assert commonmark_opens("    ```") is None  # four spaces: indented code, not a fence
    assert commonmark_opens("   ```py") == "```"
    assert commonmark_closes("``` \t", "```") and not commonmark_closes("``` x", "```")


def test_blocks_know_fences_and_comments() -> None:
    lines = ["# H", "```", "# not a heading", "```", "<!--", "- not an item", "-->", "- item", "```x```"]
    blocks = Blocks(comments=True)
    assert [blocks.hidden(x) for x in lines] == [False, True, True, True, True, True, True, False, False]
    assert [Blocks().hidden(x) for x in ["<!--", "- item"]] == [False, False]  # comments not tracked
    open_fence = Blocks()
    assert [open_fence.hidden(x) for x in ["~~~~", "~~~"]] == [True, True] and open_fence.fence == "~~~~"
