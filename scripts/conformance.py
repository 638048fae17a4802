#!/usr/bin/env python3
"""The spec conformance table: every rule of RULES.md, the tests that check it, and whether they passed.

    python scripts/conformance.py            # after `pytest -q`, which writes build/rules-report.json
    python scripts/conformance.py --run      # run the suite first (pytest -q), then the same
    python scripts/conformance.py --check    # fail when docs/conformance.md is not what this run gives

It reads the rule report that the suite's pytest plugin writes (`tests/conformance_plugin.py`), the rules
(`--rules`, default `$PMEM_RULES`, else the project's own copy `docs/spec/RULES.md`) and the documented
reasons why some rules do not apply to a TUI (`docs/conformance-reasons.md`, section "Not applicable to a
TUI"). It prints the table and writes it to `docs/conformance.md`.

Exit status: 0 when every rule has a passing test or a documented reason; 1 when a rule has neither, when a
test or a reason names an unknown rule, or when `--check` finds the committed table out of date; 2 when an
input is missing or unreadable, or the report comes from a partial run (only part of the suite ran:
`--allow-partial` prints the table anyway, and writes it, marked as partial, only to an explicit `--output`).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests._rules import (  # noqa: E402  (the repository root is put on the path just above)
    DEFAULT_REPORT,
    Rule,
    RuleReport,
    TaggedTest,
    load_rules,
    read_report,
    rules_path,
)

DEFAULT_REASONS = Path("docs") / "conformance-reasons.md"
DEFAULT_OUTPUT = Path("docs") / "conformance.md"
REASONS_SECTION = "not applicable to a tui"
# Rules of the spec that the product does not build yet: each names the open issue that builds it. Such a rule
# passes the conformance step (it is honest about the gap) and is listed apart in the table.
PENDING_SECTION = "not built yet"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


class Usage(Exception):
    """A missing or unreadable input: exit 2 with one sentence."""


# -- reasons -------------------------------------------------------------------------------------------------


def parse_reasons(text: str, section: str = REASONS_SECTION) -> dict[str, str]:
    """The `### RULE-ID` entries of one section ("Not applicable to a TUI" unless `section` names another,
    such as "Not built yet"): rule id -> reason (one paragraph).

    The heading may go on after the id (`### PM-SAVE-6 — vague updates`); the reason is the text up to the
    next heading, with its lines joined. An entry without text, or a repeated id, raises ValueError.
    """
    reasons: dict[str, str] = {}
    in_section = False
    current: str | None = None
    body: list[str] = []
    in_fence = False

    def close() -> None:
        if current is None:
            return
        reason = " ".join(" ".join(body).split())
        if not reason:
            raise ValueError(f"the reason for {current} is empty")
        reasons[current] = reason

    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2)
            if level <= 2:
                close()
                current, body = None, []
                in_section = title.strip().lower().startswith(section)
                continue
            if in_section:
                close()
                body = []
                current = title.split()[0] if title.split() else ""
                if current in reasons:
                    raise ValueError(f"{current} has two reasons")
                continue
        if current is not None:
            body.append(line.strip())
    close()
    return reasons


# -- the table -----------------------------------------------------------------------------------------------


@dataclass
class TestGroup:
    """The cases of one test function (parametrizations collapsed)."""

    name: str  # nodeid without the parameters and without the leading `tests/`
    outcomes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return self.outcomes.count("passed")

    def label(self) -> str:
        n = len(self.outcomes)
        cases = f" ({n} cases)" if n > 1 else ""
        others = sorted({o for o in self.outcomes if o != "passed"})
        bad = ", ".join(f"{self.outcomes.count(o)} {o}" for o in others)
        return f"{self.name}{cases}" + (f" [{bad}]" if bad else "")


@dataclass
class RuleRow:
    rule: Rule
    groups: list[TestGroup]
    reason: str | None
    pending: str | None = None  # "not built yet": the issue that builds it

    @property
    def total(self) -> int:
        return sum(len(g.outcomes) for g in self.groups)

    @property
    def passed(self) -> int:
        return sum(g.passed for g in self.groups)

    @property
    def status(self) -> str:
        """ "pass" (a passing test), "n/a" (no passing test, a documented reason), "pending" (not built yet,
        naming its issue), "FAIL" or "MISSING"."""
        if self.passed:
            return "pass"
        if self.reason is not None:
            return "n/a"
        if self.pending is not None:
            return "pending"
        return "FAIL" if self.groups else "MISSING"

    @property
    def ok(self) -> bool:
        return self.status in ("pass", "n/a", "pending")

    def verdict(self) -> str:
        if self.status == "pass":
            return f"passed {self.passed}/{self.total}"
        if self.status == "n/a":
            return "not applicable to a TUI"
        if self.status == "pending":
            return "not built yet"
        if self.status == "MISSING":
            return "NO TEST"
        counts: dict[str, int] = {}
        for g in self.groups:
            for o in g.outcomes:
                counts[o] = counts.get(o, 0) + 1
        return "NOT PASSED: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))


def _group_name(nodeid: str) -> str:
    name = nodeid.split("[", 1)[0]
    return name[len("tests/") :] if name.startswith("tests/") else name


def build_rows(
    rules: Sequence[Rule],
    report: RuleReport,
    reasons: dict[str, str],
    pending: dict[str, str] | None = None,
) -> list[RuleRow]:
    by_rule: dict[str, dict[str, TestGroup]] = {r.id: {} for r in rules}
    for test in report.tests:
        for rule_id in test.rules:
            groups = by_rule.get(rule_id)
            if groups is None:
                continue
            name = _group_name(test.nodeid)
            groups.setdefault(name, TestGroup(name)).outcomes.append(test.outcome)
    return [
        RuleRow(
            r,
            sorted(by_rule[r.id].values(), key=lambda g: g.name),
            reasons.get(r.id),
            (pending or {}).get(r.id),
        )
        for r in rules
    ]


def unknown_ids(
    rules: Sequence[Rule], tests: Sequence[TaggedTest], report: RuleReport
) -> dict[str, list[str]]:
    known = {r.id for r in rules}
    out: dict[str, list[str]] = {k: list(v) for k, v in report.unknown.items()}
    for test in tests:
        for rule_id in test.rules:
            if rule_id not in known:
                out.setdefault(rule_id, []).append(test.nodeid)
    return out


def _md(text: str) -> str:
    """Text for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _md_code(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def render_markdown(rows: Sequence[RuleRow], rules_label: str, rules_sha: str, report: RuleReport) -> str:
    tagged = [t for t in report.tests if t.rules]
    functions = {_group_name(t.nodeid) for t in tagged}
    counts: dict[str, int] = {}
    for t in tagged:
        counts[t.outcome] = counts.get(t.outcome, 0) + 1
    n_pass = sum(1 for r in rows if r.status == "pass")
    n_na = sum(1 for r in rows if r.status == "n/a")
    n_pending = sum(1 for r in rows if r.status == "pending")
    n_bad = len(rows) - n_pass - n_na - n_pending
    out = [
        "# Spec conformance",
        "",
        "<!-- Generated by `python scripts/conformance.py` from the rule report of a full `pytest -q` run. "
        "Do not edit: change the tests, or docs/conformance-reasons.md, and run it again. -->",
        "",
        "Every rule of the two specs, numbered in "
        f"`{rules_label}` (sha256 `{rules_sha[:12]}`), with the tests tagged "
        "`@pytest.mark.rule(...)` that check it and whether they passed in the run this table was built "
        "from. "
        "A rule without a passing test fails CI (`.ci/run`), unless "
        "[conformance-reasons.md](conformance-reasons.md) gives a reason it does not apply to a TUI; that "
        "file also says how the specs' chat wording is read for pmem-tui.",
        "",
        f"- Rules: {len(rows)}; with a passing test: {n_pass}; not applicable to a TUI: {n_na}; "
        + (f"not built yet: {n_pending}; " if n_pending else "")
        + f"without a passing test: {n_bad}.",
        f"- Tagged tests: {len(tagged)} ({len(functions)} test functions); in this run: "
        + ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
        + ".",
    ]
    if not report.complete:
        out.append(f"- **Built from a partial run**: {'; '.join(report.incomplete_because)}.")
    out.append("")
    groups: dict[str, list[RuleRow]] = {}
    for row in rows:
        groups.setdefault(row.rule.group or "Rules", []).append(row)
    for group, group_rows in groups.items():
        out += [f"## {group}", "", "| Rule | Text | Checked by | This run |", "|---|---|---|---|"]
        for row in group_rows:
            if row.groups:
                tests = "<br>".join(_md_code(g.name) + _md(g.label()[len(g.name) :]) for g in row.groups)
            else:
                tests = "—"
            verdict = row.verdict()
            if row.status == "n/a" and row.reason:
                verdict += ": " + row.reason
            if row.status == "pending" and row.pending:
                verdict += ": " + row.pending
            out.append(f"| {row.rule.id} | {_md(row.rule.text)} | {tests} | {_md(verdict)} |")
        out.append("")
    return "\n".join(out)


def render_text(rows: Sequence[RuleRow], brief: bool) -> list[str]:
    width = max(len(r.rule.id) for r in rows)
    vwidth = max(len(r.verdict()) for r in rows)
    lines = []
    for row in rows:
        lines.append(f"{row.rule.id:<{width}}  {row.verdict():<{vwidth}}  {row.rule.text}")
        pad = " " * (width + 2)
        if row.status == "n/a" and row.reason:
            lines.append(f"{pad}reason: {row.reason}")
        if row.status == "pending" and row.pending:
            lines.append(f"{pad}not built yet: {row.pending}")
        if not brief:
            lines += [f"{pad}- {g.label()}" for g in row.groups]
    return lines


# -- main ----------------------------------------------------------------------------------------------------


def _from_repo(value: str | None, default: Path) -> Path:
    if value is None:
        return REPO / default
    path = Path(value)
    return path if path.is_absolute() else Path.cwd() / path


def _label(path: Path) -> str:
    try:
        return os.path.relpath(path, REPO).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return path.as_posix()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="conformance.py", description="Print the spec conformance table and write docs/conformance.md."
    )
    p.add_argument(
        "--rules", metavar="PATH", help="RULES.md (default: $PMEM_RULES, else docs/spec/RULES.md)"
    )
    p.add_argument(
        "--report", metavar="PATH", help=f"the rule report pytest wrote (default: {DEFAULT_REPORT})"
    )
    p.add_argument("--reasons", metavar="PATH", help=f"documented reasons (default: {DEFAULT_REASONS})")
    p.add_argument(
        "--output", metavar="PATH", help=f"the Markdown table to write (default: {DEFAULT_OUTPUT})"
    )
    p.add_argument("--no-write", action="store_true", help="print the table only")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when the output file differs")
    p.add_argument("--run", action="store_true", help="run `pytest -q` first (it writes the report)")
    p.add_argument(
        "--allow-partial", action="store_true", help="accept a report from a partial run (no write)"
    )
    p.add_argument("--brief", action="store_true", help="do not list the tests under each rule")
    return p


