"""A generator of large, realistic synthetic memory roots for the benchmarks.

    python benchmarks/generate.py DIR [--files 10000] [--size 2000] [--seed 1] [--today 2026-11-30]

Writes a complete memory root in DIR (which must not exist, or be empty):

* `_core/`: a profile, preferences and a few more baseline files;
* N active notes of about `--size` bytes (Gaussian, 20% spread, plus a few large files of 64-300 KB) across
  `projects/<project>/[decisions|research|meetings|specs]/` and `notes/<topic>/[<year>]/`: titles,
  `Updated:` dates, `Owner:` and `Status:` lines, `## Summary` sections (about 45% valid with 3-6 bullets,
  8% invalid with too few or too many bullets, the rest without one), context paragraphs, decision lists,
  checklists (some fully ticked), stand-up notes, a little CJK, and a few paths with spaces, brackets or CJK;
* `_index.md`: one line per indexed file in the shapes agents write (mostly `index.make_line`, also bare
  paths, code spans, `**Title** (path)`, `path: summary`, `*` bullets), under `## Projects` and `## Notes`,
  with about 0.5% orphans (files without a line), a few dead routes and one duplicate route;
* `_archive/`: N/50 archived files and `_archive/_trash/`: N/200 deleted files (40% past their recovery
  deadline), with their records in `_archive/_index.md` written by `records.format_record` (the bytes
  `records.add_record` would produce, record after record), a few legacy records without an index line;
* planted duplicates: N/100 near duplicates (1-10% of the words edited) and N/500 exact copies;
* old files: 20% of the notes were last modified 91-700 days before `--today` (`os.utime`), the rest within
  the last 89 days; control files a day ago.

Deterministic: the same arguments give the same bytes and the same modification times. Fast: text comes from
a pre-generated pool of sentences, so 100,000 files take seconds, mostly file-system time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pmem_tui.core.index import make_line, parse_line
from pmem_tui.core.model import RECOVERY_DAYS, ArchiveRecord
from pmem_tui.core.records import empty_archive_index, format_record

TODAY = dt.date(2026, 11, 30)
DEFAULT_FILES = 10_000
DEFAULT_SIZE = 2000

_COMMON_TEXT = (
    "the a to of and in for on with is that we it this be as at by from are was not or but will should "
    "can need use new team api data service release review plan test build deploy fix issue bug user "
    "customer query index cache latency error timeout budget schema migration backend frontend config "
    "metric alert dashboard owner sprint ticket branch merge rollback incident postmortem design doc "
    "decision option tradeoff risk cost estimate deadline scope milestone feature flag rollout staging "
    "production database table column request response endpoint client server queue worker job retry "
    "limit memory disk network region cluster node pod image container script pipeline check lint type "
    "module package version upgrade dependency vendor contract invoice billing search ranking import "
    "export report weekly daily monday friday morning agreed proposed blocked waiting done next because "
    "after before during until when then also only still again more less most first last every some"
)
_COMMON = _COMMON_TEXT.split()
_ONSETS = (
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "st",
    "tr",
    "pl",
    "gr",
    "ch",
    "sh",
)
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou", "ea", "io")
_CODAS = ("", "", "n", "r", "s", "t", "l", "ck", "nd", "x", "m")
_PROJECT_WORDS = (
    "atlas",
    "beacon",
    "billing",
    "search",
    "onboarding",
    "infra",
    "mobile",
    "ledger",
    "auth",
    "design",
    "docs",
    "importer",
    "catalog",
    "payments",
    "routing",
    "alerts",
    "gateway",
    "storage",
    "analytics",
    "checkout",
    "identity",
    "pricing",
    "sync",
    "notebook",
)
_PROJECT_SUFFIXES = ("api", "v2", "service", "web", "cli", "rewrite", "migration", "pilot", "app", "core")
_SUBFOLDERS = ("decisions", "research", "meetings", "specs")
_TOPICS = (
    "standup",
    "reading",
    "ideas",
    "people",
    "howto",
    "retro",
    "travel",
    "health",
    "learning",
    "interviews",
    "recipes",
    "tools",
    "writing",
    "finance",
    "home",
    "books",
    "talks",
    "hiring",
    "oncall",
    "misc",
)
_KINDS = (
    "decision log",
    "design notes",
    "meeting notes",
    "research",
    "spec",
    "retro",
    "runbook",
    "open questions",
    "status",
    "plan",
    "review",
    "postmortem",
    "interview notes",
    "reading notes",
)
_STATUS_ACTIVE = ("active", "in progress", "draft", "ongoing", "blocked")
_STATUS_DONE = ("done", "concluded", "completed", "shipped", "closed", "abandoned", "superseded", "已完成")
_REASONS = (
    "project shipped",
    "superseded by the v2 notes",
    "no longer relevant",
    "merged into the main spec",
    "the team moved on",
    "duplicate of a newer note",
    "concluded last quarter",
    "完成了",
)
_CJK = (
    "会议记录",
    "设计决策",
    "下一步计划",
    "数据库迁移",
    "性能测试",
    "用户反馈",
    "发布说明",
    "日本語のメモ",
    "問題点の整理",
    "週次の振り返り",
)


@dataclass
class Memory:
    """What was generated (paths are relative to `root`, POSIX)."""

    root: Path
    today: dt.date
    active: list[str] = field(default_factory=list)  # every active note, planted copies included
    indexed: list[str] = field(default_factory=list)  # active notes with an index line
    orphans: list[str] = field(default_factory=list)  # active notes without an index line
    dead_routes: list[str] = field(default_factory=list)  # index lines without a file
    duplicate_routes: list[str] = field(default_factory=list)
    core: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)  # original paths
    trash: list[str] = field(default_factory=list)  # original paths
    expired_trash: list[str] = field(default_factory=list)
    near_pairs: list[tuple[str, str]] = field(default_factory=list)
    exact_pairs: list[tuple[str, str]] = field(default_factory=list)
    old: list[str] = field(default_factory=list)  # mtime more than 90 days before `today`
    large: list[str] = field(default_factory=list)
    index_lines: int = 0  # lines of _index.md that name a route
    bytes_total: int = 0  # bytes of active notes
    seconds: float = 0.0

    @property
    def index_rows(self) -> int:
        """Rows of the app's Index pane: every route line, plus one per orphan."""
        return self.index_lines + len(self.orphans)


