"""Issue 16's commands: history, history show|diff|forget|prune, restore, changes, snapshot (JSON shapes, exit
codes, bad input: one sentence, the tree unchanged)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core.history import names
from tests.conftest import tree_bytes, write

VERSION_KEYS = {"id", "time", "path", "kind", "origin", "bytes", "sha256"}


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["--root", str(root), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> dict[str, object]:
    code, out, err = cli(capsys, root, *argv, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def versions(capsys: pytest.CaptureFixture[str], root: Path, path: str) -> list[dict[str, object]]:
    found = as_json(capsys, root, "history", path)["versions"]
    assert isinstance(found, list)
    return found


def test_snapshot_is_idempotent_and_quiet(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, memory, "snapshot")
    assert code == 0 and out.startswith("Recorded ")
    assert (memory / names.HISTORY_DIR / "HEAD").is_file()
    assert cli(capsys, memory, "snapshot") == (0, "Nothing changed since the last record.\n", "")
    assert cli(capsys, memory, "snapshot", "--quiet") == (0, "", "")
    assert as_json(capsys, memory, "snapshot") == {"recorded": None}
    write(memory, "notes/standup.md", "# Standup\n\nAn agent wrote this.\n")
    recorded = as_json(capsys, memory, "snapshot")["recorded"]
    assert isinstance(recorded, str) and len(recorded) == 40


def test_snapshot_refuses_a_missing_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, tmp_path / "nope", "snapshot")
    assert code == 1 and err.count("\n") == 1 and "nothing was recorded" in err
    assert not (tmp_path / "nope").exists()


def test_history_json_shape_newest_first(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, memory, "snapshot")
    write(memory, "notes/standup.md", "# Standup\n\nTwo.\n")
    cli(capsys, memory, "archive", "notes/standup.md", "--reason", "done", "--yes")
    found = versions(capsys, memory, "notes/standup.md")
    assert [v["kind"] for v in found] == ["moved", "modified", "added"]
    assert [v["origin"] for v in found] == ["archive", names.SEEN_ON_DISK, names.SEEN_ON_DISK]
    assert all(set(v) == VERSION_KEYS for v in found)
    assert found[0]["path"] == "_archive/notes/standup.md"
    every = as_json(capsys, memory, "history")["versions"]
    assert isinstance(every, list) and len(every) > len(found)
    code, out, _ = cli(capsys, memory, "history", "notes/standup.md")
    assert code == 0 and len(out.splitlines()) == 3 and "(archive)" in out.splitlines()[0]


def test_history_show_prints_the_exact_bytes(memory: Path) -> None:
    data = b"# Odd\r\n\r\nbytes \xff\xfe and no final newline"
    write(memory, "notes/odd.md", data)
    env = {**os.environ}
    run = [sys.executable, "-m", "pmem_tui", "--root", str(memory)]
    subprocess.run([*run, "snapshot", "--quiet"], check=True, env=env)
    listing = subprocess.run([*run, "history", "notes/odd.md", "--json"], capture_output=True, check=True)
    version = json.loads(listing.stdout)["versions"][0]["id"]
    shown = subprocess.run(
        [*run, "history", "show", version[:10], "notes/odd.md"], capture_output=True, check=True
    )
    assert shown.stdout == data


def test_history_diff(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, memory, "snapshot")
    write(memory, "notes/standup.md", "# Standup\n\nChanged.\n")
    cli(capsys, memory, "snapshot")
    code, out, _ = cli(capsys, memory, "history", "diff", "notes/standup.md")
    assert code == 0 and "-Nothing new.\n+Changed.\n" in out and out.startswith("--- a/notes/standup.md@")
    data = as_json(capsys, memory, "history", "diff", "notes/standup.md")
    assert set(data) == {"path", "diff"} and "+Changed." in str(data["diff"])
    old = versions(capsys, memory, "notes/standup.md")[-1]["id"]
    code, out, _ = cli(
        capsys, memory, "history", "diff", "notes/standup.md", "--from", str(old), "--to", str(old)
    )
    assert code == 0 and out == ""


def test_history_diff_first_records_what_an_agent_just_wrote(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, memory, "snapshot")
    write(memory, "notes/standup.md", "# Standup\n\nAn agent's edit, not yet recorded.\n")
    code, out, _ = cli(capsys, memory, "history", "diff", "notes/standup.md")
    assert code == 0 and "-Nothing new.\n+An agent's edit, not yet recorded.\n" in out
    assert versions(capsys, memory, "notes/standup.md")[0]["origin"] == names.SEEN_ON_DISK


def test_restore_previews_then_applies(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, memory, "snapshot")
    write(memory, "notes/standup.md", "# Standup\n\nOverwritten by an agent.\n")
    old = str(versions(capsys, memory, "notes/standup.md")[-1]["id"])
    before = tree_bytes(memory)
    code, out, _ = cli(capsys, memory, "restore", "notes/standup.md", "--version", old[:8])
    assert code == 0 and "Preview only" in out and "+Nothing new." in out
    assert tree_bytes(memory) == before
    data = as_json(capsys, memory, "restore", "notes/standup.md", "--version", old)
    assert {"action", "title", "applied", "outcome", "history", "preview"} <= set(data) and not data[
        "applied"
    ]
    code, out, err = cli(capsys, memory, "restore", "notes/standup.md", "--version", old, "--yes")
    assert code == 0 and err == "" and "Restored notes/standup.md to version" in out
    assert (memory / "notes/standup.md").read_text() == "# Standup\n\nNothing new.\n"
    assert versions(capsys, memory, "notes/standup.md")[0]["origin"] == "restore"


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["restore", "notes/standup.md", "--version", "0123456789"], 1),
        (["restore", "notes/standup.md", "--version", "not-hex"], 1),
        (["restore", "../outside.md", "--version", "abcd"], 1),
        (["history", "show", "zz", "notes/standup.md"], 1),
        (["history", "show", "abcd"], 2),
        (["history", "../../etc/passwd.md"], 1),
        (["history", "notes/a.md", "notes/b.md"], 2),
        (["history", "diff", "notes/none.md"], 1),
        (["history", "forget", "notes/standup.md"], 2),
        (["history", "forget", "notes/standup.md", "--version", "ffff"], 1),
        (["history", "prune"], 2),
        (["history", "prune", "--older-than", "0"], 2),
    ],
)
def test_bad_input_is_one_sentence_and_changes_nothing(
    memory: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int
) -> None:
    cli(capsys, memory, "snapshot")
    before = tree_bytes(memory)
    head = (memory / names.HISTORY_DIR / names.MAIN_REF).read_bytes()
    with pytest.raises(SystemExit) if code == 2 and argv[-1] == "0" else _nothing():
        got, out, err = cli(capsys, memory, *argv)
        assert (got, out) == (code, "")
        assert err.startswith("pmem-tui: ") and err.count("\n") == 1 and "Traceback" not in err
    assert tree_bytes(memory) == before
    assert (memory / names.HISTORY_DIR / names.MAIN_REF).read_bytes() == head


def test_a_wrong_number_of_arguments_is_counted_in_words(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, _out, one = cli(capsys, memory, "history", "show", "abcd")
    assert one.endswith("expected VERSION PATH, got 1 argument.\n")
    _code, _out, two = cli(capsys, memory, "history", "diff", "notes/a.md", "notes/b.md")
    assert two.endswith("expected PATH, got 2 arguments.\n")


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_changes_and_mark_reviewed(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, memory, "snapshot")
    assert as_json(capsys, memory, "changes", "--mark-reviewed")["reviewed"]
    assert cli(capsys, memory, "changes") == (0, "Nothing changed since the last review.\n", "")
    write(memory, "notes/standup.md", "# Standup\n\nOne.\nTwo.\n")
    data = as_json(capsys, memory, "changes")  # records what changed on disk first
    assert set(data) == {"since", "head", "changes"}
    changes = data["changes"]
    assert isinstance(changes, list) and len(changes) == 1
    assert set(changes[0]) == {
        "path",
        "now_path",
        "kind",
        "time",
        "origin",
        "version",
        "lines_added",
        "lines_removed",
    }
    assert (changes[0]["kind"], changes[0]["lines_added"], changes[0]["lines_removed"]) == ("modified", 2, 1)
    cli(capsys, memory, "changes", "--mark-reviewed")
    assert as_json(capsys, memory, "changes")["changes"] == []


def test_forget_previews_then_removes(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(memory, "notes/standup.md", "# Standup\n\noops, a token\n")
    cli(capsys, memory, "snapshot")
    write(memory, "notes/standup.md", "# Standup\n\nclean\n")
    cli(capsys, memory, "snapshot")
    bad = str(versions(capsys, memory, "notes/standup.md")[-1]["id"])
    before = tree_bytes(memory)
    code, out, _ = cli(capsys, memory, "history", "forget", "notes/standup.md", "--version", bad)
    assert code == 0 and "Preview only" in out
    data = as_json(capsys, memory, "history", "forget", "notes/standup.md", "--version", bad, "--yes")
    assert (
        set(data) == {"path", "version", "records", "live_has_it", "applied", "outcome"} and data["applied"]
    )
    assert tree_bytes(memory) == before
    code, _, err = cli(capsys, memory, "history", "show", bad, "notes/standup.md")
    assert code == 1 and "no version" in err


def test_prune_preview_and_json(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, memory, "snapshot")
    code, out, _ = cli(capsys, memory, "history", "prune", "--older-than", "30")
    assert code == 0 and "nothing to prune" in out
    data = as_json(capsys, memory, "history", "prune", "--older-than", "30", "--yes")
    assert data == {"days": 30, "dropped": 0, "kept": 1, "applied": True, "outcome": "Nothing was pruned."}


def test_health_records_what_changed_only_where_a_store_exists(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, memory, "health")[0] == 0
    assert cli(capsys, memory, "status")[0] == 0
    assert not (memory / ".pmem").exists()  # a read-only command makes no store
    cli(capsys, memory, "snapshot")
    write(memory, "notes/new.md", "# New\n")
    head = (memory / names.HISTORY_DIR / names.MAIN_REF).read_bytes()
    assert cli(capsys, memory, "status")[0] == 0  # status lists; it never reads the files to record them
    assert (memory / names.HISTORY_DIR / names.MAIN_REF).read_bytes() == head
    assert cli(capsys, memory, "health")[0] == 0
    assert versions(capsys, memory, "notes/new.md")[0]["origin"] == names.SEEN_ON_DISK
    write(memory, "notes/new.md", "# New\n\nagain\n")
    assert len(versions(capsys, memory, "notes/new.md")) == 2  # `history` records first too


def test_a_damaged_store_never_blocks_an_action(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, memory, "snapshot")
    (memory / names.HISTORY_DIR / names.MAIN_REF).write_text("garbage\n")
    source = write(memory.parent / "src", "new.md", "# Standup\n\nSaved.\n")
    code, out, err = cli(capsys, memory, "save", "notes/standup.md", "--from", str(source), "--yes")
    assert code == 0 and "Saved notes/standup.md." in out
    assert err.startswith("pmem-tui: History could not record") and err.count("\n") == 1
    code, _, err = cli(capsys, memory, "history", "notes/standup.md")
    assert code == 1 and err.count("\n") == 1 and "damaged" in err
    code, out, _ = cli(capsys, memory, "doctor")
    assert code == 0 and "History: " in out and "--yes" in out
    code, out, _ = cli(capsys, memory, "doctor", "--yes")
    assert code == 0 and "new one starts" in out
    assert versions(capsys, memory, "notes/standup.md")[0]["origin"] == "doctor"
    assert cli(capsys, memory, "doctor")[1].count("History") == 0


def test_history_diff_to_a_terminal_shows_an_agents_escapes_and_to_a_pipe_gives_them(
    memory: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in trial: `history diff` of a file holding `\\x1b[2J` cleared the person's terminal."""
    cli(capsys, memory, "snapshot")
    write(memory, "notes/standup.md", "# Standup\n\nbody \x1b]2;T\x07 \x1b[2J\n")
    cli(capsys, memory, "snapshot")
    code, out, _ = cli(capsys, memory, "history", "diff", "notes/standup.md")
    assert code == 0 and "+body \x1b]2;T\x07 \x1b[2J\n" in out  # a pipe: the bytes as they are
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = cli(capsys, memory, "history", "diff", "notes/standup.md")
    assert code == 0 and "+body \\x1b]2;T\\x07 \\x1b[2J\n" in out and "\x1b" not in out


