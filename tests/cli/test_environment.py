"""The CLI at its boundary with the environment it runs in (found in trial): standard input or output
closed or not writable, an output encoding that cannot hold every character, no terminal for the app, a
`--root` that is a folder but no memory. Each is one sentence and an unchanged tree, never a traceback, never
a silent exit 0. Run as real processes: the streams are the process's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import stock, tree_state, write

REPO = Path(__file__).resolve().parents[2]

CAFE = "notes/café ☕.md"  # a name Latin-1 can half hold, ASCII not at all


def run(
    root: Path, *argv: str, redirect: str = "", env: dict[str, str] | None = None
) -> tuple[int, bytes, str]:
    """`pmem-tui --root ROOT ARGV...` in a shell with `redirect` (`<&-`, `>&-`, `>/dev/full`...); stdout is
    captured unless redirected. (exit code, stdout, stderr)."""
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    cmd = [
        "sh",
        "-c",
        f'exec "$@" {redirect}',
        "sh",
        sys.executable,
        "-m",
        "pmem_tui",
        "--root",
        str(root),
        *argv,
    ]
    proc = subprocess.run(
        cmd, capture_output=True, env=full, timeout=60, check=False, stdin=subprocess.DEVNULL
    )
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def one_sentence(err: str) -> bool:
    return err.startswith("pmem-tui: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def cafe(memory: Path) -> Path:
    """`memory` with an archived and a trashed file, and a note whose name, index line and text are outside
    Latin-1 and ASCII, and a history."""
    stock(memory)
    assert run(memory, "snapshot", "--quiet")[0] == 0  # then the note is a change (`changes`)
    write(memory, CAFE, "# Café ☕\n\nEspresso at 9 — 部署 notes.\n")
    index = (memory / "_index.md").read_text(encoding="utf-8")
    write(memory, "_index.md", index + f"- `{CAFE}` — coffee ☕ and naïve notes\n")
    write(memory.parent, "src.md", "# Café ☕\n\nEspresso at 10 — 部署 notes.\n")  # `save ... --from SRC`
    assert run(memory, "snapshot", "--quiet")[0] == 0
    return memory


def argv_for(root: Path, argv: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(str(root.parent / "src.md") if word == "SRC" else word for word in argv)


# -- 1. standard input closed --------------------------------------------------------------------------------


def test_save_from_a_closed_standard_input_is_one_sentence(cafe: Path) -> None:
    before = tree_state(cafe)
    code, out, err = run(cafe, "save", "notes/n.md", "--from", "-", "--yes", redirect="<&-")
    assert (code, out) == (1, b"")
    assert err == "pmem-tui: Cannot save: standard input is closed; nothing was changed.\n"
    assert tree_state(cafe) == before


# -- 2. an output encoding that cannot hold every character --------------------------------------------------

PREVIEWS = [
    ("status",),
    ("status", "--no-cache"),
    ("health",),
    ("search", "espresso"),
    ("history",),
    ("history", CAFE),
    ("history", "diff", CAFE),
    ("changes",),
    ("archive", CAFE, "--reason", "drunk ☕"),
    ("delete", CAFE),
    ("recover", "projects/old.md"),
    ("purge",),
    ("save", CAFE, "--from", "SRC"),
    ("upgrade",),
    ("doctor",),
]


@pytest.mark.parametrize("argv", PREVIEWS, ids=" ".join)
def test_text_is_utf8_whatever_the_declared_encoding(cafe: Path, argv: tuple[str, ...]) -> None:
    """As `health`, `search` and `loader` always did: the same bytes as under UTF-8, never a traceback."""
    argv = argv_for(cafe, argv)
    before = tree_state(cafe)
    expected = run(cafe, *argv, env={"PYTHONIOENCODING": "utf-8"})
    assert "Traceback" not in expected[2]
    assert argv[0] in ("health", "upgrade", "doctor") or not expected[1].isascii()  # these print no name
    encoding = _declared(argv)
    assert run(cafe, *argv, env={"PYTHONIOENCODING": encoding}) == expected, encoding
    assert tree_state(cafe) == before


@pytest.mark.parametrize("argv", [*PREVIEWS, ("snapshot",)], ids=" ".join)
def test_json_is_ascii_when_the_declared_encoding_is_not_utf8(cafe: Path, argv: tuple[str, ...]) -> None:
    """The same data, every other character a \\uXXXX escape: read right in ASCII, Latin-1 or UTF-8."""
    argv = argv_for(cafe, argv)
    code, out, err = run(cafe, *argv, "--json", env={"PYTHONIOENCODING": "utf-8"})
    assert "Traceback" not in err
    expected = json.loads(out)
    expected.pop("stats", None)  # health's run figures
    got = run(cafe, *argv, "--json", env={"PYTHONIOENCODING": _declared(argv)})
    assert (got[0], got[2]) == (code, err)
    assert got[1].isascii()
    data = json.loads(got[1])
    data.pop("stats", None)
    assert data == expected


def _declared(argv: tuple[str, ...]) -> str:
    """Latin-1 for some commands, ASCII for the others: both not UTF-8, the one case the CLI tells apart;
    each command is run once more, not twice (the suite's time: 45 process starts fewer)."""
    return "ascii" if len(" ".join(argv)) % 2 else "latin-1"


def test_status_json_from_its_cache_is_ascii_too(cafe: Path) -> None:
    cold = run(cafe, "status", "--json", env={"PYTHONIOENCODING": "latin-1"})
    warm = run(cafe, "status", "--json", env={"PYTHONIOENCODING": "latin-1"})  # the stored output
    plain = run(cafe, "status", "--json", env={"PYTHONIOENCODING": "utf-8"})
    assert cold == warm and cold[1].isascii() and not plain[1].isascii()
    assert json.loads(cold[1]) == json.loads(plain[1]) and "☕" in plain[1].decode("utf-8")


# -- 3. standard output closed or not writable ---------------------------------------------------------------

CLOSED = "pmem-tui: Standard output is closed; nothing was changed.\n"


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("status", "--json"),
        ("health",),
        ("search", "espresso"),
        ("history",),
        ("changes", "--mark-reviewed"),
        ("snapshot",),
        ("archive", CAFE, "--reason", "r"),
        ("archive", CAFE, "--reason", "r", "--yes"),
        ("archive", CAFE, "--reason", "r", "--yes", "--json"),
        ("history", "prune", "--older-than", "1", "--yes"),
        ("loader", "--project", "."),
    ],
    ids=" ".join,
)
def test_a_closed_standard_output_is_one_sentence_and_nothing_is_done(
    cafe: Path, argv: tuple[str, ...]
) -> None:
    """Before: an AttributeError (status, health, search, loader), or exit 0 and nothing printed (history, an
    archive's preview): a script would think it worked. An action whose outcome cannot be reported is not
    applied."""
    write(cafe, "notes/standup.md", "# Standup\n\nAn agent wrote this.\n")  # a snapshot would record it
    before = tree_state(cafe)
    assert run(cafe, *argv, redirect=">&-") == (1, b"", CLOSED)
    assert tree_state(cafe) == before