class _Text:
    """Words and sentences from a Zipf-weighted vocabulary, drawn once into a pool."""

    def __init__(self, rng: random.Random, pool: int) -> None:
        self.rng = rng
        synthetic: set[str] = set()
        while len(synthetic) < 6000:
            n = rng.choice((1, 2, 2, 3))
            synthetic.add(
                "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(n))
            )
        vocab = list(_COMMON) + sorted(synthetic)
        cum: list[float] = []
        total = 0.0
        for i in range(len(vocab)):
            total += 1.0 / (i + 1) ** 0.85
            cum.append(total)
        self.vocab = vocab
        self.cum = cum
        words = rng.choices(vocab, cum_weights=cum, k=pool * 11)
        lengths = [rng.randint(5, 17) for _ in range(pool)]
        ends = rng.choices((".", ".", ".", ".", "?", "!", ";"), k=pool)
        sentences: list[str] = []
        at = 0
        for n, end in zip(lengths, ends, strict=True):
            chunk = words[at : at + n] if at + n <= len(words) else rng.choices(vocab, cum_weights=cum, k=n)
            at += n
            sentences.append(chunk[0].capitalize() + " " + " ".join(chunk[1:]) + end)
        self.sentences = sentences

    def words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=n)

    def phrase(self, lo: int, hi: int) -> str:
        return " ".join(self.words(self.rng.randint(lo, hi)))

    def sentence(self) -> str:
        return self.sentences[self.rng.randrange(len(self.sentences))]

    def paragraph(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(2, 5)))