def test_a_lost_pack_is_named_in_words_not_as_a_python_bytes_repr(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in trial: with a pack file deleted by hand, every sentence read "is damaged (b'9119…')"."""
    cli(capsys, memory, "snapshot")
    for pack in (memory / names.HISTORY_DIR / "objects" / "pack").glob("*.pack"):
        pack.unlink()
    code, _, err = cli(capsys, memory, "history")
    assert code == 1 and err.count("\n") == 1
    assert "b'" not in err and "object " in err and " is missing" in err, err
    code, out, _ = cli(capsys, memory, "doctor")
    assert code == 0 and "b'" not in out and " is missing" in out


@pytest.mark.parametrize("start", ["snapshot", "mark-reviewed"])
def test_a_history_started_without_an_action_is_ignored_by_git(
    memory: Path, capsys: pytest.CaptureFixture[str], start: str
) -> None:
    """Found in trial: `snapshot` (the agents' hook) and the Changes pane's R on a memory without `.pmem/`
    made `.pmem/history` but no `.pmem/.gitignore`, so a memory root kept in git showed `?? .pmem/` and
    `git add -A` took the whole history store in."""
    from pmem_tui.core.history.record import mark_reviewed
    from pmem_tui.core.meta_dir import GITIGNORE, GITIGNORE_BYTES

    assert not (memory / ".pmem").exists()
    if start == "snapshot":
        assert cli(capsys, memory, "snapshot")[0] == 0
    else:
        assert mark_reviewed(memory, start=True) is not None
    assert (memory / names.HISTORY_DIR / "HEAD").is_file()
    assert (memory / GITIGNORE).read_bytes() == GITIGNORE_BYTES
