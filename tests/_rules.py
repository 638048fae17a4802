"""The spec rules (`RULES.md`) and the rule report the test suite writes. Standard library only.

Shared by the pytest plugin (`tests/conformance_plugin.py`), which tags every test with its rule ids and
writes the report, and by `scripts/conformance.py`, which turns the report into the conformance table.
Nothing here imports pmem_tui or pytest.

The rule report (JSON, `REPORT_VERSION`)::

    {
      "version": 1,
      "rules_file": "/abs/path/RULES.md" | null,   # what the ids were checked against (null: not found)
      "complete": true,                            # the whole suite ran: no selection, no early stop
      "incomplete_because": [],                    # why not, in words
      "args": ["tests"],                           # pytest's arguments
      "exitstatus": 0,
      "tests": [{"nodeid": "...", "rules": ["PM-ARC-4"], "outcome": "passed"}, ...],
      "unknown": {"PM-ARC-44": ["nodeid", ...]}    # ids not in the rules file (those tests fail)
    }

`outcome` is one of `OUTCOMES`; only "passed" counts as evidence that a rule holds.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
# The project keeps its own copy of the specs (docs/spec/), so a clone stands alone.
DEFAULT_RULES = Path("docs") / "spec" / "RULES.md"
RULES_ENV = "PMEM_RULES"
# Gitignored (`build/`), so that a plain `pytest -q` writes it and nobody commits it.
DEFAULT_REPORT = Path("build") / "rules-report.json"
REPORT_VERSION = 1
OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "not run")

# `PM-ARC-4`, `PM-LAYOUT-1`, `PL-12`: a prefix, then dash-separated upper-case words and numbers.
RULE_ID = re.compile(r"[A-Z]+(?:-[A-Z0-9]+)+")
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True)
class Rule:
    id: str
    text: str
    group: str  # the `##` heading the rule's table sits under, e.g. "Persistent memory"


def _cells(row: str) -> list[str]:
    """The cells of a Markdown table row, `\\|` kept as a literal pipe."""
    out: list[str] = []
    cell: list[str] = []
    i = 0
    while i < len(row):
        ch = row[i]
        if ch == "\\" and i + 1 < len(row) and row[i + 1] == "|":
            cell.append("|")
            i += 2
            continue
        if ch == "|":
            out.append("".join(cell).strip())
            cell = []
        else:
            cell.append(ch)
        i += 1
    out.append("".join(cell).strip())
    return out


def parse_rules(text: str) -> list[Rule]:
    """Every `| id | rule |` table row of RULES.md, in order. Raises ValueError on a repeated id."""
    rules: list[Rule] = []
    seen: set[str] = set()
    group = ""
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            if len(heading.group(1)) == 2:
                group = heading.group(2)
            continue
        row = _ROW.match(line)
        if not row:
            continue
        cells = _cells(row.group(1))
        if len(cells) < 2 or not RULE_ID.fullmatch(cells[0]):
            continue
        rule_id, rule_text = cells[0], " | ".join(cells[1:]) if len(cells) > 2 else cells[1]
        if rule_id in seen:
            raise ValueError(f"rule {rule_id} is listed twice")
        seen.add(rule_id)
        rules.append(Rule(rule_id, rule_text, group))
    return rules


def load_rules(path: Path) -> list[Rule]:
    rules = parse_rules(path.read_text(encoding="utf-8"))
    if not rules:
        raise ValueError(f"{path} lists no rules (expected `| PM-… | rule |` table rows)")
    return rules


def rules_path(repo_root: Path, given: str | os.PathLike[str] | None = None) -> Path:
    """RULES.md: `given`, else $PMEM_RULES, else docs/spec/RULES.md (the project's copy)."""
    chosen = given if given else os.environ.get(RULES_ENV) or (repo_root / DEFAULT_RULES)
    path = Path(chosen)
    return (path if path.is_absolute() else Path.cwd() / path).resolve()


@dataclass(frozen=True)
class TaggedTest:
    nodeid: str
    rules: tuple[str, ...]
    outcome: str

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


@dataclass(frozen=True)
class RuleReport:
    rules_file: str | None
    complete: bool
    incomplete_because: tuple[str, ...]
    args: tuple[str, ...]
    exitstatus: int | None
    tests: tuple[TaggedTest, ...]
    unknown: dict[str, tuple[str, ...]]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "rules_file": self.rules_file,
            "complete": self.complete,
            "incomplete_because": list(self.incomplete_because),
            "args": list(self.args),
            "exitstatus": self.exitstatus,
            "tests": [{"nodeid": t.nodeid, "rules": list(t.rules), "outcome": t.outcome} for t in self.tests],
            "unknown": {k: list(v) for k, v in sorted(self.unknown.items())},
        }


def write_report(report: RuleReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # several runs may share one work tree
    tmp.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_report(path: Path) -> RuleReport:
    """Raises ValueError when the file is not a rule report this code understands."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not JSON: {err}") from err
    if not isinstance(raw, dict) or raw.get("version") != REPORT_VERSION:
        raise ValueError(f"{path} is not a version {REPORT_VERSION} rule report")
    try:
        tests = tuple(
            TaggedTest(str(t["nodeid"]), tuple(str(r) for r in t["rules"]), str(t["outcome"]))
            for t in raw["tests"]
        )
        return RuleReport(
            rules_file=None if raw.get("rules_file") is None else str(raw["rules_file"]),
            complete=bool(raw["complete"]),
            incomplete_because=tuple(str(x) for x in raw.get("incomplete_because", ())),
            args=tuple(str(a) for a in raw.get("args", ())),
            exitstatus=None if raw.get("exitstatus") is None else int(raw["exitstatus"]),
            tests=tests,
            unknown={str(k): tuple(str(n) for n in v) for k, v in dict(raw.get("unknown", {})).items()},
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path} is not a well-formed rule report: {err!r}") from err
