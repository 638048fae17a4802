"""The offline token estimate shared by the loader and the baseline-cost view.

Method: ceil(characters / 4) over the text as decoded, the rule of thumb the loader issue
names. It needs no download, is deterministic, and never underestimates an empty-ish line
as zero when it has characters.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated tokens for `text`: ceil(len(text) / 4)."""
    return tokens_for_chars(len(text))


def tokens_for_chars(chars: int) -> int:
    """Estimated tokens for a text of `chars` characters (when only its length is known)."""
    return -(-chars // CHARS_PER_TOKEN)
