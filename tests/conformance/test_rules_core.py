"""The layout and the core rules: PM-LAYOUT-1, PM-CORE-2, PM-CORE-3, PM-CORE-4, PM-CORE-7."""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.cli.parser import build_parser
from pmem_tui.cli.root import resolve_root
from pmem_tui.core import model, report, tree
from pmem_tui.core.doctor import plan_doctor
from pmem_tui.core.errors import UnsafePath
from pmem_tui.core.executor import apply
from pmem_tui.core.lifecycle import (
    plan_archive,
    plan_delete,
    plan_purge,
    plan_recover,
    plan_save,
    plan_upgrade,
)
from pmem_tui.core.plan import Plan
from pmem_tui.core.tokens import estimate_tokens
from tests.conftest import stock, tree_bytes, write

REPO = Path(__file__).resolve().parents[2]


# -- PM-LAYOUT-1 ---------------------------------------------------------------------------------------------


@pytest.mark.rule("PM-LAYOUT-1")
def test_the_default_root_is_the_spec_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PMEM_ROOT", raising=False)
    assert resolve_root(None) == tmp_path / ".persistent-memory"


@pytest.mark.rule("PM-LAYOUT-1", "PM-FIRST-1")
def test_the_first_save_creates_exactly_the_spec_layout(tmp_path: Path) -> None:
    root = tmp_path / ".persistent-memory"
    plan = plan_save(root, "notes/first.md", b"# First\n\nHello.\n")
    assert not root.exists()
    apply(plan, root)
    dirs = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir() and ".pmem" not in p.parts}
    files = set(tree_bytes(root))
    assert dirs == {"_core", "projects", "notes", "_archive", "_archive/_trash"}
    assert files == {"_index.md", "_archive/_index.md", "notes/first.md"}
    assert (model.CORE_DIR, model.INDEX_FILE, model.ARCHIVE_DIR, model.ARCHIVE_INDEX, model.TRASH_DIR) == (
        "_core",
        "_index.md",
        "_archive",
        "_archive/_index.md",
        "_archive/_trash",
    )
    assert model.ACTIVE_DIRS == ("projects", "notes")
    assert tree.scan(root).lifecycle_ready


# -- PM-CORE-2, PM-CORE-3: planners propose, only apply changes ----------------------------------------------


def _plans(root: Path) -> Iterator[tuple[str, Plan]]:
    yield "save new", plan_save(root, "notes/new.md", b"# New\n\nText.\n")
    yield "save update", plan_save(root, "notes/standup.md", b"# Standup\n\nSomething new.\n")
    yield "save core", plan_save(root, "_core/profile.md", b"# Profile\n\nI write Rust too.\n")
    yield "archive", plan_archive(root, "projects/alpha.md", "shipped")
    yield "delete", plan_delete(root, "projects/old.md")
    yield "recover", plan_recover(root, "projects/gone.md")
    yield "purge", plan_purge(root)


@pytest.mark.rule("PM-CORE-2", "PM-CORE-3", "PM-SAFE-6")
def test_every_planner_changes_nothing_until_its_plan_is_applied(memory: Path) -> None:
    stock(memory)
    before = tree_bytes(memory)
    for name, plan in _plans(memory):
        assert plan.ops, name
        pv = plan.preview
        assert pv.diffs or pv.moves or pv.removes or pv.creates, name  # there is something to confirm
        assert tree_bytes(memory) == before, f"planning '{name}' changed the memory"
    # Upgrade and doctor too (on a root that needs them).
    (memory / "_archive/_trash/projects/gone.md").unlink()
    (memory / "_archive/_trash/notes/expired.md").unlink()
    before = tree_bytes(memory)
    assert plan_doctor(memory) is not None and tree_bytes(memory) == before
    (memory / "_archive/_index.md").unlink()
    before = tree_bytes(memory)
    upgrade = plan_upgrade(memory)
    assert upgrade.preview.creates or upgrade.preview.diffs
    assert tree_bytes(memory) == before
    apply(upgrade, memory)
    assert "_archive/_index.md" in tree_bytes(memory)


