"""Plain-data reports shared by the CLI and the app: status, baseline cost, and plan text."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pmem_tui.core import ansi, memory_root, safeio, textio
from pmem_tui.core.model import ARCHIVE_DIR, INDEX_FILE, TRASH_DIR, Snapshot
from pmem_tui.core.tokens import estimate_tokens, tokens_for_chars
from pmem_tui.core.words import plural

if TYPE_CHECKING:
    from pmem_tui.core.plan import Plan

# Above this many estimated tokens, `_core/` is no longer "small" (PM-CORE-4): status warns.
CORE_TOKEN_WARNING = 2000


@dataclass(frozen=True)
class Baseline:
    """What an agent loads at baseline: every `_core/` file plus `_index.md` (PM-LOAD-1)."""

    files: int
    tokens: int
    core_tokens: int
    index_tokens: int

    @property
    def core_too_big(self) -> bool:
        return self.core_tokens > CORE_TOKEN_WARNING

    @property
    def warning(self) -> str | None:
        if not self.core_too_big:
            return None
        return (
            f"_core/ is about {self.core_tokens} tokens, over the {CORE_TOKEN_WARNING} a small core "
            "should stay under: an agent reads all of _core/ each time it loads memory."
        )


def _tokens_of(root: Any, rel: str) -> int:
    """The loader's estimate of a file, decoded as the loader decodes: no BOM, undecodable bytes as U+FFFD.
    0 when it cannot be read (`safeio`: a link, a FIFO, a device or a file over the cap is never read)."""
    try:
        data = safeio.read_under(root, rel)
    except OSError:
        return 0
    return estimate_tokens(data.decode("utf-8-sig", errors="replace"))


def baseline(snap: Snapshot, index_chars: int | None = None) -> Baseline:
    """What an agent loads at baseline: `_core/` and `_index.md`. `index_chars`: the index's length as the
    loader decodes it, when the caller already knows it (the app's signature of a 13 MB index), so the file
    is not read and decoded again; None reads it."""
    core = sum(_tokens_of(snap.root, f.path) for f in snap.core)
    idx_path = snap.root / INDEX_FILE
    if index_chars is not None:
        idx, files = tokens_for_chars(index_chars), len(snap.core) + 1
    else:
        exists = idx_path.exists()
        idx, files = (_tokens_of(snap.root, INDEX_FILE) if exists else 0), len(snap.core) + exists
    return Baseline(files, core + idx, core, idx)


def _iso(value: Any) -> str | None:
    return None if value is None else str(value.isoformat())


def _clean(value: Any) -> Any:
    """Undecodable bytes in names and text become U+FFFD, so the JSON is always valid UTF-8."""
    if isinstance(value, str):
        return textio.display(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def status_dict(snap: Snapshot) -> dict[str, Any]:
    return dict(_clean(_status_dict(snap)))


def status_cacheable(snap: Snapshot) -> bool:
    """Whether status made from `snap` may be served again while the listing is unchanged (`status_cache`).

    Not when something could not be read or listed: an I/O failure is not a fact about the tree, and the
    next run must try again. Invalid UTF-8 is a fact about the bytes, so that problem does not prevent it.
    """
    return (
        snap.exists
        and not snap.action_running
        and all(p.kind != "unreadable" or p.detail.startswith("not valid UTF-8") for p in snap.problems)
    )


def status_json(snap: Snapshot) -> str:
    """`status_dict` as one compact JSON line, cleaned once as a whole (as if each string were cleaned)."""
    text = json.dumps(_status_dict(snap), ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")  # much faster than a regex search when, as usual, there is no lone surrogate
    except UnicodeEncodeError:
        return textio.display(text)
    return text


def _status_dict(snap: Snapshot) -> dict[str, Any]:
    base = baseline(snap) if snap.exists else Baseline(0, 0, 0, 0)
    return {
        "root": str(snap.root),
        "exists": snap.exists,
        "lifecycle": {
            "ready": snap.lifecycle_ready,
            "missing": list(snap.lifecycle_missing),
            "linked": list(snap.lifecycle_linked),
        },
        "baseline": {
            "files": base.files,
            "tokens": base.tokens,
            "core_tokens": base.core_tokens,
            "index_tokens": base.index_tokens,
            "warning": base.warning,
        },
        "core": [{"path": f.path, "bytes": f.size} for f in snap.core],
        "active": [
            {
                "path": a.path,
                "index_line": a.index_line,
                "summary": a.index_summary,
                "summary_state": a.summary.state.value,
                "title": a.title,
                "bytes": a.size,
            }
            for a in snap.active
        ],
        "archived": [
            {
                "path": a.path,
                "location": a.location,
                "archived": _iso(a.record.archived if a.record else None),
                "reason": a.record.reason if a.record else None,
                "index_line": a.record.index_line if a.record else None,
            }
            for a in snap.archived
        ],
        "trash": [
            {
                "path": t.path,
                "location": t.location,
                "deleted": _iso(t.deleted),
                "deadline": _iso(t.deadline),
                "expired": t.expired,
                "index_line": t.record.index_line if t.record else None,
            }
            for t in snap.trash
        ],
        "problems": [{"kind": p.kind, "path": p.path, "detail": p.detail} for p in snap.problems],
        "unfinished_action": snap.unfinished_action,
    }


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def status_lines(snap: Snapshot) -> list[str]:
    """Status for people (PM-STATUS-1): counts, approximate size, one-line summaries."""
    return [textio.printable(line) for line in _status_lines(snap)]


def _status_lines(snap: Snapshot) -> list[str]:
    if not snap.exists:
        if os.path.lexists(snap.root):  # no save can create the memory in a file's place
            return [f"No memory at {snap.root}: it is a file, not a folder."]
        return [f"No memory at {snap.root}. The first `pmem-tui save` creates it."]
    base = baseline(snap)
    total = sum(a.size for a in snap.active)
    lifecycle = (
        "ready"
        if snap.lifecycle_ready
        else f"incomplete, missing {', '.join(snap.lifecycle_missing)} (run `pmem-tui upgrade`)"
    )
    if not snap.lifecycle_ready and not memory_root.is_memory(snap.root, places=True):
        # Found in review: a folder that is no memory (a wrong --root) was sent to `upgrade`, which refuses.
        lifecycle = f"none: {memory_root.not_a_memory(snap.root, places=True)}; is --root right?"
    if snap.lifecycle_linked:
        lifecycle = (
            f"blocked: {', '.join(snap.lifecycle_linked)} is a symbolic link, which pmem-tui never follows "
            "(make it a folder or file of its own; the actions that use it are refused until then)"
        )
    lines = [
        f"Memory root: {snap.root}",
        f"Lifecycle: {lifecycle}",
        f"Baseline an agent loads: {plural(base.files, 'file')}, about {base.tokens} tokens "
        f"(_core/ {base.core_tokens}, {INDEX_FILE} {base.index_tokens})",
    ]
    if base.warning:
        lines.append(f"Warning: {base.warning}")
    if snap.action_running:
        lines.append(f"Action in progress: '{snap.unfinished_action}'; what follows may be part-way.")
    elif snap.unfinished_action:
        lines.append(f"Unfinished action: '{snap.unfinished_action}' was interrupted; run `pmem-tui doctor`.")
    lines.append(f"Core ({len(snap.core)}):")
    lines += [f"  {f.path}  {human_size(f.size)}" for f in snap.core]
    lines.append(f"Active ({len(snap.active)} files, about {human_size(total)}):")
    for a in snap.active:
        summary = a.index_summary or ("(not in the index)" if a.index_line is None else "")
        lines.append(f"  {a.path}  {human_size(a.size)}  {summary}".rstrip())
    lines.append(f"Archived ({len(snap.archived)}):")
    for item in snap.archived:
        rec = item.record
        when = rec.archived.isoformat() if rec and rec.archived else "?"
        reason = rec.reason if rec and rec.reason else ""
        at = _at(item.location, f"{ARCHIVE_DIR}/{item.path}")
        lines.append(f"  {item.path}{at}  archived {when}  {reason}".rstrip())
    lines.append(f"Trash ({len(snap.trash)}, {len(snap.expired_trash)} expired):")
    for t in snap.trash:
        if t.deadline is None:
            state = "no record"
        elif t.expired:
            state = f"expired {t.deadline.isoformat()}"
        else:
            state = f"recoverable until {t.deadline.isoformat()}"
        lines.append(f"  {t.path}{_at(t.location, f'{TRASH_DIR}/{t.path}')}  {state}")
    lines.append(f"Problems ({len(snap.problems)}):")
    lines += [f"  {p.kind}: {p.path}: {p.detail}" for p in snap.problems]
    return lines


def plan_lines(plan: Plan, colour: bool = False) -> list[str]:
    """A plan's preview as text (the CLI prints it; the app renders the same data with Rich). `colour`:
    ANSI colours (the CLI's choice on a terminal, `ansi.wanted`)."""
    parts = _plan_parts(plan)
    if not colour:
        return [textio.printable(line) for _kind, line in parts]
    return [ansi.paint(kind, textio.printable(line)) for kind, line in parts]


def plan_dict(plan: Plan) -> dict[str, Any]:
    """A plan's preview as data (`--json` of every action): each field of its `Preview`, and the same text
    as `preview` lines. Paths and lines are the files' own text (JSON escapes controls), an undecodable
    byte as U+FFFD (as in `status --json`: the output stays UTF-8)."""
    pv = plan.preview
    show = textio.display
    return {
        "action": plan.action,
        "title": show(plan.title),
        "items": [show(p) for p in plan.items],
        "empty": plan.is_empty,
        "creates": [show(p) for p in pv.creates],
        "moves": [{"from": show(src), "to": show(dst)} for src, dst in pv.moves],
        "removes_dirs": [show(p) for p in pv.removes_dirs],
        "removes": [show(p) for p in pv.removes],
        "index_removed": [show(line) for line in pv.index_removed],
        "index_added": [show(line) for line in pv.index_added],
        "record_changes": [show(change) for change in pv.record_changes],
        "notes": [show(note) for note in pv.notes],
        "recovery": show(pv.recovery) or None,
        "meta_creates": list(pv.meta_creates),
        "diffs": [
            {"path": show(d.path), "new_file": d.is_new, "unified": [show(line) for line in d.unified()]}
            for d in pv.diffs
        ],
        "preview": plan_lines(plan),
    }


def _plan_parts(plan: Plan) -> list[tuple[str, str]]:
    """The preview's lines, each with its kind (its colour on a terminal)."""
    pv = plan.preview
    out = [("title", plan.title)]
    if plan.is_empty:
        out.append(("", f"  {plan.outcome}"))
        out.extend(("note", f"  {note}") for note in pv.notes)
        return out
    out += [("add", f"  create  {folder}") for folder in pv.creates]
    out += [("move", f"  move    {src} -> {dst}") for src, dst in pv.moves]
    out += [
        ("remove", f"  remove  {rel}/  (the empty folder it created; kept if anything is in it)")
        for rel in pv.removes_dirs
    ]
    out += [("remove", f"  remove  {rel}  (permanently)") for rel in pv.removes]
    out += [("remove", f"  index - {line}") for line in pv.index_removed]
    out += [("add", f"  index + {line}") for line in pv.index_added]
    out += [("", f"  record  {change}") for change in pv.record_changes]
    out += [("note", f"  note    {note}") for note in pv.notes]
    if pv.recovery:
        out.append(("", f"  recovery: {pv.recovery}"))
    out += [("add", f"  create  {rel}  (pmem-tui's own folder, ignored by git)") for rel in pv.meta_creates]
    for diff in pv.diffs:
        out.append(("", ""))
        out += [(ansi.diff_kind(line), line) for line in diff.unified()]
    return out


def _at(location: str, own_place: str) -> str:
    """Where an agent put an archived file, when it is not the tool's own place for it."""
    return "" if location == own_place else f" (at {location})"