def _run_pytest(report: Path) -> int:
    cmd = [sys.executable, "-m", "pytest", "-q", f"--rules-report={report}"]
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=REPO)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _main(args)
    except Usage as err:
        print(f"conformance: {err}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:
    rules_file = rules_path(REPO, args.rules)
    report_file = _from_repo(args.report, DEFAULT_REPORT)
    reasons_file = _from_repo(args.reasons, DEFAULT_REASONS)
    output_file = _from_repo(args.output, DEFAULT_OUTPUT)

    pytest_status = 0
    if args.run:
        pytest_status = _run_pytest(report_file)
        if pytest_status not in (0, 1):
            raise Usage(f"pytest exited with status {pytest_status}; no table was built")
    try:
        rules = load_rules(rules_file)
        rules_sha = hashlib.sha256(rules_file.read_bytes()).hexdigest()
    except (OSError, ValueError) as err:
        raise Usage(
            f"cannot read the rules ({rules_file}): {err}; give --rules PATH or set $PMEM_RULES"
        ) from err
    try:
        report = read_report(report_file)
    except FileNotFoundError as err:
        raise Usage(f"no rule report at {report_file}: run `pytest -q` first (or use --run)") from err
    except (OSError, ValueError) as err:
        raise Usage(f"cannot read the rule report: {err}") from err
    try:
        reasons_text = reasons_file.read_text(encoding="utf-8") if reasons_file.exists() else ""
        reasons = parse_reasons(reasons_text)
        pending = parse_reasons(reasons_text, PENDING_SECTION)
    except (OSError, ValueError) as err:
        raise Usage(f"cannot read the reasons ({reasons_file}): {err}") from err

    if not report.complete and not args.allow_partial:
        raise Usage(
            f"the rule report {report_file} comes from a partial run "
            f"({'; '.join(report.incomplete_because)}): "
            "run the whole suite (`pytest -q`), or pass --allow-partial to print the table without writing it"
        )

    problems: list[str] = []
    for rule_id, nodeids in sorted(unknown_ids(rules, report.tests, report).items()):
        problems.append(f"unknown rule id {rule_id} in {len(nodeids)} test(s), e.g. {nodeids[0]}")
    known = {r.id for r in rules}
    for rule_id in sorted(set(pending) & set(reasons)):
        problems.append(f"{_label(reasons_file)} gives {rule_id} both a reason and 'not built yet'")
    for rule_id in sorted((set(reasons) | set(pending)) - known):
        problems.append(
            f"{_label(reasons_file)} gives a reason for {rule_id}, which {_label(rules_file)} lacks"
        )

    rows = build_rows(rules, report, reasons, pending)
    print("\n".join(render_text(rows, args.brief)))
    for row in rows:
        if (row.reason is not None or row.pending is not None) and row.passed:
            print(
                f"conformance: note: {row.rule.id} has a passing test; its reason in "
                f"{_label(reasons_file)} can go",
                file=sys.stderr,
            )
    bad = [r for r in rows if not r.ok]
    for row in bad:
        problems.append(f"{row.rule.id} has no passing test and no documented reason ({row.verdict()})")

    markdown = render_markdown(rows, _label(rules_file), rules_sha, report) + "\n"
    n_pass = sum(1 for r in rows if r.status == "pass")
    n_na = sum(1 for r in rows if r.status == "n/a")
    n_pending = sum(1 for r in rows if r.status == "pending")
    print(
        f"\n{len(rows)} rules: {n_pass} with a passing test, {n_na} not applicable to a TUI (documented), "
        f"{n_pending} not built yet (documented, naming the issue), {len(bad)} without either."
    )
    status = 1 if problems else 0
    if args.check:
        current = output_file.read_text(encoding="utf-8") if output_file.exists() else None
        if current != markdown:
            problems.append(f"{_label(output_file)} is out of date: run `python scripts/conformance.py`")
            status = 1
    elif args.no_write or (not report.complete and args.output is None):
        pass
    else:
        output_file.parent.mkdir(parents=True, exist_ok=True)
        if not output_file.exists() or output_file.read_text(encoding="utf-8") != markdown:
            output_file.write_text(markdown, encoding="utf-8")
            print(f"Wrote {_label(output_file)}.")
    for problem in problems:
        print(f"conformance: {problem}", file=sys.stderr)
    return max(status, 1 if pytest_status else 0)


if __name__ == "__main__":
    sys.exit(main())
