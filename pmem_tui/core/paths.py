"""The lifecycle safety contract: a user string -> a checked path inside the root, or a refusal.

Three layers, each usable on its own:

* `normalize_user_path` is purely lexical: it accepts only a normalized relative POSIX path of a
  Markdown file and refuses everything else (absolute, home aliases, drive and UNC paths, `..` in any
  spelling, hidden names, control characters...) with one sentence.
* `protected_reason` says why a (lexically normal) path names something no lifecycle action may touch:
  `_index.md`, `_archive/` and everything in it, the lifecycle folders, hidden metadata, and every case or
  Unicode alias of those names.
* `check_memory_path` adds the area rules and the file-system checks: no symbolic link below the root
  (at any depth), folders where folders are needed, and the deepest existing ancestor really inside the
  root. `check_existing_inside` runs the same file-system checks on paths the tool computed itself.

Names are compared "caselessly" with NFKC + casefold, so `_ARCHIVE`, `＿archive` (fullwidth) and
`_Index.md` are the names they look like. These checks are advisory at plan time: the executor runs them
again under its lock right before it touches anything.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from enum import StrEnum
from pathlib import Path

from pmem_tui.core.errors import UnsafePath
from pmem_tui.core.model import (
    ACTIVE_DIRS,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CORE_DIR,
    INDEX_FILE,
    META_DIR,
    TRASH_DIR,
)
from pmem_tui.core.safeio import describe_mode

__all__ = [
    "Area",
    "check_existing_inside",
    "check_memory_path",
    "location_path",
    "normalize_user_path",
    "protected_reason",
]

MD_SUFFIX = ".md"
MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096
EXAMPLE = "projects/old.md"

# Unicode categories that have no business in a file name a person typed: controls (NUL, tab, newline...),
# format characters (zero-width space/joiner, BOM, bidi overrides), surrogates, private use, unassigned,
# and line/paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Characters that look like a slash without being one (NFKC already maps the fullwidth ones to '/' or '\').
_SLASH_LOOKALIKES = frozenset("\u2044\u2215\u29f8\u29f9\u2216\u29f5\u29f6\u29f7\u2afb\u2afd\u3033")
_DRIVE_RE = re.compile(r"^[A-Za-z]:")
_ENV_RE = re.compile(r"\$[A-Za-z_{(]|%[A-Za-z_][A-Za-z0-9_()]*%")
_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")

_WHERE = {"active": "", "archive": ARCHIVE_DIR + "/", "trash": TRASH_DIR + "/"}


class Area(StrEnum):
    """Which kind of memory path a user string may name."""

    CORE = "core"  # save targets: projects/, notes/ or one level of _core/
    ACTIVE = "active"  # active on-demand files: projects/ or notes/


# --------------------------------------------------------------------------------------------- helpers


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _fold(name: str) -> str:
    """The caseless identity of one name (canonical caseless matching, Unicode 3.13 D145 style).

    Trailing dots and spaces are dropped too, because Windows drops them: `_archive.` is `_archive`.
    """
    return _nfkc(_nfkc(name).casefold()).rstrip(" .")


def _show(text: str, limit: int = 100) -> str:
    """The path quoted for a sentence, with invisible characters spelled out and long paths cut."""
    out: list[str] = []
    for ch in text:
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES or (ch.isspace() and ch != " "):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    shown = "".join(out)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"'{shown}'"


def _refuse(user_path: str, problem: str) -> UnsafePath:
    """One sentence: `Refusing '<path>': <problem>.`"""
    problem = problem.rstrip(".")
    if not user_path.strip():
        err = UnsafePath(f"Refusing an empty path: {problem}.")
    else:
        err = UnsafePath(f"Refusing {_show(user_path)}: {problem}.")
    err.problem = problem
    return err


def _codepoint(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X} {name}".rstrip()


def _simple_form(user_path: str) -> str | None:
    """The normalized spelling of a harmless non-normalized path (`./a//b.md` -> `a/b.md`), if it is valid."""
    parts = [p for p in user_path.split("/") if p and _nfkc(p) != "."]
    candidate = "/".join(parts)
    if not candidate or candidate == user_path:
        return None
    try:
        return normalize_user_path(candidate)
    except UnsafePath:
        return None


# ------------------------------------------------------------------------------------------- lexical


def normalize_user_path(user_path: str) -> str:
    """Return `user_path` unchanged if it is a normalized relative POSIX path of a Markdown file.

    Otherwise raise `UnsafePath` with one sentence naming the problem (and the normalized spelling when
    the path was only untidy, such as `./projects/x.md`).
    """
    if not isinstance(user_path, str):
        raise UnsafePath("Refusing the path: it is not text.")
    s = user_path
    if not s.strip():
        raise _refuse(s, f"give a relative path such as {EXAMPLE}")

    for ch in s:
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES:
            what = "NUL character" if ch == "\0" else f"invisible or control character {_codepoint(ch)}"
            raise _refuse(s, f"it contains the {what}; type the path again without it")
    for ch in s:
        if ch.isspace() and ch != " ":
            raise _refuse(s, f"it contains the unusual space {_codepoint(ch)}; use an ordinary space")
    if len(s.encode("utf-8")) > MAX_PATH_BYTES:
        raise _refuse(s, f"it is longer than {MAX_PATH_BYTES} bytes")

    for ch in s:
        if ch in "/\\":
            continue
        folded = _nfkc(ch)
        if ch in _SLASH_LOOKALIKES or "/" in folded or "\\" in folded:
            raise _refuse(
                s, f"it contains '{ch}' ({_codepoint(ch)}), which looks like a path separator; use '/'"
            )

    n = _nfkc(s)
    if n.startswith(("//", "\\\\", "/\\", "\\/")):
        raise _refuse(s, "it is a network (UNC) path; give a path relative to the memory root")
    if _DRIVE_RE.match(n):
        raise _refuse(s, f"it is a drive path; give a path relative to the memory root, such as {EXAMPLE}")
    if n.startswith(("/", "\\")):
        raise _refuse(
            s, f"it is an absolute path; give a path relative to the memory root, such as {EXAMPLE}"
        )
    if any(part.startswith("~") for part in n.split("/")):
        raise _refuse(
            s, f"'~' is a home-folder alias; give a path relative to the memory root, such as {EXAMPLE}"
        )
    if _ENV_RE.search(n):
        raise _refuse(
            s,
            "it uses an environment variable such as $HOME or %USERPROFILE%; give a path relative "
            f"to the memory root, such as {EXAMPLE}",
        )
    if "\\" in n:
        raise _refuse(s, "it contains a backslash; separate folders with '/'")
    if ":" in s:
        raise _refuse(s, "it contains ':', which Windows reads as a drive or a data stream")
    if _PERCENT_RE.search(n):
        raise _refuse(s, "it looks URL-encoded (%XX); write the characters themselves")

    raw_parts = s.split("/")
    parts = n.split("/")
    if len(parts) != len(raw_parts):  # NFKC never adds or removes '/' once look-alikes are refused
        raise _refuse(s, "it changes shape under Unicode normalization")
    for raw, part in zip(raw_parts, parts, strict=True):
        if part == "..":
            spelled = "" if raw == ".." else f" (spelled {_show(raw, 60)})"
            raise _refuse(s, f"it contains '..'{spelled}, which could leave the memory root")
    if any(part in ("", ".") for part in parts):
        simple = _simple_form(s)
        if simple is not None:
            raise _refuse(s, f"it is not in normal form; use '{simple}'")
        if parts[-1] == "":
            raise _refuse(s, "it ends with '/'; name a Markdown file")
        if "" in parts:
            raise _refuse(s, "it has an empty folder name ('//')")
        raise _refuse(s, "it contains a '.' folder")
    for raw, part in zip(raw_parts, parts, strict=True):
        if part.startswith("."):
            raise _refuse(
                s, f"{_show(raw, 60)} is hidden, and hidden files and folders are metadata, not memory"
            )
    for raw, part in zip(raw_parts, parts, strict=True):
        if part != part.lstrip():
            raise _refuse(s, f"the name {_show(raw, 60)} starts with a space; remove it")
        if part != part.rstrip():
            raise _refuse(s, f"the name {_show(raw, 60)} ends with a space, which some systems drop silently")
        if part.endswith("."):
            raise _refuse(s, f"the name {_show(raw, 60)} ends with a dot, which some systems drop silently")
        if len(raw.encode("utf-8")) > MAX_COMPONENT_BYTES:
            raise _refuse(s, f"a name is longer than {MAX_COMPONENT_BYTES} bytes")

    last = raw_parts[-1]
    if not last.endswith(MD_SUFFIX):
        stem_suffix = os.path.splitext(last)
        if parts[-1].lower().endswith(MD_SUFFIX):
            fixed = "/".join([*raw_parts[:-1], last[: -len(MD_SUFFIX)] + MD_SUFFIX])
            if stem_suffix[1].lower() == MD_SUFFIX:
                hint = f"the suffix must be lower-case '.md', as in '{fixed}'"
            else:
                hint = f"the suffix must be an ordinary '.md', as in '{fixed}'"
            raise _refuse(s, hint)
        raise _refuse(s, "only Markdown files ending in '.md' can be memory files")
    return s


# ----------------------------------------------------------------------------------------- protected

_LIFECYCLE_FOLDERS = {_fold(name) for name in (CORE_DIR, ARCHIVE_DIR, *ACTIVE_DIRS)}


def protected_reason(rel: str) -> str | None:
    """Why the (lexically normal) path `rel` names something no lifecycle action may touch, or None.

    Compared per name with NFKC + casefold, so case and Unicode aliases of protected names are caught.
    `_core/...` is reported here too; `check_memory_path(..., Area.CORE)` lets one level of it through.
    """
    raw_parts = [p for p in rel.replace("\\", "/").split("/") if p]
    parts = [_fold(p) for p in raw_parts]
    if not parts:
        return "it names the memory root itself"
    first = parts[0]
    meta = _fold(META_DIR)
    if first == meta:
        return f"'{META_DIR}/' holds pmem-tui's own metadata"
    if any(p.startswith(".") for p in parts) or any(_nfkc(p).startswith(".") for p in raw_parts):
        return "hidden files and folders are metadata, not memory"
    if parts == [_fold(INDEX_FILE)]:
        return f"'{INDEX_FILE}' is the memory index, which actions update themselves"
    if first == _fold(ARCHIVE_DIR):
        if len(parts) == 1:
            return f"'{ARCHIVE_DIR}/' is a lifecycle folder"
        if parts == [_fold(p) for p in ARCHIVE_INDEX.split("/")]:
            return f"'{ARCHIVE_INDEX}' is the archive index, which actions update themselves"
        if parts == [_fold(p) for p in TRASH_DIR.split("/")]:
            return f"'{TRASH_DIR}/' is a lifecycle folder"
        return f"it is inside '{ARCHIVE_DIR}/'; name the file by its original active path, such as {EXAMPLE}"
    if len(parts) == 1 and first in _LIFECYCLE_FOLDERS:
        return f"'{raw_parts[0]}' is a lifecycle folder"
    if first == _fold(CORE_DIR):
        return f"'{CORE_DIR}/' is the protected core memory"
    return None


# ------------------------------------------------------------------------------------------ filesystem


def _is_link(st: os.stat_result) -> bool:
    if stat.S_ISLNK(st.st_mode):
        return True
    # Windows junctions and other reparse points are links too.
    attrs = getattr(st, "st_file_attributes", 0)
    return bool(attrs & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0))


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


def _check_fs(root: Path, rel: str, shown: str, *, folder: bool = False) -> None:
    """Walk `rel` below the root with lstat: no links, folders where needed, inside the root. `folder`:
    `rel` itself is a folder (one an action makes), not a file."""
    root_real = os.path.realpath(root)
    try:
        root_st = os.stat(root_real)
    except FileNotFoundError:
        root_st = None  # a first save creates the root
    except OSError as err:
        raise _refuse(shown, f"the memory root cannot be checked ({err.strerror})") from None
    if root_st is not None and not stat.S_ISDIR(root_st.st_mode):
        raise _refuse(shown, "the memory root is not a folder")

    parts = rel.split("/")
    current = root_real
    for depth, part in enumerate(parts):
        here = "/".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        candidate = os.path.join(current, part)
        try:
            st = os.lstat(candidate)
        except FileNotFoundError:
            break  # it and everything below it do not exist yet
        except NotADirectoryError:
            raise _refuse(shown, f"'{'/'.join(parts[:depth]) or '.'}' is not a folder") from None
        except OSError as err:
            raise _refuse(shown, f"{_show(here, 80)} cannot be checked ({err.strerror})") from None
        if _is_link(st):
            raise _refuse(
                shown,
                f"{_show(here, 80)} is a symbolic link, and pmem-tui never follows links inside the "
                "memory root",
            )
        if (folder or not last) and not stat.S_ISDIR(st.st_mode):
            raise _refuse(shown, f"{_show(here, 80)} is a file, not a folder")
        if last and not folder and stat.S_ISDIR(st.st_mode):
            raise _refuse(shown, f"{_show(here, 80)} is a folder, not a Markdown file")
        if last and not folder and not stat.S_ISREG(st.st_mode):
            raise _refuse(shown, f"{_show(here, 80)} is {describe_mode(st.st_mode)}, not a regular file")
        current = candidate
    if not _inside(os.path.realpath(current), root_real):
        raise _refuse(shown, "it resolves to a place outside the memory root")


# ------------------------------------------------------------------------------------------- public


def check_memory_path(root: Path, user_path: str, area: Area) -> str:
    """The whole safety contract for a path a person gave. Returns the normalized relative path.

    `Area.ACTIVE`: the path must be in `projects/` or `notes/`. `Area.CORE` (save only): also
    `_core/<name>.md`, one level deep. Names that do not exist yet are fine (a save may create them).
    """
    rel = _spelled_right(user_path, area)
    _check_fs(root, rel, user_path)
    return rel


def active_path_problem(rel: str) -> str | None:
    """What makes `rel` no place for an active memory file, from its spelling alone (`check_memory_path`'s
    sentence, without the path); None when it is one."""
    try:
        _spelled_right(rel, Area.ACTIVE)
    except UnsafePath as err:
        return err.problem
    return None


def _spelled_right(user_path: str, area: Area) -> str:
    """`check_memory_path` without the file system: the normalized path, or UnsafePath."""
    rel = normalize_user_path(user_path)
    parts = rel.split("/")
    first = parts[0]
    core_ok = area is Area.CORE and first == CORE_DIR
    if core_ok and len(parts) != 2:
        raise _refuse(user_path, f"core memory is one level deep, such as '{CORE_DIR}/{parts[-1]}'")
    if not core_ok:
        if area is Area.CORE and _fold(first) == _fold(CORE_DIR) and len(parts) > 1:
            raise _refuse(
                user_path, f"the core folder is spelled '{CORE_DIR}', as in '{CORE_DIR}/{parts[-1]}'"
            )
        reason = protected_reason(rel)
        if reason is not None:
            raise _refuse(user_path, reason)
        if first not in ACTIVE_DIRS:
            right = next((d for d in ACTIVE_DIRS if _fold(d) == _fold(first)), None)
            if right is not None:
                fixed = "/".join([right, *parts[1:]])
                raise _refuse(user_path, f"the folder is spelled '{right}', as in '{fixed}'")
            where = "projects/ or notes/" if area is Area.ACTIVE else f"projects/, notes/ or {CORE_DIR}/"
            raise _refuse(user_path, f"memory files live in {where}, such as {EXAMPLE}")
    return rel


def location_path(rel: str, where: str) -> str:
    """Where the active path `rel` lives in `where` ("active", "archive" or "trash").

    `projects/x.md` -> `projects/x.md`, `_archive/projects/x.md`, `_archive/_trash/projects/x.md`.
    """
    try:
        prefix = _WHERE[where]
    except KeyError:
        raise ValueError(f"unknown location {where!r}; expected one of {sorted(_WHERE)}") from None
    return prefix + rel


def check_existing_inside(root: Path, rel: str, *, folder: bool = False) -> None:
    """File-system checks for a path the tool computed itself (archive and trash locations).

    The same link, folder and containment checks as `check_memory_path`; a lexically unsafe `rel`
    (absolute, `..`, empty names...) is refused too, as a defence against a bug upstream.
    """
    parts = rel.split("/")
    if (
        not rel
        or rel.startswith("/")
        or "\\" in rel
        or "\0" in rel
        or _DRIVE_RE.match(rel)
        or any(_nfkc(p) in ("", ".", "..") for p in parts)
    ):
        raise _refuse(rel, "it is not a normalized path inside the memory root")
    _check_fs(root, rel, rel, folder=folder)
