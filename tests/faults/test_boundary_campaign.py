"""The boundary campaign: every kind of file an agent (or an attacker) can leave in the folder, at every
depth, against every command, plus sizes against every reader (issue 12, defects 1 and 2).

Kinds: a FIFO, a socket, a device node (/dev/zero's), a link to /dev/zero, a link to a file or folder outside
the root, a hard link to a file outside, the root itself a link. For each case and command:

- it finishes (in-process runs under a `setitimer` alarm, which interrupts even a blocking `open`; the
  issue's own reproductions run as real processes under a timeout);
- the exit status is 0, 1 or 2, never a traceback, and a refusal is one line on stderr;
- nothing that lives only behind a link (the sentinel) reaches the output, and nothing behind it changes;
- a refusal or a read-only command leaves the tree byte-identical (`.pmem/` aside). In-process actions run
  with `no_fsync` (the campaign is about readers, not power cuts). The tree is captured
  with `lstat` only: a link is compared by its target, a FIFO or a device by its kind, never read.

`FIGURES` counts the runs for the README's Guarantees section.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest

from pmem_tui import cli
from pmem_tui.cli import health as cli_health
from pmem_tui.core import folder_reads, health, safeio, scan_facts, tree
from pmem_tui.core.model import ARCHIVE_INDEX, INDEX_FILE, META_DIR
from tests.faults.harness import base_memory, write

# One xdist worker runs this whole module: its module fixtures are built once.
pytestmark = pytest.mark.xdist_group("boundary-campaign")

REPO = Path(__file__).resolve().parents[2]
SENTINEL = "ZQXSENTINEL"  # only ever behind a link, outside the root
HANG_S = 60.0  # far above any case (each takes milliseconds, a size case seconds under load): only a hang
FIGURES: Counter[str] = Counter()


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so no handler in the code under test can swallow it."""


@contextlib.contextmanager
def hang_guard(seconds: float = HANG_S) -> Iterator[None]:
    def ring(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- the tree, seen without following or reading anything but regular files -------------------------------

Tree = dict[str, tuple[object, ...]]


def capture(root: Path) -> Tree:
    out: Tree = {}
    if not os.path.isdir(root):
        return out
    for dirpath, dirnames, filenames in os.walk(root):  # never descends into a link
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d != META_DIR]
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    out[rel] = ("file", hashlib.sha256(f.read()).hexdigest())
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
            else:
                out[rel] = ("special", stat.S_IFMT(st.st_mode))
    return out


# -- the memory and the odd files ---------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    root: Path
    outside: Path  # the sentinel's home
    source: Path  # content for `save --from`
    project: Path  # a project with .claude/memory/permanent_memory.md


def make_world(base: Path, template: Path) -> World:
    root = base / "mem"
    shutil.copytree(template, root, symlinks=True)
    outside = base / "outside"
    write(outside, f"{SENTINEL}.md", f"# {SENTINEL} title\n\n## Summary\n- {SENTINEL} fact\n")
    write(outside, f"dir/{SENTINEL}-inner.md", f"# {SENTINEL} inner\n\n{SENTINEL} body\n")
    write(outside, "dir/sub/deep.md", f"# {SENTINEL} deep\n")
    # A hard link's content is memory like any other (no sentinel), but a write through it would change this.
    write(outside, "shared.md", "# Shared\n\n- [Shared](projects/shared.md) — shared\n")
    source = base / "source.md"
    source.write_text("# New\n\n## Summary\n- a new fact\n", encoding="utf-8")
    project = base / "proj"
    write(project, ".claude/memory/permanent_memory.md", "## Epic: E-1 — intent\nSummary line.\n")
    return World(root, outside, source, project)


