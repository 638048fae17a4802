"""Pytest plugin: which spec rules each test checks, and whether it passed in this run.

Loaded from `tests/conftest.py`. For every collected test it gathers the ids of its `@pytest.mark.rule(...)`
markers (function, class and module level), checks each id against `RULES.md`, and records the test's outcome.
At the end of the session it writes the rule report (`tests/_rules.py` documents the format) that
`scripts/conformance.py` turns into the conformance table.

* `--rules-report PATH` (default `build/rules-report.json` under the rootdir, gitignored): where the report
  goes, so a plain `pytest -q` writes it. `--rules-report=` turns it off; `--collect-only` never writes it.
* `--rules-file PATH` (default `$PMEM_RULES`, else `docs/spec/RULES.md`, the project's copy).
* A test naming an id that `RULES.md` does not list, or a `rule` marker without ids, fails at setup: a typo
  can never count as coverage. Without a rules file no id can be checked here; the summary line says so, the
  report records `rules_file: null`, and `scripts/conformance.py` checks the ids against its own rules file.
* The report says whether the run was complete (the whole suite, nothing deselected, no early stop), so a
  table is never built from a partial run by accident.
* Under pytest-xdist (`-n N`) the workers collect and run; each test's rule ids travel to the controller in
  its reports' `user_properties`, the collected ids come from `pytest_xdist_node_collection_finished`, and
  only the controller writes the report.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._rules import (
    DEFAULT_REPORT,
    RuleReport,
    TaggedTest,
    load_rules,
    rules_path,
    write_report,
)

MARKER = "rule"
_STASH = pytest.StashKey["RuleCollector"]()
# The user_properties keys that carry a test's rule ids (and unknown ids) from an xdist worker.
_PROP_RULES = "pmem-rules"
_PROP_UNKNOWN = "pmem-unknown-rules"


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("spec rules", "spec-rule conformance report")
    group.addoption(
        "--rules-report",
        metavar="PATH",
        default=None,
        help=f"write the rule report (JSON) here; '' turns it off (default: {DEFAULT_REPORT} in the rootdir)",
    )
    group.addoption(
        "--rules-file",
        metavar="PATH",
        default=None,
        help="the numbered spec rules (default: $PMEM_RULES, else docs/spec/RULES.md)",
    )


def pytest_configure(config: pytest.Config) -> None:
    collector = RuleCollector(config)
    config.stash[_STASH] = collector
    config.pluginmanager.register(collector, "pmem-rule-collector")


def rule_ids(item: pytest.Item) -> tuple[list[str], list[str]]:
    """The rule ids an item is tagged with (in order, no repeats), and what is wrong with its markers."""
    ids: list[str] = []
    errors: list[str] = []
    for mark in item.iter_markers(MARKER):
        if mark.kwargs:
            errors.append(f"@pytest.mark.rule takes rule ids only, not {sorted(mark.kwargs)}")
        if not mark.args:
            errors.append("@pytest.mark.rule() names no rule")
        for arg in mark.args:
            if not isinstance(arg, str):
                errors.append(f"@pytest.mark.rule takes strings, not {arg!r}")
            elif arg not in ids:
                ids.append(arg)
    return ids, errors


class RuleCollector:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rules_file: Path | None = None
        self.known: set[str] | None = None
        self.load_error: str | None = None
        given = config.getoption("--rules-file")
        path = rules_path(config.rootpath, given)
        try:
            self.known = {r.id for r in load_rules(path)}
            self.rules_file = path
        except (OSError, ValueError) as err:
            self.load_error = f"cannot read the spec rules at {path}: {err}"
            if given:
                raise pytest.UsageError(self.load_error) from err
        self.items: list[pytest.Item] = []
        self.tags: dict[str, list[str]] = {}
        self.problems: dict[str, list[str]] = {}
        self.unknown: dict[str, list[str]] = {}
        self.outcomes: dict[str, str] = {}
        self.deselected = 0
        self.xdist_ids: list[str] | None = None  # the controller of an xdist run: what the workers collected
        self.written: Path | None = None
        self.write_error: str | None = None

    # -- collection ------------------------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            ids, errors = rule_ids(item)
            if self.known is not None:
                for rule in ids:
                    if rule not in self.known:
                        errors.append(
                            f"unknown rule id {rule!r}: RULES.md ({self.rules_file}) has no such rule"
                        )
                        self.unknown.setdefault(rule, []).append(item.nodeid)
            self.tags[item.nodeid] = [r for r in ids if self.known is None or r in self.known]
            if errors:
                self.problems[item.nodeid] = errors

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = list(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        if self.xdist_ids is None:  # every worker collects the same tests
            self.xdist_ids = list(ids)

    def _nodeids(self) -> list[str]:
        return self.xdist_ids if self.xdist_ids is not None else [i.nodeid for i in self.items]

    # -- running ---------------------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        item.user_properties.append((_PROP_RULES, tuple(self.tags.get(item.nodeid, ()))))
        unknown = tuple(r for r, ids in self.unknown.items() if item.nodeid in ids)
        if unknown:
            item.user_properties.append((_PROP_UNKNOWN, unknown))
        errors = self.problems.get(item.nodeid)
        if errors:
            pytest.fail("; ".join(errors), pytrace=False)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:  # from an xdist worker (or this process: the same ids)
            if key == _PROP_RULES:
                self.tags[report.nodeid] = list(value)  # type: ignore[call-overload]
            elif key == _PROP_UNKNOWN:
                for rule in value:  # type: ignore[attr-defined]
                    nodeids = self.unknown.setdefault(rule, [])
                    if report.nodeid not in nodeids:
                        nodeids.append(report.nodeid)
        current = self.outcomes.get(report.nodeid)
        if current == "failed":
            return
        xfail = hasattr(report, "wasxfail")
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
        elif report.when == "setup" and report.skipped:
            self.outcomes[report.nodeid] = "xfailed" if xfail else "skipped"
        elif report.when == "call":
            if report.skipped:
                self.outcomes[report.nodeid] = "xfailed" if xfail else "skipped"
            else:
                self.outcomes[report.nodeid] = "xpassed" if xfail else "passed"

    # -- the report ------------------------------------------------------------------------------------------

    def _incomplete_because(self, exitstatus: int) -> list[str]:
        config = self.config
        why: list[str] = []
        if config.option.collectonly:
            why.append("--collect-only")
        if self.deselected:
            why.append(f"{self.deselected} test(s) deselected (-k, -m, --deselect, --lf...)")
        elif self.xdist_ids is not None and _selects(config):  # the workers deselected: not seen here
            why.append("tests were deselected (-k, -m, --deselect, --lf...)")
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            why.append("the run was interrupted")
        not_run = [n for n in self._nodeids() if n not in self.outcomes]
        if not_run:
            why.append(f"{len(not_run)} collected test(s) did not run (-x, --maxfail...)")
        if config.args_source is not pytest.Config.ArgsSource.TESTPATHS and not self._whole_suite():
            why.append(f"only part of the suite was selected ({' '.join(config.args)})")
        return why

    def _whole_suite(self) -> bool:
        """Whether the paths given on the command line cover every test path (or the rootdir)."""
        config = self.config
        if any("::" in arg for arg in config.args):
            return False
        given = [(config.invocation_params.dir / arg).resolve() for arg in config.args]
        roots = [(config.rootpath / p).resolve() for p in config.getini("testpaths")] or [config.rootpath]
        return all(any(g == r or g in r.parents for g in given) for r in roots)

    def report(self, exitstatus: int) -> RuleReport:
        why = self._incomplete_because(exitstatus)
        tests = tuple(
            TaggedTest(n, tuple(self.tags.get(n, ())), self.outcomes.get(n, "not run"))
            for n in self._nodeids()
        )
        return RuleReport(
            rules_file=None if self.rules_file is None else str(self.rules_file),
            complete=not why,
            incomplete_because=tuple(why),
            args=tuple(str(a) for a in self.config.args),
            exitstatus=int(exitstatus),
            tests=tests,
            unknown={k: tuple(v) for k, v in self.unknown.items()},
        )

    def report_path(self) -> Path | None:
        value: str | None = self.config.getoption("--rules-report")
        if self.config.option.collectonly or value == "":
            return None
        if value is None:
            return self.config.rootpath / DEFAULT_REPORT
        return self.config.invocation_params.dir / value

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        path = self.report_path()
        if path is None or _is_worker(self.config):
            return
        try:
            write_report(self.report(exitstatus), path)
        except OSError as err:
            self.write_error = f"could not write the rule report {path}: {err}"
        else:
            self.written = path

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.config.option.collectonly:
            return
        tagged = [n for n in self._nodeids() if self.tags.get(n)]
        covered: set[str] = set()
        for nodeid in tagged:
            if self.outcomes.get(nodeid) == "passed":
                covered.update(self.tags[nodeid])
        if self.known is None:
            line = f"spec rules: {self.load_error}; rule ids were not checked"
        else:
            line = (
                f"spec rules: {len(covered)} of {len(self.known)} have a passing test "
                f"({len(tagged)} tagged tests)"
            )
        if self.written is not None:
            line += f"; report {self.written}"
        if self.write_error:
            line += f"; {self.write_error}"
        if self.unknown:
            line += f"; UNKNOWN rule ids: {', '.join(sorted(self.unknown))}"
        terminalreporter.write_line(line)


def _selects(config: pytest.Config) -> bool:
    """Whether options that deselect tests were given (under xdist only the workers see what they drop)."""
    opt = config.option
    return bool(
        getattr(opt, "keyword", "")
        or getattr(opt, "markexpr", "")
        or getattr(opt, "deselect", None)
        or getattr(opt, "lf", False)
    )
