"""The one cache layer (`core/cache.py`): its freshness rule, its framed files, and what it does with a cache
that is damaged, a link, a FIFO or unwritable (a miss, never an error, never a write elsewhere)."""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmem_tui.core import cache, cache_home
from tests.conftest import write

NOW = 1_800_000_000_000_000_000
OLD = NOW - 10 * cache.RACY_NS
NAME = "unit-v1.bin"

stamps = st.tuples(st.integers(0, 2**40), st.integers(0, 2**63), st.integers(0, 2**63))


# -- the freshness rule -----------------------------------------------------------------------------


def test_an_unchanged_file_out_of_the_racy_window_is_fresh() -> None:
    assert cache.fresh((10, OLD, OLD), (10, OLD, OLD), NOW)


@pytest.mark.parametrize(
    "now",
    [(11, OLD, OLD), (10, OLD + 1, OLD), (10, OLD, OLD + 1)],
    ids=["size-change", "mtime-change", "ctime-only-change"],
)
def test_any_change_of_the_stamp_is_stale(now: tuple[int, int, int]) -> None:
    assert not cache.fresh((10, OLD, OLD), now, NOW)


@pytest.mark.parametrize(
    "changed", [(OLD, NOW - cache.RACY_NS), (NOW - cache.RACY_NS, OLD)], ids=["mtime", "ctime"]
)
def test_a_racy_file_is_never_fresh(changed: tuple[int, int]) -> None:
    """Changed within one timestamp tick before the cache's clock started: a second write may not show."""
    stamp = (10, *changed)
    assert not cache.fresh(stamp, stamp, NOW)
    assert cache.fresh(stamp, stamp, NOW + 1)  # one nanosecond later it is out of the window


@given(then=stamps, now=stamps, written=st.integers(0, 2**63))
def test_fresh_is_exactly_the_rule(
    then: tuple[int, int, int], now: tuple[int, int, int], written: int
) -> None:
    expected = then == now and max(now[1], now[2]) < written - cache.RACY_NS
    assert cache.fresh(then, now, written) is expected
    assert not cache.fresh(list(now), now, 2**63)  # a stored value of another type never matches


# -- framed files -------------------------------------------------------------------------------------


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(key=st.binary(max_size=64), value=st.binary(max_size=256), other=st.binary(max_size=64))
def test_a_value_comes_back_only_for_its_key(memory: Path, key: bytes, value: bytes, other: bytes) -> None:
    assert cache.write(memory, NAME, value, key)
    assert cache.read(memory, NAME, key) == value
    if other != key:
        assert cache.read(memory, NAME, other) is None


def _written(memory: Path) -> bytes:
    assert cache.write(memory, NAME, b"the value", b"the key")
    folder = cache.folder(memory, create=False)
    assert folder is not None
    return (Path(folder) / NAME).read_bytes()


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(data=st.data())
def test_a_damaged_file_is_a_miss(memory: Path, data: st.DataObject) -> None:
    good = _written(memory)
    damage = data.draw(st.sampled_from(["truncate", "flip", "replace"]))
    if damage == "truncate":
        bad = good[: data.draw(st.integers(0, len(good) - 1))]
    elif damage == "flip":
        at = data.draw(st.integers(0, len(good) - 1))
        bit = data.draw(st.integers(0, 7))
        bad = good[:at] + bytes([good[at] ^ (1 << bit)]) + good[at + 1 :]
    else:
        bad = data.draw(st.binary(max_size=300))
    path = cache_file_path(memory)
    path.write_bytes(bad)
    assert cache.read(memory, NAME, b"the key") is None


def cache_file_path(memory: Path) -> Path:
    folder = cache_home.folder_for(memory)
    assert folder is not None
    return Path(folder) / NAME


def test_a_file_renamed_to_another_cache_s_name_is_a_miss(memory: Path) -> None:
    good = _written(memory)
    write(cache_file_path(memory).parent, "other-v1.bin", good)
    assert cache.read(memory, "other-v1.bin", b"the key") is None


# -- the folder: a link, a FIFO, unwritable --------------------------------------------------------------


@pytest.mark.parametrize("kind", ["symlink", "fifo", "file"])
def test_a_cache_folder_that_is_not_a_real_folder_is_never_used(
    memory: Path, tmp_path: Path, kind: str
) -> None:
    folder = cache_file_path(memory).parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if kind == "symlink":
        folder.symlink_to(elsewhere)
    elif kind == "fifo":
        os.mkfifo(folder)
    else:
        folder.write_bytes(b"not a folder")
    assert cache.folder(memory, create=True) is None
    assert not cache.write(memory, NAME, b"value")
    assert cache.read(memory, NAME) is None
    assert list(elsewhere.iterdir()) == []


