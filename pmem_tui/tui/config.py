"""The user's settings file: keys and theme.

    <user config>/pmem-tui/config.toml    platformdirs.user_config_dir("pmem-tui") (~/.config/pmem-tui/ on
                                          Linux), or $PMEM_TUI_CONFIG_DIR/config.toml when set (tests)

    theme = "nord"            # a Textual theme name
    [keymap]                  # a binding id of the key table (`tui/actions.py`) -> its key(s)
    archive = "A"
    "list.down" = "down,j,ctrl+n"

A file that cannot be used (a link, a FIFO, too big, not TOML, an unknown setting, id or theme, a key that
another key of the same screen already uses) is ignored whole: the app starts with its default keys and theme
and says why in one sentence. The file is read once, at start-up.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.app import App

from pmem_tui.core import safeio
from pmem_tui.tui.action_types import Action
from pmem_tui.tui.actions import SCOPES, by_id
from pmem_tui.tui.keys import use_keymap

APP_NAME = "pmem-tui"
ENV_CONFIG_DIR = "PMEM_TUI_CONFIG_DIR"
CONFIG_FILE = "config.toml"
MAX_BYTES = 64 * 1024  # a settings file is a few lines


@dataclass(frozen=True)
class Config:
    keymap: Mapping[str, str] = field(default_factory=dict)  # binding id -> keys, as Textual names them
    theme: str | None = None
    problem: str | None = None  # why the file was ignored (None: it was used, or there is none)


def config_path() -> Path:
    override = os.environ.get(ENV_CONFIG_DIR)
    if override:
        return Path(override) / CONFIG_FILE
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME)) / CONFIG_FILE


class _Refused(Exception):
    """What is wrong with the file, as the end of a sentence."""


def load_config(themes: Collection[str], path: Path | None = None) -> Config:
    """The settings in `path` (default: `config_path()`); a file that cannot be used gives the defaults and
    the sentence saying why."""
    path = path if path is not None else config_path()
    try:
        data = _read(path)
        if data is None:
            return Config()
        return _settings(data, themes)
    except _Refused as refused:
        return Config(problem=f"{path}: {refused}; pmem-tui uses its default keys and theme.")


def _read(path: Path) -> dict[str, object] | None:
    try:
        raw = safeio.read_path(path, MAX_BYTES)
    except FileNotFoundError:
        return None
    except safeio.UnsafeFile as err:
        raise _Refused(f"not read: it is {err.detail}") from None
    except OSError as err:
        raise _Refused(f"not read ({err.strerror or err})") from None
    import tomllib  # only when there is a file: the usual start has none (~2 ms of the first frame)

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _Refused("not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise _Refused(f"not valid TOML ({err})") from None


def _settings(data: Mapping[str, object], themes: Collection[str]) -> Config:
    unknown = sorted(set(data) - {"keymap", "theme"})
    if unknown:
        raise _Refused(f"unknown setting '{unknown[0]}' (known: keymap, theme)")
    theme = data.get("theme")
    if theme is not None and (not isinstance(theme, str) or theme not in themes):
        raise _Refused(f"unknown theme {theme!r} (known: {', '.join(sorted(themes))})")
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict):
        raise _Refused('[keymap] is not a table of binding id = "key"')
    return Config(keymap=_keymap(keymap), theme=theme)


def _keymap(table: Mapping[str, object]) -> dict[str, str]:
    actions = by_id()
    keymap: dict[str, str] = {}
    for binding_id, keys in table.items():
        action = actions.get(binding_id)
        if action is None or not action.key:
            raise _Refused(f"unknown binding id '{binding_id}' in [keymap] (the ids are in the README)")
        names = [k.strip() for k in keys.split(",")] if isinstance(keys, str) else []
        if not names or not all(names) or any(" " in k for k in names):
            raise _Refused(f"[keymap] {binding_id} = {keys!r} is not a key or a comma-separated list of keys")
        keymap[binding_id] = ",".join(key_name(k) for k in names)
    _check_clashes(keymap)
    return keymap


def key_name(key: str) -> str:
    """A key as Textual names it in a binding: '?' -> 'question_mark' (as `App.set_keymap` does)."""
    if len(key) == 1 and not key.isalnum():
        return unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
    return key


def keys_of(action: Action, keymap: Mapping[str, str]) -> list[str]:
    return keymap.get(action.id, action.key).split(",")


def _check_clashes(keymap: Mapping[str, str]) -> None:
    """A key given to two actions that can run on the same screen would leave one of them without it."""
    for scope in SCOPES:
        owner: dict[str, Action] = {}
        for action in scope:
            for key in keys_of(action, keymap) if action.key else ():
                other = owner.setdefault(key, action)
                if other is not action and (action.id in keymap or other.id in keymap):
                    mine, theirs = (action, other) if action.id in keymap else (other, action)
                    raise _Refused(
                        f"[keymap] gives {mine.id} the key '{key}', which {theirs.id} already uses"
                    )


def apply_config(app: App[Any]) -> Config:
    """Read the user's file and apply it to `app` (its keymap, its theme); a file that cannot be used is
    said in a notification, and the defaults stay."""
    config = load_config(app.available_themes)
    use_keymap(config.keymap)  # the sentences that name a key (`actions.key_for`)
    if config.keymap:
        app.set_keymap(dict(config.keymap))
    if config.theme:
        app.theme = config.theme
    if config.problem:
        app.notify(config.problem, severity="warning", timeout=30)
    return config
