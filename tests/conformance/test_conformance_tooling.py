"""The conformance machinery itself: the rules parser, the pytest plugin, scripts/conformance.py, CI."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests._rules import (
    DEFAULT_REPORT,
    RuleReport,
    TaggedTest,
    load_rules,
    parse_rules,
    read_report,
    rules_path,
    write_report,
)
from tests.conformance.spy import OpenSpy

REPO = Path(__file__).resolve().parents[2]

RULES = """# Rules

## Group one
| id | rule |
|---|---|
| AB-1 | The first rule. |
| AB-TWO-2 | A rule with a `code \\| pipe`. |

Some prose | with a pipe | that is not a rule.

## Group two
| id | rule |
|---|---|
| CD-1 | The third rule. |
"""


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_script", REPO / "scripts" / "conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("conformance_script", module)
    spec.loader.exec_module(module)
    return module


conformance = _script()


# -- the rules -----------------------------------------------------------------------------------------------


def test_parse_rules_reads_every_table_row_with_its_group() -> None:
    rules = parse_rules(RULES)
    assert [(r.id, r.text, r.group) for r in rules] == [
        ("AB-1", "The first rule.", "Group one"),
        ("AB-TWO-2", "A rule with a `code | pipe`.", "Group one"),
        ("CD-1", "The third rule.", "Group two"),
    ]
    with pytest.raises(ValueError, match="AB-1"):
        parse_rules(RULES + "| AB-1 | again |\n")


def test_the_shared_rules_file_parses() -> None:
    path = rules_path(REPO)
    if not path.exists():
        pytest.skip(f"no RULES.md at {path}")
    rules = load_rules(path)
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids)) >= 60
    assert {r.group for r in rules} == {"Persistent memory", "Permanent-memory loader"}
    assert all(r.id.startswith(("PM-", "PL-")) and r.text for r in rules)
    by_id = {r.id: r.text for r in rules}
    assert by_id["PM-ARC-4"] == "Only after a successful move, remove its active `_index.md` entry."


def test_rules_path_prefers_the_argument_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PMEM_RULES", raising=False)
    assert rules_path(REPO) == (REPO / "docs" / "spec" / "RULES.md").resolve()
    assert rules_path(REPO).exists()  # the project keeps its own copy: a clone stands alone
    monkeypatch.setenv("PMEM_RULES", str(tmp_path / "env.md"))
    assert rules_path(REPO) == tmp_path / "env.md"
    assert rules_path(REPO, tmp_path / "arg.md") == tmp_path / "arg.md"


def test_report_round_trip(tmp_path: Path) -> None:
    report = RuleReport(
        "/x/RULES.md", True, (), ("tests",), 0, (TaggedTest("t.py::a", ("AB-1",), "passed"),), {}
    )
    write_report(report, tmp_path / "r.json")
    assert read_report(tmp_path / "r.json") == report
    (tmp_path / "bad.json").write_text('{"version": 99}', encoding="utf-8")
    with pytest.raises(ValueError):
        read_report(tmp_path / "bad.json")


# -- the reasons ---------------------------------------------------------------------------------------------


def test_parse_reasons_reads_only_the_not_applicable_section() -> None:
    text = (
        "# Reasons\n\n## How the rules are read\n\n### AB-1\nAn interpretation, not a reason.\n\n"
        "## Not applicable to a TUI\n\n### AB-TWO-2 — chat wording\nThis is about a chat,\nnot a TUI.\n\n"
        "```\n### CD-1\n```\n\n### CD-1\nAnother.\n\n## Later section\n\n### AB-1\nIgnored.\n"
    )
    assert conformance.parse_reasons(text) == {
        "AB-TWO-2": "This is about a chat, not a TUI. ``` ### CD-1 ```",
        "CD-1": "Another.",
    }
    with pytest.raises(ValueError, match="empty"):
        conformance.parse_reasons("## Not applicable to a TUI\n\n### AB-1\n\n### CD-1\nx\n")
    with pytest.raises(ValueError, match="two reasons"):
        conformance.parse_reasons("## Not applicable to a TUI\n### AB-1\nx\n### AB-1\ny\n")


def test_the_real_reasons_file_names_real_rules() -> None:
    path = rules_path(REPO)
    text = (REPO / "docs" / "conformance-reasons.md").read_text(encoding="utf-8")
    reasons = conformance.parse_reasons(text)
    pending = conformance.parse_reasons(text, conformance.PENDING_SECTION)
    known = {r.id for r in load_rules(path)}
    assert reasons and set(reasons) <= known and set(pending) <= known
    # A rule not built yet names the issue that builds it.
    assert all("issue" in why for why in pending.values())


# -- the script ----------------------------------------------------------------------------------------------


class Files:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.rules = root / "RULES.md"
        self.report = root / "report.json"
        self.reasons = root / "reasons.md"
        self.output = root / "out.md"
        self.rules.write_text(RULES, encoding="utf-8")
        self.reasons.write_text("# R\n", encoding="utf-8")

    def tests(self, *tests: tuple[str, tuple[str, ...], str], complete: bool = True) -> None:
        report = RuleReport(
            str(self.rules),
            complete,
            () if complete else ("1 test(s) deselected",),
            (),
            0,
            tuple(TaggedTest(n, r, o) for n, r, o in tests),
            {},
        )
        write_report(report, self.report)

    def run(self, *extra: str, output: bool = True) -> int:
        args = ["--rules", str(self.rules), "--report", str(self.report), "--reasons", str(self.reasons)]
        return int(conformance.main([*args, *(["--output", str(self.output)] if output else []), *extra]))


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.setattr(conformance, "REPO", tmp_path)  # the default output goes to tmp_path/docs
    return Files(tmp_path)


def test_every_rule_passing_writes_the_table(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    files.tests(
        ("tests/core/test_a.py::test_one[x]", ("AB-1",), "passed"),
        ("tests/core/test_a.py::test_one[y]", ("AB-1", "AB-TWO-2"), "passed"),
        ("tests/core/test_b.py::test_two", ("AB-TWO-2", "CD-1"), "passed"),
        ("tests/core/test_b.py::test_untagged", (), "passed"),
    )
    assert files.run() == 0
    out = capsys.readouterr().out
    assert "AB-1" in out and "passed 2/2" in out and "- core/test_a.py::test_one (2 cases)" in out
    table = files.output.read_text(encoding="utf-8")
    assert "## Group one" in table and "## Group two" in table
    assert (
        "| AB-TWO-2 | A rule with a `code \\| pipe`. | "
        "`core/test_a.py::test_one`<br>`core/test_b.py::test_two` | passed 2/2 |" in table
    )
    assert "Rules: 3; with a passing test: 3; not applicable to a TUI: 0; without a passing test: 0." in table
    assert "Tagged tests: 3 (2 test functions); in this run: 3 passed." in table
    # Deterministic: --check agrees with what was just written.
    assert files.run("--check") == 0


def test_a_rule_without_a_passing_test_fails(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    files.tests(
        ("tests/t.py::test_a", ("AB-1",), "passed"),
        ("tests/t.py::test_b", ("AB-TWO-2",), "failed"),
        ("tests/t.py::test_c", ("AB-TWO-2",), "skipped"),
    )
    assert files.run() == 1
    err = capsys.readouterr().err
    assert "AB-TWO-2 has no passing test and no documented reason (NOT PASSED: 1 failed, 1 skipped)" in err
    assert "CD-1 has no passing test and no documented reason (NO TEST)" in err
    assert "| CD-1 | The third rule. | — | NO TEST |" in files.output.read_text(encoding="utf-8")


def test_a_rule_not_built_yet_is_accepted_and_listed_apart(
    files: Files, capsys: pytest.CaptureFixture[str]
) -> None:
    files.tests(
        ("tests/t.py::test_a", ("AB-1", "AB-TWO-2"), "passed"), ("tests/t.py::test_b", ("CD-1",), "failed")
    )
    files.reasons.write_text(
        "# Reasons\n\n## Not built yet\n\n### CD-1 — later\nNot built yet: issue 13.\n", encoding="utf-8"
    )
    assert files.run() == 0
    table = files.output.read_text(encoding="utf-8")
    assert "not built yet: 1; without a passing test: 0." in table
    assert "| not built yet: Not built yet: issue 13. |" in table
    assert "not applicable" not in table.split("| CD-1 |", 1)[1].split("\n", 1)[0]
    assert "not built yet: Not built yet: issue 13." in capsys.readouterr().out
    # Both a reason and "not built yet" for one rule is a contradiction.
    files.reasons.write_text(
        "## Not applicable to a TUI\n### CD-1\nx\n## Not built yet\n### CD-1\ny\n", encoding="utf-8"
    )
    assert files.run() == 1
    assert "both a reason and 'not built yet'" in capsys.readouterr().err


def test_a_documented_reason_is_accepted_and_shown(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    files.tests(("tests/t.py::test_a", ("AB-1", "AB-TWO-2"), "passed"))
    files.reasons.write_text(
        "# Reasons\n\n## Not applicable to a TUI\n\n### CD-1\nIt is about chat wording.\n", encoding="utf-8"
    )
    assert files.run() == 0
    assert "| CD-1 | The third rule. | — | not applicable to a TUI: It is about chat wording. |" in (
        files.output.read_text(encoding="utf-8")
    )
    assert "reason: It is about chat wording." in capsys.readouterr().out
    # A reason for a rule that has a passing test is noted, so it can be removed.
    files.reasons.write_text(
        "## Not applicable to a TUI\n### AB-1\nStale.\n### CD-1\nChat.\n", encoding="utf-8"
    )
    assert files.run() == 0
    assert "AB-1 has a passing test; its reason" in capsys.readouterr().err


def test_unknown_ids_fail(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    files.tests(("tests/t.py::test_a", ("AB-1", "AB-TWO-2", "CD-1", "AB-11"), "passed"))
    assert files.run() == 1
    assert "unknown rule id AB-11 in 1 test(s), e.g. tests/t.py::test_a" in capsys.readouterr().err
    files.tests(("tests/t.py::test_a", ("AB-1", "AB-TWO-2", "CD-1"), "passed"))
    files.reasons.write_text("## Not applicable to a TUI\n### ZZ-9\nNo such rule.\n", encoding="utf-8")
    assert files.run() == 1
    assert "gives a reason for ZZ-9" in capsys.readouterr().err


def test_a_partial_run_is_refused_unless_allowed(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    files.tests(("tests/t.py::test_a", ("AB-1", "AB-TWO-2", "CD-1"), "passed"), complete=False)
    assert files.run() == 2
    assert "partial run (1 test(s) deselected)" in capsys.readouterr().err
    assert files.run("--allow-partial", output=False) == 0
    assert not (files.root / "docs").exists()  # not over the committed table
    assert files.run("--allow-partial") == 0  # only where it is sent explicitly, marked as partial
    assert "- **Built from a partial run**: 1 test(s) deselected." in files.output.read_text(encoding="utf-8")
    files.tests(("tests/t.py::test_a", ("AB-1", "AB-TWO-2", "CD-1"), "passed"))
    assert files.run(output=False) == 0
    assert (files.root / "docs" / "conformance.md").exists()


def test_missing_inputs_and_stale_output(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    assert files.run() == 2
    assert "no rule report" in capsys.readouterr().err
    files.tests(("tests/t.py::test_a", ("AB-1", "AB-TWO-2", "CD-1"), "passed"))
    files.output.write_text("old table\n", encoding="utf-8")
    assert files.run("--check") == 1
    assert "out of date" in capsys.readouterr().err
    assert files.output.read_text(encoding="utf-8") == "old table\n"
    assert files.run() == 0 and files.run("--check") == 0
    os.remove(files.rules)
    assert files.run() == 2


# -- the plugin ----------------------------------------------------------------------------------------------

INNER_TESTS = """
import pytest

