"""The health screen's fixes that read or rewrite the history are planned in a worker, never on the UI thread
(on a history of hundreds of versions the app froze): a redaction's note (step 1), and the forgets of several
kept secrets fixed together. While a batch of fixes is under way a second `f` starts nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from test_health_screen import health_list, modal, open_health, select, wifi_secret
from tui_helpers import RecordingApp, settle, until

from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.health import HealthScreen

T = TypeVar("T")
BUSY = "A fix is still under way"


def held(real: Callable[..., T], on_main: list[bool], gate: threading.Event) -> Callable[..., T]:
    """`real`, noting for each call whether it ran on the UI (main) thread, held until `gate` is set."""

    def watched(*args: Any) -> T:
        on_main.append(threading.current_thread() is threading.main_thread())
        gate.wait(10)  # a hang guard only: the test sets it
        return real(*args)

    return watched


async def moves_meanwhile(pilot, app: RecordingApp, screen: HealthScreen) -> None:  # type: ignore[no-untyped-def]
    """The app answers while the worker runs: the cursor moves and no preview is open."""
    row = health_list(app).current_row
    await pilot.press("j" if row is None or row is not health_list(app).all_rows[-1] else "k")
    assert await until(pilot, lambda: health_list(app).current_row != row, workers=False)
    assert app.screen is screen


LEAKY, PASSWORD = "notes/s.md", "hunter22"


def leaky_recorded(root: Path) -> Path:
    """`root` with `LEAKY`, a file holding a secret, recorded in the history."""
    from pmem_tui.core.history import record

    wifi_secret(root, LEAKY, PASSWORD)
    assert record.record(root, create=True).commit is not None
    return root


async def fix_held(  # type: ignore[no-untyped-def]
    pilot, app: RecordingApp, monkeypatch: pytest.MonkeyPatch
) -> tuple[HealthScreen, list[bool], threading.Event]:
    """`f` on `LEAKY` in the health review, its redaction's history read held in the worker: the screen,
    whether each read ran on the UI thread, and the event that lets it go on."""
    from pmem_tui.core import fix_planner

    screen = await open_health(pilot, app)
    release = threading.Event()
    on_main: list[bool] = []
    monkeypatch.setattr(fix_planner, "_secret_contents", held(fix_planner._secret_contents, on_main, release))
    select(app, LEAKY)
    await pilot.press("f")
    assert await until(pilot, lambda: bool(on_main), workers=False)
    return screen, on_main, release


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-6")
async def test_a_redactions_note_reads_the_history_in_a_worker(
    demo_root: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: the redact preview's note (how many earlier versions hold the secret) read the file's
    history on the UI thread as `f` was pressed. It is planned in a worker now; the note is in the preview
    once it is done."""
    leaky, password = LEAKY, PASSWORD
    app = make_app(leaky_recorded(demo_root))
    async with app.run_test(size=(120, 36)) as pilot:
        screen, on_main, release = await fix_held(pilot, app, monkeypatch)
        assert on_main == [False]
        assert f"Reading the history of {leaky} for its fix" in app.notes_text()
        await moves_meanwhile(pilot, app, screen)
        await pilot.press("f")  # a second batch is not started meanwhile
        assert BUSY in app.notes_text() and on_main == [False]
        release.set()
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        first = modal(app)
        said = " ".join((first.explanation + " " + first.preview_text).split())
        assert "step 1 of 2" in first.heading and password not in said
        assert said.count("The secret stays in pmem-tui's history (.pmem/history)") == 1
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and on_main == [False]
        select(app, leaky)
        await pilot.press("f")  # cancelled, the batch is over: `f` plans again
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        await pilot.press("n")
        assert not app.errors()


def two_kept_secrets(root: Path) -> tuple[str, str]:
    """Two files whose secret is gone from the file but kept by an earlier version in the history."""
    from pmem_tui.core.history import record

    a, b = "notes/a.md", "notes/b.md"
    texts = {a: wifi_secret(root, a, "hunter22", "Wifi"), b: wifi_secret(root, b, "tiger-77x", "Door")}
    assert record.record(root, create=True).commit is not None
    for path, text in texts.items():
        (root / path).write_text(text.split("\n- ")[0] + "\n", encoding="utf-8")  # the secret's line dropped
    assert record.record(root).commit is not None
    return a, b