def plant(world: World, rel: str, kind: str, base: Path | None = None) -> None:
    """Put a `kind` entry at `rel` below `base` (the root by default), replacing what is there."""
    where = (base or world.root) / rel
    if where.is_symlink() or where.is_file():
        where.unlink()
    elif where.is_dir():
        shutil.rmtree(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "socket":
        # mknod, not bind: a socket's path has a 108-byte limit that a deep temporary folder passes.
        os.mknod(where, 0o600 | stat.S_IFSOCK)
    elif kind == "device":
        os.mknod(where, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero: reads never end
    elif kind == "link-devzero":
        where.symlink_to("/dev/zero")
    elif kind == "link-out":
        where.symlink_to(world.outside / f"{SENTINEL}.md")
    elif kind == "link-dir":
        where.symlink_to(world.outside / "dir", target_is_directory=True)
    elif kind == "hardlink":
        os.link(world.outside / "shared.md", where)
    else:
        raise AssertionError(kind)


FILE_PLACES = [
    INDEX_FILE,
    ARCHIVE_INDEX,
    "projects/alpha.md",  # an indexed active file
    "notes/stray.md",  # an orphan
    "projects/sub/deep.md",  # depth two
    "_core/profile.md",
    "_archive/projects/old.md",
    "_archive/_trash/notes/gone.md",
]
FILE_KINDS = ["fifo", "socket", "device", "link-devzero", "link-out", "hardlink"]
DIR_PLACES = [
    "projects",
    "projects/sub",
    "notes",
    "_core",
    "_archive",
    "_archive/projects",
    "_archive/_trash",
]
DIR_KINDS = ["link-dir", "fifo"]
CASES = (
    [(place, kind) for place in FILE_PLACES for kind in FILE_KINDS]
    + [(place, kind) for place in DIR_PLACES for kind in DIR_KINDS]
    + [("", "root-link")]
)

READ_ONLY = {"status", "status-json", "status-cached", "health", "loader"}


def commands(world: World, place: str) -> dict[str, list[str]]:
    src = str(world.source)
    target = place if place.startswith(("projects/", "notes/")) and place.endswith(".md") else None
    out = {
        "status": ["status", "--no-cache"],
        "status-json": ["status", "--json", "--no-cache"],
        "status-cached": ["status", "--json"],
        "health": ["health", "--json"],  # no cache yet: every file is read
        "save": ["save", "notes/new.md", "--from", src, "--yes"],
        "save-update": ["save", "projects/beta.md", "--from", src, "--yes"],
        "archive": ["archive", "projects/beta.md", "--reason", "done", "--yes"],
        "delete": ["delete", "projects/old.md", "--yes"],
        "recover": ["recover", "notes/gone.md", "--yes"],
        "purge": ["purge", "--yes"],
        "upgrade": ["upgrade", "--yes"],
        "doctor": ["doctor", "--yes"],
        "loader": ["loader", "--project", str(world.project)],
    }
    if target:
        out["save-target"] = ["save", target, "--from", src, "--yes"]
        out["archive-target"] = ["archive", target, "--reason", "x", "--yes"]
    return out


def run(root: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`pmem-tui --root ROOT ARGV` in-process, under the hang guard; the campaign's common checks."""
    full = argv if argv[0] == "loader" else ["--root", str(root), *argv]
    try:
        with hang_guard():
            code = cli.main(full)
    except SystemExit as exit_:  # argparse: bad usage
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    FIGURES["runs"] += 1
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, err
    assert SENTINEL not in out + err, (argv, out + err)
    if code == 1:
        assert err.startswith("pmem-tui: ") and err.count("\n") == 1, err
    return code, out, err


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "mem"
    base_memory(root)
    return root


def _case_id(case: tuple[str, str]) -> str:
    return f"{case[1]}@{case[0] or 'root'}"


@pytest.mark.rule("PM-SAFE-3", "PM-CORE-1")
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_every_command_on_an_odd_file(
    case: tuple[str, str],
    tmp_path: Path,
    template: Path,
    capsys: pytest.CaptureFixture[str],
    no_fsync: list[int],
) -> None:
    place, kind = case
    world = make_world(tmp_path, template)
    if kind == "root-link":
        real = tmp_path / "real-mem"
        world.root.rename(real)
        world.root.symlink_to(real, target_is_directory=True)
    else:
        plant(world, place, kind)
    outside = capture(world.outside)
    for name, argv in commands(world, place).items():
        before = capture(world.root)
        code, _, err = run(world.root, argv, capsys)
        FIGURES[f"exit {code}"] += 1
        after = capture(world.root)
        if code != 0 or name in READ_ONLY:
            assert after == before, (name, code, err)
        if kind not in ("root-link", "hardlink") and place in before:
            assert after.get(place) == before[place] or name.endswith("-target"), (name, "moved the odd file")
        assert capture(world.outside) == outside, (name, "changed a file behind a link")
    FIGURES["cases"] += 1


@pytest.mark.parametrize("place", ["projects", "projects/sub"])
def test_a_linked_folder_is_reported_never_listed(
    place: str, tmp_path: Path, template: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Defect 1 itself: the folder is a `symlink` problem; nothing behind it is a memory file or an orphan."""
    world = make_world(tmp_path, template)
    plant(world, place, "link-dir")
    _, out, _ = run(world.root, ["status", "--json", "--no-cache"], capsys)
    data = json.loads(out)
    assert {"kind": "symlink", "path": place} in [
        {k: p[k] for k in ("kind", "path")} for p in data["problems"]
    ]
    assert all(SENTINEL not in a["path"] for a in data["active"])
    report = health.check_health(world.root, use_cache=False)
    assert SENTINEL not in json.dumps(cli_health.health_dict(report))


@pytest.mark.parametrize("kind", ["fifo", "link-out", "folder"])
def test_a_file_that_changes_type_after_the_listing_is_a_problem(
    kind: str, tmp_path: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the scan's listing and its read, `projects/alpha.md` becomes a FIFO, a link or a folder."""
    world = make_world(tmp_path, template)
    real = scan_facts.inspect_file

    def swapped(root: Path, rel: str, reader: folder_reads.Reader | None = None) -> scan_facts.FileContent:
        if rel == "projects/alpha.md":
            if kind == "folder":
                (root / rel).unlink()
                (root / rel).mkdir()
            else:
                plant(world, rel, kind)
        return real(root, rel, reader)

    monkeypatch.setattr(scan_facts, "inspect_file", swapped)
    with hang_guard():
        snap = tree.scan(world.root)
    problems = {p.path: p for p in snap.problems}
    assert problems["projects/alpha.md"].kind == ("symlink" if kind == "link-out" else "unreadable")
    assert SENTINEL not in repr(snap)


# -- the app: its start (the head of the index, the first preview, the watcher) and its full scan ----------

# The start reads the head of `_index.md` and previews the first row (alpha.md); the scan lists the folders.
APP_CASES = [
    (INDEX_FILE, "fifo"),
    (INDEX_FILE, "link-devzero"),
    ("projects/alpha.md", "fifo"),
    ("projects/alpha.md", "link-out"),
    ("projects", "link-dir"),
    ("", "root-link"),
]


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.parametrize("case", APP_CASES, ids=[_case_id(c) for c in APP_CASES])
async def test_the_app_starts_and_scans_around_an_odd_file(
    case: tuple[str, str], tmp_path: Path, template: Path
) -> None:
    from tests.tui.tui_helpers import RecordingApp, settle, until

    place, kind = case
    world = make_world(tmp_path, template)
    if kind == "root-link":
        (tmp_path / "real-mem").mkdir()
        world.root.rename(tmp_path / "real-mem/mem")
        world.root.symlink_to(tmp_path / "real-mem/mem", target_is_directory=True)
    else:
        plant(world, place, kind)
    before = capture(world.root)
    app = RecordingApp(world.root, watch=True, project=str(world.project))
    with hang_guard():
        async with app.run_test(size=(120, 36)) as pilot:
            assert await until(pilot, lambda: app.scans_done >= 1)
            await settle(pilot)
            main = app.main_screen
            assert main is not None
            for _ in range(3):  # the preview of each of the first rows
                await pilot.press("down")
                await settle(pilot)
                assert SENTINEL not in main.preview.text
            screen = app.export_screenshot()
    assert SENTINEL not in screen and SENTINEL not in app.notes_text()
    assert capture(world.root) == before
    FIGURES["app cases"] += 1


@pytest.mark.parametrize("mode", ["live", "polling"])
def test_the_watcher_never_descends_into_a_linked_folder(
    mode: str, tmp_path: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchdog.observers

    from pmem_tui.tui.watcher import MemoryWatcher

    world = make_world(tmp_path, template)
    plant(world, "projects", "link-dir")
    if mode == "polling":

        class NoWatches(watchdog.observers.Observer):  # type: ignore[misc, valid-type]
            def start(self) -> None:
                raise OSError(28, "inotify watch limit reached")

        monkeypatch.setattr(watchdog.observers, "Observer", NoWatches)
    watcher = MemoryWatcher(world.root, lambda: None)
    assert watcher.start() == mode
    try:
        (emitter,) = watcher._observer.emitters
        assert emitter.watch.follow_symlink is False
        if mode == "polling":  # what it lists, and so stats on every poll
            assert not [p for p in emitter._take_snapshot().paths if SENTINEL in os.fsdecode(p)]
    finally:
        watcher.stop()


# -- the loader's folder ------------------------------------------------------------------------------------

LOADER_CASES = [
    (rel, kind)
    for rel in (".claude/memory/permanent_memory.md",)
    for kind in ("fifo", "socket", "device", "link-devzero", "link-out", "hardlink")
] + [(".claude/memory", "link-dir"), (".claude", "link-dir"), (".claude/memory", "fifo")]


@pytest.mark.rule("PL-10")
@pytest.mark.parametrize("case", LOADER_CASES, ids=[_case_id(c) for c in LOADER_CASES])
def test_the_loader_on_an_odd_file(
    case: tuple[str, str], tmp_path: Path, template: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel, kind = case
    world = make_world(tmp_path, template)
    plant(world, rel, kind, base=world.project)
    before = capture(world.project)
    for argv in (
        ["loader", "--project", str(world.project)],
        ["loader", "--json", "--project", str(world.project)],
    ):
        code, _, err = run(world.root, argv, capsys)
        # A hard link is a regular file; a FIFO where the folder should be is no memory folder: silent.
        silent = kind == "hardlink" or (rel == ".claude/memory" and kind == "fifo")
        assert code == (0 if silent else 1), (argv, err)
    assert capture(world.project) == before
    FIGURES["cases"] += 1


# -- sizes --------------------------------------------------------------------------------------------------

BIG = 50 * 1024 * 1024


@pytest.fixture(scope="module")
def big_line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 50 MB file of one line (made once: every size case links it in, hard, for speed)."""
    path = tmp_path_factory.mktemp("big") / "big.md"
    with open(path, "wb") as f:
        f.write(b"# Big " + b"x" * (BIG - 7) + b"\n")
    return path


@pytest.fixture(scope="module")
def over_cap(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("huge") / "huge.md"
    with open(path, "wb") as f:
        f.truncate(safeio.MEMORY_CAP + 1)  # sparse: costs no disk
    return path


def test_sizes_against_every_reader(
    tmp_path: Path, template: Path, big_line: Path, over_cap: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = make_world(tmp_path, template)
    root = world.root
    (root / "notes/empty.md").write_bytes(b"")
    os.link(big_line, root / "projects/big.md")
    os.link(over_cap, root / "projects/huge.md")
    (root / "_index.md").write_bytes((root / "_index.md").read_bytes() + b"- projects/big.md - big\n")
    readers = [
        ["status", "--json", "--no-cache"],
        ["health", "--json", "--no-cache"],
        ["archive", "projects/big.md", "--reason", "big"],  # a preview: reads the index and the file
        ["save", "projects/big.md", "--from", str(world.source)],
    ]
    before = capture(root)
    for argv in readers:
        code, out, err = run(root, argv, capsys)
        assert code == 0, (argv, err)
        if argv[:2] == ["status", "--json"]:
            problems = [(p["path"], p["detail"]) for p in json.loads(out)["problems"]]
            assert (
                "projects/huge.md",
                "too large (64.0 MiB, over the 64 MiB that pmem-tui reads)",
            ) in problems
            assert not [p for p in problems if p[0] == "projects/big.md"]
    assert capture(root) == before
    # The app's preview reads a capped head of any of them.
    from pmem_tui.tui.widgets.preview import PREVIEW_CAP, read_capped

    for rel, size in (
        ("notes/empty.md", 0),
        ("projects/big.md", BIG),
        ("projects/huge.md", safeio.MEMORY_CAP + 1),
    ):
        shown = read_capped(root, rel)
        assert shown.total_size == size and len(shown.text) <= PREVIEW_CAP
    FIGURES["size cases"] += 1


def test_save_from_refuses_over_its_cap_naming_it(
    tmp_path: Path, template: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    world = make_world(tmp_path, template)
    src = tmp_path / "big-source.md"
    with open(src, "wb") as f:
        f.truncate(safeio.SOURCE_CAP + 1)
    before = capture(world.root)
    code, _, err = run(world.root, ["save", "notes/new.md", "--from", str(src), "--yes"], capsys)
    assert code == 1 and "over the 10 MiB" in err
    for source in ("/dev/zero", str(tmp_path)):
        code, _, err = run(world.root, ["save", "notes/new.md", "--from", source, "--yes"], capsys)
        assert code == 1 and "not a regular file" in err
    assert capture(world.root) == before


def test_a_30_mb_loader_file_is_skipped_unread(
    tmp_path: Path, template: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    world = make_world(tmp_path, template)
    path = world.project / ".claude/memory/permanent_memory.md"
    epic = (
        "## Epic: E-{} — a big one\nSummary of epic {}.\n\n" + "A body line of the epic, long enough.\n" * 40
    )
    with open(path, "w", encoding="utf-8") as f:
        n = 0
        while f.tell() < 30 * 1024 * 1024:
            f.write(epic.format(n, n))
            n += 1
    size = path.stat().st_size
    reads: list[int] = []
    real_read = os.read

    def counted(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    def no_file_objects(file: object, *args: object, **kwargs: object) -> object:
        raise AssertionError(f"{file} opened as a file object: its reads are not counted")

    monkeypatch.setattr(os, "read", counted)
    monkeypatch.setattr("builtins.open", no_file_objects)
    code, out, _ = run(world.root, ["loader", "--json", "--project", str(world.project)], capsys)
    monkeypatch.undo()
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "skipped" and data["file"]["size"] == size
    assert sum(reads) < 1024 * 1024  # never read whole: its size says it is over 8,000 tokens


# -- the issue's reproductions, as real processes (a hang must be caught from outside) -----------------------


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pmem_tui", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


REPRODUCTIONS: list[tuple[str, Callable[[World], None], list[str]]] = [
    ("status-fifo-index", lambda w: plant(w, INDEX_FILE, "fifo"), ["status"]),
    (
        "archive-fifo-index",
        lambda w: plant(w, INDEX_FILE, "fifo"),
        ["archive", "projects/beta.md", "--reason", "r"],
    ),
    (
        "status-linked-projects",
        lambda w: plant(w, "projects", "link-dir"),
        ["status", "--json", "--no-cache"],
    ),
    (
        "health-linked-projects",
        lambda w: plant(w, "projects", "link-dir"),
        ["health", "--json", "--no-cache"],
    ),
    ("save-from-dev-zero", lambda w: None, ["save", "notes/z.md", "--from", "/dev/zero", "--yes"]),
    ("loader-fifo", lambda w: plant(w, ".claude/memory/permanent_memory.md", "fifo", w.project), ["loader"]),
    (
        "loader-dev-zero",
        lambda w: plant(w, ".claude/memory/permanent_memory.md", "link-devzero", w.project),
        ["loader"],
    ),
]


@pytest.mark.parametrize("name, setup, argv", REPRODUCTIONS, ids=[r[0] for r in REPRODUCTIONS])
def test_the_issue_reproductions_as_processes(
    name: str, setup: Callable[[World], None], argv: list[str], tmp_path: Path, template: Path
) -> None:
    world = make_world(tmp_path, template)
    setup(world)
    before = capture(world.root)
    full = argv if argv[0] == "loader" else ["--root", str(world.root), *argv]
    done = _cli(*full, cwd=world.project)  # raises TimeoutExpired on a hang
    FIGURES["processes"] += 1
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr and SENTINEL not in done.stdout + done.stderr
    assert capture(world.root) == before


def test_zz_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """The campaign's figures (for the README), printed with `-s`; last in the module by name."""
    with capsys.disabled():
        print("\nboundary campaign:", dict(sorted(FIGURES.items())))