def _date(today: dt.date, days_back: int) -> dt.date:
    return today - dt.timedelta(days=days_back)


def _note(
    t: _Text,
    title: str,
    target: int,
    *,
    standup: bool,
    updated: dt.date | None,
    status: str | None,
    summary: str,
    ticked: bool,
    cjk: bool,
) -> str:
    rng = t.rng
    out = [f"# {title}", ""]
    meta = []
    if updated is not None:
        meta.append(f"Updated: {updated.isoformat()}")
    if status is not None:
        meta.append(f"Status: {status}")
    if rng.random() < 0.25:
        meta.append(f"Owner: {t.words(1)[0].capitalize()}")
    if meta:
        out += [*meta, ""]
    if summary == "valid":
        out += ["## Summary", *(f"- {t.sentence()}" for _ in range(rng.randint(3, 6))), ""]
    elif summary == "invalid":
        n = rng.choice((1, 2, 7, 8))
        out += ["## Summary", *(f"- {t.sentence()}" for _ in range(n)), ""]
    if summary != "missing":
        out += ["## Context", t.paragraph(), ""]
    if cjk:
        out += ["## " + rng.choice(_CJK), "", "。".join(rng.choice(_CJK) for _ in range(8)) + "。", ""]
    if standup:
        out += [
            "## Yesterday",
            *(f"- {t.sentence()}" for _ in range(3)),
            "",
            "## Today",
            *(f"- {t.sentence()}" for _ in range(3)),
            "",
            "## Blockers",
            f"- {t.sentence()}",
            "",
        ]
    size = sum(len(x) + 1 for x in out)
    sections = ["Context", "Decisions", "Notes", "Open questions", "Next steps", "Links", "Details", "Risks"]
    checklist_done = False
    while size < target:
        kind = rng.random()
        if kind < 0.15:
            block = f"## {rng.choice(sections)}\n"
        elif kind < 0.55:
            block = t.paragraph() + "\n"
        elif kind < 0.8:
            block = "\n".join(f"- {t.sentence()}" for _ in range(rng.randint(2, 5))) + "\n"
        elif kind < 0.9 and not checklist_done:
            checklist_done = True
            items = [
                f"- [{'x' if ticked or rng.random() < 0.5 else ' '}] {t.phrase(3, 8)}"
                for _ in range(rng.randint(2, 6))
            ]
            block = "## Checklist\n" + "\n".join(items) + "\n"
        elif kind < 0.95:
            block = f"```sh\n$ {t.phrase(2, 5)} --{t.words(1)[0]}\n```\n"
        else:
            block = f"| key | value |\n|---|---|\n| {t.words(1)[0]} | {t.phrase(1, 4)} |\n"
        out.append(block)
        size += len(block) + 1
    return "\n".join(out)


def _mutate(t: _Text, text: str, rate: float) -> str:
    """Edit about `rate` of the words (substitute 60%, insert 20%, delete 20%); headings are kept."""
    rng = t.rng
    lines = []
    for line in text.split("\n"):
        if line.startswith("#"):
            lines.append(line)
            continue
        new: list[str] = []
        for tok in line.split(" "):
            if not tok or rng.random() >= rate:
                new.append(tok)
                continue
            op = rng.random()
            if op < 0.6:
                new.append(t.words(1)[0])
            elif op < 0.8:
                new += [tok, t.words(1)[0]]
        lines.append(" ".join(new))
    return "\n".join(lines)


def _slug(s: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in s.lower()).split())[:40] or "note"


