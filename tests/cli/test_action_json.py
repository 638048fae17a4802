"""`--json` on every action: the preview as data, and what applying it did; the same tree changes as text."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pmem_tui.cli import lifecycle as cli_lifecycle
from pmem_tui.cli import main
from pmem_tui.core.plan import Preview
from tests.conftest import stock, tree_bytes, write

PLAN_KEYS = {
    "action", "title", "items", "empty", "creates", "moves", "removes_dirs", "removes", "index_removed",
    "index_added", "record_changes", "notes", "recovery", "meta_creates", "diffs", "preview",
    "applied", "outcome", "warning", "history",
}  # fmt: skip


def test_every_preview_field_is_in_the_json() -> None:
    """Found in review: a field added to `Preview` (the folders an undo removes) was missing from it."""
    assert {f.name for f in dataclasses.fields(Preview)} <= PLAN_KEYS


def run_json(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> dict[str, object]:
    code = main(["--root", str(root), *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def run_text(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> str:
    assert main(["--root", str(root), *argv]) == 0
    return capsys.readouterr().out


ACTIONS = [
    ("archive", ["archive", "notes/standup.md", "--reason", "done"]),
    ("upgrade", ["upgrade"]),
    ("delete", ["delete", "projects/old.md"]),
    ("recover", ["recover", "projects/old.md"]),
    ("purge", ["purge"]),
    ("save", ["save", "notes/new.md", "--from", "SOURCE"]),
]


@pytest.mark.rule("PM-SAFE-6")
@pytest.mark.parametrize(("action", "argv"), ACTIONS, ids=[a for a, _ in ACTIONS])
def test_every_action_previews_and_applies_as_json(
    capsys: pytest.CaptureFixture[str], memory: Path, tmp_path: Path, action: str, argv: list[str]
) -> None:
    stock(memory)
    if action == "upgrade":  # something to upgrade: the archive index goes
        (memory / "_archive/_index.md").unlink()
    source = tmp_path / "source.md"
    source.write_text("# New\n\nA new note.\n")
    argv = [str(source) if word == "SOURCE" else word for word in argv]
    twin = tmp_path / "twin"  # the same memory, acted on through the text output
    twin.mkdir()
    for rel, data in tree_bytes(memory).items():
        write(twin, rel, data.decode("utf-8", "surrogateescape"))
    before = tree_bytes(memory)
    preview = run_json(capsys, memory, *argv)
    assert tree_bytes(memory) == before  # a preview changes nothing
    assert set(preview) == PLAN_KEYS and preview["action"] == action
    assert preview["applied"] is False and preview["empty"] is False and preview["outcome"] is None
    text = run_text(capsys, twin, *argv)
    assert preview["preview"] == text.split("\n\nPreview only")[0].splitlines()
    done = run_json(capsys, memory, *argv, "--yes")
    assert done["applied"] is True and done["warning"] is None
    assert done["outcome"] == run_text(capsys, twin, *argv, "--yes").strip()
    assert {k: v for k, v in tree_bytes(memory).items() if ".pmem" not in k} == {
        k: v for k, v in tree_bytes(twin).items() if ".pmem" not in k
    }


def test_the_preview_as_data_names_each_part(capsys: pytest.CaptureFixture[str], memory: Path) -> None:
    data = run_json(capsys, memory, "archive", "notes/standup.md", "--reason", "done")
    assert data["items"] == ["notes/standup.md"]
    assert data["moves"] == [{"from": "notes/standup.md", "to": "_archive/notes/standup.md"}]
    assert data["creates"] == ["_archive/notes"]
    assert data["index_removed"] == ["- notes/standup.md — daily standup notes"]
    assert data["record_changes"] and "reason: done" in str(data["record_changes"])
    diffs = data["diffs"]
    assert isinstance(diffs, list) and {d["path"] for d in diffs} == {"_index.md", "_archive/_index.md"}
    assert "-- notes/standup.md — daily standup notes" in next(
        d["unified"] for d in diffs if d["path"] == "_index.md"
    )


def test_nothing_to_do_and_a_delete_of_an_active_file(
    capsys: pytest.CaptureFixture[str], memory: Path
) -> None:
    before = tree_bytes(memory)
    data = run_json(capsys, memory, "purge", "--yes")
    assert data["empty"] is True and data["applied"] is False
    assert data["outcome"] == "No expired trash to purge."
    doctor = run_json(capsys, memory, "doctor")
    assert doctor["empty"] is True and doctor["history_store"] is None
    # delete on an active file: the archive preview instead, and why, as the text output says.
    offer = run_json(capsys, memory, "delete", "notes/standup.md")
    assert offer["action"] == "archive" and offer["applied"] is False
    assert str(offer["instead"]).startswith(
        "notes/standup.md is active: only an archived file can be deleted"
    )
    assert tree_bytes(memory) == before


def test_a_refusal_is_one_sentence_on_stderr_not_json(
    capsys: pytest.CaptureFixture[str], memory: Path
) -> None:
    before = tree_bytes(memory)
    assert main(["--root", str(memory), "archive", "notes/none.md", "--reason", "x", "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pmem-tui: ") and err.count("\n") == 1
    assert tree_bytes(memory) == before


def test_undecodable_bytes_are_u_fffd_and_the_output_is_utf_8(
    capsys: pytest.CaptureFixture[str], memory: Path
) -> None:
    """Found in review: an index line with a Latin-1 byte reached stdout raw, so the JSON was not UTF-8."""
    with (memory / "_index.md").open("ab") as agent:
        agent.write(b"- notes/caf\xe9.md - caf\xe9 line\n")
    capsys.readouterr()
    assert main(["--root", str(memory), "archive", "notes/standup.md", "--reason", "r", "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out.encode("utf-8", "strict"))  # no lone surrogate: encodable as UTF-8
    diff = next(d["unified"] for d in data["diffs"] if d["path"] == "_index.md")
    assert " - notes/caf\ufffd.md - caf\ufffd line" in diff


def test_doctors_history_store_is_checked_after_its_plan(
    capsys: pytest.CaptureFixture[str], memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: with --json the store was repaired before the plan was applied (the text output
    does it after, and not when the plan is refused)."""
    calls: list[str] = []
    monkeypatch.setattr(cli_lifecycle, "_history_doctor", lambda _root, _yes: calls.append("store") or None)
    from pmem_tui.core import report

    monkeypatch.setattr(report, "plan_dict", lambda plan: calls.append("plan") or {"action": plan.action})
    assert main(["--root", str(memory), "doctor", "--json", "--yes"]) == 0
    assert calls == ["plan", "store"] and json.loads(capsys.readouterr().out)["history_store"] is None
