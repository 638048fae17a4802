"""`e` with the person's real editor command, and the draft a refused save keeps."""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tui_helpers import RecordingApp, settle

from pmem_tui.core import drafts
from pmem_tui.tui.editor import EditorFailed, edit_suspended, editor_command
from pmem_tui.tui.modals.plan_modal import PlanModal
from pmem_tui.tui.screens.main import MainScreen
from tests.conftest import tree_bytes

SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYzz9\n"
# A stand-in editor: records its arguments, then appends its last-but-one argument to the file.
FAKE = """import sys
args = sys.argv[1:]
open(args[-1] + ".args", "w").write("\\n".join(args[:-1]))
if len(args) > 1 and args[-2] != "-":
    with open(args[-1], "a") as f:
        f.write(args[-2])
"""


def test_the_editor_command_visual_first_split_like_a_shell() -> None:
    assert editor_command({"VISUAL": "code -w", "EDITOR": "nano"}) == ["code", "-w"]
    assert editor_command({"VISUAL": "  ", "EDITOR": "vim -u NONE"}) == ["vim", "-u", "NONE"]
    assert editor_command({"EDITOR": "'/opt/my editor/bin/ed' --wait"}) == ["/opt/my editor/bin/ed", "--wait"]
    assert editor_command({}) == ["vi"]
    with pytest.raises(EditorFailed, match=r"\$EDITOR .* cannot be read as a command"):
        editor_command({"EDITOR": "vim '-u"})


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["VISUAL", "EDITOR"]), st.text(max_size=30)))
def test_any_editor_setting_gives_a_command_or_one_sentence(env: dict[str, str]) -> None:
    try:
        words = editor_command(env)
    except EditorFailed as err:
        assert str(err).startswith("$") and str(err).endswith(".") and "\n" not in str(err)
    else:
        assert words and all(isinstance(w, str) for w in words)


def test_the_screen_is_resumed_when_the_editor_hook_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pmem_tui.tui.editor.os.isatty", lambda _fd: True)  # as in a real terminal
    events: list[str] = []

    class Suspending:
        @contextlib.contextmanager
        def suspend(self) -> Iterator[None]:  # Textual's shape: no `finally`, no resume on an exception
            events.append("suspend")
            yield
            events.append("resume")

    def broken(path: Path) -> None:
        raise RuntimeError("boom")

    assert edit_suspended(Suspending(), broken, Path("x")) == "The editor failed: boom."  # type: ignore[arg-type]
    assert events == ["suspend", "resume"]
    # Standard output redirected (`pmem-tui > log`: the app draws on standard error): no editor is run.
    monkeypatch.setattr("pmem_tui.tui.editor.os.isatty", lambda fd: fd != 1)
    said = edit_suspended(Suspending(), broken, Path("x"))  # type: ignore[arg-type]
    assert said == "The editor needs a terminal, and pmem-tui's standard output is not one (redirected)."
    assert events == ["suspend", "resume", "suspend", "resume"]


async def test_an_editor_that_cannot_start_fails_or_is_killed_saves_nothing(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "fake_editor.py"
    fake.write_text(FAKE, encoding="utf-8")
    before = tree_bytes(demo_root)
    app = RecordingApp(demo_root)  # the real editor runner: $VISUAL / $EDITOR
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("EDITOR", "nosuch-editor-xyz")
        await pilot.press("e")
        assert isinstance(app.screen, MainScreen)
        assert app.errors()[-1] == (
            "The editor 'nosuch-editor-xyz' could not start (No such file or directory); set $VISUAL or "
            "$EDITOR to an editor you have (for example EDITOR=nano). Nothing was saved."
        )
        # vim's `:cq`: the edit is written, then the editor exits with status 1.
        monkeypatch.setenv("EDITOR", f"sh -c '{sys.executable} {fake} x \"$1\"; exit 1' sh")
        await pilot.press("e")
        assert isinstance(app.screen, MainScreen)
        assert "exited with status 1. Nothing was saved." in app.errors()[-1]
        monkeypatch.setenv("EDITOR", "sh -c 'kill -KILL $$' sh")
        await pilot.press("e")
        assert "was killed (SIGKILL). Nothing was saved." in app.errors()[-1]
        # An editor with arguments, from $VISUAL before $EDITOR.
        monkeypatch.setenv("VISUAL", f"{shlex.quote(sys.executable)} {fake} -w 'two words' '- Added.\n'")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, PlanModal)
        assert "+- Added." in app.screen.preview_text
        await pilot.press("escape")
    assert tree_bytes(demo_root) == before