@pytest.mark.parametrize(
    ("redirect", "why"), [(">/dev/full", "the disk is full"), ("1</dev/null", "it is not open for writing")]
)
def test_an_action_whose_outcome_cannot_be_written_is_not_applied(
    cafe: Path, redirect: str, why: str
) -> None:
    """Before: the file was archived, then "The disk is full; nothing was changed." (exit 1)."""
    before = tree_state(cafe)
    code, _, err = run(cafe, "archive", CAFE, "--reason", "r", "--yes", redirect=redirect)
    assert code == 1 and one_sentence(err)
    assert err == f"pmem-tui: Standard output cannot be written to ({why}); nothing was changed.\n"
    assert tree_state(cafe) == before


def test_a_quiet_snapshot_needs_no_standard_output(cafe: Path) -> None:
    """A session hook's `snapshot --quiet` prints nothing: it records with standard output closed."""
    write(cafe, "notes/standup.md", "# Standup\n\nAn agent wrote this.\n")
    assert run(cafe, "snapshot", "--quiet", redirect=">&-") == (0, b"", "")
    assert run(cafe, "snapshot")[1] == b"Nothing changed since the last record.\n"


def test_a_report_that_cannot_be_written_after_the_action_says_the_action_was_done(
    cafe: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills between the check and the report: the action is done, and said so (exit 3), never
    "nothing was changed"."""
    import errno
    import io

    from pmem_tui.cli import main

    class Full(io.StringIO):
        def write(self, _: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", Full())
    code = main(["--root", str(cafe), "archive", CAFE, "--reason", "r", "--yes"])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert (
        "the change was made, but its report could not be written" in err and "nothing was changed" not in err
    )
    assert (cafe / "_archive" / CAFE).is_file() and not (cafe / CAFE).exists()


# -- 3b. standard error closed ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("archive", "notes/none.md", "--reason", "r", "--json"), 1),
        (("archive", "notes/none.md", "--reason", "r"), 1),
        (("archive", "--json"), 2),
    ],
    ids=["refused --json", "refused", "bad usage --json"],
)
def test_with_standard_error_closed_a_refusal_is_said_nowhere(
    cafe: Path, argv: tuple[str, ...], code: int
) -> None:
    """Before: the refusal's sentence (argparse's usage line for bad usage) went to standard output, inside
    what a script reads as JSON. Standard error closed, it goes nowhere: the exit code carries it."""
    before = tree_state(cafe)
    assert run(cafe, *argv, redirect="2>&-") == (code, b"", "")
    assert tree_state(cafe) == before


def test_with_standard_error_closed_commands_run_and_their_json_is_whole(cafe: Path) -> None:
    """Before: `search` failed on the missing stream (exit 1, nothing said)."""
    code, out, _ = run(cafe, "search", "espresso", "--json", redirect="2>&-")
    assert code == 0 and CAFE in json.dumps(json.loads(out), ensure_ascii=False)
    code, out, _ = run(cafe, "archive", CAFE, "--reason", "r", "--yes", "--json", redirect="2>&-")
    assert code == 0 and json.loads(out)["applied"] is True
    assert (cafe / "_archive" / CAFE).is_file()


# -- 4. the app without a terminal ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "redirect"),
    [((), "<&-"), ((), "</dev/null"), (("--demo",), "</dev/null"), ((), ">&-")],
    ids=["stdin closed", "stdin not a terminal", "demo", "stdout closed"],
)
def test_the_app_without_a_terminal_is_one_sentence(
    cafe: Path, tmp_path: Path, argv: tuple[str, ...], redirect: str
) -> None:
    """Before: a Textual traceback (stdin closed), or an app that ran forever and could not be quit."""
    before = tree_state(cafe)
    code, _, err = run(cafe, *argv, redirect=redirect, env={"TMPDIR": str(tmp_path)})
    assert code == 2 and one_sentence(err)
    assert "pmem-tui's app needs a terminal" in err and "`pmem-tui status`" in err
    assert tree_state(cafe) == before and not list(tmp_path.glob("pmem-demo-*"))


# -- 5. a folder that is not a memory ------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A wrong --root: a folder with files and a `notes/` folder of its own, but no memory."""
    write(tmp_path / "home", ".bashrc", "export X=1\n")
    write(tmp_path / "home", "notes/todo.txt", "milk\n")
    return tmp_path / "home"