@pytest.mark.rule("PM-HEALTH-5", "PM-CORE-6")
async def test_forgetting_several_kept_secrets_reads_and_rewrites_the_history_off_the_ui_thread(
    demo_root: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: `f` on several kept secrets planned every forget (each reading every record's tree)
    on the UI thread. They are planned in a worker, each rewrite runs in one, the person is told, and a
    second `f` meanwhile starts nothing."""
    from pmem_tui.core.history import log, rewrite

    a, b = two_kept_secrets(demo_root)
    planned: list[bool] = []  # on the main thread?
    applied: list[bool] = []
    plan_gate, apply_gate = threading.Event(), threading.Event()

    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_health(pilot, app)
        report = screen.report
        assert report is not None
        assert {p.fix_action for p in report.proposals if p.path in (a, b)} == {"forget"}
        monkeypatch.setattr(rewrite, "plan_forget", held(rewrite.plan_forget, planned, plan_gate))
        monkeypatch.setattr(rewrite, "apply_forget", held(rewrite.apply_forget, applied, apply_gate))
        for path in (a, b):
            select(app, path)
            await pilot.press("space")
        await pilot.press("f")
        assert await until(pilot, lambda: bool(planned), workers=False)
        assert planned == [False]
        await moves_meanwhile(pilot, app, screen)
        await pilot.press("f")
        assert BUSY in app.notes_text() and planned == [False]
        plan_gate.set()
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        assert "(fix 1 of 2)" in modal(app).heading
        assert not any(planned)
        await pilot.press("y")
        assert await until(pilot, lambda: bool(applied), workers=False)
        assert applied == [False]
        assert "Rewriting pmem-tui's history" in app.notes_text()
        await pilot.press("f")  # while the rewrite runs: nothing planned, nothing rewritten twice
        assert app.notes_text().count(BUSY) == 2
        apply_gate.set()
        assert await until(
            pilot, lambda: isinstance(app.screen, PlanModal) and "(fix 2 of 2)" in modal(app).heading
        )
        await pilot.press("y")
        assert await until(pilot, lambda: len(applied) == 2 and app.notes_text().count("is gone from") == 2)
        await settle(pilot)
        assert not any(planned) and applied == [False, False]
        for path, password in ((a, b"hunter22"), (b, b"tiger-77x")):
            assert all(
                password not in log.version_bytes(demo_root, v.id, path)
                for v in log.versions(demo_root, path)
                if v.kind != "deleted"
            )
        assert not app.errors()


@pytest.mark.rule("PM-HEALTH-5")
async def test_no_other_change_starts_while_a_fix_is_planned(
    demo_root: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: `a` pressed while a fix was planned (the app answers meanwhile) opened the archive
    preview, and the fix's preview then opened over it: two previews of the same file, stacked. Every key of
    the screen that starts a change is refused until the batch is over."""
    leaky = LEAKY
    app = make_app(leaky_recorded(demo_root))
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _on_main, release = await fix_held(pilot, app, monkeypatch)
        for key in ("a", "d", "K", "e", "P"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key
            assert app.notes_text().count(BUSY) == 1 + ("a", "d", "K", "e", "P").index(key), key
        release.set()
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        assert [type(s) for s in app.screen_stack].count(PlanModal) == 1
        assert "step 1 of 2" in modal(app).heading
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and leaky in [r.path for r in health_list(app).all_rows]
        await pilot.press("K")  # the batch is over: the keys act again
        assert leaky not in [r.path for r in health_list(app).all_rows]


async def test_leaving_the_review_with_fixes_under_way_says_what_was_dropped(
    demo_root: Path, make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review, as a user: escape while a fix was planned (a redaction's note, or its step 2) closed
    the review and the rest of the batch was dropped without a word."""
    app = make_app(leaky_recorded(demo_root))
    async with app.run_test(size=(120, 36)) as pilot:
        _screen, _on_main, release = await fix_held(pilot, app, monkeypatch)
        await pilot.press("escape")
        release.set()
        await settle(pilot)
        assert not isinstance(app.screen, (HealthScreen, PlanModal))
        assert "the fixes not yet previewed were dropped; H shows them again" in app.notes_text()
        assert PASSWORD in (demo_root / LEAKY).read_text(encoding="utf-8")  # nothing was applied


@pytest.mark.rule("PM-HEALTH-5")
async def test_a_redaction_in_a_batch_says_where_it_stands_in_one_bracket(demo_root: Path, make_app) -> None:
    """Found in review: a redaction fixed in a batch was titled "… (step 1 of 2: redact) (1 of 2)", two
    counters side by side, and its step 2 lost the batch's count. One bracket now: the fix's place in the
    batch (what a person works down), then the step of that fix."""
    from pmem_tui.core.history import record

    wifi_secret(demo_root, "notes/a.md", "hunter22", "Wifi")
    wifi_secret(demo_root, "notes/b.md", "tiger-77x", "Door")
    assert record.record(demo_root, create=True).commit is not None
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_health(pilot, app)
        for path in ("notes/a.md", "notes/b.md"):
            select(app, path)
            await pilot.press("space")
        await pilot.press("f")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal))
        first = modal(app)
        assert first.heading.endswith(" (fix 1 of 2, step 1 of 2: redact)") and first.heading.count("(") == 1
        await pilot.press("y")
        assert await until(pilot, lambda: isinstance(app.screen, PlanModal) and app.screen is not first)
        second = modal(app)
        assert second.heading.endswith(" (fix 1 of 2, step 2 of 2)") and second.heading.count("(") == 1
        await pilot.press("n")  # the versions are kept; the batch goes on with its next fix
        assert await until(
            pilot, lambda: isinstance(app.screen, PlanModal) and app.screen not in (first, second)
        )
        assert modal(app).heading.endswith(" (fix 2 of 2, step 1 of 2: redact)")
        await pilot.press("n")
        assert not app.errors()
