"""Core's sentences name CLI commands (`pmem-tui upgrade`); in the app the person presses a key instead.
One translation, applied to every notification and to the preview modal's status line."""

from __future__ import annotations

import re
from pathlib import Path

from pmem_tui.tui.keys import key_for

# A CLI command -> the sentence naming the key (by action id in the key table) that does it in the app.
_KEYS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"run `pmem-tui upgrade`( first)?"), "upgrade", r"press {key} to preview the upgrade\1"),
    (re.compile(r"run `pmem-tui doctor`"), "doctor", "press {key} (doctor)"),
    (re.compile(r"`pmem-tui doctor` rebuilds it"), "doctor", "doctor ({key}) rebuilds it"),
    (re.compile(r" \(`pmem-tui archive [^`]*`\)"), "archive", " (press {key} on the Index)"),
    (re.compile(r"`pmem-tui purge`"), "purge", "{key}"),
)


def in_keys(message: str) -> str:
    """`message` with its CLI commands replaced by the keys that do the same in the app (the user's)."""
    if "pmem-tui " not in message:
        return message
    for pattern, action_id, keys in _KEYS:
        message = pattern.sub(keys.replace("{key}", key_for(action_id).replace("\\", "\\\\")), message)
    return message


def split_outcome(outcome: str) -> list[str]:
    """One sentence per item of a batch outcome ("Archived a to b. Archived c to d.")."""
    parts = [p.strip() for p in re.split(r"(?<=\.)\s+(?=[A-Z])", outcome) if p.strip()]
    return parts or [outcome]


def display_path(path: Path) -> str:
    """`path` as a person reads it: under the home folder as `~/...`."""
    home = Path.home()
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)
