"""The health review without its widgets: a proposal's row and texts, and the offers its keys open.

Pure: the screen (`tui/screens/health.py`) shows these and posts the offers; the archive and delete
planning itself is `tui/planning.py`'s, as for the panes.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from pmem_tui.core.model import INDEX_FILE, RECOVERY_DAYS, TrashItem
from pmem_tui.core.textio import printable
from pmem_tui.core.words import plural
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.rows import DEAD, ENTRY, ORPHAN, Row, countdown

if TYPE_CHECKING:
    from pmem_tui.core.health import HealthReport, Proposal
    from pmem_tui.core.history.rewrite import ForgetPlan
    from pmem_tui.tui.planning import Offer

HealthSource = Callable[[Path, dt.date], "HealthReport"]

CATEGORY_STYLE = {"delete": "bold red", "archive": "bold yellow", "keep": "bold green"}
MAX_EXPIRED_SHOWN = 5


def run_health(root: Path, today: dt.date) -> HealthReport:
    """The default source: the health engine (imported here, so the app starts without its libraries)."""
    from pmem_tui.core.health import check_health

    return check_health(root, today=today)


# -- rows and texts (pure) -------------------------------------------------------------------------------


def proposal_key(p: Proposal) -> str:
    return f"proposal:{p.path}"  # one proposal per path; stable across re-checks (keeps the cursor)


def proposal_row(p: Proposal, root: Path | None = None) -> Row:
    """The table row of a proposal. With `root`, the file is stat'ed for the preview's facts."""
    kinds = p.kinds
    missing = "dead-route" in kinds and "orphan" not in kinds  # (both: the file a dead line meant, on disk)
    size = mtime_ns = None
    if root is not None and not missing:
        try:
            st = os.lstat(root / p.path)
        except OSError:
            missing = True
        else:
            if stat.S_ISREG(st.st_mode):
                size, mtime_ns = st.st_size, st.st_mtime_ns
            else:
                missing = True
    orphan = "orphan" in kinds
    # Named by a line that is not a list item: "not in _index.md" would be false; its signal says what is.
    told = any(s.unbulleted is not None for s in p.signals)
    return Row(
        key=proposal_key(p),
        kind=DEAD if missing else (ORPHAN if orphan else ENTRY),
        path=p.path,
        location=None if missing else p.path,
        cells=(f"{p.n}.", p.category, p.path, ", ".join(kinds), p.reason),
        size=size,
        mtime_ns=mtime_ns,
        index_line=p.fix if p.fix_action == "drop" else None,
        in_index=None if told else not orphan,
    )


def proposal_text(p: Proposal, row: Row | None) -> Text:
    """The evidence of one proposal and what each key would do with it."""
    text = Text()
    text.append(f"{p.n}. ", style="bold")
    text.append(p.category, style=CATEGORY_STYLE.get(p.category, "bold"))
    text.append(f"  certainty {round(p.certainty * 100)}%", style="dim")
    for s in p.signals:
        text.append("\n  ")
        text.append(s.kind, style="bold")
        text.append("  ")
        text.append(printable(s.detail))
    exists = row is not None and row.location is not None
    fix, delete, archive, edit = (key_for(f"health.{a}") for a in ("fix", "delete", "archive", "edit"))
    if p.fix is not None and p.fix_action == "redact":
        text.append(f"\n{fix}: save it with {p.fix} redacted, through the save preview.", style="cyan")
    elif p.fix is not None and p.fix_action == "forget":
        text.append(
            f"\n{fix}: forget version {p.fix[:8]}'s content from the history, through its preview "
            "(the memory file is not touched).",
            style="cyan",
        )
    elif p.fix is not None and p.fix_action == "reroute":
        text.append(f"\n{fix}: rewrite the route ", style="cyan")
        text.append(printable(p.fix))
        text.append(f" in its {INDEX_FILE} line to ", style="cyan")
        text.append(printable(p.path))
        text.append(", the rest of the line kept, through its preview.", style="cyan")
    elif p.fix is not None:
        verb = "add to" if p.fix_action == "add" else "drop from"
        text.append(f"\n{fix}: {verb} {INDEX_FILE}, through its preview:\n  ", style="cyan")
        text.append(printable(p.fix))
    if not exists:
        text.append("\nThe file does not exist: nothing to archive.", style="dim")
    elif p.category == "delete":
        text.append(f"\n{delete}: archive it, then move it to the trash (two previews).", style="cyan")
    elif p.category == "archive":
        text.append(f"\n{archive}: archive it; the reason is prefilled and editable.", style="cyan")
    elif "invalid-summary" in p.kinds:
        text.append(f"\n{edit}: edit it, then the save preview (never rewritten for you).", style="cyan")
    return text


def expired_text(items: Sequence[TrashItem], today: dt.date) -> Text:
    text = Text()
    text.append(f"Expired trash ({len(items)})", style="bold")
    if not items:
        text.append("  nothing has passed its 30-day deadline.", style="dim")
        return text
    purge = key_for("health.purge")
    text.append(f"  removed for good only with {purge}, after its own preview and confirmation.", style="dim")
    for item in items[:MAX_EXPIRED_SHOWN]:
        text.append("\n  ")
        text.append(printable(item.path))
        deadline = item.deadline.isoformat() if item.deadline else "?"
        text.append(f"  deadline {deadline} · {countdown(item, today)}", style="red")
    if len(items) > MAX_EXPIRED_SHOWN:
        text.append(f"\n  …and {len(items) - MAX_EXPIRED_SHOWN} more ({purge} lists every one).", style="dim")
    return text


def status_text(report: HealthReport, shown: int) -> Text:
    props = report.proposals
    text = Text()
    if not props:
        text.append("Nothing to propose: every active file looks current and the index is in sync.")
        return text
    counts = Counter(p.category for p in props)
    summary = ", ".join(f"{counts[c]} {c}" for c in ("delete", "archive", "keep") if counts[c])
    text.append(f"{plural(len(props), 'proposal')} ({summary}), most certain first")
    if shown != len(props):
        text.append(f"; {len(props) - shown} kept this session", style="dim")
    text.append(". Nothing runs until you confirm its preview.", style="dim")
    return text


def archive_reason(proposal: Proposal) -> str:
    from pmem_tui.core.fix_planner import archive_reason as reason_of

    return reason_of(proposal)


def archive_reason_for(proposals: Sequence[Proposal]) -> str:
    """The reason prefilled: one proposal's own; none for several (each then keeps its own)."""
    return archive_reason(proposals[0]) if len(proposals) == 1 else ""


