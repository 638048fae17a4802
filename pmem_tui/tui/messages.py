"""App-wide messages. Threads (the watcher, workers) reach the UI only by posting these."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # annotations only: the first frame does not load the plan machinery
    from rich.console import RenderableType

    from pmem_tui.core.model import Snapshot
    from pmem_tui.core.plan import Plan
    from pmem_tui.core.report import Baseline
    from pmem_tui.tui.planning import Offer


class FilesChanged(Message):
    """The watcher saw something change under the root.

    It carries no paths: the receiver drains them from the watcher, so a burst of events collapses
    into one message (`can_replace`) without losing any path.
    """

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FilesChanged)


@dataclass
class ScanDone(Message):
    """A scan finished in a worker thread."""

    generation: int
    snapshot: Snapshot
    baseline: Baseline | None
    changed: frozenset[str] | None  # the paths the watcher reported, None: unknown / everything
    signature: object = None  # what `_index.md` looked like besides its entries (tui.patch.IndexSignature)
    rows: dict[str, Sequence[Any]] | None = None  # each pane's rows, built in the worker (None: build them)
    patched: list[Any] | None = None  # a patch, not a scan: only these Index rows changed
    history: object = None  # what the full scan's first record did (`core.history.record.Recorded`)


@dataclass
class PlanApplied(Message):
    """The executor finished (or refused) a plan in a worker thread."""

    plan: Plan
    outcome: str | None  # None when it failed
    error: str | None
    warning: str | None = None  # done, but the disk reported an error on the way (`core/after_commit.py`)


@dataclass
class ShowInPreview(Message):
    """Any pane (e.g. a future Epics pane) can ask the preview to show a ready renderable."""

    title: str
    renderable: RenderableType


class PreviewShown(Message):
    """The preview put a row's file on screen (the app starts its full scan after the first one)."""


@dataclass
class OfferPlan(Message):
    """A screen asks the app to open the preview modal; `then` runs once the plan is applied, `or_else` when
    applying it is refused (the refusal said first: a batch goes on with its next item), `on_cancel` when
    the preview is cancelled."""

    offer: Offer
    then: Callable[[Plan], None] | None = None
    or_else: Callable[[], None] | None = None
    on_cancel: Callable[[], None] | None = None


@dataclass
class EditRequested(Message):
    """A screen asks the app to edit a file (a copy in the editor, then the save preview)."""

    path: str


@dataclass
class KeepRequested(Message):
    """The health review asks the app to keep these paths out of its proposals for the session."""

    paths: tuple[str, ...]


@dataclass
class IndexProgress(Message):
    """The search index's worker: how far its build has come (`done` of `total` files read), or that it is
    up to date (`ready`)."""

    done: int
    total: int
    ready: bool


@dataclass
class SearchOpen(Message):
    """The search screen asks the app to show a file (`location`: its path under the root) in its pane,
    the preview scrolled to `needle` (the match)."""

    location: str
    needle: str


@dataclass
class SearchHitAction(Message):
    """The search screen asks the app for a lifecycle action (`archive`, `delete`, `recover`) on the file
    at `location`, through its usual preview."""

    action: str
    location: str
