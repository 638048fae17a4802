"""The layer contract: core never imports Textual or Rich; non-TUI commands never import Textual; the map
(docs/architecture.md) lists core's modules under the layers import-linter checks."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

CORE = Path(__file__).parents[1] / "pmem_tui" / "core"
CORE_MODULES = sorted(
    "pmem_tui.core." + ".".join(p.relative_to(CORE).with_suffix("").parts)
    for p in CORE.rglob("*.py")
    if p.stem != "__init__"
)


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {line.split(".")[0] for line in out.splitlines()}


def test_core_imports_no_ui_toolkit() -> None:
    assert len(CORE_MODULES) >= 10  # the glob found the package
    loaded = _loaded_after("\n".join(f"import {m}" for m in CORE_MODULES))
    assert "textual" not in loaded
    assert "rich" not in loaded


@pytest.mark.parametrize("argv", [["status", "--json"], ["--version"], ["upgrade"], ["doctor"]])
def test_cli_commands_do_not_import_textual(tmp_path: Path, argv: list[str]) -> None:
    code = (
        "import sys\nfrom pmem_tui import cli\n"
        f"try:\n    cli.main({['--root', str(tmp_path), *argv]!r})\nexcept SystemExit:\n    pass"
    )
    loaded = _loaded_after(code)
    assert "pmem_tui" in loaded
    assert "textual" not in loaded


def test_the_map_lists_each_core_module_under_its_layer() -> None:
    """docs/architecture.md's core sections are the layers in `pyproject.toml`, one row a module."""
    repo = Path(__file__).parents[1]
    config = tomllib.loads((repo / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (core,) = [c for c in contracts if c.get("containers") == ["pmem_tui.core"]]
    present = {p.stem for p in (repo / "pmem_tui" / "core").iterdir() if p.suffix == ".py" or p.is_dir()}
    layers = [{name.strip("() \n\\") for name in layer.split(":")} & present for layer in core["layers"]]
    doc = (repo / "docs" / "architecture.md").read_text("utf-8")
    core_doc = doc[doc.index("## `pmem_tui/core/`") : doc.index("## Fronts")]
    sections = [
        {m.split("/")[0].split(".")[0] for m in re.findall(r"^\| `([\w/]+(?:\.py)?)` \|", part, re.M)}
        for part in core_doc.split("\n### ")[1:]
    ]
    assert sections == layers
    assert set().union(*layers) == present - {"__init__", "__pycache__"}


def test_no_module_over_500_lines() -> None:
    """Small modules with names that explain themselves: none of the package's is over 500 lines."""
    package = Path(__file__).parents[1] / "pmem_tui"
    files = package.rglob("*.py")
    sizes = {f.relative_to(package).as_posix(): len(f.read_bytes().splitlines()) for f in files}
    assert len(sizes) > 100
    assert {name: lines for name, lines in sizes.items() if lines > 500} == {}
