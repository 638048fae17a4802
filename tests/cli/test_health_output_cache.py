"""`health`'s stored output (`cli/health_quick.py`): a plain `health` whose listing is unchanged prints what
the full run printed (its stats those of a reused report) without running the check; any change, another
option or a racy listing goes the full way."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import pytest

from pmem_tui.cli import health_quick
from pmem_tui.core import health, status_cache
from pmem_tui.core.health import HealthStats
from tests.cli.test_status_cache import later  # noqa: F401  (the fixture: out of the racy window)
from tests.conftest import cache_file, command_output
from tests.core.test_health import build

JSON_FILE = status_cache.OUTPUT_FILES["health-json"]
TEXT_FILE = status_cache.OUTPUT_FILES["health-text"]

Health = Callable[..., str]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return build(tmp_path / "mem")


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots the full check ran on (a stored output runs none)."""
    seen: list[Path] = []
    monkeypatch.setattr(health, "check_health", functools.partial(_counted, health.check_health, seen))
    return seen


def _counted(real: Callable[..., object], seen: list[Path], root: Path, **kwargs: object) -> object:
    seen.append(root)
    return real(root, **kwargs)


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Health:
    return command_output(capsys, "health")


def _without_stats(out: str) -> dict[str, object]:
    data = json.loads(out)
    data.pop("stats")
    return data


@pytest.mark.usefixtures("later")
def test_a_stored_json_output_is_the_full_runs_with_a_reused_reports_stats(
    planted: Path, checks: list[Path], run: Health
) -> None:
    first = run(planted, "--json")
    assert checks == [planted]
    assert cache_file(planted, JSON_FILE).is_file()
    again = run(planted, "--json")
    assert checks == [planted]  # no check: the stored output
    assert _without_stats(again) == _without_stats(first)
    stats = json.loads(again)["stats"]
    files = json.loads(first)["stats"]["files"]
    assert stats == asdict(
        HealthStats(files=files, cache="report", cache_hits=files, seconds=stats["seconds"])
    )
    assert again.endswith("\n  }\n}\n")


@pytest.mark.usefixtures("later")
def test_a_stored_text_output_is_the_full_runs(planted: Path, checks: list[Path], run: Health) -> None:
    first = run(planted)
    assert cache_file(planted, TEXT_FILE).is_file()
    assert run(planted) == first
    assert checks == [planted]


@pytest.mark.usefixtures("later")
def test_a_change_is_a_miss(planted: Path, checks: list[Path], run: Health) -> None:
    run(planted, "--json")
    target = sorted((planted / "notes").glob("*.md"))[0]
    target.write_text(target.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    changed = run(planted, "--json")
    assert checks == [planted, planted]
    assert _without_stats(run(planted, "--json")) == _without_stats(changed)
    assert checks == [planted, planted]  # stored again for the new listing


@pytest.mark.usefixtures("later")
@pytest.mark.parametrize("extra", [["--no-cache"], ["--inactive-days", "30"]])
def test_other_options_run_the_check(
    planted: Path, checks: list[Path], run: Health, extra: list[str]
) -> None:
    run(planted, "--json", *extra)
    run(planted, "--json", *extra)
    assert checks == [planted, planted]


def test_nothing_is_stored_while_the_listing_is_racy(planted: Path, checks: list[Path], run: Health) -> None:
    run(planted, "--json")  # files written just now: within the racy window of this run
    assert not cache_file(planted, JSON_FILE).exists()
    run(planted, "--json")
    assert checks == [planted, planted]


@pytest.mark.parametrize(
    ("argv", "plain"),
    [
        (["health"], True),
        (["health", "--json"], True),
        (["--root", "/m", "health", "--json"], True),
        (["health", "--json", "--root", "/m"], True),
        (["health", "--no-cache"], False),
        (["health", "--inactive-days", "30"], False),
        (["health", "--js"], False),
        (["health", "--help"], False),
        (["status"], False),
        (["--root", "", "health"], False),
    ],
)
def test_only_a_plain_health_is_served_here(argv: list[str], plain: bool) -> None:
    from pmem_tui.cli.status import plain_command

    assert (plain_command(argv, "health", ("--json",)) is not None) is plain


def test_the_stats_text_is_json_texts() -> None:
    from pmem_tui.cli.json_text import dumps_indented

    stats = asdict(HealthStats(files=7, cache="report", cache_hits=7, seconds=0.25))
    assert health_quick._stats_text(7, 0.25).decode() == dumps_indented({"stats": stats})[1:]
