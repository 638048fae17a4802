"""`e` and `n`: a copy in the editor, then the save preview; an edit whose save is refused is kept as a draft.

The editor never gets the memory file itself: it edits a copy in a private temp folder. A save that is
refused (a secret, a bad index line...; or at apply time) keeps the edit in `core.drafts`, outside the
memory root; the next `e` on that file (or `n` with that path) opens the draft instead of the file, until
the draft is saved, or discarded by leaving the editor without changing it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pmem_tui.core import drafts, safeio
from pmem_tui.core.errors import PmemError, refusal_of
from pmem_tui.core.save_planner import savable
from pmem_tui.tui.editor import Editor, edit_suspended
from pmem_tui.tui.keys import key_for
from pmem_tui.tui.planning import plan_offer

if TYPE_CHECKING:
    from pmem_tui.core.plan import Plan
    from pmem_tui.tui.plan_app import PlanApp


def shown(path: Path) -> str:
    from pmem_tui.tui.words import display_path

    return display_path(path)


def edit_copy(app: PlanApp, editor: Editor, name: str, initial: bytes) -> bytes | None:
    """Run the editor on a temporary copy holding `initial`; its bytes afterwards, or None (and a
    notification saying what happened) when the editor failed."""
    folder = Path(tempfile.mkdtemp(prefix="pmem-edit-"))
    temp = folder / name
    try:
        temp.write_bytes(initial)
        problem = edit_suspended(app, editor, temp)
        app.refresh()
        if problem is not None:
            app.refuse(f"{problem} Nothing was saved.")
            return None
        return temp.read_bytes()
    except OSError as err:
        app.refuse(f"The edited copy could not be read back: {err.strerror or err}.")
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def start_edit(app: PlanApp, editor: Editor, rel: str) -> None:
    """Edit a copy of `rel` (or of its kept draft) in the editor, then preview the save."""
    try:
        original = safeio.read_under(app.root, rel)  # never through a link, never a FIFO; capped
    except OSError as err:
        app.refuse(f"{rel} cannot be read: {err.strerror or err}.")
        return
    kept = drafts.read(app.root, rel)
    if kept is None and not savable(original):  # a kept draft opens: leaving it unchanged discards it
        app.refuse(
            f"{rel} is not UTF-8 text, so the app cannot save an edit of it: convert it to UTF-8 outside the "
            f"app (for example `iconv -f latin1 -t utf-8`), then press {key_for('edit')} again."
        )
        return
    base = drafts.fingerprint(original) if kept is None else drafts.base_of(app.root, rel)
    edited = edit_copy(app, editor, Path(rel).name, original if kept is None else kept[1])
    if edited is None:
        if kept is not None:
            app.notify(f"Your draft of {rel} is still kept at {shown(kept[0])}.")
        return
    if kept is not None and edited in (kept[1], original):
        drafts.discard(app.root, rel)
        why = "you left the editor without changing it" if edited == kept[1] else "it matches the file"
        app.notify(f"Discarded your draft of {rel} ({why}); {rel} on disk is unchanged.")
        return
    if edited == original:
        app.notify(f"No changes to {rel}: nothing to save.")
        return
    explanation = _changed_since(app, rel, base, kept is not None)
    if kept is not None:
        explanation = (
            f"This is your kept draft of {rel}. Confirm to save it; cancel keeps the draft; to discard "
            f"it, press {key_for('edit')} and leave the editor without changing it. {explanation or ''}"
        ).strip()
    offer_save(app, rel, edited, None, base, explanation)


def start_new(app: PlanApp, editor: Editor, rel: str, index_line: str | None, template: bytes) -> None:
    """Write a new file from `template` (or from its kept draft) in the editor, then preview the save."""
    kept = drafts.read(app.root, rel)
    base = _on_disk(app, rel)[0] if kept is None else drafts.base_of(app.root, rel)
    content = edit_copy(app, editor, Path(rel).name or "new.md", template if kept is None else kept[1])
    if content is None:
        if kept is not None:
            app.notify(f"Your draft of {rel} is still kept at {shown(kept[0])}.")
        return
    if kept is not None and content == kept[1]:
        drafts.discard(app.root, rel)
        app.notify(f"Discarded your draft of {rel} (you left the editor without changing it): nothing saved.")
        return
    if not content.strip():
        drafts.discard(app.root, rel)
        app.notify("The new file is empty: nothing to save.")
        return
    explanation = _changed_since(app, rel, base, kept is not None)
    if kept is not None:
        explanation = (
            f"This is your kept draft of {rel}. Confirm to save it; cancel keeps the draft; to discard it, "
            f"press {key_for('new')}, give the path {rel} and leave the editor without changing it. "
            f"{explanation or ''}"
        ).strip()
    offer_save(app, rel, content, index_line, base, explanation)


def _on_disk(app: PlanApp, rel: str) -> tuple[str | None, bool]:
    """The fingerprint of `rel` as it is now (None when it cannot be read), and whether it exists."""
    try:
        return drafts.fingerprint(safeio.read_under(app.root, rel)), True
    except FileNotFoundError:
        return drafts.NO_FILE, False
    except OSError:
        return None, True


def _changed_since(app: PlanApp, rel: str, base: str | None, from_draft: bool) -> str | None:
    """A sentence when `rel` on disk is not the file the edit began from (`base`): an agent's change that
    confirming would replace. None when it is the same, or when that cannot be told."""
    now, exists = _on_disk(app, rel)
    if base is None or now is None or now == base:
        return None
    since = "since this draft was begun" if from_draft else "while you were editing"
    if not exists:
        return f"{rel} was removed from disk {since}: confirming writes it again, with your text."
    if base == drafts.NO_FILE:
        what = f"{rel} was created on disk {since}"
    else:
        what = f"{rel} changed on disk {since}"
    return (
        f"{what} (an agent's edit?). The diff below is against the file as it is now: its - lines "
        f"include that change, and confirming replaces it with {'your draft' if from_draft else 'yours'}."
    )


def offer_save(
    app: PlanApp,
    rel: str,
    content: bytes,
    index_line: str | None,
    base: str | None,
    explanation: str | None = None,
) -> None:
    """Plan the save of `content`, an edit begun from the file whose fingerprint is `base`, and open its
    preview; a refusal keeps the edit as a draft, with that base."""
    from pmem_tui.core import lifecycle

    try:
        plan = lifecycle.plan_save(app.root, rel, content, index_line)
    except (PmemError, OSError) as err:  # OSError: `_index.md` a link or a folder, unreadable...
        app.refuse(f"{refusal_of(err)} {_keep_draft(app, rel, content, base)}")
        return
    if plan.is_empty:
        drafts.discard(app.root, rel)
        app.notify(plan.outcome or f"{rel} is unchanged; nothing to save.")
        return
    # Kept until the save succeeds: a refusal at apply time ("changed since the preview") or a crash while
    # the preview is open loses nothing. Cancelling drops it, unless the edit was already a draft, or the
    # preview went stale (the file changed under it: cancel was the only way out).
    was_draft = drafts.read(app.root, rel) is not None
    # The preview shows the diff against the file as the plan read it: from now on the draft is begun from
    # that file (found in review: once the person had taken the agent's change into the draft, every later
    # save still said the file changed since).
    note = _keep_draft(app, rel, content, _seen_base(plan, rel, base))

    def saved(_plan: Plan) -> None:
        drafts.discard(app.root, rel)
        _tell_secret_left(app, plan, rel)

    def cancelled(stale: bool) -> None:
        if was_draft or stale:
            app.notify(note)
        else:
            drafts.discard(app.root, rel)

    app.open_plan(plan_offer(plan, explanation), then=saved, on_cancel=cancelled)


def _removes_secret(plan: Plan, rel: str) -> bool:
    """Whether the save takes out a line of the file that looks like it holds a secret."""
    from pmem_tui.core.fix_planner import removes_secret

    diff = next((d for d in plan.preview.diffs if d.path == rel and not d.is_new and not d.masked), None)
    return diff is not None and removes_secret(diff.old, diff.new)


def _tell_secret_left(app: PlanApp, plan: Plan, rel: str) -> None:
    """After a save by hand that removed a secret: one sentence when the history keeps earlier versions of
    the file holding it, and where to forget them (`health_review.secret_left_note`). Both the secret check
    (it may load the detector) and the history's read run in a worker, after the save, never before its
    preview."""

    def count() -> None:
        from pmem_tui.core.fix_planner import earlier_secrets
        from pmem_tui.core.layout import missing_lifecycle
        from pmem_tui.tui.health_review import secret_left_note

        if not _removes_secret(plan, rel):
            return
        n = earlier_secrets(app.root, rel)
        if n:
            note = secret_left_note(rel, n, upgraded=not missing_lifecycle(app.root))
            app.call_from_thread(app.notify, note, severity="warning", timeout=20)

    app.run_worker(count, thread=True, group="secret-left", exit_on_error=False, description="kept secrets")


def _seen_base(plan: Plan, rel: str, base: str | None) -> str | None:
    """The fingerprint of `rel` as `plan` read it (its preview's diff is against that file); `base` when
    the plan did not read it, or read something that is not a regular file (a marker print, not a hash)."""
    if rel not in plan.reads:
        return base
    seen = plan.reads[rel]
    if seen is None:
        return drafts.NO_FILE
    return seen.sha256 if seen.size >= 0 else base


def _keep_draft(app: PlanApp, rel: str, content: bytes, base: str | None) -> str:
    """Keep `content` as the draft of `rel`; the sentence that says where, and how to go on."""
    try:
        path = drafts.keep(app.root, rel, content, base)
    except (OSError, PmemError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return f"Your edit could not be kept as a draft ({reason}); it is lost."
    new = not (app.root / rel).exists()
    again = (
        f"press {key_for('new')} and give the path {rel} again"
        if new
        else f"press {key_for('edit')} on {rel}"
    )
    return (
        f"Your edit is kept as a draft at {shown(path)}: {again} to continue it (leave the editor without "
        "changing it to discard it)."
    )