@pytest.mark.rule("PM-CORE-2", "PM-CORE-3", "PM-SAFE-6")
def test_the_cli_changes_nothing_without_yes(
    memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "content.md"
    source.write_text("# Standup\n\nChanged.\n", encoding="utf-8")
    before = tree_bytes(memory)
    for argv in (
        ["save", "notes/standup.md", "--from", str(source)],
        ["archive", "projects/alpha.md", "--reason", "done"],
        ["upgrade"],
        ["purge"],
    ):
        assert main(["--root", str(memory), *argv]) == 0, argv
        assert tree_bytes(memory) == before, argv
    out = capsys.readouterr().out
    assert out.count("Preview only: nothing was changed.") == 2


# -- PM-CORE-4: _core/ small and protected -------------------------------------------------------------------


def _core_of(memory: Path, chars: int) -> None:
    for p in (memory / "_core").iterdir():
        p.unlink()
    write(memory, "_core/profile.md", "x" * chars)


@pytest.mark.rule("PM-CORE-4", "PM-LOAD-1")
def test_status_warns_when_core_grows_past_the_documented_size(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    limit = report.CORE_TOKEN_WARNING
    # The README documents the same size.
    assert f"when `_core/` passes {limit:,} tokens" in (REPO / "README.md").read_text(encoding="utf-8")
    _core_of(memory, limit * 4)  # exactly at the limit: fine
    base = report.baseline(tree.scan(memory))
    assert base.core_tokens == limit and not base.core_too_big and base.warning is None
    _core_of(memory, limit * 4 + 1)  # one character more: over it
    base = report.baseline(tree.scan(memory))
    assert base.core_tokens == limit + 1 and base.core_too_big
    assert base.warning is not None and str(limit + 1) in base.warning and str(limit) in base.warning
    assert f"Warning: {base.warning}" in report.status_lines(tree.scan(memory))
    assert main(["--root", str(memory), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"]["warning"] == base.warning
    assert data["baseline"]["core_tokens"] == limit + 1


@pytest.mark.rule("PM-CORE-4", "PM-LOAD-1")
def test_the_baseline_uses_the_loaders_estimate(memory: Path) -> None:
    """Same function and same decoding as the loader: a BOM is not text, bad bytes count as U+FFFD."""
    from pmem_tui.core.loader import load_permanent_memory

    body = "# Epics\n\n## Epic: E-1 — intent\nSummary line.\n" * 40
    (memory / "_core/preferences.md").unlink()
    write(memory, "_core/profile.md", b"\xef\xbb\xbf" + body.encode() + b"\xff\xfe")
    base = report.baseline(tree.scan(memory))
    data = (memory / "_core/profile.md").read_bytes()
    assert base.core_tokens == estimate_tokens(data.decode("utf-8-sig", errors="replace"))
    # The loader, given the same bytes, counts the file as the baseline does.
    project = memory.parent / "project"
    write(project, ".claude/memory/permanent_memory.md", data)
    result = load_permanent_memory(project)
    assert result.file is not None and result.file.bom and result.file.tokens == base.core_tokens


@pytest.mark.rule("PM-CORE-4", "PM-SAFE-5")
@pytest.mark.parametrize("action", ["archive", "delete", "recover"])
def test_core_files_are_protected_from_every_lifecycle_action(memory: Path, action: str) -> None:
    before = tree_bytes(memory)
    with pytest.raises(UnsafePath):
        if action == "archive":
            plan_archive(memory, "_core/profile.md", "no")
        elif action == "delete":
            plan_delete(memory, "_core/profile.md")
        else:
            plan_recover(memory, "_core/profile.md")
    assert tree_bytes(memory) == before


# -- PM-CORE-7: no promises ----------------------------------------------------------------------------------

# Phrases that promise what the spec says pmem-tui (and the skill) cannot: a sentence matching one of these,
# without a negation, is a promise. Each pattern has a promising sample and a truthful one below.
PROMISES: dict[str, tuple[str, ...]] = {
    "automatic activation": (
        r"\bauto(?:matic(?:ally)?|-)?\s*activat",
        r"\bactivat\w*\s+automatically",
        r"\balways\s+(?:be\s+)?(?:loaded|active|on)\b",
        r"\bevery\s+agent\s+(?:will\s+)?(?:loads?|reads?|sees?|knows?|remembers?)\b",
        r"\b(?:at|on)\s+every\s+(?:start|startup|session|launch|conversation|chat)\b",
        r"\bautomatically\s+(?:loads?|loaded|remembers?|injects?|reads?)\b",
    ),
    "cross-device sync": (
        r"\bcross[- ]device\b",
        r"\bsync\w*\b[^.]{0,40}\b(?:devices?|machines?|computers?|cloud|phones?)\b",
        r"\b(?:across|between)\s+(?:all\s+)?(?:your\s+)?(?:devices|machines|computers)\b",
    ),
    "full-chat import": (
        r"\bimport\w*\b[^.]{0,40}\b(?:chats?|conversations?|chat\s+history)\b",
        r"\b(?:full|entire|whole)[- ]chats?\b",
    ),
    "full-context loading": (
        r"\bfull[- ]context\b",
        r"\bload\w*\b[^.]{0,30}\b(?:everything|all\s+(?:of\s+)?(?:your\s+|the\s+)?"
        r"(?:memory|memories|files|notes|projects))\b",
        r"\bentire\s+memory\b",
    ),
}
_NEGATION = re.compile(
    r"\b(?:not|never|no|nor|without|cannot|can't|doesn't|don't|isn't|won't)\b", re.IGNORECASE
)
_SENTENCES = re.compile(r"(?<=[.!?;:])\s+|\n\s*\n|\n\s*(?:[-*•]|\d+\.)\s|\n(?=\s*[├└│])")


def promises(text: str) -> list[tuple[str, str]]:
    """(kind, sentence) for every sentence of `text` that promises what PM-CORE-7 forbids."""
    found = []
    for raw in _SENTENCES.split(text):
        sentence = " ".join(raw.split())
        if _NEGATION.search(sentence):
            continue
        for kind, patterns in PROMISES.items():
            if any(re.search(p, sentence, re.IGNORECASE) for p in patterns):
                found.append((kind, sentence))
    return found


def test_the_promise_detector_catches_promises_and_spares_truths() -> None:
    promising = [
        "Your memory activates automatically in every agent.",
        "Agents auto-activate the skill.",
        "_core/ always loaded by agents",
        "Baseline context: every agent loads it at every start.",
        "pmem-tui syncs your memory across devices.",
        "Cross-device memory for all your tools.",
        "Import your chat history in one click.",
        "Full-context loading of everything you saved.",
        "The agent loads all your memory files.",
    ]
    truthful = [
        "Persistent Memory does not import historical chats.",
        "No cross-device sync: the files live on this machine.",
        "An agent reads all of _core/ each time it loads memory.",
        "The view refreshes when files change; fsync of files and folders.",
        "The index lists one line per on-demand file.",
    ]
    assert [bool(promises(s)) for s in promising] == [True] * len(promising)
    assert [promises(s) for s in truthful] == [[]] * len(truthful)
    assert {k for s in promising for k, _ in promises(s)} == set(PROMISES)


def _help_texts() -> Iterator[str]:
    parser = build_parser()
    yield parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield sub.format_help()


def _string_constants(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.JoinedStr):
            yield "".join(str(v.value) if isinstance(v, ast.Constant) else "…" for v in node.values)


def _found_in(paths: list[Path]) -> list[str]:
    return [
        f"{p.relative_to(REPO)}: {kind}: {sentence}"
        for p in paths
        for text in _string_constants(p)
        for kind, sentence in promises(text)
    ]


@pytest.mark.rule("PM-CORE-7")
def test_the_cli_status_and_core_promise_nothing_the_spec_rules_out(memory: Path) -> None:
    found = [f"help: {k}: {s}" for text in _help_texts() for k, s in promises(text)]
    _core_of(memory, 20000)  # so the warning is part of the status text
    status = "\n".join(report.status_lines(tree.scan(memory)))
    assert "Warning:" in status
    found += [f"status: {k}: {s}" for k, s in promises(status)]
    sources = sorted((REPO / "pmem_tui").glob("*.py")) + sorted((REPO / "pmem_tui/core").glob("*.py"))
    found += _found_in(sources)
    assert found == []


@pytest.mark.rule("PM-CORE-7")
def test_the_readme_promises_nothing_the_spec_rules_out() -> None:
    assert promises((REPO / "README.md").read_text(encoding="utf-8")) == []


@pytest.mark.rule("PM-CORE-7")
def test_the_app_promises_nothing_the_spec_rules_out() -> None:
    assert _found_in(sorted((REPO / "pmem_tui/tui").rglob("*.py"))) == []
