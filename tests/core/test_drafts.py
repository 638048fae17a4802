"""Drafts of refused saves: kept outside the memory root, private, never through a symlink or from a FIFO."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pmem_tui.core import drafts


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "state" / "pmem-tui" / "drafts"


@pytest.mark.rule("PM-CORE-6")
def test_keep_read_discard(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    assert drafts.read(root, "notes/a.md") is None
    path = drafts.keep(root, "notes/a.md", b"# A\n\nsecret=1\n", drafts.fingerprint(b"# A\n"))
    assert path.parent == state and path.name.endswith("-a.md")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert drafts.read(root, "notes/a.md") == (path, b"# A\n\nsecret=1\n")
    assert drafts.read(root, "notes/b.md") is None  # keyed by the file...
    other = tmp_path / "other"
    other.mkdir()
    assert drafts.read(other, "notes/a.md") is None  # ...and by the root
    drafts.keep(root, "notes/a.md", b"newer", drafts.NO_FILE)
    assert drafts.read(root, "notes/a.md") == (path, b"newer")
    assert list(root.rglob("*")) == []  # nothing inside the memory root
    assert drafts.discard(root, "notes/a.md") and not path.exists()
    assert not drafts.discard(root, "notes/a.md")


def test_a_draft_keeps_the_fingerprint_of_the_file_it_was_begun_from(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    assert drafts.base_of(root, "notes/a.md") is None
    drafts.keep(root, "notes/a.md", b"mine", drafts.fingerprint(b"# A\n"))
    assert drafts.base_of(root, "notes/a.md") == drafts.fingerprint(b"# A\n") != drafts.fingerprint(b"# B\n")
    drafts.keep(root, "notes/b.md", b"new", drafts.NO_FILE)  # a new file's draft: there was no file
    assert drafts.base_of(root, "notes/b.md") == drafts.NO_FILE != drafts.fingerprint(b"")
    drafts.keep(root, "notes/a.md", b"mine again", None)  # unknown: no stale base is left behind
    assert drafts.base_of(root, "notes/a.md") is None
    drafts.keep(root, "notes/a.md", b"mine", drafts.fingerprint(b"x"))
    assert drafts.discard(root, "notes/a.md") and drafts.discard(root, "notes/b.md")
    assert sorted(os.listdir(state)) == []  # the base goes with its draft


def test_a_state_folder_inside_the_root_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(root / ".state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = drafts.keep(root, "notes/a.md", b"x", None)
    assert path.parent == tmp_path / "cache" / "pmem-tui" / "drafts"
    # A symlinked state folder pointing into the root counts as inside.
    link = tmp_path / "link"
    link.symlink_to(root)
    monkeypatch.setenv("XDG_STATE_HOME", str(link))
    assert not drafts.draft_path(root, "notes/a.md").is_relative_to(link)
    assert list(root.rglob("*")) == []


def test_a_symlink_or_fifo_in_the_drafts_place_is_not_followed(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    target = tmp_path / "target.md"
    target.write_bytes(b"not a draft")
    place = drafts.draft_path(root, "notes/a.md")
    place.parent.mkdir(parents=True)
    place.symlink_to(target)
    assert drafts.read(root, "notes/a.md") is None
    drafts.keep(root, "notes/a.md", b"draft", None)  # replaces the link itself
    assert target.read_bytes() == b"not a draft" and not place.is_symlink()
    place.unlink()
    os.mkfifo(place)
    assert drafts.read(root, "notes/a.md") is None  # returns at once: no writer is awaited


@settings(max_examples=40, deadline=None)
@given(name=st.text(st.characters(blacklist_characters="/\0"), min_size=1, max_size=300))
@example(name="\ud800")  # a lone surrogate that surrogateescape cannot encode (found by this property)
def test_any_file_name_gets_a_short_draft_name_in_the_drafts_folder(name: str) -> None:
    env = {"XDG_STATE_HOME": "/s", "XDG_CACHE_HOME": "/c"}
    path = drafts.draft_path(Path("/nonexistent-root"), f"notes/{name}", env)
    assert path.parent == Path("/s/pmem-tui/drafts")
    assert len(os.fsencode(path.name)) <= 141
