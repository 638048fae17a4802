"""Counts said in words, through the one plural (`core/words.py`): '1 file is', '3 files are', never
'file(s)', in core's sentences, the CLI's and the app's."""

from __future__ import annotations

import ast
import datetime as dt
import re
from pathlib import Path

import pytest

from pmem_tui.core import loader_parse
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.executor import apply
from pmem_tui.core.lifecycle import plan_archive, plan_delete, plan_purge
from pmem_tui.core.sweep import OLD_CACHE_DIR, old_caches
from pmem_tui.core.words import plural
from tests.conftest import write

PACKAGE = Path(__file__).parents[2] / "pmem_tui"


def test_plural_is_singular_for_one_only() -> None:
    assert plural(1, "file") == "1 file"
    assert plural(0, "file") == "0 files"
    assert plural(2, "file") == "2 files"
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"
    assert plural(2, "expired trash item") == "2 expired trash items"


def _strings(tree: ast.AST) -> list[ast.Constant]:
    """The string literals of a module (f-strings' literal parts included), its docstrings left out."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_no_sentence_says_a_count_with_s_in_brackets() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{s.lineno}: {s.value!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for s in _strings(ast.parse(path.read_text(encoding="utf-8")))
        if re.search(r"[a-z]\(s\)", s.value)
    ]
    assert found == []


@pytest.mark.rule("PM-DEL-5")
def test_the_purge_preview_agrees_with_its_count(memory: Path, today: dt.date) -> None:
    for rel in ("projects/alpha.md", "notes/standup.md"):
        apply(plan_archive(memory, rel, "x"), memory)
    apply(plan_delete(memory, "projects/alpha.md", today=today - dt.timedelta(days=31)), memory)
    one = plan_purge(memory)
    assert one.title == "Purge 1 expired trash item" and one.outcome == "Purged 1 expired trash item."
    assert one.preview.recovery == "1 file is removed for good: it cannot be recovered afterwards."
    apply(plan_delete(memory, "notes/standup.md", today=today - dt.timedelta(days=40)), memory)
    two = plan_purge(memory)
    assert two.title == "Purge 2 expired trash items" and two.outcome == "Purged 2 expired trash items."
    assert two.preview.recovery == "2 files are removed for good: they cannot be recovered afterwards."


@pytest.mark.rule("PL-15")
def test_an_unclosed_fence_counts_the_headings_it_hides() -> None:
    head = ["## Epic: F-1 — a", "Summary.", "```"]
    one = loader_parse.parse_epics([*head, "## Epic: F-2 — in code"]).warnings
    assert one == ("line 3: a code block is never closed; the 1 '## ' heading after it is read as code",)
    two = loader_parse.parse_epics([*head, "## Epic: F-2 — in code", "## Epic: F-3 — too"]).warnings
    assert two == ("line 3: a code block is never closed; the 2 '## ' headings after it are read as code",)


def test_the_old_caches_and_the_doctor_count_their_files(memory: Path) -> None:
    write(memory, f"{OLD_CACHE_DIR}/scan-v3.bin", b"\x00cached")
    write(memory, f"{OLD_CACHE_DIR}/notes-by-someone.md", "mine\n")
    assert old_caches(memory)[1][0].startswith(f"Remove 1 file of {OLD_CACHE_DIR}/: ")
    assert plan_doctor(memory).outcome == "Doctor made 1 repair."
    write(memory, f"{OLD_CACHE_DIR}/health-v1.bin", b"\x00cached")
    assert old_caches(memory)[1][0].startswith(f"Remove 2 files of {OLD_CACHE_DIR}/: ")
    assert plan_doctor(memory).outcome == "Doctor made 2 repairs."