def test_a_cache_file_that_is_a_link_is_not_followed(memory: Path, tmp_path: Path) -> None:
    good = _written(memory)
    stash = tmp_path / "stash.bin"
    stash.write_bytes(good)
    cache_file_path(memory).unlink()
    cache_file_path(memory).symlink_to(stash)
    assert cache.read(memory, NAME, b"the key") is None


def test_an_unwritable_cache_file_is_not_written_and_leaves_nothing(memory: Path) -> None:
    """The name is taken by a folder holding a file: `os.replace` fails, whoever runs the test (even root)."""
    folder = cache.folder(memory, create=True)
    assert folder is not None
    write(Path(folder) / NAME, "inside", "kept\n")
    assert not cache.write(memory, NAME, b"value")
    assert sorted(p.name for p in Path(folder).iterdir()) == [NAME]
    assert cache.read(memory, NAME) is None


def test_a_root_that_is_not_a_folder_has_no_cache(tmp_path: Path) -> None:
    write(tmp_path, "a-file", "x\n")
    assert cache.folder(tmp_path / "a-file", create=True) is None
    assert not cache.write(tmp_path / "a-file", NAME, b"value")
    assert cache.read(tmp_path / "missing", NAME) is None


# -- per-file entries -----------------------------------------------------------------------------------


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache's clock starts 10 s from now: the files a test just wrote are out of the racy window."""
    monkeypatch.setattr(cache, "clock", lambda: time.time_ns() + 10_000_000_000)


def _stamp(path: Path) -> tuple[int, int, int]:
    st_ = path.stat()
    return (st_.st_size, st_.st_mtime_ns, st_.st_ctime_ns)


def test_an_entry_is_trusted_until_its_file_changes(memory: Path, later: None) -> None:
    note = memory / "notes/standup.md"
    first = cache.FileEntries(memory, NAME)
    assert first.get("notes/standup.md", _stamp(note)) is None
    first.put("notes/standup.md", _stamp(note), ("title", 1))
    first.derive("digest", [1, 2])
    assert first.save()
    second = cache.FileEntries(memory, NAME)
    assert second.get("notes/standup.md", _stamp(note)) == ("title", 1)
    assert second.derived("digest") == [1, 2]
    assert not second.save()  # nothing changed: not rewritten
    os.chmod(note, 0o600)  # the ctime moves, nothing else
    assert cache.FileEntries(memory, NAME).get("notes/standup.md", _stamp(note)) is None


def test_an_entry_written_in_the_racy_window_is_read_again(memory: Path) -> None:
    note = memory / "notes/standup.md"
    first = cache.FileEntries(memory, NAME)  # the real clock: the file was written just now
    first.put("notes/standup.md", _stamp(note), "value")
    assert first.save()
    assert cache.FileEntries(memory, NAME).get("notes/standup.md", _stamp(note)) is None


def test_only_what_a_run_used_is_kept(memory: Path, later: None) -> None:
    first = cache.FileEntries(memory, NAME)
    first.put("a.md", (1, 2, 3), "a")
    first.put("b.md", (1, 2, 3), "b")
    first.derive("old", "x")
    assert first.save()
    second = cache.FileEntries(memory, NAME)
    assert second.get("a.md", (1, 2, 3)) == "a"
    assert second.save()  # b.md and the digest are gone: rewritten without them
    third = cache.FileEntries(memory, NAME)
    assert third.get("b.md", (1, 2, 3)) is None
    assert third.derived("old") is None


payloads = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4).map(tuple)
        | st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(payload=payloads, path=st.text(max_size=6), stamp=stamps)
def test_any_well_framed_payload_loads_without_error(
    memory: Path, payload: object, path: str, stamp: tuple[int, int, int]
) -> None:
    """Whatever a well-framed file holds, loading and asking never raises; a value comes back only with the
    stamp it was stored for."""
    assert cache.write(memory, NAME, marshal.dumps(payload))
    entries = cache.FileEntries(memory, NAME)
    value = entries.get(path, stamp)
    if value is not None:
        assert isinstance(payload, tuple) and payload[1][path][0] == stamp
    entries.derived(path)
    entries.save()
