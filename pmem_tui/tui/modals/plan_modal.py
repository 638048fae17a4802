"""The preview modal: every change is shown as its plan and confirmed by a key before anything runs.

`PlanModal` is a `ModalScreen[bool]`: True means "apply `modal.plan`". When the action needs a line
of input first (the archive reason, a proposed index line), the input sits at the top and has the
focus; `enter` in it builds the plan and shows its preview. `y` (or the Confirm button) confirms,
`n`/`escape` cancel. If the watcher reports a change to anything the plan read, the modal re-checks
the plan and refuses confirmation once it is stale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from pmem_tui.core import executor, textio
from pmem_tui.core.errors import PmemError, StalePlan, refusal_of
from pmem_tui.core.plan import Plan
from pmem_tui.tui.action_types import bindings
from pmem_tui.tui.actions import MODAL
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.planning import PlanBuilder
from pmem_tui.tui.widgets.diff_view import plain_text, render_plan
from pmem_tui.tui.widgets.key_bar import KeyBar
from pmem_tui.tui.words import in_keys


def touches(plan: Plan, paths: Iterable[str] | None) -> bool:
    """Whether any changed path concerns something the plan read (a file, or a folder around it)."""
    if paths is None:
        return True
    keys = list(plan.reads)
    for path in paths:
        for key in keys:
            if (
                key == ""
                or path == ""
                or key == path
                or key.startswith(path + "/")
                or path.startswith(key + "/")
            ):
                return True
    return False


SHORT = 30  # rows: in a shorter terminal the dialog leaves out its blank lines, for the preview (`-short`)


class PlanModal(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(MODAL),
    ]

    def __init__(
        self,
        root: Path,
        *,
        title: str,
        plan: Plan | None = None,
        builder: PlanBuilder | None = None,
        prompt: str = "",
        initial: str = "",
        placeholder: str = "",
        explanation: str | None = None,
        danger: bool = False,
        on_refusal: Callable[[str], None] | None = None,
        change_lines: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__(classes="plan-modal")
        self.root = root
        self.heading = title
        self.plan = plan
        self.builder = builder
        self.prompt = prompt
        self.initial = initial
        self.placeholder = placeholder
        self.explanation = explanation
        self.danger = danger
        self.stale: str | None = None
        self.error: str | None = None
        self._on_refusal = on_refusal
        self.change_lines = change_lines  # the preview of a change of the history store (no plan)

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-dialog"):
            yield Static(Text(textio.printable(self.heading)), id="plan-title")
            if self.explanation:
                yield Static(Text(textio.shown(self.explanation)), id="plan-explanation")
            if self.builder is not None:
                yield Label(Text(textio.shown(self.prompt)), id="plan-prompt")
                # A prefilled value (a proposed index line, a suggested reason) is kept when typing starts:
                # the cursor goes to its end instead of selecting it for replacement.
                yield Input(
                    value=self.initial, placeholder=self.placeholder, id="plan-input", select_on_focus=False
                )
            with VerticalScroll(id="plan-body"):
                yield Static(self._body(), id="plan-preview")
            yield Static("", id="plan-status")
            with Horizontal(id="plan-buttons"):
                yield Button(
                    f"Confirm ({key_for('plan.confirm')})",
                    id="plan-confirm",
                    variant="error" if self.danger else "primary",
                    disabled=self.plan is None and self.change_lines is None,
                    action="screen.confirm",
                )
                yield Button(f"Cancel ({key_for('plan.cancel')})", id="plan-cancel", action="screen.cancel")
        yield KeyBar()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height < SHORT, "-short")

    def on_mount(self) -> None:
        self.set_class(self.app.size.height < SHORT, "-short")
        confirm = self.query_one("#plan-confirm", Button)
        confirm.display = not confirm.disabled  # disabled is only dimmed: without colour it looks live
        if self.builder is not None:
            self.query_one("#plan-input", Input).focus()
        elif self.danger:
            self.query_one("#plan-cancel", Button).focus()  # a stray enter never purges; `y` confirms
        else:
            self.query_one("#plan-confirm", Button).focus()

    @property
    def preview_text(self) -> str:
        """What the preview shows, as plain text."""
        return plain_text(self._body())

    def _body(self) -> RenderableType:
        if self.plan is None and self.change_lines is not None:
            return Text(textio.shown("\n".join(self.change_lines)))
        if self.plan is None:
            return Text("Enter the value above, then press enter to see the preview.", style="dim")
        return render_plan(self.plan)

    # -- building -----------------------------------------------------------------------------

    @on(Input.Submitted, "#plan-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.build(event.value)

    def build(self, value: str) -> bool:
        """Build (or rebuild) the plan from the input; show its preview or the refusal."""
        assert self.builder is not None
        try:
            plan = self.builder(value)
        except (PmemError, OSError) as err:
            self.plan = None
            self._set_status(refusal_of(err), error=True)
            self.query_one("#plan-preview", Static).update(self._body())
            confirm = self.query_one("#plan-confirm", Button)
            confirm.disabled, confirm.display = True, False
            if self._on_refusal:
                self._on_refusal(str(err))
            return False
        self.plan = plan
        self.stale = None
        self.refresh_bindings()  # `y Confirm` back in the key bar
        self._set_status("")
        self.query_one("#plan-preview", Static).update(self._body())
        confirm = self.query_one("#plan-confirm", Button)
        confirm.disabled, confirm.display = False, True
        confirm.focus()
        return True

    def _set_status(self, message: str, *, error: bool = False) -> None:
        self.error = message if error else None
        status = self.query_one("#plan-status", Static)
        status.update(Text(in_keys(message), style="bold red" if error else ""))
        status.set_class(bool(message), "-shown")

    # -- staleness ----------------------------------------------------------------------------

    def notice_change(self, paths: frozenset[str] | None) -> None:
        """The watcher saw changes: re-check the plan against the disk when they concern it."""
        if self.plan is None or self.stale or not touches(self.plan, paths):
            return
        try:
            executor.check_fresh(self.plan, self.root)
        except StalePlan as err:
            # The core's "Preview again." said as what to do here.
            self.stale = f"{str(err).removesuffix(' Preview again.')} {self._stale_advice()}"
            self._set_status(f"⚠ {self.stale}", error=True)
            confirm = self.query_one("#plan-confirm", Button)
            confirm.disabled, confirm.display = True, False  # not even dimmed: without colour, it looks live
            self.refresh_bindings()  # nor does the key bar offer `y Confirm`
            # Not the Cancel button (found in trial: a disabled Confirm handed it the focus, so enter
            # cancelled, and the reason typed was lost), nor the input (found in trial: the `y` pressed to
            # confirm was typed into the reason): the preview, where enter previews again with what was
            # typed (`action_again`) and `y` is refused, saying why.
            if self.builder is not None:
                self.query_one("#plan-body", VerticalScroll).focus()
            else:
                self.query_one("#plan-cancel", Button).focus()

    def _stale_advice(self) -> str:
        """What to do about a stale preview: it is never confirmed."""
        if self.builder is not None:  # the input may have the focus again: `n` would type an n
            return f"Press enter to preview again with what you typed, or {key_for('plan.escape')} to cancel."
        return f"Cancel ({key_for('plan.cancel')}), then do the action again for a new preview."

    def offers(self, binding: Binding) -> bool:
        """Whether the key bar shows `binding`: never a confirmation that would be refused; a new preview
        only once this one is stale."""
        if binding.action == "again":
            return self._can_preview_again()
        return binding.show and not (binding.action == "confirm" and self.stale is not None)

    def _can_preview_again(self) -> bool:
        return self.stale is not None and self.builder is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`enter` previews again only while the preview is stale (else a focused button has it)."""
        if action == "again":
            return self._can_preview_again()
        return True

    def action_again(self) -> None:
        """A stale preview, built again from what is typed in the input (the focus left it: `y` is a key)."""
        if self._can_preview_again():
            self.build(self.query_one("#plan-input", Input).value)

    def key_shown(self, binding: Binding) -> str | None:
        """The keys the key bar writes for `binding` when they are not its own: while the input has the
        focus, `n` types into it, so cancel is escape alone (found in review: the bar said `n/esc`)."""
        if binding.action == "cancel" and isinstance(self.focused, Input):
            return self.app.get_key_display(replace(binding, key_display=None))  # its own key: escape
        return None

    # -- decisions ----------------------------------------------------------------------------

    def action_confirm(self) -> None:
        if self.plan is None and self.change_lines is None:
            self.app.bell()
            if self.builder is not None:
                self.query_one("#plan-input", Input).focus()
            return
        if self.stale:
            self.app.bell()
            self.notify(self.stale, severity="error")
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_scroll_preview(self, how: str) -> None:
        body = self.query_one("#plan-body", VerticalScroll)
        scrolls = {
            "scroll_up": body.scroll_up,
            "scroll_down": body.scroll_down,
            "page_up": body.scroll_page_up,
            "page_down": body.scroll_page_down,
            "scroll_home": body.scroll_home,
            "scroll_end": body.scroll_end,
        }
        scrolls[how](animate=False)
