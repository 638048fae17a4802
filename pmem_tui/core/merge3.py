"""A line-based three-way merge of a control file: one edit applied to (or taken back from) a file that an
agent has edited since, keeping the agent's other lines (doctor's interrupted steps, the app's undo)."""

from __future__ import annotations

import difflib

Hunk = tuple[int, int, tuple[bytes, ...]]


def _hunks(base: list[bytes], other: list[bytes]) -> list[Hunk]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, tuple(other[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def merge3(base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """Line-based three-way merge: `theirs`' changes to `base` applied to `ours`; None on a conflict.

    A change of theirs that ours already holds (the same lines replaced by the same lines, or by lines that
    begin or end with them; a removal only by the same removal) is taken once. Two insertions at the same
    place are both kept, ours first. Changes to overlapping lines conflict: a line ours edited and theirs
    removes too (found in review: the edit was kept and the removal dropped without a word).
    """
    a, b, c = base.splitlines(keepends=True), ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    mine, yours = _hunks(a, b), _hunks(a, c)
    kept: list[Hunk] = []
    for s, e, lines in yours:
        same = next((h[2] for h in mine if h[0] == s and h[1] == e), None)
        if same is not None and (lines or not same) and lines in (same[: len(lines)], same[-len(lines) :]):
            continue  # ours already made this change
        for s2, e2, _ in mine:
            if max(s, s2) < min(e, e2):
                return None  # both changed the same lines
            if (s == e and s2 < s < e2) or (s2 == e2 and s < s2 < e):
                return None  # an insertion inside the other's change
        kept.append((s, e, lines))
    # In base order; at one place an insertion goes before a replaced range, and ours before theirs.
    tagged = [(h, 0) for h in mine] + [(h, 1) for h in kept]
    order = sorted(tagged, key=lambda x: (x[0][0], x[0][0] != x[0][1], x[1]))
    out: list[bytes] = []
    pos = 0
    for (s, e, lines), _side in order:
        out.extend(a[pos:s])
        out.extend(lines)
        pos = max(pos, e)
    out.extend(a[pos:])
    return b"".join(out)
