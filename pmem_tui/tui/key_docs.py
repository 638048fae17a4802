"""The key table written for people: an action's keys as the user has them (their keymap over the table's),
the `{action_id}` keys inside a sentence, the panes where a key applies, and the README's keys table
(`python -m pmem_tui.tui.key_docs` prints it)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pmem_tui.tui.action_types import Action
from pmem_tui.tui.actions import HELP, by_id
from pmem_tui.tui.keys import key_text
from pmem_tui.tui.panes import PANES, offered_on


def shown_keys(action: Action, keymap: Mapping[str, str]) -> str:
    """How the help and the palette write the action's keys: the user's (`keymap`: binding id -> keys)."""
    if action.keys_shown:
        return with_keys(action.keys_shown, keymap)
    return _bound_keys(action.id, keymap)


def _bound_keys(action_id: str, keymap: Mapping[str, str]) -> str:
    return " / ".join(map(key_text, keymap.get(action_id, by_id()[action_id].key).split(",")))


_NAMED = re.compile(r"\{([a-z0-9_.]+)\}")


def with_keys(text: str, keymap: Mapping[str, str]) -> str:
    """A text of the table with each `{action_id}` written as that action's keys ('{undo}' -> 'ctrl+z')."""
    return _NAMED.sub(lambda m: _bound_keys(m[1], keymap), text)


def where_text(action: Action) -> str:
    """The panes where the key bar offers the action, by title ("": every pane)."""
    panes = offered_on(action.id)
    if len(panes) == len(PANES):
        return ""
    return ", ".join(p.title for p in PANES if p.id in panes)


def readme_table() -> str:
    """The README's keys table (Markdown): the main screen's with where each key applies, then the others."""
    lines: list[str] = []
    for section in HELP:
        main = section is HELP[0]
        lines += [f"**{section.title}**", ""]
        lines += ["| key | action | where |", "|---|---|---|"] if main else ["| key | action |", "|---|---|"]
        for action in section.actions:
            keys = ", ".join(f"`{k.strip()}`" for k in shown_keys(action, {}).split(", "))
            where = f" {where_text(action) or 'everywhere'} |" if main else ""
            lines.append(f"| {keys} | {with_keys(action.help, {})} |{where}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(readme_table(), end="")