def proposals_summary(proposals: Sequence[Proposal], limit: int = 6) -> list[str]:
    """What the preview modal says about the proposals it acts on, one line each."""
    if len(proposals) == 1:
        p = proposals[0]
        lines = [f"Proposal {p.n} ({p.category}): {p.reason}"]
    else:
        lines = [f"{p.n}. {p.category} · {p.path}: {p.reason}" for p in proposals[:limit]]
        if len(proposals) > limit:
            lines.append(f"…and {len(proposals) - limit} more.")
    kept = sum(1 for p in proposals if p.category == "keep")
    if kept:
        what = "this file" if len(proposals) == 1 else f"{kept} of these files"
        lines.append(f"The health check proposes to keep {what}: archiving is your call.")
    return lines


# -- the offers of `a`, `d` and `f` (each raises a `PmemError` when it cannot be planned) ------------------


def archive_offer(root: Path, proposals: Sequence[Proposal], *, then_delete: bool) -> Offer:
    """`a` (and step 1 of `d`): archive the proposals' files, each reason prefilled from its proposal."""
    from pmem_tui.tui import planning

    paths = [p.path for p in proposals]
    lines = proposals_summary(proposals)
    if then_delete:
        lines.append(
            f"Delete means archive first. Step 1 of 2 archives {planning.what(paths)}; step 2, the delete "
            f"preview, moves {planning.it(paths)} to the trash (recoverable for "
            f"{RECOVERY_DAYS} days). Each step runs only when you confirm it."
        )
    return planning.archive_offer(
        root,
        paths,
        initial=archive_reason_for(proposals),
        explanation="\n".join(lines),
        title=f"{'Archive, then delete' if then_delete else 'Archive'} {planning.what(paths)}"
        + (" (step 1 of 2: archive)" if then_delete else ""),
        prompt=(
            "Why archive it? The reason is kept in the archive record; the health check's reason "
            "is filled in. Edit it, then press enter:"
            if len(paths) == 1
            else "Each file keeps its own reason (the health check's, listed above) in its archive "
            "record: press enter to keep them, or type one reason for all:"
        ),
        reasons={p.path: archive_reason(p) for p in proposals},
    )


