"""A terminal escape an agent wrote into a memory file, or into its index line, is shown as `\\xNN`, never
sent to the terminal. Found in trial: an OSC in a file renamed the terminal window and a clear-screen wiped
the app; the index line's colour codes reached the preview's facts and the archive's preview raw."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Static
from tui_helpers import RecordingApp, settle

from pmem_tui.core import textio
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.widgets.preview import render_lines
from tests.escapes import RAW, escape_memory, escape_named_memory


@given(st.text())
def test_shown_text_holds_no_control_character_but_line_breaks_and_tabs(text: str) -> None:
    shown = textio.shown(text)
    assert RAW.search(shown.replace("\r\n", "\n")) is None
    surrogate = any("\ud800" <= ch <= "\udfff" for ch in text)  # (an undecodable byte: shown as U+FFFD)
    if RAW.search(text.replace("\r\n", "\n")) is None and not surrogate:
        assert shown == text  # nothing to show otherwise: the same text


def raw_in(widget_lines: list[str]) -> list[str]:
    return [line for line in widget_lines if RAW.search(line)]


async def test_the_preview_and_the_archive_preview_show_escapes_never_send_them(tmp_path: Path) -> None:
    root = escape_memory(tmp_path / "memory")
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        main = app.main_screen
        assert main is not None
        shown = [strip.text for strip in main.preview._lines]
        assert not raw_in(shown), raw_in(shown)
        text = " ".join(shown)
        assert "\\x1b]2;PWNED-TITLE\\x07" in text and "\\x1b[2J" in text and "\\x1b[31mRED" in text
        assert "\\x00" in text and "a\\x0dreturn" in text  # a CR alone; the CRLF line ends as a line does
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        await pilot.press(*"done", "enter")  # the reason, then the preview
        await settle(pilot)
        body = app.screen.query_one("#plan-preview", Static).content
        lines = ["".join(seg.text for seg in line) for line in render_lines(body, 110)]
        assert not raw_in(lines), raw_in(lines)
        assert "\\x1b[31mRED" in " ".join(lines)


def raw_on_screen(app: RecordingApp) -> list[str]:
    """The screen's lines (toasts included) that hold a raw control or bidi character."""
    svg = app.export_screenshot()
    return [line for line in svg.splitlines() if RAW.search(line) or BIDI.search(line)]


BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u2028\u2029]")


async def test_names_with_escapes_are_shown_on_every_screen(tmp_path: Path) -> None:
    """Found in a second trial: a file's NAME with an OSC reached the terminal raw in the search results,
    the health review (the line to add, the expired trash), the `!` toast and a plan's title."""
    root = escape_named_memory(tmp_path / "memory")
    app = RecordingApp(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert not raw_on_screen(app)
        await pilot.press("exclamation_mark")  # a toast names the FIFO, which has no row
        await settle(pilot)
        toasts = [n.message for n in app._notifications]  # (a screenshot leaves the toasts out)
        assert any("notes/fifo\\x1b[2J.md" in m for m in toasts) and not any(
            RAW.search(m.replace("\n", "")) for m in toasts
        )
        assert not raw_on_screen(app)
        await pilot.press("ctrl+f")
        await pilot.press(*"searchable")
        await settle(pilot)
        assert "PWNED-NAME" in app.export_screenshot()  # the result, its name escaped
        assert not raw_on_screen(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert "PWNED-NAME" in app.export_screenshot()  # its proposal: the line to add
        assert not raw_on_screen(app)


def test_lines_of_ends_a_line_only_at_a_line_feed() -> None:
    """Found in trial: diffs split a line at a lone CR, a form feed or U+2028 (`str.splitlines`), so an
    index line with one showed as two removed lines."""
    assert textio.lines_of("a\r\nb\rc\x0cd\u2028e\n") == ["a", "b\rc\x0cd\u2028e"]
    assert textio.lines_of("") == [] and textio.lines_of("x") == ["x"] and textio.lines_of("\n") == [""]
    assert textio.lines_of("x\r") == ["x\r"]  # a CR with no line feed after it is the line's (review)


@given(st.text())
def test_lines_of_joined_gives_the_text_back(text: str) -> None:
    if "\r" not in text:
        assert "".join(line + "\n" for line in textio.lines_of(text)) == text + (
            "" if text.endswith("\n") or not text else "\n"
        )