NOT_A_MEMORY = "is not a memory folder (it has no _index.md, _core/ or _archive/_index.md)"
NOT_EVEN_BEGUN = (
    "is not a memory folder (it has no _index.md, _core/ or _archive/_index.md, nor a .md file in projects/ "
    "or notes/)"
)


@pytest.mark.rule("PM-LAYOUT-1")
@pytest.mark.parametrize(
    "argv", [("snapshot",), ("snapshot", "--quiet"), ("snapshot", "--json")], ids=" ".join
)
@pytest.mark.parametrize("kind", ["empty", "home"])
def test_snapshot_refuses_a_folder_that_is_not_a_memory(
    tmp_path: Path, home: Path, kind: str, argv: tuple[str, ...]
) -> None:
    """Before: `Recorded ...`, and a `.pmem/` history store left in any folder a wrong --root named."""
    root = home if kind == "home" else tmp_path / "empty"
    root.mkdir(exist_ok=True)
    before = tree_state(root)
    code, out, err = run(root, *argv)
    assert (code, out) == (1, b"")
    assert err == f"pmem-tui: {root} {NOT_A_MEMORY}; nothing was recorded.\n"
    assert tree_state(root) == before


@pytest.mark.rule("PM-LAYOUT-1")
@pytest.mark.parametrize("marker", ["_index.md", "_core/profile.md", "_archive/_index.md"])
def test_any_one_of_a_memorys_own_files_makes_a_memory(tmp_path: Path, marker: str) -> None:
    write(tmp_path / "mem", marker, "# Memory\n")
    code, out, _ = run(tmp_path / "mem", "snapshot")
    assert code == 0 and out.startswith(b"Recorded ")


