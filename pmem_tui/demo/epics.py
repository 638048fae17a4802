"""A sample project permanent memory for `pmem-tui --demo`: what the Epics pane shows.

Writes under ``<project>/.claude/memory/`` (sample data, written directly):

* ``permanent_memory.md``: five epics, v2 as the epic-summarizer writes them and v1 as a person does. One is
  tentative (``confidence=low``), one was completed over 90 days before `today`; their ages come from each
  source (a Completed line, the marker, the heading, none); one hand-written section is over the producer's
  500-token cap; a template inside a code block is not an epic. The composed block is a little over the
  120-token target, so the first rung of the degradation ladder (drop the tentative epic) is in force.
* ``archive/2025-q3.md``: two archived epics; ``history.jsonl``: the summarizer's events, one line broken.

Dates are relative to `today`, so the flags read the same whatever day the demo runs.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from pmem_tui.core.epic_archive import ARCHIVE_DIR, HISTORY_FILE
from pmem_tui.core.loader import MEMORY_DIR, MEMORY_FILE

_RUNBOOK = "".join(
    f"- Step {i}: drain node group {i}, wait for the health check, then move the next slice of traffic.\n"
    for i in range(1, 25)
)


def sample_permanent_memory(today: dt.date) -> str:
    def ago(days: int) -> str:
        return (today - dt.timedelta(days=days)).isoformat()

    return f"""\
# Permanent memory

Durable lessons from finished epics, written by the epic summarizer. The loader reads each epic's heading
and one summary line only; everything below that line stays on disk. A new epic follows this shape:

```markdown
## Epic: <ID> — <intent>
<!-- af-memory:v2 epic=<ID> confidence=<0..1> items=<n> -->
One-line human summary.
```

## Epic: FEAT-112 — cursor pagination for the feed
<!-- af-memory:v2 epic=FEAT-112 confidence=0.86 items=4 -->
<!-- reviewed by the team lead -->
Cursor pagination over offset; cursors are opaque (created_at, id).

### Architectural decisions
- [decision] Opaque cursors, so clients never build them (confidence: 0.9)
- [decision] Page size capped at 100 on the server (confidence: 0.85)
### Gotchas discovered
- [gotcha] Ties on created_at need the id as a tie-breaker, or pages repeat rows (confidence: 0.8)
### Tentative (low confidence — review)
- [gotcha] Cursor decoding may be slow on old phones (confidence: 0.55)

**Completed:** {ago(12)}
**Trace summary:** 3 traces, 0 hallucinations, 1 logic error recovered

## Epic: AUTH-7 — session tokens
httpOnly cookie tokens; refresh rotates on use. Deadline for the old API: {ago(-300)}.

### Gotchas discovered
- Safari drops SameSite=None cookies that are not also Secure.

**Completed:** {ago(200)}

## Epic: SEARCH-31 — typo-tolerant product search
<!-- af-memory:v2 epic=SEARCH-31 confidence=low items=2 date={ago(5)} -->
A pg_trgm index looks enough for typos; not load-tested past 50k products.

### Tentative (low confidence — review)
- [decision] Similarity threshold 0.3 keeps "blu shirt" -> "blue shirt" (confidence: 0.5)

## Epic: OPS-4 — zero-downtime deploys ({ago(40)})
Blue-green deploys; migrations stay compatible for one release.

### Runbook (written by hand)
{_RUNBOOK}
## Epic: PAY-19 — refunds
<!-- af-memory:v2 epic=PAY-19 confidence=0.8 items=3 -->
Refunds are idempotent by order id; the webhook marks them done.

### Architectural decisions
- [decision] The webhook is the source of truth; the API reply is only logged (confidence: 0.8)
### Conflicts encountered
- [conflict] Support wanted instant refunds; finance wanted a daily batch (confidence: 0.72)
"""


def sample_archive(today: dt.date) -> str:
    def ago(days: int) -> str:
        return (today - dt.timedelta(days=days)).isoformat()

    return f"""\
# Archived epics

## Epic: CART-2 — guest checkout
<!-- af-memory:v2 epic=CART-2 confidence=0.9 items=2 -->
Guest carts live 7 days in Redis, then merge on sign-in.

**Completed:** {ago(300)}

## Epic: IMG-1 — image thumbnails
Thumbnails are made on upload, never on read.
"""


def sample_history(today: dt.date) -> str:
    def event(name: str, feature: str, days: int, tokens: int | None = None) -> str:
        fields: dict[str, object] = {"event": name, "feature": feature}
        if tokens is not None:
            fields["tokens"] = tokens
        fields["ts"] = (today - dt.timedelta(days=days)).isoformat()
        return json.dumps(fields)

    lines = [
        event("epic_summarized", "CART-2", 300, 212),
        event("epic_summarized", "AUTH-7", 200, 180),
        '{"event": "epic_summarized", "feature": "OPS-4", "tok',  # a write cut short
        event("epic_archived", "CART-2", 30),
        event("epic_summarized", "FEAT-112", 12, 386),
    ]
    return "\n".join(lines) + "\n"


def build_epics_demo(project: Path, today: dt.date) -> Path:
    """Write the sample ``.claude/memory/`` under `project` and return `project`."""
    folder = Path(project) / MEMORY_DIR
    (folder / ARCHIVE_DIR).mkdir(parents=True, exist_ok=True)
    (folder / MEMORY_FILE).write_text(sample_permanent_memory(today), encoding="utf-8")
    (folder / ARCHIVE_DIR / "2025-q3.md").write_text(sample_archive(today), encoding="utf-8")
    (folder / HISTORY_FILE).write_text(sample_history(today), encoding="utf-8")
    return Path(project)
