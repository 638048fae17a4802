"""Shared fixtures. Every test runs with a frozen date so records and deadlines are reproducible."""

from __future__ import annotations

import compileall
import contextlib
import datetime as dt
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FROZEN_TODAY = dt.date(2026, 11, 30)


@pytest.fixture(autouse=True)
def _frozen_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PMEM_TUI_TODAY", FROZEN_TODAY.isoformat())


@pytest.fixture(scope="session", autouse=True)
def _session_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Caches never go into the real user cache folder, not even from module-scoped fixtures (set up before
    any function-scoped one) or the processes tests start (tmux tests too)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PMEM_TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache-home-session")))
        # Nor is the user's config.toml read: an empty folder, so every app runs with the default keys.
        mp.setenv("PMEM_TUI_CONFIG_DIR", str(tmp_path_factory.mktemp("config-home-session")))
        yield


@pytest.fixture(scope="session", autouse=True)
def _pilot_idle_slices() -> Iterator[None]:
    """Textual's Pilot waits for the app to go idle after every key and pause by sleeping in 20 ms slices
    until one used under 5% CPU: most of a Pilot test's wall time was that sleep (measured: 72 s of wall,
    35 s of CPU for three test files). 5 ms slices keep the same 5% rule and the same awaits; a test that
    needs a state waits for it (`until`, `settle`), never for a slice."""
    import textual._wait as wait

    saved = wait.SLEEP_GRANULARITY, wait.SLEEP_IDLE
    wait.SLEEP_GRANULARITY = 1 / 200
    wait.SLEEP_IDLE = wait.SLEEP_GRANULARITY / 20
    yield
    wait.SLEEP_GRANULARITY, wait.SLEEP_IDLE = saved


@pytest.fixture(autouse=True)
def _cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's caches go to a fresh folder outside its roots."""
    folder = tmp_path_factory.mktemp("cache-home")
    monkeypatch.setenv("PMEM_TUI_CACHE_DIR", str(folder))
    return folder


def cache_file(root: Path, name: str) -> Path:
    """Where the cache file `name` of `root` lives (the root must exist)."""
    from pmem_tui.core import cache_home

    folder = cache_home.folder_for(root)
    assert folder is not None
    return Path(folder) / name


@pytest.fixture(autouse=True, scope="session")
def _private_state_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The app keeps refused edits as drafts in the person's state folder: never the real one in tests."""
    patch = pytest.MonkeyPatch()
    base = tmp_path_factory.mktemp("xdg")
    patch.setenv("XDG_STATE_HOME", str(base / "state"))
    patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
    yield
    patch.undo()


@pytest.fixture
def today() -> dt.date:
    return FROZEN_TODAY


def command_output(capsys: pytest.CaptureFixture[str], command: str) -> Callable[..., str]:
    """`run(root, *options)`: the standard output of `pmem-tui --root ROOT COMMAND *options`, run in this
    process, which must exit 0."""

    def run(root: Path, *extra: str) -> str:
        from pmem_tui.cli import main

        capsys.readouterr()
        assert main(["--root", str(root), command, *extra]) == 0
        return capsys.readouterr().out

    return run


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


SUMMARY_FILE = """# Alpha project

Updated: 2026-11-20

## Summary
- Alpha ships the importer in December.
- Decision: Postgres over SQLite for the catalogue.
- Constraint: no network at run time.

## Detail
Long detail text.
"""


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    """A small, complete memory root with the lifecycle structure."""
    root = tmp_path / "mem"
    write(root, "_core/profile.md", "# Profile\n\nI write Python.\n")
    write(root, "_core/preferences.md", "# Preferences\n\n- Short answers.\n")
    write(
        root,
        "_index.md",
        "# Index\n\n"
        "- [Alpha](projects/alpha.md) — the importer project\n"
        "- notes/standup.md — daily standup notes\n"
        "- `notes/日本語 メモ.md` — CJK note with a space\n",
    )
    write(root, "projects/alpha.md", SUMMARY_FILE)
    write(root, "notes/standup.md", "# Standup\n\nNothing new.\n")
    write(root, "notes/日本語 メモ.md", "# メモ\n\n内容。\n")
    (root / "_archive/_trash").mkdir(parents=True)
    from pmem_tui.core.records import empty_archive_index

    write(root, "_archive/_index.md", empty_archive_index())
    return root


def stock(memory: Path) -> Path:
    """Add to `memory` an archived file, a recoverable and an expired trash item, all with their records."""
    write(memory, "_archive/projects/old.md", "# Old\n")
    write(memory, "_archive/_trash/projects/gone.md", "# Gone\n")
    write(memory, "_archive/_trash/notes/expired.md", "# Expired\n")
    write(
        memory,
        "_archive/_index.md",
        (memory / "_archive/_index.md").read_text(encoding="utf-8")
        + "\n## projects/old.md\n- Index line: `- projects/old.md — old`\n- Archived: 2026-10-01\n"
        + "- Reason: r\n"
        + "\n## projects/gone.md\n- Index line: `- projects/gone.md — gone`\n- Deleted: 2026-11-20\n"
        + "\n## notes/expired.md\n- Index line: `- notes/expired.md — e`\n- Deleted: 2026-01-01\n",
    )
    return memory


