"""`f` in the health review: the fixes of the chosen proposals, one preview after the other
(`HealthScreen` is a `FixBatch`). Each fix is planned in a worker: a redaction's note and a forget read
every record of the history (on a large history the app froze when they ran on the UI thread). A
redaction's step 2 (forgetting the versions that hold the secret) follows its step 1. One batch at a time:
`_fixing` is true from `f` until the batch ends, is cancelled or the review is left."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen

from pmem_tui.core.errors import PmemError, refusal_of
from pmem_tui.tui import health_review as review
from pmem_tui.tui.messages import OfferPlan
from pmem_tui.tui.planning import Offer
from pmem_tui.tui.rows import Row

if TYPE_CHECKING:
    from pmem_tui.core.health import Proposal
    from pmem_tui.core.history.rewrite import ForgetPlan
    from pmem_tui.core.plan import Plan


class FixBatch(Screen[None]):
    """The fix batch of the health review; the screen gives the selection, its sentences and its marks."""

    @dataclass
    class FixPlanned(Message):
        """The fix of `proposals[i]` planned (in the worker): its offer, or the sentence refusing it."""

        proposals: list[Proposal]
        i: int
        forgets: Mapping[str, ForgetPlan]
        offer: Offer | None
        refusal: str

    root: Path
    _fixing: bool  # a batch of fixes is under way: planned, previewed or applied

    def _selection_or_refuse(self) -> list[tuple[Row, Proposal]]:
        raise NotImplementedError  # the screen's

    def say(self, message: str, *, severity: SeverityLevel = "information") -> None:
        raise NotImplementedError  # the screen's

    def refuse(self, message: str) -> None:
        raise NotImplementedError  # the screen's

    def _clear_marks(self, _plan: Plan | None = None) -> None:
        raise NotImplementedError  # the screen's

    def action_fix(self) -> None:
        chosen = self._selection_or_refuse()
        if not chosen:
            return
        for _row, p in chosen:
            if p.fix is None:
                self.refuse(review.no_fix(p))
        fixable = [p for _row, p in chosen if p.fix is not None]
        if fixable:
            self._fixing = True
            self._next_fix(fixable, 0, None)

    def _next_fix(self, proposals: list[Proposal], i: int, forgets: Mapping[str, ForgetPlan] | None) -> None:
        """Plan the fix of `proposals[i]` in a worker (a redaction's note and a forget read the history, each
        record of it); none left, the batch is over. `forgets`: the batch's forgets, planned first."""
        if i >= len(proposals) or not self.is_attached:
            self._fixing = False
            return
        if proposals[i].fix_action in ("redact", "forget"):
            self.say(f"Reading the history of {proposals[i].path} for its fix…")
        self._plan_fix(proposals, i, forgets)

    @work(thread=True, group="fix", exit_on_error=False)
    def _plan_fix(self, proposals: list[Proposal], i: int, forgets: Mapping[str, ForgetPlan] | None) -> None:
        offer: Offer | None = None
        refusal = ""
        try:
            if forgets is None:  # each planned before any is applied (`review.forget_plans`)
                forgets = review.forget_plans(self.root, proposals)
            offer = review.fix_offer(self.root, proposals[i], i, len(proposals), forgets)
        except (PmemError, OSError) as err:
            refusal = refusal_of(err)
        except Exception as err:  # anything else is said too: the batch goes on
            refusal = str(err) or type(err).__name__
        # Posted to the screen: dropped with it when the person has left it meanwhile.
        self.post_message(
            self.FixPlanned(proposals, i, forgets if forgets is not None else {}, offer, refusal)
        )

    def on_fix_batch_fix_planned(self, message: FixBatch.FixPlanned) -> None:
        """Preview the fix; once it is applied, the next one. A refusal (as it is planned or as it is applied)
        is said and skips to the next one; cancelling a fix stops the batch (but cancelling a redaction's
        step 2 keeps the versions and goes on with the batch)."""
        message.stop()
        proposals, i, forgets = message.proposals, message.i, message.forgets

        def next_fix(_plan: Plan | None = None) -> None:
            self._next_fix(proposals, i + 1, forgets)

        if message.offer is None:
            self.refuse(message.refusal)
            next_fix()
            return

        def after(plan: Plan | None) -> None:
            if i + 1 >= len(proposals):
                self._clear_marks(plan)
            next_fix()

        path, redact = proposals[i].path, proposals[i].fix_action == "redact"

        def then(plan: Plan) -> None:  # a redaction's step 2: the versions the history keeps with the secret
            if redact:
                self._forget_secrets(path, i, len(proposals), after)
            else:
                after(plan)

        # applied, or refused as it is applied: the next one follows
        self.post_message(OfferPlan(message.offer, then, or_else=next_fix, on_cancel=self._fixes_stopped))

    def _fixes_stopped(self) -> None:
        self._fixing = False

    def _forget_secrets(self, path: str, i: int, n: int, after: Callable[[Plan | None], None]) -> None:
        """A redaction's step 2 (`review.forget_secrets_offer`; the redaction is fix `i` of `n`), then
        `after`, whether applied or not. It reads every record of the history: planned in a worker, the app
        stays responsive meanwhile."""
        self.notify(f"Step 2: finding the versions of {path} in the history that hold the secret…")
        self._plan_forget_secrets(path, i, n, after)

    @work(thread=True, group="forget-secrets", exit_on_error=False)
    def _plan_forget_secrets(self, path: str, i: int, n: int, after: Callable[[Plan | None], None]) -> None:
        try:
            offer = review.forget_secrets_offer(self.root, path, i, n)
        except (PmemError, OSError) as err:  # a refusal, or a store that cannot be read: one sentence
            self.app.call_from_thread(self._forget_refused, refusal_of(err), after)
        except Exception as err:  # anything else is said too: the batch goes on
            self.app.call_from_thread(self._forget_refused, str(err) or type(err).__name__, after)
        else:
            skip = lambda: after(None)  # noqa: E731  refused as applied, or cancelled: the batch goes on
            self.post_message(OfferPlan(offer, after, or_else=skip, on_cancel=skip))

    def _forget_refused(self, sentence: str, after: Callable[[Plan | None], None]) -> None:
        self.refuse(sentence)
        after(None)
