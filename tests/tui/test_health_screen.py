"""`H`: the health review screen on the health engine (`core.health.check_health`).

Every flow runs through the app's preview modal: nothing on disk changes until a key confirms it, and the
expired trash goes only through `P`. The demo memory (fixed mtimes) gives a near duplicate (delete), a dead
route, an invalid summary and an orphan (keep, index drift); `aged` makes one file inactive (archive).
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path

import pytest
from tui_helpers import TODAY, RecordingApp, bare_root, fill, settle, until
from watchdog.events import FileCreatedEvent

from pmem_tui.core import records
from pmem_tui.core.fix_planner import archive_reason
from pmem_tui.core.health import HealthReport, Proposal, Signal, check_health
from pmem_tui.core.model import TrashItem
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthScreen
from pmem_tui.tui.screens.main import MainScreen
from pmem_tui.tui.widgets.memory_list import MemoryList

COBALT = "projects/cobalt-migration.md"
NEAR_DUP = "notes/reading-list.md"
DEAD = "notes/ideas.md"
INVALID = "projects/beacon.md"
ORPHAN = "projects/outage-scratch.md"
EXPIRED = "_archive/_trash/notes/offsite-ideas.md"
LONG_AGO = dt.datetime(2025, 1, 5, 12, tzinfo=dt.UTC).timestamp()


def aged(root: Path, rel: str = COBALT) -> Path:
    """Make `rel` inactive (last changed in January 2025; today is 2026-03-10)."""
    os.utime(root / rel, (LONG_AGO, LONG_AGO))
    return root


def memory_files(root: Path) -> dict[str, bytes]:
    """Every file of the memory (not pmem-tui's own `.pmem/` metadata), with its bytes."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def health_list(app: RecordingApp) -> MemoryList:
    return health_screen(app).query_one("#health-list", MemoryList)


def health_screen(app: RecordingApp) -> HealthScreen:
    return next(s for s in app.screen_stack if isinstance(s, HealthScreen))


def shown(app: RecordingApp, selector: str) -> str:
    return str(health_screen(app).query_one(selector).render())


def modal(app: RecordingApp) -> PlanModal:
    assert isinstance(app.screen, PlanModal), app.screen
    return app.screen


def select(app: RecordingApp, path: str) -> None:
    assert health_list(app).select_key(f"proposal:{path}"), path


def record_of(root: Path, path: str) -> records.ArchiveRecord | None:
    text = (root / "_archive/_index.md").read_text(encoding="utf-8")
    found = [r for r in records.parse_records(text) if r.path == path]
    return found[-1] if found else None


def wifi_secret(root: Path, leaky: str, password: str, title: str = "Wifi", what: str = "") -> str:
    """Write `leaky` holding `password` on its line 5, listed in the index; its text."""
    what = what or "home network"
    line = "- db password: " if what != "home network" else "- the wifi password: "
    text = f"# {title}\n\n{what.capitalize()}.\n\n{line}{password}\n"
    (root / leaky).write_text(text, encoding="utf-8")
    with (root / "_index.md").open("a", encoding="utf-8") as index:
        index.write(f"- [{title}]({leaky}) — {what}\n")
    return text


async def open_health(pilot, app: RecordingApp) -> HealthScreen:
    await settle(pilot)
    await pilot.press("H")
    await settle(pilot)
    assert isinstance(app.screen, HealthScreen)
    return app.screen


async def previewed(pilot, app: RecordingApp) -> PlanModal:
    """The preview a key opened: a fix is planned in a worker (`HealthScreen.action_fix`)."""
    assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
    return modal(app)


async def fix_marked(pilot, app: RecordingApp, *paths: str) -> PlanModal:
    """Mark `paths` and press `f`: the preview of the first fix of the batch."""
    for path in paths:
        select(app, path)
        await pilot.press("space")
    await pilot.press("f")
    return await previewed(pilot, app)


@pytest.mark.rule("PM-HEALTH-1", "PM-HEALTH-3", "PM-HEALTH-4", "PM-HEALTH-6", "PM-DEL-5")
async def test_the_engine_proposals_numbered_most_certain_first_with_evidence_and_preview(
    demo_root: Path, make_app
) -> None:
    aged(demo_root)
    expected = check_health(demo_root, today=TODAY, use_cache=False)
    before = memory_files(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_health(pilot, app)
        rows = health_list(app).all_rows
        # The engine's proposals, in its order (most certain first), numbered, one line of reason each.
        assert [r.path for r in rows] == [p.path for p in expected.proposals]
        assert [r.cells for r in rows] == [
            (f"{p.n}.", p.category, p.path, ", ".join(p.kinds), p.reason) for p in expected.proposals
        ]
        assert [r.cells[1] for r in rows][:1] == ["delete"] and "archive" in [r.cells[1] for r in rows]
        assert {DEAD, INVALID, ORPHAN, NEAR_DUP, COBALT} <= {r.path for r in rows}
        assert all(r.path.split("/")[0] in ("projects", "notes") for r in rows)  # never _core/ or control
        assert "5 proposals (1 delete, 1 archive, 3 keep), most certain first" in shown(app, "#health-status")
        # The selected proposal: its evidence, and the file's preview beside the table.
        assert health_list(app).current_row is not None and health_list(app).current_row.path == NEAR_DUP
        detail = shown(app, "#health-detail")
        assert "1. delete" in detail and "near-duplicate" in detail and "97% similar to" in detail
        assert "d: archive it, then move it to the trash" in detail
        preview = screen.query_one("#health-preview")
        assert await until(pilot, lambda: "Reading list" in preview.text)
        # A drift proposal shows its fix; a dead route has no file to preview.
        select(app, DEAD)
        await settle(pilot)
        detail = shown(app, "#health-detail")
        assert (
            "dead-route" in detail
            and "f: drop from _index.md" in detail
            and "[Ideas](notes/ideas.md)" in detail
        )
        assert "does not exist" in detail
        # Expired trash in its own section: listed, removed only with P.
        expired = shown(app, "#health-expired")
        assert (
            "Expired trash (1)" in expired
            and "notes/offsite-ideas.md" in expired
            and "only with P" in expired
        )
        # Looking changes nothing.
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
    assert memory_files(demo_root) == before


async def test_loading_state_while_the_engine_runs_in_a_worker(demo_root: Path, make_app) -> None:
    release = threading.Event()
    ran_on: list[str] = []

    def slow(root: Path, today: dt.date) -> HealthReport:
        ran_on.append(threading.current_thread().name)
        release.wait(10)
        return check_health(root, today=today)

    app = make_app(demo_root, health_source=slow)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HealthScreen)
        assert screen.checking and "Checking the health" in shown(app, "#health-status")
        assert health_list(app).loading and health_list(app).all_rows == []
        await pilot.press("a")  # nothing to act on yet
        assert isinstance(app.screen, HealthScreen) and "still running" in app.notes_text()
        release.set()
        await settle(pilot)
        assert not screen.checking and not health_list(app).loading
        assert app.focused is health_list(app)  # the list has the keys again
        assert NEAR_DUP in [r.path for r in health_list(app).all_rows]
        assert ran_on and ran_on[0] != threading.main_thread().name


@pytest.mark.rule("PM-HEALTH-5")
async def test_keep_dismisses_for_the_session_and_changes_nothing(demo_root: Path, make_app) -> None:
    before = memory_files(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        select(app, DEAD)
        await pilot.press("K")
        await settle(pilot)
        assert DEAD not in [r.path for r in health_list(app).all_rows]
        assert "Kept notes/ideas.md" in app.notes_text()
        assert "1 kept this session" in shown(app, "#health-status")
        # Marked rows are kept together.
        select(app, INVALID)
        await pilot.press("space")
        select(app, ORPHAN)
        await pilot.press("space")
        await pilot.press("K")
        await settle(pilot)
        assert [r.path for r in health_list(app).all_rows] == [NEAR_DUP]
        # Still dismissed when the review runs again in this session.
        await pilot.press("escape", "H")
        await settle(pilot)
        assert [r.path for r in health_list(app).all_rows] == [NEAR_DUP]
        assert not isinstance(app.screen, PlanModal)
    assert memory_files(demo_root) == before


@pytest.mark.rule("PM-HEALTH-5", "PM-ARC-2")
async def test_archive_goes_through_its_preview_with_the_reason_prefilled(demo_root: Path, make_app) -> None:
    aged(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        proposal = check_health(demo_root, today=TODAY).proposal(COBALT)
        assert proposal is not None and proposal.category == "archive"
        select(app, COBALT)
        # Cancelled: nothing changes.
        await pilot.press("a")
        m = modal(app)
        assert m.query_one("#plan-input").value == archive_reason(proposal)
        await pilot.press("escape")
        await settle(pilot)
        assert (demo_root / COBALT).exists() and isinstance(app.screen, HealthScreen)
        # Confirmed: the reason is editable; nothing moves before `y`.
        await pilot.press("a")
        m = modal(app)
        assert "Proposal" in str(m.query_one("#plan-explanation").render())
        await fill(pilot, "health check: migration finished in 2024")
        await pilot.press("enter")
        assert m.plan is not None and m.plan.action == "archive" and (demo_root / COBALT).exists()
        await pilot.press("y")
        await settle(pilot)
        assert not (demo_root / COBALT).exists() and (demo_root / "_archive" / COBALT).exists()
        rec = record_of(demo_root, COBALT)
        assert rec is not None and rec.reason == "health check: migration finished in 2024"
        # The review runs again and the archived file is no longer proposed.
        assert isinstance(app.screen, HealthScreen)
        assert COBALT not in [r.path for r in health_list(app).all_rows]


@pytest.mark.rule("PM-HEALTH-5", "PM-ARC-2", "PM-DEL-1")
async def test_delete_is_archive_then_delete_each_through_its_own_preview(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        select(app, NEAR_DUP)
        await pilot.press("d")
        m = modal(app)
        assert "Delete means archive first" in str(m.query_one("#plan-explanation").render())
        assert "step 1 of 2" in m.heading
        assert "97% similar to notes/reading-list-2.md" in m.query_one("#plan-input").value
        await pilot.press("enter")
        assert m.plan is not None and m.plan.action == "archive"
        assert (demo_root / NEAR_DUP).exists()  # nothing before the confirmation
        await pilot.press("y")
        await settle(pilot)
        # Step 1 done: archived, not yet in the trash; step 2 is its own preview.
        assert (demo_root / "_archive" / NEAR_DUP).exists()
        assert not (demo_root / "_archive/_trash" / NEAR_DUP).exists()
        m = modal(app)
        assert m.plan is not None and m.plan.action == "delete" and "step 2 of 2" in m.heading
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / "_archive/_trash" / NEAR_DUP).exists()
        rec = record_of(demo_root, NEAR_DUP)
        assert rec is not None and rec.deleted == TODAY and rec.reason is not None
        assert rec.reason.startswith("health check: 97% similar")
        assert isinstance(app.screen, HealthScreen)
        assert (demo_root / EXPIRED).exists()  # the expired trash was not touched


@pytest.mark.rule("PM-HEALTH-5", "PM-DEL-1")
async def test_cancelling_the_second_step_leaves_the_file_archived(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        select(app, NEAR_DUP)
        await pilot.press("d")
        await pilot.press("enter", "y")
        await settle(pilot)
        m = modal(app)
        assert m.plan is not None and m.plan.action == "delete"
        await pilot.press("n")
        await settle(pilot)
        assert (demo_root / "_archive" / NEAR_DUP).exists()
        assert not (demo_root / "_archive/_trash" / NEAR_DUP).exists()
        assert isinstance(app.screen, HealthScreen)


@pytest.mark.rule("PM-HEALTH-5", "PM-SAVE-5")
async def test_fix_applies_the_index_fix_through_its_preview(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        index_before = (demo_root / "_index.md").read_text(encoding="utf-8")
        # An invalid summary has no automatic fix (never rewritten for you): refused, no preview.
        select(app, INVALID)
        await pilot.press("f")
        assert isinstance(app.screen, HealthScreen)
        assert "never rewritten for you" in app.errors()[-1]
        # An orphan: the line to add, through the preview; nothing before `y`.
        select(app, ORPHAN)
        await pilot.press("f")
        m = await previewed(pilot, app)
        assert m.plan is not None and m.plan.title.startswith("Fix _index.md: add")
        assert "projects/outage-scratch.md" in m.preview_text
        assert (demo_root / "_index.md").read_text(encoding="utf-8") == index_before
        await pilot.press("y")
        await settle(pilot)
        text = (demo_root / "_index.md").read_text(encoding="utf-8")
        assert "(projects/outage-scratch.md)" in text
        # A dead route: the line to drop.
        select(app, DEAD)
        await pilot.press("f")
        m = await previewed(pilot, app)
        assert m.plan is not None and "drop" in m.plan.title
        await pilot.press("y")
        await settle(pilot)
        assert "(notes/ideas.md)" not in (demo_root / "_index.md").read_text(encoding="utf-8")
        paths = [r.path for r in health_list(app).all_rows]
        assert ORPHAN not in paths and DEAD not in paths


@pytest.mark.rule("PM-HEALTH-5")
async def test_marked_fixes_are_previewed_one_after_the_other(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        m = await fix_marked(pilot, app, DEAD, ORPHAN)
        assert m.plan is not None and "(fix 1 of 2)" in m.heading
        await pilot.press("y")
        await settle(pilot)
        m = modal(app)
        assert m.plan is not None and "(fix 2 of 2)" in m.heading
        await pilot.press("n")  # cancelling stops the sequence; the first fix stays applied
        await settle(pilot)
        assert isinstance(app.screen, HealthScreen)
        text = (demo_root / "_index.md").read_text(encoding="utf-8")
        assert "(notes/ideas.md)" not in text and "(projects/outage-scratch.md)" not in text


@pytest.mark.rule("PM-HEALTH-5")
async def test_a_fix_refused_as_it_is_applied_is_said_and_the_batch_goes_on(
    demo_root: Path, make_app
) -> None:
    """An agent edits `_index.md` while the first fix's preview is open: that fix is refused as it is applied
    (changed since the preview), in one sentence, and the next fix's preview opens, planned on the index as it
    is now (before: a refusal ended the batch)."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        first = await fix_marked(pilot, app, DEAD, ORPHAN)
        assert first.plan is not None and "drop" in first.plan.title and "(fix 1 of 2)" in first.heading
        with (demo_root / "_index.md").open("a", encoding="utf-8") as index:
            index.write("- [Agent](notes/agent.md) — written while the preview was open\n")
        await pilot.press("y")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal) and app.screen is not first)
        assert len(app.errors()) == 1 and "changed since" in app.errors()[0]
        second = modal(app)
        assert second.plan is not None and "add" in second.plan.title and "(fix 2 of 2)" in second.heading
        await pilot.press("y")
        await settle(pilot)
        text = (demo_root / "_index.md").read_text(encoding="utf-8")
        assert "(projects/outage-scratch.md)" in text and "(notes/agent.md)" in text
        assert "(notes/ideas.md)" in text  # the refused fix changed nothing


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-6")
async def test_a_redaction_says_the_history_keeps_the_secret_and_forgets_it_in_step_two(
    demo_root: Path, make_app
) -> None:
    """Found in trial: the redact preview said "nothing else changes"; the history still held the secret
    (`history show` printed it), recorded as the app opened. Now the preview says so, and once the file is
    saved a second preview forgets every version of it that holds a secret."""
    from pmem_tui.core.history import log, record

    leaky, password = "notes/s.md", "hunter22"
    text = wifi_secret(demo_root, leaky, password)
    assert record.record(demo_root, create=True).commit is not None  # as the app's scan records it
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        first = await fix_marked(pilot, app, leaky)  # its preview: step 1 of 2
        assert "step 1 of 2" in first.heading
        said = " ".join((first.explanation + " " + first.preview_text).split())
        assert "nothing else changes" not in said
        assert said.count("The secret stays in pmem-tui's history (.pmem/history)") == 1  # the note, once
        assert "step 2 previews forgetting the versions of the file" in said
        assert f"pmem-tui history forget {leaky} --version V" in said and password not in said
        await pilot.press("y")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal) and app.screen is not first)
        second = modal(app)
        assert "step 2 of 2" in second.heading and second.plan is None
        said = " ".join((second.explanation + " " + second.preview_text).split())
        assert f"Forget the content of {leaky} from the history (version" in said and password not in said
        assert "Its earlier version in pmem-tui's history (.pmem/history) still holds the secret" in said
        await pilot.press("y")
        assert await until(pilot, lambda: "is gone from the history" in app.notes_text())
        assert (demo_root / leaky).read_text(encoding="utf-8") == text.replace(password, "[redacted]")
        versions = log.versions(demo_root, leaky)
        assert versions and all(
            password.encode() not in log.version_bytes(demo_root, v.id, leaky)
            for v in versions
            if v.kind != "deleted"
        )
        screen = health_screen(app)
        assert await until(pilot, lambda: not screen.checking and screen.report is not None)
        assert screen.report is not None
        after = screen.report.proposal(leaky)
        assert after is None or not {"secret", "secret-in-history"} & set(after.kinds)
        assert not app.errors()


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-6")
async def test_a_redactions_step_two_is_planned_in_a_worker(
    demo_root: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: step 2 was planned on the UI thread, reading every record's tree once per version
    (72 s for 299 versions on a 300-record store, the app frozen). It is planned in a worker now."""
    from pmem_tui.tui import health_review

    release = threading.Event()
    ran_on: list[str] = []
    real = health_review.forget_secrets_offer

    def slow(root: Path, path: str, i: int = 0, n: int = 1):  # type: ignore[no-untyped-def]
        ran_on.append(threading.current_thread().name)
        release.wait(10)
        return real(root, path, i, n)

    monkeypatch.setattr(health_review, "forget_secrets_offer", slow)
    leaky, password = "notes/s.md", "hunter22"
    wifi_secret(demo_root, leaky, password)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_health(pilot, app)
        await fix_marked(pilot, app, leaky)
        await pilot.press("y")
        assert await until(pilot, lambda: bool(ran_on), workers=False)
        assert ran_on != [threading.main_thread().name]
        assert "Step 2: finding the versions of notes/s.md" in app.notes_text()
        # The app answers meanwhile: the cursor moves, and no preview is open yet.
        row = health_list(app).current_row
        await pilot.press("j")
        assert await until(pilot, lambda: health_list(app).current_row != row, workers=False)
        assert app.screen is screen
        release.set()
        assert await until(
            pilot, lambda: isinstance(app.screen, PlanModal) and "step 2 of 2" in modal(app).heading
        )
        await pilot.press("n")
        assert not app.errors()


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-6")
async def test_a_redaction_is_not_undone_with_the_mask_its_preview_showed(demo_root: Path, make_app) -> None:
    """Found in review: ctrl+z after a redaction previewed "write back the previous content" from the
    preview's masked old side and wrote `password = <secret>` into the file. It is refused now, in one
    sentence, and nothing changes."""
    leaky, password = "notes/s.md", "hunter22"
    text = wifi_secret(demo_root, leaky, password)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        await fix_marked(pilot, app, leaky)
        await pilot.press("y")
        assert await until(
            pilot, lambda: isinstance(app.screen, PlanModal) and "step 2 of 2" in modal(app).heading
        )
        await pilot.press("y")
        assert await until(pilot, lambda: "is gone from the history" in app.notes_text())
        redacted = (demo_root / leaky).read_bytes()
        assert redacted == text.replace(password, "[redacted]").encode()
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert not isinstance(app.screen, PlanModal)
        said = app.notes_text().splitlines()[-1]
        assert said == (
            f"Save {leaky} cannot be undone: pmem-tui does not keep the secret it removed from {leaky}, "
            "so it cannot put it back."
        )
        assert (demo_root / leaky).read_bytes() == redacted
        assert not app.errors()


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-6")
async def test_a_secret_is_shown_by_line_and_its_fix_opens_the_save_preview(
    demo_root: Path, make_app
) -> None:
    leaky, password = "notes/deploy.md", "hunter22"
    text = wifi_secret(demo_root, leaky, password, "Deploy", "steps for the release")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        row = next(r for r in health_list(app).all_rows if r.path == leaky)
        assert row.cells[1:4] == ("keep", leaky, "secret")
        select(app, leaky)
        await settle(pilot)
        detail = shown(app, "#health-detail")
        assert "line 5 looks like a secret (password)" in detail and password not in detail
        assert "f: save it with line 5 redacted, through the save preview" in detail
        await pilot.press("f")
        m = await previewed(pilot, app)
        assert m.plan is not None and m.plan.title == f"Save {leaky}"
        assert "[redacted]" in m.preview_text and password not in m.preview_text
        assert (demo_root / leaky).read_text(encoding="utf-8") == text  # nothing before `y`
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / leaky).read_text(encoding="utf-8") == text.replace(password, "[redacted]")
        # The live secret is gone; the save's first record kept the version that held it (issue 16): step 2
        # offers to forget it; cancelled, the proposal is now to forget that version from the history.
        assert await until(
            pilot, lambda: isinstance(app.screen, PlanModal) and "step 2 of 2" in modal(app).heading
        )
        await pilot.press("n")
        screen = health_screen(app)

        def kinds() -> tuple[str, ...] | None:
            p = screen.report.proposal(leaky) if screen.report is not None else None
            return p.kinds if p is not None else None

        assert await until(pilot, lambda: not screen.checking and kinds() == ("secret-in-history",))
        kept = screen.report.proposal(leaky) if screen.report is not None else None
        assert kept is not None and kept.signals[0].detail.endswith(
            "has line 5 that looks like a secret (password)"
        )


@pytest.mark.rule("PM-HEALTH-4", "PM-HEALTH-5", "PM-ARC-2", "PM-DEL-1")
async def test_marked_rows_are_planned_together(demo_root: Path, make_app) -> None:
    aged(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        for path in (NEAR_DUP, COBALT, DEAD):
            select(app, path)
            await pilot.press("space")
        assert len(health_list(app).marked_rows()) == 3
        await pilot.press("d")
        # The dead route has no file: said in one sentence, the two files are planned together.
        assert "notes/ideas.md does not exist" in app.errors()[-1]
        m = modal(app)
        assert "Archive, then delete 2 files" in m.heading
        # Nothing prefilled: left empty, each file keeps its own proposal's reason (issue 14, item 10).
        assert m.query_one("#plan-input").value == ""
        reasons = {p.path: archive_reason(p) for p in health_screen(app).report.proposals}  # type: ignore[union-attr]
        await pilot.press("enter")
        assert m.plan is not None and set(m.plan.items) == {NEAR_DUP, COBALT}
        await pilot.press("y")
        await settle(pilot)
        for path in (NEAR_DUP, COBALT):
            record = record_of(demo_root, path)
            assert record is not None and record.reason == reasons[path]
        assert reasons[NEAR_DUP] != reasons[COBALT]
        m = modal(app)
        assert m.plan is not None and m.plan.action == "delete" and set(m.plan.items) == {NEAR_DUP, COBALT}
        await pilot.press("y")
        await settle(pilot)
        for path in (NEAR_DUP, COBALT):
            assert (demo_root / "_archive/_trash" / path).exists()
        assert health_list(app).marked_rows() == []
        assert (demo_root / "_index.md").read_text(encoding="utf-8").count("(notes/ideas.md)") == 1


@pytest.mark.rule("PM-DEL-5", "PM-HEALTH-6")
async def test_expired_trash_is_purged_only_with_P_and_its_own_confirmation(
    demo_root: Path, make_app
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        # No per-item key reaches the trash: K / a / d / f act on proposals only.
        assert EXPIRED.removeprefix("_archive/_trash/") not in [r.path for r in health_list(app).all_rows]
        await pilot.press("P")
        m = modal(app)
        assert m.danger and "x _archive/_trash/notes/offsite-ideas.md" in " ".join(m.preview_text.split())
        await pilot.press("enter")  # the focus is on Cancel: a stray enter never purges
        await settle(pilot)
        assert (demo_root / EXPIRED).exists() and isinstance(app.screen, HealthScreen)
        await pilot.press("P")
        await pilot.press("y")
        await settle(pilot)
        assert not (demo_root / EXPIRED).exists()
        assert (demo_root / "_archive/_trash/projects/temp-benchmarks.md").exists()  # not expired: kept
        assert await until(pilot, lambda: "Expired trash (0)" in shown(app, "#health-expired"))


@pytest.mark.rule("PM-UPG-4")
async def test_health_without_lifecycle_names_upgrade_and_offers_it(tmp_path: Path, make_app) -> None:
    root = bare_root(tmp_path)
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_health(pilot, app)
        status = shown(app, "#health-status")
        assert "lifecycle structure is incomplete" in status and "upgrade" in status
        assert "Press U to preview the upgrade" in status
        assert health_list(app).all_rows == [] and screen.report is None
        keys = {b.binding.key for b in screen.active_bindings.values() if b.enabled and b.binding.show}
        assert "U" in keys and not {"a", "d", "K", "f", "P"} & keys
        await pilot.press("a", "d", "K", "f")
        assert isinstance(app.screen, HealthScreen) and not (root / "_archive").exists()
        # U: the upgrade preview; once applied, the review runs.
        await pilot.press("U")
        m = modal(app)
        assert m.plan is not None and m.plan.action == "upgrade"
        await pilot.press("y")
        await settle(pilot)
        assert await until(pilot, lambda: screen.report is not None)
        assert screen.blocked is None and "Nothing to propose" in shown(app, "#health-status")


async def test_user_text_is_literal_and_a_failing_source_keeps_the_screen_usable(
    demo_root: Path, make_app
) -> None:
    def source(root: Path, today: dt.date) -> HealthReport:
        signal = Signal("concluded", "says [bold red]done[/] (`Status: done`)")
        proposal = Proposal(1, COBALT, "archive", (signal,), "says [bold red]done[/]", 0.8)
        trash = TrashItem("notes/[x].md", "_archive/_trash/notes/[x].md", 1, 0, None, TODAY, TODAY, True)
        return HealthReport(root, today, 90, (proposal,), (trash,))

    app = make_app(demo_root, health_source=source)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        row = health_list(app).all_rows[0]
        assert row.cells == ("1.", "archive", COBALT, "concluded", "says [bold red]done[/]")
        assert "says [bold red]done[/] (`Status: done`)" in shown(app, "#health-detail")
        assert "notes/[x].md" in shown(app, "#health-expired")
        await pilot.press("K")  # the notification names the path literally (never parsed as markup)
        await pilot.pause()
        assert f"Kept {COBALT}" in app.notes_text() and health_list(app).all_rows == []
        notification = list(app._notifications)[-1]
        assert notification.markup is False

    def broken(root: Path, today: dt.date) -> HealthReport:
        raise RuntimeError("disk on fire")

    app = make_app(demo_root, health_source=broken)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        assert "The health check failed: disk on fire" in shown(app, "#health-status")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_the_review_runs_again_when_the_memory_changes(demo_root: Path, make_app) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_health(pilot, app)
        loads = screen.loads
        # An agent writes a concluded note while the review is open.
        path = demo_root / "notes/release-retro.md"
        path.write_text("# Release retro\n\nStatus: done\n\nEverything shipped.\n", encoding="utf-8")
        app.watcher.handler.dispatch(FileCreatedEvent(str(path)))
        assert await until(
            pilot, lambda: "notes/release-retro.md" in [r.path for r in health_list(app).all_rows]
        )
        assert screen.loads > loads
        row = next(r for r in health_list(app).all_rows if r.path == "notes/release-retro.md")
        assert "concluded" in row.cells[3]


@pytest.mark.rule("PM-HEALTH-5", "PM-SAVE-5")
async def test_edit_an_invalid_summary_then_the_save_preview(demo_root: Path, make_app) -> None:
    def editor(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace(
                "- Still on the old Python 3.8 runtime.\n",
                "- Still on the old Python 3.8 runtime.\n- Owned by the platform team since March.\n",
            ),
            encoding="utf-8",
        )

    app = make_app(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        select(app, INVALID)
        await settle(pilot)
        assert "e: edit it, then the save preview" in shown(app, "#health-detail")
        before = (demo_root / INVALID).read_bytes()
        await pilot.press("e")
        m = modal(app)
        assert m.plan is not None and m.plan.action == "save"
        assert (demo_root / INVALID).read_bytes() == before  # the editor worked on a copy
        await pilot.press("y")
        await settle(pilot)
        assert b"Owned by the platform team" in (demo_root / INVALID).read_bytes()
        assert await until(pilot, lambda: INVALID not in [r.path for r in health_list(app).all_rows])
