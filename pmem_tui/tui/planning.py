"""A selection -> what the preview modal opens with (an `Offer`), or a refusal (a `PmemError`).

Plain functions, no widgets: the app calls them for its own keys, the health screen for its keys, and
either way the app opens the modal. The archive and delete planning of a selection lives here only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pmem_tui.core import lifecycle
from pmem_tui.core.errors import Refused, UnsafePath
from pmem_tui.core.plan import Plan
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.rows import DEAD, Row

PlanBuilder = Callable[[str], Plan]  # the line typed in the modal (a reason, an index line) -> the plan

ARCHIVE_PROMPT = "Why archive it? The reason is kept in the archive record. Type it, then press enter:"


@dataclass(frozen=True)
class StoreChange:
    """A change to pmem-tui's history store only (`history forget`): no memory file changes, so it is no
    executor plan; it is previewed (`lines`) and confirmed like one, then `apply` runs in a worker (writing
    through `fsops`, as the executor does) and returns its outcome sentence."""

    title: str
    lines: tuple[str, ...]
    apply: Callable[[], str]

    def as_plan(self) -> Plan:
        """What a continuation gets once it is applied: an empty plan of the same title (no file changed)."""
        return Plan(action="forget", title=self.title, ops=())


@dataclass(frozen=True)
class Offer:
    """What the preview modal opens with: a ready plan, or a builder and the prompt for its one line (or a
    change of the history store only)."""

    title: str
    plan: Plan | None = None
    builder: PlanBuilder | None = None
    prompt: str = ""
    initial: str = ""
    explanation: str | None = None
    danger: bool = False
    change: StoreChange | None = None


def what(paths: Sequence[str]) -> str:
    return paths[0] if len(paths) == 1 else f"{len(paths)} files"


def it(paths: Sequence[str], one: str = "it", many: str = "them") -> str:
    return one if len(paths) == 1 else many


def plan_offer(
    plan: Plan, explanation: str | None = None, *, title: str | None = None, danger: bool = False
) -> Offer:
    return Offer(title=title or plan.title, plan=plan, explanation=explanation, danger=danger)


def archive_offer(
    root: Path,
    paths: Sequence[str],
    *,
    initial: str = "",
    explanation: str | None = None,
    title: str | None = None,
    prompt: str = ARCHIVE_PROMPT,
    reasons: Mapping[str, str] | None = None,
) -> Offer:
    """Archive `paths`, asking for the reason. `reasons`: each file's own (the health check's), kept
    when the reason is left empty; then the prefilled reason is the one checked, else a stand-in."""
    if not paths:
        raise Refused("Nothing selected to archive.")
    paths = list(paths)

    def builder(reason: str) -> Plan:
        if len(paths) == 1:
            return lifecycle.plan_archive(root, paths[0], reason)
        own = reasons if reasons is not None and not reason.strip() else None
        return lifecycle.plan_archive_many(root, paths, reason, reasons=own)

    builder(initial if reasons is not None else "(reason)")  # refuse before asking for a reason
    return Offer(
        title=title or f"Archive {what(paths)}",
        builder=builder,
        prompt=prompt,
        initial=initial,
        explanation=explanation,
    )


def plan_delete(root: Path, paths: Sequence[str]) -> Plan:
    if len(paths) == 1:
        return lifecycle.plan_delete(root, paths[0])
    return lifecycle.plan_delete_many(root, list(paths))


def delete_offer(root: Path, pane: str, rows: Sequence[Row], hidden: str | None) -> Offer:
    """`d`: archived files go to the trash; active ones on the Index get the archive preview instead."""
    if not rows:
        raise Refused("Nothing selected to delete.")
    active = [r.path for r in rows if r.is_active_file]
    if pane == "index" and active:
        return archive_offer(
            root,
            active,
            explanation=(
                f"{what(active)} {it(active, 'is', 'are')} active. Only an archived file can be "
                "deleted (delete = archive first, then the trash, recoverable for 30 days). Here is the "
                "archive preview instead; delete it afterwards from the Archive pane."
                + (f"\n{hidden}" if hidden else "")
            ),
        )
    return plan_offer(plan_delete(root, [r.path for r in rows]), hidden)


def recover_offer(root: Path, rows: Sequence[Row], hidden: str | None) -> Offer:
    """`r`: recover; a record without its index line asks for one (the file's proposal prefilled)."""
    if not rows:
        raise Refused("Nothing selected to recover.")
    paths = [r.path for r in rows]
    if len(paths) > 1:
        return plan_offer(lifecycle.plan_recover_many(root, paths), hidden)
    try:
        return plan_offer(_recover_plan(root, paths[0], rows[0].location))
    except lifecycle.NeedsIndexLine as need:
        path = need.path  # the row's, or the record's its file was moved off (`_recover_plan`)
        return Offer(
            title=f"Recover {path}",
            builder=lambda line: lifecycle.plan_recover(root, path, index_line=line),
            prompt="The archive record has no saved index line. pmem-tui proposes this one from the "
            "file; edit it if needed, then press enter:",
            initial=need.proposal,
            explanation=f"Recovering {path} restores its line in _index.md; confirm which line.",
        )


def _recover_plan(root: Path, path: str, location: str | None) -> Plan:
    """The recovery of `path`; when refused, of the record a file moved there by hand may be the file of
    (its name; the preview names both), looked for only then."""
    try:
        return lifecycle.plan_recover(root, path)
    except lifecycle.NeedsIndexLine:
        raise
    except (Refused, UnsafePath):  # not in its record's place, or not a memory path (`_archive/a.md`)
        target = lifecycle.recover_target(root, location) if location is not None else None
        if target is None or target == path:
            raise
    return lifecycle.plan_recover(root, target)


def edit_target(rows: Sequence[Row]) -> str:
    """`e`: the one active (or core) file selected."""
    if len(rows) > 1:
        raise Refused("Edit works on one file at a time; unmark the others first.")
    if not rows:
        raise Refused("Nothing selected to edit.")
    row = rows[0]
    if row.kind == DEAD:
        raise Refused(f"{row.path} does not exist; press {key_for('new')} to write it.")
    if not (row.is_active_file or row.kind == "core"):
        raise Refused(f"{row.path} is not active; recover it first to edit it.")
    return row.path
