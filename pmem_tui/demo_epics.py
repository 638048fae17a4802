"""A sample project permanent memory for `pmem-tui --demo`: what the Epics pane shows.

Writes ``<project>/.claude/memory/permanent_memory.md`` (sample data, written directly): five epics, v1 and v2
mixed, one ``confidence=tentative``, one dated over 90 days before `today`. The composed block is a little
over the 120-token target, so the first rung of the degradation ladder (drop the tentative epic) is in force.
Dates are relative to `today`, so the flags read the same whatever day the demo runs.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pmem_tui.core.loader import MEMORY_DIR, MEMORY_FILE


def sample_permanent_memory(today: dt.date) -> str:
    def ago(days: int) -> str:
        return (today - dt.timedelta(days=days)).isoformat()

    return f"""\
# Permanent memory

Durable lessons from finished epics, written by the epic summarizer. The loader reads each epic's heading
and one summary line only; everything below that line stays on disk.

## Epic: FEAT-112 — cursor pagination for the feed
<!-- af-memory:v2 epic=FEAT-112 confidence=0.9 items=4 date={ago(12)} -->
Cursor pagination over offset; cursors are opaque (created_at, id).

### Architectural decisions
- [decision] Opaque cursors, so clients never build them (confidence: 0.9)
- [decision] Page size capped at 100 on the server (confidence: 0.85)

### Gotchas discovered
- [gotcha] Ties on created_at need the id as a tie-breaker, or pages repeat rows.

## Epic: AUTH-7 — session tokens
Since {ago(200)}: httpOnly cookie tokens; refresh rotates on use.

### Gotchas discovered
- Safari drops SameSite=None cookies that are not also Secure.

## Epic: SEARCH-31 — typo-tolerant product search
<!-- af-memory:v2 epic=SEARCH-31 confidence=tentative items=2 date={ago(5)} -->
A pg_trgm index looks enough for typos; not load-tested past 50k products.

### Tentative
- [pattern] Similarity threshold 0.3 keeps "blu shirt" -> "blue shirt" (confidence: 0.5)

## Epic: OPS-4 — zero-downtime deploys ({ago(40)})
Blue-green deploys; migrations stay compatible for one release.

## Epic: PAY-19 — refunds
<!-- af-memory:v2 epic=PAY-19 confidence=0.8 items=3 updated={ago(21)} -->
Refunds are idempotent by order id; the webhook marks them done.

### Architectural decisions
- [decision] The webhook is the source of truth; the API reply is only logged (confidence: 0.8)
"""


def build_epics_demo(project: Path, today: dt.date) -> Path:
    """Write the sample ``permanent_memory.md`` under `project` and return `project`."""
    folder = Path(project) / MEMORY_DIR
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MEMORY_FILE).write_text(sample_permanent_memory(today), encoding="utf-8")
    return Path(project)
