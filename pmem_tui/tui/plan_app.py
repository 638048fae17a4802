"""The app's half that runs plans: key -> offer -> preview modal -> confirm -> executor (in a worker) ->
the outcome said; and the session's undo / redo history. `PmemApp` builds on it.

Screens never call it: they post `OfferPlan`, and `open_plan` opens the modal. Nothing here writes a
memory file except through `executor.apply`. The plan machinery loads on first use, not at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.notifications import SeverityLevel
from textual.worker import Worker, WorkerState

from pmem_tui.core import textio
from pmem_tui.core.errors import PmemError, refusal_of
from pmem_tui.tui.compat import BeforeAppKey
from pmem_tui.tui.messages import OfferPlan, PlanApplied
from pmem_tui.tui.words import in_keys, split_outcome

NOTES_SHOWN = 5  # an empty plan's notes in its toast (300 files dropped in the trash: 300 lines)

if TYPE_CHECKING:
    from pmem_tui.core.plan import Plan
    from pmem_tui.tui import undo
    from pmem_tui.tui.planning import Offer, StoreChange

MAX_NOTIFIED_ITEMS = 6
Then = Callable[["Plan"], None]  # runs once a confirmed plan is applied
OrElse = Callable[[], None]  # runs instead when applying it is refused (the refusal said first)


class PlanApp(BeforeAppKey, App[int]):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = Path(root)
        self._history: undo.History | None = None  # made on first use: its module loads lifecycle
        self._continuations: dict[int, tuple[Then | None, OrElse | None]] = {}

    def request_rescan(self, changed: frozenset[str] | None = None) -> None:
        """Bring the view up to date after an action (the app scans)."""

    def applied(self) -> None:
        """A plan was applied (and recorded in the history): the screens follow."""

    # -- notifications --------------------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification shows its text literally: refusals and outcomes carry user paths, and a file
        named `[red]x[/red].md` must show its brackets. Widgets' and screens' notify land here too. A CLI
        command in core's sentence becomes the key that does it here."""
        message, title = textio.shown(in_keys(message)), textio.printable(title)  # an agent's escapes: shown
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """ctrl+c: Textual's hint, in plain words (its own is markup, shown raw by `notify`)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app.", title="Do you want to quit?")
                return

    def refuse(self, message: str) -> None:
        self.notify(in_keys(message), severity="error")

    # -- previews -------------------------------------------------------------------------------

    def open_plan(
        self,
        offer: Offer,
        *,
        then: Then | None = None,
        tag: tuple[str, undo.Step] | None = None,
        on_cancel: Callable[[bool], None] | None = None,
        or_else: OrElse | None = None,
    ) -> None:
        """The preview modal of `offer`; confirmed, its plan is applied, then `then` runs (`or_else` when
        applying it is refused). `tag`: the plan is then the undo or redo of that step of the history.
        `on_cancel`: told whether the preview had gone stale (the files changed under it)."""
        from pmem_tui.tui.modals.plan_modal import PlanModal

        modal = PlanModal(
            self.root,
            title=offer.title,
            plan=offer.plan,
            builder=offer.builder,
            prompt=offer.prompt,
            initial=offer.initial,
            explanation=offer.explanation,
            danger=offer.danger,
            on_refusal=self.refuse,
            change_lines=offer.change.lines if offer.change is not None else None,
        )

        def closed(confirmed: bool | None) -> None:
            if confirmed and offer.change is not None:
                self.notify("Rewriting pmem-tui's history…", title=offer.change.title)
                self._apply_change(offer.change, then, or_else)
            elif confirmed and modal.plan is not None:
                if tag is not None:
                    self.history.tag(modal.plan, *tag)
                self.apply_plan(modal.plan, then, or_else)
            else:
                self.notify("Cancelled: nothing was changed.")
                if on_cancel is not None:
                    on_cancel(modal.stale is not None)

        self.push_screen(modal, closed)

    def offer(self, make: Callable[[], Offer], tag: tuple[str, undo.Step] | None = None) -> None:
        """Open the preview of what `make` plans, or say why it cannot be planned."""
        try:
            offer = make()
        except (PmemError, OSError) as err:  # OSError: a link or a folder where a control file should be
            self.refuse(refusal_of(err))
            return
        self.open_plan(offer, tag=tag)

    def on_offer_plan(self, message: OfferPlan) -> None:
        cancelled = message.on_cancel
        self.open_plan(
            message.offer,
            then=message.then,
            or_else=message.or_else,
            on_cancel=None if cancelled is None else lambda _stale: cancelled(),
        )

    def whole_memory(
        self, make: Callable[[], Plan], nothing: str, *, explanation: str | None = None, danger: bool = False
    ) -> None:
        """Purge, upgrade, doctor: their preview, or the sentence saying there is nothing to do."""
        try:
            plan = make()
        except (PmemError, OSError) as err:
            self.refuse(refusal_of(err))
            return
        if plan.is_empty:  # its notes too: what it leaves to the person (a file dropped in the trash)
            notes = list(plan.preview.notes)
            more = [f"…and {len(notes) - NOTES_SHOWN} more."]
            shown = notes if len(notes) <= NOTES_SHOWN else notes[:NOTES_SHOWN] + more
            self.notify("\n".join([plan.outcome or nothing, *shown]))
            return
        from pmem_tui.tui.planning import plan_offer

        self.open_plan(plan_offer(plan, explanation, danger=danger))

    # -- applying -------------------------------------------------------------------------------

    def apply_plan(self, plan: Plan, then: Then | None = None, or_else: OrElse | None = None) -> None:
        if then is not None or or_else is not None:
            self._continuations[id(plan)] = (then, or_else)
        self._apply(plan)

    @work(thread=True, group="apply", exit_on_error=False)
    def _apply(self, plan: Plan) -> None:
        from pmem_tui.core import executor

        try:
            result = executor.apply(plan, self.root)
        except PmemError as err:
            self.post_message(PlanApplied(plan, None, str(err)))
        except Exception as err:  # unexpected: said in one sentence, and the continuations still run
            self.post_message(
                PlanApplied(plan, None, f"{plan.title} failed: {str(err) or type(err).__name__}")
            )
        else:
            self.post_message(PlanApplied(plan, result.outcome, None, result.warning))

    @work(thread=True, group="apply", exit_on_error=False)
    def _apply_change(self, change: StoreChange, then: Then | None, or_else: OrElse | None = None) -> None:
        try:
            outcome, error = change.apply(), None
        except Exception as err:  # a store that cannot be rewritten: one sentence
            outcome, error = None, str(err) or type(err).__name__
        self.call_from_thread(self._change_applied, change, outcome, error, (then, or_else))

    def _change_applied(
        self,
        change: StoreChange,
        outcome: str | None,
        error: str | None,
        after: tuple[Then | None, OrElse | None],
    ) -> None:
        then, or_else = after
        if error is not None:
            self.refuse(f"{change.title} failed: {error}")
        else:
            self.notify(outcome or "Done.", title=change.title)
        self.request_rescan()  # the screens that show the history (and health) read again
        if error is None and then is not None:
            then(change.as_plan())
        elif error is not None and or_else is not None:
            or_else()

    def on_plan_applied(self, message: PlanApplied) -> None:
        then, or_else = self._continuations.pop(id(message.plan), (None, None))
        if message.error is not None:
            self.refuse(message.error)
            self.request_rescan()
            if or_else is not None:
                or_else()
            return
        outcome = message.outcome or "Done."
        sentences = split_outcome(outcome)
        for sentence in sentences[:MAX_NOTIFIED_ITEMS]:
            self.notify(sentence, title=message.plan.title)
        if len(sentences) > MAX_NOTIFIED_ITEMS:
            self.notify(f"…and {len(sentences) - MAX_NOTIFIED_ITEMS} more.", title=message.plan.title)
        if message.warning is not None:
            self.notify(message.warning, severity="warning")
        skipped = [n for n in message.plan.preview.notes if n.startswith("Skipped ")]
        for note in skipped[:MAX_NOTIFIED_ITEMS]:
            self.notify(note, severity="warning")
        if not message.plan.is_empty:
            self.history.record(message.plan)
        self.applied()
        self.request_rescan()
        if then is not None:
            then(message.plan)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one error handler for workers: an unexpected failure becomes a notification."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            err = event.worker.error
            self.refuse(f"{event.worker.name or 'A background task'} failed: {err}")

    # -- undo and redo --------------------------------------------------------------------------

    @property
    def history(self) -> undo.History:
        if self._history is None:
            from pmem_tui.tui import undo

            self._history = undo.History()
        return self._history

    @property
    def can_undo(self) -> bool:
        return self._history is not None and self._history.undoable

    @property
    def can_redo(self) -> bool:
        return self._history is not None and bool(self._history.undone)

    def action_undo(self) -> None:
        self._offer_history("undo")

    def action_redo(self) -> None:
        self._offer_history("redo")

    def _offer_history(self, kind: str) -> None:
        """The inverse of the last action (undo) or of the last undo (redo), through its own preview."""
        from pmem_tui.tui import planning, undo

        try:
            step, offer = (self.history.undo_offer if kind == "undo" else self.history.redo_offer)(self.root)
        except undo.NoUndo as err:
            self.notify(str(err), severity="warning")
            return
        except (PmemError, OSError) as err:
            self.refuse(f"Cannot {kind}: {refusal_of(err)}")
            return
        tag = (kind, step)
        if offer.plan is not None:
            self.open_plan(planning.plan_offer(offer.plan, offer.explanation, title=offer.title), tag=tag)
            return
        self.offer(lambda: _tidied(self.root, offer), tag)


def _tidied(root: Path, offer: undo.UndoOffer) -> Offer:
    """An undo that archives again (the reason asked for): its plan also removes the folders the undone
    action created that are empty once it has run."""
    from dataclasses import replace

    from pmem_tui.core import reverse
    from pmem_tui.tui import planning

    asked = planning.archive_offer(
        root,
        list(offer.archive_paths),
        initial=offer.reason,
        explanation=offer.explanation,
        title=offer.title,
    )
    build = asked.builder
    if build is None or not offer.created:
        return asked
    return replace(asked, builder=lambda reason: reverse.leave_folders(root, build(reason), offer.created))
