"""Memory roots written by hand, as an agent following the specs would write them, and byte checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pmem_tui.cli import main
from pmem_tui.core.textio import line_ending, split_bom, split_lines
from tests.conftest import write

OLD_LINE = "- [Old](projects/old.md) — the old importer"
X_LINE = "- notes/x.md — a note an agent archived"

# The record of projects/old.md in every shape an agent plausibly writes (LF; variants convert them).
SHAPES: dict[str, str] = {
    "ours": (
        "## projects/old.md\n"
        "- Original path: `projects/old.md`\n"
        f"- Index line: `{OLD_LINE}`\n"
        "- Archived: 2026-11-01\n"
        "- Reason: shipped\n"
    ),
    "bold-heading": (
        "### Archived: projects/old.md\n"
        f"**Index line:** `{OLD_LINE}`\n"
        "**Archived:** 2026-11-01\n"
        "**Reason:** shipped\n"
    ),
    "dated-heading": f'## 2026-11-01 — projects/old.md\n- Why: shipped\n- Entry: "{OLD_LINE}"\n',
    "nested-list": (
        "- **projects/old.md**\n"
        f"  - Line: `{OLD_LINE}`\n"
        "  - Date archived: Sun 2026-11-01\n"
        "  - Reason: shipped\n"
    ),
    "inline-list": (
        f"- **projects/old.md** — archived 2026-11-01 — reason: shipped — index line: `{OLD_LINE}`\n"
    ),
    "inline-plain": f"- `projects/old.md` — archived 1 Nov 2026 — reason: shipped — index line: {OLD_LINE}\n",
    "headless": (
        f"Original path: projects/old.md\nIndex line: `{OLD_LINE}`\nArchived: 2026-11-01\nReason: shipped\n"
    ),
    "table": (
        "| File | Index line | Archived | Reason |\n"
        "|---|---|---|---|\n"
        f"| projects/old.md | `{OLD_LINE}` | 2026-11-01 | shipped |\n"
    ),
    "chinese": (
        "## projects/old.md\n"
        "- 原路径：projects/old.md\n"
        f"- 索引行：`{OLD_LINE}`\n"
        "- 归档日期：2026年11月1日\n"
        "- 原因：已完成\n"
    ),
    "quote-block": f"### projects/old.md\nIndex line:\n> {OLD_LINE}\nArchived: 2026-11-01\nReason: shipped\n",
}
SHAPE_REASON = {"chinese": "已完成"}

HEAD = "# Archive index\n\nWhat I archived, and why. — the agent\n\n"
OTHER = (
    "## notes/other.md\n- Original path: `notes/other.md`\n- Index line: `- notes/other.md — other`\n"
    "- Archived: 2026-10-02\n"
)
LIST_BELOW = f"- notes/x.md — archived 2026-10-01 — reason: done — index line: `{X_LINE}`\n"
PROSE = "A paragraph the agent wrote between records.\n"
TAIL = "Closing remark, not a record.\n"

ACTIVE_INDEX = "# Index\n\n## Projects\n- [Keep](projects/keep.md) — kept\n\nNotes the agent keeps here.\n"


@dataclass(frozen=True)
class Variant:
    eol: str
    bom: bool
    final_newline: bool
    location: str  # where the agent put the archived file


VARIANTS = {
    "lf": Variant("\n", False, True, "_archive/projects/old.md"),
    "crlf-bom-literal": Variant("\r\n", True, True, "_archive/old.md"),
    "no-final-newline-literal": Variant("\n", False, False, "_archive/2026/old.md"),
    "crlf-no-final-newline": Variant("\r\n", False, False, "_archive/projects/old.md"),
}


def shape(text: str, v: Variant) -> str:
    """`text` (LF, ending with a newline) in the variant's line ending, BOM and final newline."""
    out = text.replace("\n", v.eol)
    if not v.final_newline:
        out = out[: -len(v.eol)]
    return ("\ufeff" if v.bom else "") + out


@dataclass(frozen=True)
class Built:
    root: Path
    archive: str  # the archive index as written
    lo: int  # the record's first line in it (0-based, after the BOM)
    hi: int  # one past its last line
    index: str  # _index.md as written


def build(tmp_path: Path, name: str, v: Variant) -> Built:
    """A root with projects/old.md archived by hand in shape `name`, with other records and prose around."""
    parts = [HEAD, OTHER, "\n", PROSE, "\n"]
    lo = sum(p.count("\n") for p in parts)
    record = SHAPES[name]
    hi = lo + record.count("\n")
    parts.append(record)
    if v.final_newline:  # the record sits in the middle; otherwise it is the last thing in the file
        parts += ["\n", LIST_BELOW, "\n", TAIL]
    archive = shape("".join(parts), v)
    index = shape(ACTIVE_INDEX, v)
    root = tmp_path / "mem"
    for d in ("_core", "projects", "notes", "_archive/_trash"):
        (root / d).mkdir(parents=True, exist_ok=True)
    write(root, "_core/me.md", "# Me\n")
    write(root, "_index.md", index)
    write(root, "projects/keep.md", "# Keep\n")
    write(root, "_archive/_index.md", archive)
    write(root, v.location, "# Old\n\nThe old importer.\n")
    write(root, "_archive/notes/other.md", "# Other\n")
    if v.final_newline:
        write(root, "_archive/notes/x.md", "# X\n")
    return Built(root, archive, lo, hi, index)


def read(root: Path, rel: str) -> str:
    return (root / rel).read_bytes().decode("utf-8")


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


Pm = Callable[..., Run]


def cli(capsys: pytest.CaptureFixture[str]) -> Pm:
    """Run the CLI in this process (fast): ``pm(root, "recover", "projects/old.md", "--yes")``."""

    def run(root: Path, *args: str) -> Run:
        capsys.readouterr()
        code = main(["--root", str(root), *args])
        got = capsys.readouterr()
        return Run(code, got.out, got.err)

    return run


def changes_outside(before: str, after: str, lo: int, hi: int) -> list[str]:
    """What changed from `before` to `after` outside lines [lo, hi) of `before`; empty when only the
    record's bytes changed. One blank line next to the record, and the line ending just before it (a record
    removed from the end of a file without final newline takes it along), count as the record's."""
    bom_a, body_a = split_bom(before)
    bom_b, body_b = split_bom(after)
    if bom_a != bom_b:
        return ["the BOM changed"]
    a = split_lines(body_a)
    if lo > 0 and not a[lo - 1].strip():
        lo -= 1
    if hi < len(a) and not a[hi].strip():
        hi += 1
    start = sum(len(x) for x in a[:lo])
    start -= len(line_ending(a[lo - 1])) if lo > 0 else 0
    end = sum(len(x) for x in a[:hi])
    short = min(len(body_a), len(body_b))
    n = 0  # common prefix
    while n < short and body_a[n] == body_b[n]:
        n += 1
    m = 0  # common suffix
    while m < short and body_a[-1 - m] == body_b[-1 - m]:
        m += 1
    # `after` is `before` with only [start, end) replaced, for some split of the bytes they share.
    keep_tail = len(body_a) - end
    if n >= start and m >= keep_tail and start + keep_tail <= short:
        return []
    changed = (n, len(body_a) - m)
    return [f"bytes {changed[0]}..{changed[1]} of {body_a!r} changed, outside {start}..{end}: {body_b!r}"]
