"""Keys named inside sentences ("Press n to write the first memory file", "expired: P purges it"): the key
table's (`actions.py`), or the user's where their `config.toml` remaps them (`config.py`).

Such sentences are made in many places, most without a widget at hand (row cells, refusals, empty panes), and
some below the key table (`rows.py`, which the pane table imports), so the keys in use are kept here, at the
bottom: the key table hands over its keys as it is imported, the user's file its own when the app starts.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.keys import key_to_character

# How keys read on screen and in the README, where Textual's name is not the character.
_KEY_NAMES = {"slash": "/", "up": "↑", "down": "↓", "pageup": "pgup", "pagedown": "pgdn"}

_table: dict[str, str] = {}  # binding id -> its keys as Textual names them, comma separated (the key table)
_user: dict[str, str] = {}  # the same, as the user's file remaps them


def key_text(key: str) -> str:
    """'question_mark' -> '?'; a key that types no visible character keeps its name ('tab', 'ctrl+z')."""
    char = _KEY_NAMES.get(key) or key_to_character(key)
    return char if char and char.isprintable() and not char.isspace() else key


def set_table(keys: Mapping[str, str]) -> None:
    _table.update(keys)


def use_keymap(keymap: Mapping[str, str]) -> None:
    """The user's keys for the app that starts (binding id -> keys); {} for the table's."""
    _user.clear()
    _user.update(keymap)


def keymap() -> Mapping[str, str]:
    return _user


def key_for(action_id: str) -> str:
    """The action's first key as written on screen, the user's if remapped: the `n` of 'Press n to...'."""
    return key_text((_user.get(action_id) or _table[action_id]).split(",")[0])