def _project_name(i: int) -> str:
    word = _PROJECT_WORDS[i % len(_PROJECT_WORDS)]
    suffix = _PROJECT_SUFFIXES[(i // len(_PROJECT_WORDS)) % len(_PROJECT_SUFFIXES)]
    cycle = i // (len(_PROJECT_WORDS) * len(_PROJECT_SUFFIXES))
    return f"{word}-{suffix}" + (f"-{cycle}" if cycle else "")


def _alt_line(rng: random.Random, route: str, title: str, summary: str) -> str:
    """One of the other shapes agents write, when it reads back as the same route."""
    if " " in route or "[" in route or "(" in route:
        return make_line(route, title, summary)
    shape = rng.random()
    if shape < 0.33:
        line = make_line(route, None, summary)
    elif shape < 0.5:
        line = f"- `{route}` — {summary}"
    elif shape < 0.7:
        line = f"1. **{title}** ({route}) – {summary}"
    elif shape < 0.85:
        line = f"- {route}: {summary}"
    else:
        line = f"* [{title}]({route}) - {summary}"
    parsed = parse_line(line)
    return line if parsed is not None and parsed[0] == route else make_line(route, title, summary)


def generate(
    root: Path,
    n_files: int = DEFAULT_FILES,
    *,
    size: int = DEFAULT_SIZE,
    seed: int = 1,
    today: dt.date = TODAY,
) -> Memory:
    """Write a memory root with `n_files` active notes (planted copies included) into `root`."""
    started = time.perf_counter()
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    rng = random.Random(seed)
    t = _Text(rng, pool=max(3000, 3 * n_files))
    mem = Memory(root, today)
    epoch = dt.datetime.combine(today, dt.time(0)).timestamp()  # no mtime after the start of `today`
    made: set[str] = set()

    def write(rel: str, text: str, days_back: float) -> int:
        folder = rel.rpartition("/")[0]
        if folder not in made:
            os.makedirs(root / folder, exist_ok=True)
            made.add(folder)
        data = text.encode("utf-8")
        path = os.path.join(root, rel)
        with open(path, "wb") as fh:
            fh.write(data)
        stamp = epoch - days_back * 86400
        os.utime(path, (stamp, stamp))
        return len(data)

    # _core/
    core = {
        "_core/profile.md": "# Profile\n\n" + "\n".join(f"- {t.sentence()}" for _ in range(8)) + "\n",
        "_core/preferences.md": "# Preferences\n\n" + "\n".join(f"- {t.sentence()}" for _ in range(6)) + "\n",
        "_core/glossary.md": "# Glossary\n\n"
        + "\n".join(f"- **{t.words(1)[0]}**: {t.sentence()}" for _ in range(10))
        + "\n",
        "_core/people/team.md": "# Team\n\n"
        + "\n".join(f"- {t.phrase(2, 3)}: {t.sentence()}" for _ in range(6))
        + "\n",
    }
    for rel, text in core.items():
        write(rel, text, 3)
        mem.core.append(rel)

    # Folders: a few hundred projects at 100k files, each with sub-folders; notes by topic and year.
    n_projects = max(8, n_files // 400)
    projects = [_project_name(i) for i in range(n_projects)]

    def new_path(i: int, title: str, standup: bool, day: dt.date) -> str:
        if standup:
            return f"notes/standup/{day.year}/standup-{day.isoformat()}-{i:06d}.md"
        if rng.random() < 0.002:
            return f"notes/{rng.choice(_TOPICS)}/{rng.choice(_CJK)} メモ {i}.md"
        if rng.random() < 0.002:
            return f"projects/{rng.choice(projects)}/my plan [v{i % 3 + 1}] {i}.md"
        name = f"{_slug(title)}-{i:06d}.md"
        if rng.random() < 0.6:
            base = f"projects/{rng.choice(projects)}"
            r = rng.random()
            return f"{base}/{name}" if r < 0.3 else f"{base}/{rng.choice(_SUBFOLDERS)}/{name}"
        topic = rng.choice(_TOPICS)
        return f"notes/{topic}/{name}" if rng.random() < 0.5 else f"notes/{topic}/{day.year}/{name}"

    n_near = max(1, n_files // 100)
    n_exact = max(1, n_files // 500)
    n_large = max(1, n_files // 5000)
    n_base = max(1, n_files - n_near - n_exact)
    large_every = max(1, n_base // n_large)  # spread out, never the first file
    texts: dict[str, str] = {}
    meta: dict[str, tuple[str, str]] = {}  # path -> (title, index summary)
    ages: dict[str, float] = {}
    for i in range(n_base):
        standup = rng.random() < 0.15
        old = rng.random() < 0.2
        age = rng.randint(91, 700) if old else rng.randint(0, 89)
        day = _date(today, age)
        if standup:
            title = f"Standup {day.isoformat()}"
        elif rng.random() < 0.01:
            title = rng.choice(_CJK) + " " + t.phrase(1, 2)
        else:
            title = f"{t.phrase(1, 3).capitalize()} {rng.choice(_KINDS)}"
        rel = new_path(i, title, standup, day)
        if rel in texts:
            rel = rel[:-3] + f"-{i}.md"
        target = max(300, int(rng.gauss(size, size * 0.2)))
        if i % large_every == large_every // 2 and len(mem.large) < n_large:
            target = rng.randint(64_000, 300_000)
            mem.large.append(rel)
        concluded = rng.random()
        status = None
        if concluded < 0.06:
            status = rng.choice(_STATUS_DONE)
        elif concluded < 0.2:
            status = rng.choice(_STATUS_ACTIVE)
        s = rng.random()
        summary = "valid" if s < 0.45 else "invalid" if s < 0.53 else "missing"
        stated = _date(today, max(0, age - rng.randint(0, 30))) if rng.random() < 0.3 else None
        if old and stated is not None and rng.random() < 0.3:
            stated = _date(today, rng.randint(0, 60))  # an old file that says it was updated recently
        texts[rel] = _note(
            t,
            title,
            target,
            standup=standup,
            updated=stated,
            status=status,
            summary=summary,
            ticked=rng.random() < 0.04,
            cjk=rng.random() < 0.01,
        )
        meta[rel] = (title, t.phrase(4, 9))
        ages[rel] = age + rng.random()
        if old:
            mem.old.append(rel)
    originals = list(texts)
    picks = rng.sample(originals, min(len(originals), n_near + n_exact))
    for k, src in enumerate(picks):
        rel = src[:-3] + f"-copy{k}.md"
        if k < n_near:
            texts[rel] = _mutate(t, texts[src], rng.uniform(0.01, 0.10))
            mem.near_pairs.append((src, rel))
        else:
            texts[rel] = texts[src]
            mem.exact_pairs.append((src, rel))
        meta[rel] = (meta[src][0], t.phrase(4, 9))
        ages[rel] = rng.randint(0, 89) + rng.random()
    for rel, text in texts.items():
        mem.bytes_total += write(rel, text, ages[rel])
        mem.active.append(rel)

    # _index.md
    n_orphans = max(1, n_files // 200)
    orphans = set(rng.sample(mem.active, min(len(mem.active), n_orphans)))
    sections: dict[str, list[str]] = {"projects": [], "notes": []}
    for rel in mem.active:
        if rel in orphans:
            mem.orphans.append(rel)
            continue
        title, summary = meta[rel]
        line = make_line(rel, title, summary) if rng.random() < 0.85 else _alt_line(rng, rel, title, summary)
        sections[rel.partition("/")[0]].append(line)
        mem.indexed.append(rel)
    for k in range(max(1, n_files // 1000)):
        route = f"notes/{rng.choice(_TOPICS)}/gone-{k:04d}.md"
        sections["notes"].append(make_line(route, f"Gone {k}", t.phrase(3, 6)))
        mem.dead_routes.append(route)
    dup = mem.indexed[len(mem.indexed) // 2]
    sections[dup.partition("/")[0]].append(make_line(dup, meta[dup][0], "listed twice"))
    mem.duplicate_routes.append(dup)
    index_text = [
        "# Memory index",
        "",
        "Routes to on-demand memory: read a file when its line matches the task.",
        "",
    ]
    for name, lines in (("Projects", sections["projects"]), ("Notes", sections["notes"])):
        index_text += [f"## {name}", "", *lines, ""]
        mem.index_lines += len(lines)
    write("_index.md", "\n".join(index_text), 1)

    # _archive/ and _archive/_trash/, with their records.
    all_lines = sections["projects"] + sections["notes"]
    recs: list[ArchiveRecord] = []
    n_archived = max(2, n_files // 50)
    n_trash = max(2, n_files // 200)
    for k in range(n_archived + n_trash):
        title = f"{t.phrase(1, 3).capitalize()} {rng.choice(_KINDS)}"
        folder = f"projects/{rng.choice(projects)}" if rng.random() < 0.6 else f"notes/{rng.choice(_TOPICS)}"
        orig = f"{folder}/{_slug(title)}-a{k:05d}.md"
        text = _note(
            t,
            title,
            max(300, int(rng.gauss(size, size * 0.2))),
            standup=False,
            updated=None,
            status=rng.choice(_STATUS_DONE),
            summary="missing",
            ticked=True,
            cjk=False,
        )
        archived_on = _date(today, rng.randint(1, 400))
        line = make_line(orig, title, t.phrase(4, 8)) if rng.random() > 0.01 else None
        at = rng.randrange(len(all_lines) - 1) if len(all_lines) > 1 else 0
        after = all_lines[at] if all_lines else None
        before = all_lines[at + 1] if len(all_lines) > at + 1 else None
        if k < n_archived:
            write(f"_archive/{orig}", text, (today - archived_on).days)
            reason = rng.choice(_REASONS)
            recs.append(ArchiveRecord(orig, line, archived_on, reason, after=after, before=before))
            mem.archived.append(orig)
        else:
            expired = rng.random() < 0.4
            deleted = _date(today, rng.randint(31, 90) if expired else rng.randint(0, 29))
            deleted = max(deleted, archived_on)
            deadline = deleted + dt.timedelta(days=RECOVERY_DAYS)
            write(f"_archive/_trash/{orig}", text, (today - deleted).days)
            recs.append(
                ArchiveRecord(
                    orig,
                    line,
                    archived_on,
                    rng.choice(_REASONS),
                    deleted=deleted,
                    deadline=deadline,
                    after=after,
                    before=before,
                )
            )
            mem.trash.append(orig)
            if today > deadline:
                mem.expired_trash.append(orig)
    # What records.add_record appends to a non-empty file: a blank line, then the record.
    write("_archive/_index.md", empty_archive_index() + "".join("\n" + format_record(r) for r in recs), 1)
    mem.seconds = time.perf_counter() - started
    return mem


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("root", metavar="DIR", help="where to write the memory (must not exist or be empty)")
    parser.add_argument("--files", type=int, default=DEFAULT_FILES, help="active notes (default 10000)")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE, help="mean bytes per note (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--today",
        type=dt.date.fromisoformat,
        default=TODAY,
        help=f"the date the memory is generated for (default {TODAY}); run the app with "
        "PMEM_TUI_TODAY set to it",
    )
    args = parser.parse_args(argv)
    mem = generate(Path(args.root), args.files, size=args.size, seed=args.seed, today=args.today)
    print(
        f"{len(mem.active)} active notes ({mem.bytes_total / 1e6:.1f} MB, {len(mem.large)} large), "
        f"{mem.index_lines} index lines ({len(mem.orphans)} orphans, {len(mem.dead_routes)} dead routes), "
        f"{len(mem.archived)} archived, {len(mem.trash)} in the trash ({len(mem.expired_trash)} expired), "
        f"{len(mem.near_pairs)} near and {len(mem.exact_pairs)} exact duplicates, {len(mem.old)} old; "
        f"{mem.seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