def delete_offer(root: Path, paths: Sequence[str]) -> Offer:
    """Step 2 of `d`: the archived files to the trash."""
    from pmem_tui.core.errors import PmemError, Refused, refusal_of
    from pmem_tui.tui import planning

    what, them = planning.what(paths), planning.it(paths)
    try:
        plan = planning.plan_delete(root, paths)
    except (PmemError, OSError) as err:
        raise Refused(f"{what} stays archived: {refusal_of(err)}") from None
    return planning.Offer(
        title=f"{plan.title} (step 2 of 2: to the trash)",
        plan=plan,
        explanation=f"Step 1 is done: {what} {planning.it(paths, 'is', 'are')} archived. "
        f"Confirm to move {them} to the trash (recoverable for "
        f"{RECOVERY_DAYS} days); cancel to leave {them} in the archive.",
    )


def forget_plans(root: Path, proposals: Sequence[Proposal]) -> dict[str, ForgetPlan]:
    """The forgets of a batch of fixes, each planned before any is applied (by path). A forget rewrites every
    record, so a version a later proposal names is gone once an earlier forget is applied; the plan keeps
    the content's blob id, which finds that content again (`rewrite.replan_forget`). A forget that cannot be
    planned is left out: its own offer says why."""
    from pmem_tui.core.errors import PmemError
    from pmem_tui.core.history import rewrite

    plans: dict[str, ForgetPlan] = {}
    for p in proposals:
        if p.fix_action == "forget" and p.fix is not None:
            try:
                plans[p.path] = rewrite.plan_forget(root, p.path, p.fix)
            except PmemError:
                continue
    return plans


def fix_offer(
    root: Path, proposal: Proposal, i: int, n: int, forgets: Mapping[str, ForgetPlan] | None = None
) -> Offer:
    """`f`: the fix (an index line, a secret redacted, a kept secret forgotten) of the `i`-th of `n`
    proposals (counted from 0); `forgets`: the batch's forgets as `forget_plans` planned them."""
    from pmem_tui.core.fix_planner import plan_fix
    from pmem_tui.tui.planning import Offer

    if proposal.fix_action == "forget":
        return forget_offer(root, proposal, i, n, (forgets or {}).get(proposal.path))
    plan = plan_fix(root, proposal)
    verb = {"add": "adds", "reroute": "rewrites the route of"}.get(proposal.fix_action or "", "drops")
    change = f"This {verb} one line of {INDEX_FILE}; the file itself does not change."
    step = ""
    if proposal.fix_action == "redact":
        step = "step 1 of 2: redact"
        # What stays in the history is the preview's note (once): this says what the two steps do.
        change = (
            "This saves the file with its secrets replaced by [redacted]; once it is saved, step 2 previews "
            "forgetting the versions of the file in pmem-tui's history that hold the secret."
        )
    return Offer(
        title=plan.title + fix_position(i, n, step),
        plan=plan,
        explanation=f"Proposal {proposal.n}: {proposal.reason}. {change}",
    )


def fix_position(i: int, n: int, step: str = "") -> str:
    """Where a fix's preview stands, in one bracket: the `i`-th fix of the `n` chosen (from 0; said only
    for a batch), then the step of a two-step fix: " (fix 2 of 3, step 1 of 2: redact)". The batch comes
    first: it is what a person works down; a redaction's two steps are one fix of it."""
    parts = [f"fix {i + 1} of {n}"] if n > 1 else []
    parts += [step] if step else []
    return f" ({', '.join(parts)})" if parts else ""


def held_secret(n: int) -> str:
    """ "earlier version in pmem-tui's history (.pmem/history) still holds" (or "3 earlier versions … hold"):
    a redaction's step 2 and a hand save that removed a secret say it alike."""
    one = n == 1
    held = "earlier version" if one else f"{n} earlier versions"
    return held + " in pmem-tui's history (.pmem/history) still " + ("holds" if one else "hold")