@pytest.mark.rule("PM-CORE-6", "PM-SAVE-3")
async def test_a_refused_save_keeps_the_draft_until_saved_or_discarded(demo_root: Path) -> None:
    rel = "projects/atlas.md"
    original = (demo_root / rel).read_bytes()
    before = tree_bytes(demo_root)
    seen: list[bytes] = []
    plan: list[str | None] = [f"- Redis 7.\n{SECRET}"]  # what the next editor run appends (None: nothing)

    def editor(path: Path) -> None:
        seen.append(path.read_bytes())
        step = plan.pop(0)
        if step is not None:
            path.write_bytes(seen[-1].replace(SECRET.encode(), b"") + step.encode())

    app = RecordingApp(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")  # the save is refused: the edit is kept, outside the root
        kept = drafts.read(demo_root, rel)
        assert kept is not None and SECRET.encode() in kept[1]
        assert not kept[0].is_relative_to(demo_root)
        error = app.errors()[-1]
        assert "looks like a secret" in error and "Your edit is kept as a draft at " in error
        assert f"press e on {rel} to continue it" in error and "without changing it to discard it" in error
        assert tree_bytes(demo_root) == before
        # The next `e` opens the draft; without the secret it reaches the save preview, which says so.
        plan.append("")
        await pilot.press("e")
        await settle(pilot)
        assert seen[-1] == kept[1]
        assert isinstance(app.screen, PlanModal)
        explanation = str(app.screen.query_one("#plan-explanation").render())
        assert "This is your kept draft of projects/atlas.md" in " ".join(explanation.split())
        await pilot.press("escape")  # cancel keeps the draft (now without the secret)
        assert "Your edit is kept as a draft" in app.notes_text().splitlines()[-1]
        again = drafts.read(demo_root, rel)
        assert again is not None and SECRET.encode() not in again[1] and b"- Redis 7." in again[1]
        # Leaving the editor without changing the draft discards it; the file is untouched.
        plan.append(None)
        await pilot.press("e")
        assert seen[-1] == again[1]
        assert app.notes[-1][0].startswith(f"Discarded your draft of {rel} (you left the editor without")
        assert drafts.read(demo_root, rel) is None and tree_bytes(demo_root) == before
        # Refused again, then saved from the draft: the draft goes with the save.
        plan.extend([SECRET, "- Saved from a draft.\n", None])
        await pilot.press("e")
        assert drafts.read(demo_root, rel) is not None
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert (demo_root / rel).read_bytes() == original + b"- Saved from a draft.\n"
        assert drafts.read(demo_root, rel) is None
        await pilot.press("e")
        assert seen[-1] == original + b"- Saved from a draft.\n"  # the file itself again


async def test_a_refused_new_file_keeps_its_draft_for_the_same_path(demo_root: Path) -> None:
    seen: list[bytes] = []

    def editor(path: Path) -> None:
        seen.append(path.read_bytes())
        path.write_bytes(b"# Keys\n\n" + SECRET.encode())

    app = RecordingApp(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("n", *"keys.md", "enter", "enter")
        await settle(pilot)
        assert "press n and give the path notes/keys.md again" in app.errors()[-1]
        assert not (demo_root / "notes/keys.md").exists()
        await pilot.press("n", *"keys.md", "enter", "enter")
        await settle(pilot)
        assert seen == [b"# Keys\n\n", b"# Keys\n\n" + SECRET.encode()]  # the draft, not the template
        # Unchanged from the draft this time: the draft is discarded, as the refusal said.
        assert app.notes[-1][0].startswith("Discarded your draft of notes/keys.md (you left the editor")
        assert drafts.read(demo_root, "notes/keys.md") is None
        assert not (demo_root / "notes/keys.md").exists()


def _adds_redis(path: Path) -> None:
    """A stand-in editor: the person adds a line."""
    path.write_bytes(path.read_bytes() + b"- Redis 7.\n")


@pytest.mark.rule("PM-SAVE-3")
async def test_an_edit_refused_at_apply_time_is_kept_and_a_cancelled_one_is_not(demo_root: Path) -> None:
    rel = "projects/atlas.md"
    app = RecordingApp(demo_root, editor=_adds_redis)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        assert isinstance(app.screen, PlanModal)
        await pilot.press("escape")  # an ordinary edit, cancelled: nothing is kept
        assert drafts.read(demo_root, rel) is None
        await pilot.press("e")
        (demo_root / rel).write_bytes(b"# Atlas\n\nAn agent's rewrite.\n")  # after the preview, before y
        await pilot.press("y")
        await settle(pilot)
        assert "changed since the preview" in app.errors()[-1]
        kept = drafts.read(demo_root, rel)
        assert kept is not None and kept[1].endswith(b"- Redis 7.\n")  # the edit survived the refusal


async def test_an_edit_whose_preview_went_stale_is_kept_when_cancelled(demo_root: Path) -> None:
    """Found in trial: an agent wrote to the file while its save preview was open; the preview refused
    confirmation ("changed since the preview"), so cancel was the only way out, and cancel threw the
    person's edit away."""
    rel = "projects/atlas.md"
    app = RecordingApp(demo_root, editor=_adds_redis)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        modal = app.screen
        assert isinstance(modal, PlanModal)
        with (demo_root / rel).open("ab") as agent:
            agent.write(b"- An agent's line.\n")
        modal.notice_change(frozenset({rel}))  # what the watcher does when the file changes
        assert modal.stale is not None
        await pilot.press("y")  # refused: the preview is stale
        assert isinstance(app.screen, PlanModal)
        await pilot.press("escape")
        await settle(pilot)
        kept = drafts.read(demo_root, rel)
        assert kept is not None and kept[1].endswith(b"- Redis 7.\n")  # the edit survived
        assert "kept as a draft" in app.notes_text()
        assert (demo_root / rel).read_bytes().endswith(b"- An agent's line.\n")  # the agent's change too


def _explanation(app: RecordingApp) -> str:
    assert isinstance(app.screen, PlanModal)
    shown = app.screen.query("#plan-explanation")  # a preview with nothing to explain has none
    return " ".join(str(shown.first().render()).split()) if shown else ""


@pytest.mark.rule("PM-SAVE-3")
async def test_a_draft_saved_over_an_agents_later_edit_says_so(demo_root: Path) -> None:
    """Found in trial: a kept draft, then an agent's edit of the file, then `e` and `y`: the agent's edit
    was replaced, and only a `-` line of the diff showed it. The draft keeps the fingerprint of the file it
    was begun from, and its save preview says the file changed since."""
    rel = "projects/atlas.md"
    steps = ["- Mine.\n" + SECRET, ""]  # refused (a secret), then the secret taken out again

    def editor(path: Path) -> None:
        path.write_bytes(path.read_bytes().replace(SECRET.encode(), b"") + steps.pop(0).encode())

    app = RecordingApp(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        assert drafts.read(demo_root, rel) is not None
        with (demo_root / rel).open("ab") as agent:
            agent.write(b"- An agent's line.\n")
        await pilot.press("e")
        await settle(pilot)
        words = _explanation(app)
        assert "This is your kept draft of projects/atlas.md" in words
        assert "projects/atlas.md changed on disk since this draft was begun" in words
        assert "confirming replaces it with your draft" in words
        assert "-- An agent's line." in app.screen.preview_text
        await pilot.press("escape")  # still kept; the person has now seen that change in a preview
        steps.append("- More.\n")
        await pilot.press("e")
        await settle(pilot)
        words = _explanation(app)  # found in review: said again at every save, even with the change taken in
        assert "This is your kept draft" in words and "changed on disk" not in words
        await pilot.press("escape")
        with (demo_root / rel).open("ab") as agent:  # a newer change of the agent's: said again
            agent.write(b"- Another agent line.\n")
        steps.append("- Yet more.\n")
        await pilot.press("e")
        await settle(pilot)
        assert "changed on disk since this draft was begun" in _explanation(app)


async def test_a_draft_of_a_new_file_or_an_edit_says_what_the_agent_did_meanwhile(demo_root: Path) -> None:
    rel = "projects/atlas.md"
    agent_writes: list[tuple[str, bytes | None]] = []

    def editor(path: Path) -> None:
        path.write_bytes(path.read_bytes() + b"- Mine.\n")
        for where, data in agent_writes:  # the agent, while the editor runs
            if data is None:
                (demo_root / where).unlink()
            else:
                (demo_root / where).write_bytes(data)
        agent_writes.clear()

    app = RecordingApp(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")  # nothing changed meanwhile: nothing said
        assert "changed on disk" not in _explanation(app)
        await pilot.press("escape")
        agent_writes.append((rel, b"# Atlas\n\nRewritten.\n"))
        await pilot.press("e")
        assert "projects/atlas.md changed on disk while you were editing" in _explanation(app)
        await pilot.press("escape")
        agent_writes.append((rel, None))
        await pilot.press("e")
        words = _explanation(app)
        assert "projects/atlas.md was removed from disk while you were editing" in words
        await pilot.press("escape")
        agent_writes.append(("notes/keys.md", b"# Keys\n\nThe agent's.\n"))
        await pilot.press("n", *"keys.md", "enter", "enter")
        await settle(pilot)
        assert "notes/keys.md was created on disk while you were editing" in _explanation(app)


async def test_a_file_that_is_not_utf8_is_refused_before_the_editor_opens(demo_root: Path) -> None:
    """Found in trial: `e` on a Latin-1 file opened the editor, then the save was refused (the content is
    not UTF-8 text) and the edit kept as a draft. The save's own rule is asked first: one sentence, no
    editor, no draft. A kept draft still opens (leaving it unchanged is how it is discarded)."""
    rel = "projects/atlas.md"
    (demo_root / rel).write_bytes(b"# Atlas\n\ncaf\xe9\n")
    before = tree_bytes(demo_root)
    seen: list[bytes] = []

    def editor(path: Path) -> None:
        seen.append(path.read_bytes())

    app = RecordingApp(demo_root, editor=editor)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert seen == [] and isinstance(app.screen, MainScreen)
        assert app.errors()[-1] == (
            f"{rel} is not UTF-8 text, so the app cannot save an edit of it: convert it to UTF-8 outside the "
            "app (for example `iconv -f latin1 -t utf-8`), then press e again."
        )
        assert drafts.read(demo_root, rel) is None and tree_bytes(demo_root) == before
        drafts.keep(
            demo_root, rel, b"# Atlas\n\ncaf\xc3\xa9\n", drafts.fingerprint((demo_root / rel).read_bytes())
        )
        await pilot.press("e")  # the draft opens; left unchanged, it is discarded
        await settle(pilot)
        assert seen == [b"# Atlas\n\ncaf\xc3\xa9\n"] and drafts.read(demo_root, rel) is None
