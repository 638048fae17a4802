"""A cold `status` lists the tree once: the scan walks the listing its cache key was made of
(`status_cache.Probe.folders`, `folder_walk.walk_files(listed=...)`), and finds exactly what its own walk
finds. The app's scan with a history store does the same with the listing of history's cheap pass
(`record_if_changed(root, listing)`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pmem_tui.cli import main
from pmem_tui.core import folder_reads, folder_walk, safeio, settled, status_cache, tree
from pmem_tui.core.history import record
from tests.cli.test_status_cache import later  # noqa: F401  (the fixture: out of the racy window)
from tests.conftest import write


def _odd_tree(root: Path) -> None:
    """Deep folders, hidden files, a deep link, a FIFO, archived and trashed files: what a walk reports."""
    write(root, "projects/a/b/c/deep.md", "# Deep\n")
    write(root, "projects/a/.hidden.md", "# Hidden\n")
    write(root, "projects/a/notes.txt", "not markdown\n")
    write(root, "notes/x/target.md", "# Target\n")
    os.symlink("target.md", root / "notes/x/link.md")
    os.mkfifo(root / "notes/x/pipe.md")
    write(root, "_archive/old.md", "# Old\n")
    write(root, "_archive/_trash/gone.md", "# Gone\n")
    write(root, "_core/deep/more.md", "# More\n")


def test_the_scan_on_the_keys_listing_is_the_scan(memory: Path) -> None:
    _odd_tree(memory)
    probe = status_cache.probe(str(memory), "json")
    assert probe is not None
    listed = probe.folders()
    assert listed is not None and "projects/a/b/c" in listed
    shared = tree.scan(memory, listed=listed)
    assert shared == tree.scan(memory)
    assert {p.kind for p in shared.problems} >= {"symlink", "unreadable"}


def test_a_folder_missing_from_the_listing_is_listed(memory: Path) -> None:
    probe = status_cache.probe(str(memory), "json")
    assert probe is not None
    listed = probe.folders()
    assert listed is not None
    write(memory, "projects/new/late.md", "# Late\n")  # after the listing: its folder is not in it
    listed["projects"].append(("new", 0o40755, 0, 0, 0))
    assert "projects/new/late.md" in {a.path for a in tree.scan(memory, listed=listed).active}


def test_an_entry_that_could_not_be_stated_means_no_shared_listing() -> None:
    entries = [("", "d", 1, 1), ("a", "d", 1, 1), ("a/x.md", "?", 2)]
    assert status_cache.Probe("r", "json", b"", 0, 0, None, entries).folders() is None
    assert status_cache.Probe("r", "json", b"", 0, 0, None).folders() is None


def test_only_the_first_look_uses_the_listing(memory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When an action moved during the first look, the next look lists the tree again."""
    seen: list[object] = []
    real = tree.scan

    def scan(root: Path, **kwargs: object) -> object:
        seen.append(kwargs.get("listed"))
        return real(root, **kwargs)  # type: ignore[arg-type]

    quiet = iter([False, True])
    monkeypatch.setattr(tree, "scan", scan)
    monkeypatch.setattr(settled, "quiet", lambda root, before: next(quiet))
    listed: folder_walk.Listed = {"": []}
    settled.scan(memory, listed=listed)
    assert seen == [listed, None]