def secret_left_note(path: str, n: int, upgraded: bool = True) -> str:
    """After a save by hand that removed a secret from `path`: that `n` earlier versions keep it, and where
    to forget them (the health review's fix, as a redaction's step 2 does). Not `upgraded` (the lifecycle
    structure incomplete): the review asks for the upgrade first (PM-UPG-4), so the sentence says so."""
    them = "it" if n == 1 else "them"
    first = "" if upgraded else f"{key_for('upgrade')} to upgrade the lifecycle structure first, then "
    return (
        f"{path} no longer holds the secret, but its {held_secret(n)} it: forget {them} in the health "
        f"review ({first}{key_for('health')}, then {key_for('health.fix')} on its secret-in-history "
        "proposal)."
    )


def forget_secrets_offer(root: Path, path: str, i: int = 0, n: int = 1) -> Offer:
    """Step 2 of a redaction: forget every version of `path` the history keeps that holds a secret (the
    one just recorded before the save among them), through its preview. Reads every record's changes once:
    the app plans it in a worker. `i`, `n`: the redaction is the `i`-th fix of a batch of `n`."""
    from pmem_tui.core.errors import Refused
    from pmem_tui.core.fix_planner import secret_forgets
    from pmem_tui.core.history import rewrite
    from pmem_tui.tui.planning import Offer, StoreChange

    plan = secret_forgets(root, path)
    if plan is None:
        raise Refused(f"No version of {path} in the history holds a secret; nothing to forget.")
    where = fix_position(i, n, "step 2 of 2")
    title = f"Forget {path}'s versions holding the secret from the history{where}"
    versions = len(plan.versions)
    one = versions == 1
    held = held_secret(versions)
    them, those = ("it", "that version") if one else ("them", "those versions")
    also = ""
    if plan.others:
        also = (
            f" Forgetting goes by content: the versions of {', '.join(plan.others)} with the same content go "
            "too."
        )
    return Offer(
        title=title,
        explanation=f"Step 1 is done: {path} is saved with its secrets redacted. Its {held} the "
        f"secret. Confirm to forget {them}: the history then no longer has {those} of the file, and this "
        f"cannot be undone.{also} Cancel to keep {them} (the health check goes on proposing it; or "
        f"`pmem-tui history forget {path} --version V`).",
        danger=True,
        change=StoreChange(
            title,
            tuple(plan.lines()),
            lambda: rewrite.apply_forget_all(root, plan, lambda: secret_forgets(root, path)),
        ),
    )


def forget_offer(
    root: Path, proposal: Proposal, i: int = 0, n: int = 1, planned: ForgetPlan | None = None
) -> Offer:
    """The fix of a secret in a kept version: `history forget PATH --version V`, its preview first.
    `planned`: its plan made before an earlier forget of the batch rewrote the history."""
    from pmem_tui.core.history import rewrite
    from pmem_tui.tui.planning import Offer, StoreChange

    assert proposal.fix is not None
    if planned is None:
        plan = rewrite.plan_forget(root, proposal.path, proposal.fix)
    else:
        plan = rewrite.replan_forget(root, planned)
    title = f"Forget a version of {proposal.path} from the history" + fix_position(i, n)
    return Offer(
        title=title,
        explanation=f"Proposal {proposal.n}: {proposal.reason}. This rewrites only pmem-tui's history "
        "(.pmem/history); it cannot be undone.",
        danger=True,
        change=StoreChange(title, tuple(plan.lines()), lambda: rewrite.apply_forget(root, plan)),
    )


# Problems of the index or the archive records left to the person (no automatic fix): their signal's sentence
# says what is wrong and what to do (a line that is not a list item, a record of a file active again).
_BY_HAND = ("orphan", "stale-record")


def no_fix(proposal: Proposal) -> str:
    """Why `f` does nothing for `proposal`: what to mend by hand, or that there is nothing to fix (found in
    review: "nothing in the index to change" was said of a line that is not a list item)."""
    said = [s.detail for s in proposal.signals if s.kind in _BY_HAND]
    if "invalid-summary" in proposal.kinds:
        edit = key_for("health.edit")
        said.append(f"an invalid summary is never rewritten for you: press {edit} to edit it")
    what = "; ".join(said) or "nothing in the index to change"
    return f"Proposal {proposal.n} ({proposal.path}) has no automatic fix: {what}."
