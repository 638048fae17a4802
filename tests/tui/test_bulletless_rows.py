"""Index lines without a list bullet in the app (found in trial: an agent's `notes/bare.md` line left the file
an orphan row, and the health fix `f` listed it a second time)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import RecordingApp, settle, until


def _agent_memory(root: Path) -> None:
    for folder in ("_core", "projects", "notes", "_archive/_trash"):
        (root / folder).mkdir(parents=True)
    (root / "_archive/_index.md").write_text("# Archive index\n", encoding="utf-8")
    for name in ("a", "b", "bare", "stray"):
        (root / f"notes/{name}.md").write_text(f"# {name}\n\n## Summary\n- one\n- two\n- three\n", "utf-8")
    (root / "_index.md").write_text(
        "- notes/a.md — a\n- notes/b.md — b\nnotes/bare.md — listed without a bullet\n", encoding="utf-8"
    )


@pytest.mark.rule("PM-CORE-5")
async def test_a_line_without_a_bullet_is_an_entry_row_and_an_agents_new_one_is_followed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "memory"
    _agent_memory(root)
    app = RecordingApp(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.main_screen is not None
        view = app.main_screen.view("index")

        def rows() -> dict[str, tuple[str, str]]:
            return {r.path: (r.kind, r.cells[-1]) for r in view.list.all_rows}

        assert await until(pilot, lambda: rows().get("notes/stray.md", ("",))[0] == "orphan")
        assert rows()["notes/bare.md"] == ("entry", "listed without a bullet")

        # The agent drops a bullet in place and lists the orphan with a line of its own, without a bullet.
        text = (root / "_index.md").read_text(encoding="utf-8")
        text = text.replace("- notes/b.md — b\n", "notes/b.md — b, now without its bullet\n")
        (root / "_index.md").write_text(text + "`notes/stray.md`: listed by the agent\n", encoding="utf-8")
        app.request_rescan(frozenset({"_index.md"}))
        assert await until(pilot, lambda: rows().get("notes/stray.md") == ("entry", "listed by the agent"))
        assert rows()["notes/b.md"] == ("entry", "b, now without its bullet")
        assert {kind for kind, _ in rows().values()} == {"entry"}