@pytest.mark.usefixtures("later")
def test_a_visitor_after_the_keys_listing_is_not_in_the_output(
    memory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the scan shows is what the key lists: a file made after the listing waits for the next run."""

    def status() -> str:
        capsys.readouterr()
        assert main(["--root", str(memory), "status"]) == 0
        return capsys.readouterr().out

    truth = status()
    real = tree.scan
    scratch = memory / "notes" / "scratch.md"

    def scan_with_a_visitor(root: Path, **kwargs: object) -> object:
        scratch.write_text("# scratch\n")
        return real(root, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree, "scan", scan_with_a_visitor)
    os.utime(memory / "notes", ns=(1, 1))  # the stored output is a miss: this run scans
    assert status() == truth  # not the visitor: the key did not list it
    monkeypatch.setattr(tree, "scan", real)
    assert "notes/scratch.md" in status()  # the next run lists it


def test_the_scan_on_the_history_passs_listing_is_the_scan(memory: Path) -> None:
    _odd_tree(memory)
    assert record.record(memory, create=True).problem is None
    listing: folder_reads.Listing = {}
    assert record.record_if_changed(memory, listing).problem is None
    assert {"_core/deep", "projects/a/b/c", "_archive/_trash"} <= set(listing)
    assert {name for name, *_ in listing["notes/x"]} == {"target.md", "link.md", "pipe.md"}
    shared = tree.scan(memory, listed=listing)
    assert shared == tree.scan(memory)
    assert {p.kind for p in shared.problems} >= {"symlink", "unreadable"}


def test_a_folder_not_listed_to_its_end_is_left_out_of_the_listing(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _odd_tree(memory)
    real = os.scandir
    opened: list[int] = []

    def scandir(fd: int) -> object:  # the third folder listed fails
        opened.append(fd)
        if len(opened) == 3:
            raise PermissionError(13, "Permission denied")
        return real(fd)

    monkeypatch.setattr(os, "scandir", scandir)
    listing: folder_reads.Listing = {}
    folder_reads.stamps_below(memory, "projects", listing=listing)
    assert len(opened) == 3 and len(listing) == 2  # "projects" and one folder below it


def test_the_apps_scan_lists_a_tree_with_a_history_store_once(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pmem_tui.tui import scanning

    _odd_tree(memory)
    assert record.record(memory, create=True).problem is None
    truth = scanning.scan(memory, 1, None, None).snapshot
    listed: list[str] = []
    real = safeio.list_dir

    def list_dir(root: Path | str, rel: str) -> list[tuple[str, os.stat_result]]:
        listed.append(rel)
        return real(root, rel)

    monkeypatch.setattr(safeio, "list_dir", list_dir)
    assert scanning.scan(memory, 1, None, None).snapshot == truth
    assert listed == []  # every folder came from history's cheap pass
    (memory / ".pmem/history").rename(memory / ".pmem/gone")  # no store: the scan lists the tree itself
    assert scanning.scan(memory, 1, None, None).snapshot == truth
    assert "projects/a/b/c" in listed


def test_the_listing_is_used_up_before_the_index_is_read(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The active folders' part of a listing is freed before the index's entries are made (the peak memory
    of a scan at 10^5 files), and every folder walked is taken out of it."""
    from pmem_tui.core import columns

    _odd_tree(memory)
    assert record.record(memory, create=True).problem is None
    listing: folder_reads.Listing = {}
    assert record.record_if_changed(memory, listing).problem is None
    left_at_index: list[set[str]] = []
    real = columns.read_index  # a shallow scan's index, as columns

    def read_index(path: Path, *args: Any) -> object:
        left_at_index.append(set(listing))
        return real(path, *args)

    monkeypatch.setattr(columns, "read_index", read_index)
    snap = tree.scan(memory, deep=False, listed=listing)
    assert left_at_index and not {f for f in left_at_index[0] if f.startswith(("projects", "notes"))}
    assert listing == {}
    monkeypatch.setattr(columns, "read_index", real)
    assert snap == tree.scan(memory, deep=False)


def test_a_health_check_on_the_keys_listing_is_the_health_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold `health` lists the tree once too: the check walks the key's listing, finds what its own walk
    finds, and dates its cache from the moment that listing started."""
    from pmem_tui.core import cache, health_cache, safeio
    from pmem_tui.core.health import check_health
    from pmem_tui.core.health.codec import loads
    from pmem_tui.core.health.features import FeatureCache
    from pmem_tui.core.health.sketch import NUM_BINS
    from tests.core.test_health import build

    root = build(tmp_path / "mem")
    _odd_tree(root)
    monkeypatch.setenv("PMEM_TUI_CACHE_DIR", str(tmp_path / "cache"))
    own = check_health(root, use_cache=False)
    probe = status_cache.probe(str(root), "health-json")
    listed = probe.folders() if probe is not None else None
    assert listed is not None
    folders: list[str] = []
    real = safeio.list_dir

    def list_dir(root: Path, rel: str) -> object:
        folders.append(rel)
        return real(root, rel)

    monkeypatch.setattr(safeio, "list_dir", list_dir)
    shared = check_health(root, listed=listed, listed_ns=probe.started_ns - 1)  # type: ignore[union-attr]
    # Listed again: only the trash, which the expired-trash match walks after the key did (a listing is
    # used up as it is walked: `folder_walk.walk_files`).
    assert folders and all(f.startswith("_archive/_trash") for f in folders), folders
    assert (shared.proposals, shared.expired_trash, shared.near_pairs) == (
        own.proposals,
        own.expired_trash,
        own.near_pairs,
    )
    stored = health_cache.read_features(root, NUM_BINS)
    assert stored is not None
    assert loads(FeatureCache, stored[0]).written_ns == probe.started_ns - 1 < cache.clock()  # type: ignore[union-attr]