pytestmark = pytest.mark.rule("AB-1")


@pytest.mark.rule("AB-TWO-2")
def test_tagged():
    pass


@pytest.mark.rule("AB-TOW-2")
def test_typo():
    pass


@pytest.mark.rule()
def test_empty_marker():
    pass


@pytest.mark.rule("CD-1")
@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n == 1


@pytest.mark.rule("CD-1")
@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


@pytest.mark.rule("CD-1")
@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.mark.rule("CD-1")
class TestGroup:
    def test_in_class(self):
        pass
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A separate pytest process (the in-process one would share plugins' global state with this run)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PMEM_RULES", raising=False)
    (pytester.path / "RULES.md").write_text(RULES, encoding="utf-8")
    pytester.makepyfile(test_inner=INNER_TESTS)
    return pytester


def _outcomes(path: Path) -> dict[str, tuple[list[str], str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {t["nodeid"]: (t["rules"], t["outcome"]) for t in data["tests"]}


def test_the_plugin_tags_checks_and_reports(inner: pytest.Pytester) -> None:
    rules = inner.path / "RULES.md"
    result = inner.runpytest_subprocess("-p", "tests.conformance_plugin", f"--rules-file={rules}")
    result.assert_outcomes(passed=3, failed=1, errors=2, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "*unknown rule id 'AB-TOW-2': RULES.md (*) has no such rule*",
            "*@pytest.mark.rule() names no rule*",
            "spec rules: 3 of 3 have a passing test (8 tagged tests); report *rules-report.json; "
            "UNKNOWN rule ids: AB-TOW-2",
        ]
    )
    report = inner.path / DEFAULT_REPORT
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["complete"] is True and data["rules_file"] == str(rules.resolve())
    assert data["unknown"] == {"AB-TOW-2": ["test_inner.py::test_typo"]}
    assert _outcomes(report) == {
        "test_inner.py::test_tagged": (["AB-TWO-2", "AB-1"], "passed"),
        "test_inner.py::test_typo": (["AB-1"], "failed"),
        "test_inner.py::test_empty_marker": (["AB-1"], "failed"),
        "test_inner.py::test_param[1]": (["CD-1", "AB-1"], "passed"),
        "test_inner.py::test_param[2]": (["CD-1", "AB-1"], "failed"),
        "test_inner.py::test_skipped": (["CD-1", "AB-1"], "skipped"),
        "test_inner.py::test_xfail": (["CD-1", "AB-1"], "xfailed"),
        "test_inner.py::TestGroup::test_in_class": (["CD-1", "AB-1"], "passed"),
    }


def test_the_plugin_reports_the_same_under_xdist(inner: pytest.Pytester) -> None:
    """The suite runs with two xdist workers: tags and outcomes reach the controller, which alone writes."""
    rules = inner.path / "RULES.md"
    base = ["-p", "xdist", "-n", "2", "-p", "tests.conformance_plugin", f"--rules-file={rules}"]
    result = inner.runpytest_subprocess(*base)
    result.stdout.fnmatch_lines(["spec rules: 3 of 3 have a passing test (8 tagged tests); report *"])
    report = inner.path / DEFAULT_REPORT
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["complete"] is True and data["unknown"] == {"AB-TOW-2": ["test_inner.py::test_typo"]}
    outcomes = _outcomes(report)
    assert outcomes["test_inner.py::test_param[2]"] == (["CD-1", "AB-1"], "failed")
    assert outcomes["test_inner.py::TestGroup::test_in_class"] == (["CD-1", "AB-1"], "passed")
    assert len(outcomes) == 8
    inner.runpytest_subprocess(*base, "-k", "tagged", "--rules-report=k.json")
    data = json.loads((inner.path / "k.json").read_text(encoding="utf-8"))
    assert data["complete"] is False and "deselected" in data["incomplete_because"][0]


def test_the_plugin_marks_partial_runs_and_can_be_turned_off(inner: pytest.Pytester) -> None:
    pytester = inner
    base = ["-p", "tests.conformance_plugin", "--rules-file=RULES.md"]
    pytester.runpytest_subprocess(*base, "-k", "tagged", "--rules-report=k.json")
    data = json.loads((pytester.path / "k.json").read_text(encoding="utf-8"))
    assert data["complete"] is False and data["incomplete_because"] == [
        "7 test(s) deselected (-k, -m, --deselect, --lf...)"
    ]
    pytester.runpytest_subprocess(*base, "test_inner.py::test_tagged", "--rules-report=one.json")
    data = json.loads((pytester.path / "one.json").read_text(encoding="utf-8"))
    assert data["complete"] is False and "only part of the suite" in data["incomplete_because"][0]
    pytester.runpytest_subprocess(*base, "-x", "--rules-report=x.json")
    data = json.loads((pytester.path / "x.json").read_text(encoding="utf-8"))
    assert data["complete"] is False and "did not run" in " ".join(data["incomplete_because"])
    pytester.runpytest_subprocess(*base, "--rules-report=")
    pytester.runpytest_subprocess(*base, "--collect-only")
    assert not (pytester.path / DEFAULT_REPORT).exists()
    result = pytester.runpytest_subprocess("-p", "tests.conformance_plugin", "--rules-file=missing.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


# -- the spy used by the loading tests, and the CI wiring ----------------------------------------------------


def test_the_open_spy_sees_every_way_of_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    for name in ("x", "y", "z"):
        (tmp_path / "a" / name).write_text("t", encoding="utf-8")
    spy = OpenSpy(tmp_path, deny=lambda rel: rel.startswith("a/")).install(monkeypatch)
    with pytest.raises(PermissionError):
        (tmp_path / "a/x").read_bytes()
    with pytest.raises(PermissionError):
        open(tmp_path / "a/y", "rb")  # noqa: SIM115
    with pytest.raises(PermissionError):
        os.open(tmp_path / "a/z", os.O_RDONLY)
    assert spy.refused == ["a/x", "a/y", "a/z"]


def test_ci_builds_the_table_from_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    steps = [line.strip() for line in ci if line.strip() and not line.lstrip().startswith("#")]
    assert "pytest -q" in steps and "python scripts/conformance.py" in steps
    assert steps.index("pytest -q") < steps.index("python scripts/conformance.py")
    assert "pytest -q" in (REPO / "README.md").read_text(encoding="utf-8")
    # The report pytest writes by default is not committed.
    assert DEFAULT_REPORT.parts[0] + "/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
