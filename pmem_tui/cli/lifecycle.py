"""The actions: save, archive, delete, recover, purge, upgrade, doctor and restore.

Each plans in core and prints its preview (in colour on a terminal, `core/ansi.py`), changing nothing; with
``--yes`` the executor applies the plan; ``--json`` prints one object instead (`_run_plan_json`). Exit 3
when the action was done but the disk reported an error after its commit point (`core/after_commit.py`).
What the history could not record is said on stderr, one sentence (the action is done: exit 0). `doctor`
also checks the history store and, with ``--yes``, rebuilds it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from pmem_tui.cli import streams
from pmem_tui.core import doctor, lifecycle
from pmem_tui.core.errors import PmemError, describe_os_error
from pmem_tui.core.plan import Plan
from pmem_tui.core.textio import printable

EXIT_DONE_WITH_DISK_ERROR = 3  # the action was done, but the disk reported an error after its commit point


def run(args: argparse.Namespace, root: Path) -> int:
    cmd = args.command
    if cmd == "save":
        plan = lifecycle.plan_save(root, args.path, _read_source(args.source), args.index_line)
    elif cmd == "archive":
        plan = lifecycle.plan_archive(root, args.path, args.reason)
    elif cmd == "delete":
        try:
            plan = lifecycle.plan_delete(root, args.path)
        except lifecycle.NeedsArchive as err:
            if args.yes:  # --yes confirms a delete, never an archive the person has not seen
                raise
            return _offer_archive(root, err.path, args.reason, args.json)
    elif cmd == "recover":
        plan = lifecycle.plan_recover(root, args.path, args.index_line)
    elif cmd == "purge":
        plan = lifecycle.plan_purge(root)
    elif cmd == "upgrade":
        plan = lifecycle.plan_upgrade(root)
    elif cmd == "doctor":
        plan = doctor.plan_doctor(root)
        if args.json:
            return _run_plan_json(plan, root, args.yes, history_store=lambda: _history_doctor(root, args.yes))
        code = _run_plan(plan, root, args.yes)
        said = _history_doctor(root, args.yes)
        if said is not None:
            print(printable(said))
        return code
    elif cmd == "restore":
        from pmem_tui.core.history import plans

        plan = plans.plan_restore(root, args.path, args.version)
    else:  # pragma: no cover - argparse rejects unknown commands
        raise AssertionError(cmd)
    if args.json:
        return _run_plan_json(plan, root, args.yes)
    return _run_plan(plan, root, args.yes)


def _print_plan(plan: Plan) -> None:
    from pmem_tui.core import ansi
    from pmem_tui.core.report import plan_lines

    print("\n".join(plan_lines(plan, colour=ansi.wanted(sys.stdout))))


def _run_plan(plan: Plan, root: Path, yes: bool) -> int:
    if not yes:
        _print_plan(plan)
        if not plan.is_empty:
            print("\nPreview only: nothing was changed. Run again with --yes to apply.")
        return 0
    from pmem_tui.core.executor import apply  # not on the app's start-up path (filelock, journal)

    result = apply(plan, root)
    streams.acted()
    print(result.outcome)
    if result.history is not None:
        sys.stdout.flush()
        print(f"pmem-tui: {printable(result.history)}", file=sys.stderr)
    if result.warning is not None:  # done, but the disk reported an error (`core/after_commit.py`)
        sys.stdout.flush()
        print(f"pmem-tui: {printable(result.warning)}", file=sys.stderr)
        return EXIT_DONE_WITH_DISK_ERROR
    return 0


def _run_plan_json(
    plan: Plan,
    root: Path,
    yes: bool,
    instead: str | None = None,
    history_store: Callable[[], str | None] | None = None,
) -> int:
    """`--json`: one object, the plan (`report.plan_dict`) and what applying it did: "applied", "outcome"
    (the sentence after an apply; for a plan with nothing to do, why; else null), "warning" (the disk's
    error after the commit point, exit 3), "history" (what the history could not record); "instead" (why
    this plan is not the one asked for) and "history_store" (doctor, after its plan as in the text output:
    the history store's problem, or what rebuilding it did)."""
    import json

    from pmem_tui.core.report import plan_dict

    out = plan_dict(plan)
    out.update(applied=False, outcome=None, warning=None, history=None)
    if instead is not None:
        out["instead"] = instead
    code = 0
    if yes and not plan.is_empty:
        from pmem_tui.core.executor import apply

        result = apply(plan, root)
        streams.acted()
        out.update(applied=True, outcome=result.outcome, warning=result.warning, history=result.history)
        code = EXIT_DONE_WITH_DISK_ERROR if result.warning is not None else 0
    elif plan.is_empty:
        out["outcome"] = plan.outcome or None
    if history_store is not None:
        out["history_store"] = history_store()
    print(json.dumps(out, ensure_ascii=streams.ascii_json(), indent=2))
    return code


def _history_doctor(root: Path, yes: bool) -> str | None:
    """Doctor's part for the history: what is wrong with the store (None: nothing); with --yes, what
    rebuilding it did."""
    from pmem_tui.core.history import rewrite

    problem = rewrite.check(root)
    if problem is None:
        return None
    if not yes:
        return f"History: {problem}; run again with --yes to rebuild it (the damaged store is kept)."
    streams.acted()
    return rewrite.repair(root)


def _offer_archive(root: Path, path: str, reason: str | None, as_json: bool) -> int:
    """Delete on an active file: show the archive preview instead, as the app does."""
    plan = lifecycle.plan_archive(root, path, reason or "(reason)")
    why = (
        f"{path} is active: only an archived file can be deleted (delete = archive first, then the trash, "
        "recoverable for 30 days)."
    )
    then = f"Run `pmem-tui archive {path} --reason TEXT --yes` to archive it, then delete it."
    if as_json:
        return _run_plan_json(plan, root, False, instead=f"{why} {then}")
    print(f"{why} Here is the archive preview instead:\n")
    _print_plan(plan)
    print(f"\nPreview only: nothing was changed. {then}")
    return 0


def _read_source(source: str) -> bytes:
    """The content for `save --from`: a regular file or standard input, at most `safeio.SOURCE_CAP` bytes."""
    from pmem_tui.core import safeio

    cap = safeio.SOURCE_CAP
    try:
        if source == "-":
            stdin = getattr(sys.stdin, "buffer", None)  # None: closed (`<&-`)
            if stdin is None:
                raise PmemError("Cannot save: standard input is closed; nothing was changed.")
            data: bytes = stdin.read(cap + 1)
            if len(data) > cap:
                raise safeio.too_large("standard input", None, cap)
            return data
        return safeio.read_source(source, cap)
    except safeio.UnsafeFile as err:
        raise PmemError(f"Cannot save: {err.strerror}.") from err
    except OSError as err:
        raise PmemError(f"Cannot read {source}: {describe_os_error(err)}.") from err