@pytest.mark.rule("PM-LAYOUT-1")
def test_save_and_upgrade_refuse_a_folder_that_is_not_a_memory(home: Path) -> None:
    """Before: a save wrote `_index.md` and the note into it, an upgrade `_archive/` and `.pmem/`."""
    before = tree_state(home)
    source = write(home.parent, "src.md", "# X\n")
    code, _, err = run(home, "save", "notes/x.md", "--from", str(source), "--yes")
    assert code == 1 and err == (
        f"pmem-tui: Cannot save: {home} {NOT_EVEN_BEGUN}, and a first save creates a memory only in a "
        "missing or empty folder; nothing was changed.\n"
    )
    code, _, err = run(home, "upgrade", "--yes")
    assert code == 1 and err == f"pmem-tui: Cannot upgrade: {home} {NOT_EVEN_BEGUN}; nothing was changed.\n"
    assert tree_state(home) == before
    code, out, _ = run(home, "status")  # and status says so, not "run upgrade"
    assert code == 0 and f"Lifecycle: none: {home} {NOT_EVEN_BEGUN}; is --root right?" in out.decode()


def test_a_memory_an_agent_began_without_an_index_can_be_upgraded(tmp_path: Path) -> None:
    """Found in review: `notes/x.md` and nothing else: status said "run upgrade", and upgrade refused."""
    root = tmp_path / "begun"
    write(root, "notes/x.md", "# X\n")
    code, _, err = run(root, "upgrade", "--yes")
    assert code == 0, err
    assert (root / "_archive/_index.md").is_file() and (root / "notes/x.md").read_text() == "# X\n"


@pytest.mark.rule("PM-FIRST-1")
def test_a_first_save_still_makes_a_memory_in_an_empty_folder(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    source = write(tmp_path, "note.md", "# First\n\nThe first note.\n")
    code, _, err = run(root, "save", "notes/first.md", "--from", str(source), "--yes")
    assert code == 0, err
    assert (root / "notes/first.md").is_file() and (root / "_archive/_index.md").is_file()
    code, out, _ = run(root, "snapshot")
    assert code == 0 and out == b"Nothing changed since the last record.\n"  # the save recorded it


def test_the_app_draws_on_a_terminal_whichever_stream_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: `pmem-tui > log` ran the app before (it draws on standard error), then was refused.
    Found in trial: `pmem-tui --demo 2>err.log` was refused (exit 2, a blank screen): it draws on standard
    output then, or on /dev/tty; only when there is no terminal at all is it refused."""
    from pmem_tui.cli import streams

    def no_tty(*_: object) -> int:
        raise OSError(6, "No such device or address")

    monkeypatch.setattr(streams.os, "isatty", lambda fd: fd != 1)
    assert streams.no_terminal() is None
    monkeypatch.setattr(streams.os, "isatty", lambda fd: fd != 2)
    assert streams.no_terminal() is None  # drawn on standard output
    monkeypatch.setattr(streams.os, "isatty", lambda fd: fd == 0)
    monkeypatch.setattr(streams.os, "open", no_tty)
    assert streams.no_terminal() == (
        "neither standard error nor standard output is one, and there is no /dev/tty"
    )
    monkeypatch.setattr(streams.os, "isatty", lambda fd: False)
    assert streams.no_terminal() == "standard input is not one"


def test_the_app_terminal_takes_standard_errors_place_and_gives_it_back(tmp_path: Path) -> None:
    """`2>err.log`, standard output a terminal (a pty here): while the app runs, standard error is that
    terminal; afterwards, the file again."""
    script = (
        "import os, sys\n"
        "from pmem_tui.cli import streams\n"
        "give_back = streams.app_terminal()\n"
        "os.write(2, b'drawn\\n')\n"
        "give_back()\n"
        "os.write(2, b'logged\\n')\n"
    )
    leader, follower = os.openpty()
    log = tmp_path / "err.log"
    with log.open("wb") as err:
        done = subprocess.run(
            [sys.executable, "-c", script], stdin=follower, stdout=follower, stderr=err,
            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60, check=False, start_new_session=True,
        )  # fmt: skip
    os.close(follower)
    shown = os.read(leader, 1000)
    os.close(leader)
    assert done.returncode == 0
    assert b"drawn" in shown and b"logged" not in shown
    assert log.read_bytes() == b"logged\n"