def one_note_memory(parent: Path, note: str, index: str) -> Path:
    """`parent/memory`: the lifecycle's folders, an empty archive index, `notes/a.md` holding `note` and
    `_index.md` holding `index`."""
    root = parent / "memory"
    for folder in ("_core", "notes", "projects", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    (root / "notes/a.md").write_text(note, encoding="utf-8")
    (root / "_index.md").write_text(index, encoding="utf-8")
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file below root (the tool's hidden .pmem metadata excluded) with its bytes."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] == ".pmem" or not path.is_file() or path.is_symlink():
            continue
        out[rel] = path.read_bytes()
    return out


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the README's `pytest -q`): one and a half workers per core. A Pilot test spends part of its
    time waiting for the app to go idle, and a third worker's work fills it: measured on this 2-core machine,
    idle, the same commit, 307 s with 2 workers and 270 s with 3. PYTEST_XDIST_AUTO_NUM_WORKERS and
    `-n logical` stay xdist's: None lets its own hook answer (this one is asked first)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.option.numprocesses == "logical":
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(2, cores + cores // 2)


# -- the size of the long tests (tests/campaign.py) ----------------------------------------------------------
# `pytest -q` runs the quick size: every kind of case, fewer repetitions. The full size is the weekly run:
# `pytest -q --campaign=full` (or PMEM_TUI_CAMPAIGN=full); see the README's Development section.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--campaign",
        choices=("quick", "full"),
        default=None,
        help="size of the fault campaign and the long property tests: quick (default; every kind of case, "
        "fewer repetitions) or full (weekly); the environment's PMEM_TUI_CAMPAIGN when not given",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Set before collection (the campaign modules size their parameters when imported) and inherited by the
    # xdist workers and the processes tests start.
    from tests.campaign import CAMPAIGN_ENV

    size = config.getoption("campaign") or os.environ.get(CAMPAIGN_ENV) or "quick"
    os.environ[CAMPAIGN_ENV] = size
    if not hasattr(config, "workerinput"):  # once, in the controller (or the only process)
        # The package's bytecode, written once as `pip install` leaves it: every `python -m pmem_tui` a test
        # starts then loads it instead of compiling the package again (PYTHONDONTWRITEBYTECODE, a fresh
        # clone, or source newer than its bytecode).
        compileall.compile_dir(Path(__file__).resolve().parents[1] / "pmem_tui", quiet=1)


# -- the fault campaign's figures ----------------------------------------------------------------------------
# Counted in each process that runs campaign tests; under pytest-xdist each worker hands its counts to the
# controller when it finishes, which prints the sum (and writes build/fault-figures.json).


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests.faults.harness import FIGURES

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["fault_figures"] = FIGURES.raw()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    from tests.faults.harness import FIGURES

    raw = getattr(node, "workeroutput", {}).get("fault_figures")
    if raw:
        FIGURES.merge(raw)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.faults.harness import FIGURES

    figures = FIGURES.as_dict()
    if figures["runs_total"] or FIGURES.extra:
        terminalreporter.write_sep("-", "fault campaign figures")
        terminalreporter.write_line(json.dumps(figures, ensure_ascii=False))
        out = terminalreporter.config.rootpath / "build" / "fault-figures.json"
        with contextlib.suppress(OSError):
            out.parent.mkdir(exist_ok=True)
            out.write_text(json.dumps(figures, indent=1), encoding="utf-8")


def all_paths(root: Path) -> set[str]:
    """Every path below `root` (files, folders, links; `.pmem/` included), relative and POSIX."""
    out: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for name in dirnames + filenames:
            out.add(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return out


def tree_state(root: Path) -> dict[str, tuple[str, int, bytes | None, int]]:
    """Every path below `root` (`.pmem/` included) and the root itself: mode, mtime_ns, bytes (files), inode.
    A rewrite of the same bytes (a new inode) or a file made and removed (its folder's times) shows too."""
    out: dict[str, tuple[str, int, bytes | None, int]] = {}
    for rel in ["", *sorted(all_paths(root))]:
        path = root / rel if rel else root
        st = path.lstat()
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        out[rel] = (oct(st.st_mode), st.st_mtime_ns, data, st.st_ino)
    return out


# The spec-rule report (every test's rule ids and outcome; see tests/conformance_plugin.py), and pytester for
# that plugin's own tests.
pytest_plugins = ("tests.conformance_plugin", "pytester")
