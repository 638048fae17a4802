"""The rule for disk errors after an action's commit point.

The commit point is the end of an action's last step: every change is written and synced, and from then
on the action is done and never undone. What is left is clearing its journal: unlink `intent.json`, fsync
`.pmem/journal/`, remove the blobs. A disk error there (or a purge that could not be undone, so was
finished) is reported as what it is: the action's outcome, then one sentence saying it was done and what
the disk said. The CLI exits 3 (not 0: the disk failed; not 1: nothing was refused or undone), the app
shows a warning. It is never a plain success and never "nothing was changed".
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pmem_tui.core import journal
from pmem_tui.core.errors import describe_os_error
from pmem_tui.core.fsops import FS


@dataclass(frozen=True)
class LateError:
    """A disk error while clearing the journal of an action that is done."""

    reason: str  # `errors.describe_os_error`'s phrase
    journal_left: bool  # the intent could not be removed: every later action waits for doctor


def clear_journal(fs: FS) -> LateError | None:
    """Remove the intent, then the blobs; None when the disk reported nothing."""
    try:
        fs.remove(journal.INTENT)
    except OSError as err:
        # The unlink itself may have worked, and only its folder's fsync failed.
        left = os.path.lexists(fs.root / journal.INTENT)
        return LateError(describe_os_error(err), journal_left=left)
    try:
        journal.clear_blobs(fs)
    except OSError as err:  # the intent is gone: the blobs left are swept by doctor
        return LateError(describe_os_error(err), journal_left=False)
    return None


def warning(late: LateError) -> str:
    """The sentence shown after the outcome of an action that is done."""
    if late.journal_left:
        return (
            f"The action was done, but its journal could not be cleared ({late.reason}); "
            "run `pmem-tui doctor` to clear it."
        )
    return (
        f"The action was done, but then {late.reason} while its journal was cleared, so the disk may not "
        "keep that: check the disk, and run `pmem-tui doctor` if the action is later reported unfinished."
    )
