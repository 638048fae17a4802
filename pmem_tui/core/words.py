"""Counts said in words: '1 file', '3 files', never 'file(s)' (the one plural of every front)."""

from __future__ import annotations


def plural(n: int, word: str, words: str | None = None) -> str:
    """`n` and its noun, singular for 1 and plural otherwise (0 included): `plural(2, 'file')` is '2 files';
    `words` is the plural when adding an 's' does not make it (`plural(2, 'entry', 'entries')`)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"
