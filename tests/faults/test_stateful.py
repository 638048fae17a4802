"""A Hypothesis state machine: random actions, agents editing behind the tool's back, crashes, doctor.

Rules: save (new file or update), archive, delete, recover, purge, each either clean or with a fault at a
random step (a hard stop or an OSError) followed by doctor; an agent appending an index line, editing a
file or dropping a new one in; the clock moving forward (so trash expires and purge has work).

The model is the multiset of memory contents that must exist: a content enters when a save is confirmed
(or an agent writes it) and leaves only when a save replaces it or purge removes it. After every step:
the memory files hold exactly that multiset (nothing lost, nothing doubled), every file the tool saved or
recovered still has its `_index.md` line, no temp file and no journal remain, and `scan()` does not raise.
An interrupted action must land on the before or the after state of the same action run cleanly.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pmem_tui.core import index, lifecycle
from pmem_tui.core.clock import ENV_TODAY
from pmem_tui.core.errors import PmemError
from pmem_tui.core.executor import apply
from pmem_tui.core.fsops import HardStop
from pmem_tui.core.model import INDEX_FILE
from pmem_tui.core.plan import Plan
from pmem_tui.core.settled import scan_once as scan  # the scan, with what the journal says is unfinished
from tests.campaign import sized
from tests.faults.harness import (
    ERRNOS,
    FIGURES,
    Fault,
    State,
    base_memory,
    capture,
    journal_files,
    run_doctor,
    temp_files,
)

NAMES = [
    "projects/a.md", "projects/b c.md", "projects/deep/d.md", "notes/n.md", "notes/日本.md", "notes/[x].md"
]
START = dt.date(2026, 11, 30)

faults = st.one_of(
    st.none(),
    st.tuples(st.just("stop"), st.integers(1, 70)),
    st.tuples(st.sampled_from(ERRNOS), st.integers(1, 70)),
)
bodies = st.text(alphabet="abc xyz\n-#é", min_size=0, max_size=40)


class Memory(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="pmem-stateful-"))
        self.root = self.tmp / "mem"
        self.today = START
        self.alive: Counter[bytes] = Counter()
        self.indexed: set[str] = set()
        self.serial = 0
        self._saved_env = os.environ.get(ENV_TODAY)
        self._saved_fsync = os.fsync
        os.fsync = lambda fd: None  # in-process: a crash, not a power cut (see conftest.no_fsync)
        os.environ[ENV_TODAY] = self.today.isoformat()

    def teardown(self) -> None:
        os.fsync = self._saved_fsync
        if self._saved_env is None:
            os.environ.pop(ENV_TODAY, None)
        else:
            os.environ[ENV_TODAY] = self._saved_env
        shutil.rmtree(self.tmp, ignore_errors=True)

    @initialize(start_full=st.booleans())
    def start(self, start_full: bool) -> None:
        """An existing memory (with archive and trash), or none at all (the first save creates it)."""
        if start_full:
            base_memory(self.root)
            self.alive = capture(self.root).memory_contents()
            self.indexed = {a.path for a in scan(self.root).active if a.index_line is not None}

    def _count(self, key: str) -> None:
        FIGURES.extra[key] = FIGURES.extra.get(key, 0) + 1

    # -- helpers ----------------------------------------------------------------------------------

    def _content(self, body: str) -> bytes:
        self.serial += 1
        return f"# Note {self.serial}\n\n{body}\n".encode()

    def _listing(self, folder: str) -> list[str]:
        snap = scan(self.root, deep=False)
        if folder == "active":
            return sorted(a.path for a in snap.active)
        if folder == "archive":
            return sorted(a.path for a in snap.archived)
        return sorted(t.path for t in snap.trash)

    def _act(
        self, make: object, fault: tuple[str | int, int] | None, agent_line: bytes | None = None
    ) -> tuple[State, State | None, State]:
        """Plan (on the memory and on a scratch copy), apply the copy cleanly for the after state, apply the
        memory with the fault, (an agent appends `agent_line` to the index), doctor. Returns (before, after
        or None when refused, final); with an agent line, `final` is given without it."""
        assert callable(make)
        before = capture(self.root)
        try:
            plan: Plan = make(self.root)
        except PmemError:
            assert capture(self.root) == before
            return before, None, before
        scratch = self.tmp / "scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        if self.root.exists():
            shutil.copytree(self.root, scratch, symlinks=True)
        apply(make(scratch), scratch)
        after = capture(scratch)
        hook = None if fault is None else Fault(fault[1], fault[0])
        try:
            apply(plan, self.root, hook=hook)
        except (HardStop, PmemError):
            assert hook is not None
        self._count("stateful_actions_applied")
        if hook is not None and hook.fired:
            self._count("stateful_faults")
        index_path = self.root / INDEX_FILE
        if agent_line is not None and index_path.is_file():
            with open(index_path, "ab") as f:
                f.write(agent_line)
            self._count("stateful_agent_edits_before_doctor")
        else:
            agent_line = None
        if run_doctor(self.root):
            self._count("stateful_doctor_runs")
        final = capture(self.root)
        if agent_line is not None:
            lines = final.files[INDEX_FILE].splitlines(keepends=True)
            assert lines.count(agent_line) == 1, "the agent's line was lost or doubled"
            lines.remove(agent_line)
            final = State({**final.files, INDEX_FILE: b"".join(lines)}, final.dirs)
        assert final in (before, after), "an interrupted action left a state that is neither before nor after"
        return before, after, final

    # -- the tool's actions ---------------------------------------------------------------------------

    @rule(name=st.sampled_from(NAMES), body=bodies, fault=faults)
    def save(self, name: str, body: str, fault: tuple[str | int, int] | None) -> None:
        data = self._content(body)
        old = (self.root / name).read_bytes() if (self.root / name).is_file() else None
        _, after, final = self._act(lambda r: lifecycle.plan_save(r, name, data), fault)
        if after is not None and final == after:
            if old is not None:
                self.alive[old] -= 1
            self.alive[data] += 1
            self.indexed.add(name)

    @precondition(lambda self: self.root.exists())
    @rule(data=st.data(), fault=faults)
    def archive(self, data: st.DataObject, fault: tuple[str | int, int] | None) -> None:
        active = self._listing("active")
        if not active:
            return
        path = data.draw(st.sampled_from(active))
        _, after, final = self._act(lambda r: lifecycle.plan_archive(r, path, "stateful"), fault)
        if after is not None and final == after:
            self.indexed.discard(path)

    @precondition(lambda self: self.root.exists())
    @rule(data=st.data(), fault=faults)
    def delete(self, data: st.DataObject, fault: tuple[str | int, int] | None) -> None:
        archived = self._listing("archive")
        if archived:
            path = data.draw(st.sampled_from(archived))
            self._act(lambda r: lifecycle.plan_delete(r, path), fault)

    @precondition(lambda self: self.root.exists())
    @rule(data=st.data(), fault=faults)
    def recover(self, data: st.DataObject, fault: tuple[str | int, int] | None) -> None:
        candidates = self._listing("archive") + self._listing("trash")
        if not candidates:
            return
        path = data.draw(st.sampled_from(candidates))
        _, after, final = self._act(lambda r: lifecycle.plan_recover(r, path), fault)
        if after is not None and final == after:
            self.indexed.add(path)

    @precondition(lambda self: self.root.exists())
    @rule(fault=faults)
    def purge(self, fault: tuple[str | int, int] | None) -> None:
        before, after, final = self._act(lambda r: lifecycle.plan_purge(r), fault)
        if after is not None and final == after:
            self.alive -= before.memory_contents() - after.memory_contents()
            if before != after:
                self._count("stateful_purges")

    @precondition(lambda self: (self.root / INDEX_FILE).is_file())
    @rule(data=st.data(), kind=st.sampled_from(["archive", "delete", "recover", "save"]),
          fault=st.tuples(st.sampled_from(["stop", *ERRNOS]), st.integers(1, 70)))
    def crash_then_an_agent_edits_the_index_then_doctor(
        self, data: st.DataObject, kind: str, fault: tuple[str | int, int]
    ) -> None:
        """The agent's line survives doctor exactly once, and the rest is before or after."""
        line = f"- notes/agent-{self.serial}.md — an agent wrote this after the crash\n".encode()
        self.serial += 1
        if kind == "save":
            name = data.draw(st.sampled_from(NAMES))
            content = self._content("saved before a crash")
            old = (self.root / name).read_bytes() if (self.root / name).is_file() else None
            _, after, final = self._act(lambda r: lifecycle.plan_save(r, name, content), fault, line)
            if after is not None and final == after:
                if old is not None:
                    self.alive[old] -= 1
                self.alive[content] += 1
                self.indexed.add(name)
            return
        where = {"archive": ["active"], "delete": ["archive"], "recover": ["archive", "trash"]}[kind]
        candidates = [p for folder in where for p in self._listing(folder)]
        if not candidates:
            return
        path = data.draw(st.sampled_from(candidates))
        make = {
            "archive": lambda r: lifecycle.plan_archive(r, path, "crash"),
            "delete": lambda r: lifecycle.plan_delete(r, path),
            "recover": lambda r: lifecycle.plan_recover(r, path),
        }[kind]
        _, after, final = self._act(make, fault, line)
        if after is not None and final == after:
            if kind == "archive":
                self.indexed.discard(path)
            elif kind == "recover":
                self.indexed.add(path)

    @rule(days=st.integers(1, 60))
    def advance_clock(self, days: int) -> None:
        self.today += dt.timedelta(days=days)
        os.environ[ENV_TODAY] = self.today.isoformat()

    # -- agents writing behind the tool's back -------------------------------------------------------

    @precondition(lambda self: (self.root / INDEX_FILE).is_file())
    @rule(name=st.sampled_from(NAMES), crlf=st.booleans())
    def agent_appends_an_index_line(self, name: str, crlf: bool) -> None:
        with open(self.root / INDEX_FILE, "ab") as f:
            f.write(f"- {name} — added by an agent{chr(13) if crlf else ''}\n".encode())

    @precondition(lambda self: self.root.exists())
    @rule(data=st.data(), body=bodies)
    def agent_edits_a_file(self, data: st.DataObject, body: str) -> None:
        active = self._listing("active")
        if not active:
            return
        path = data.draw(st.sampled_from(active))
        old = (self.root / path).read_bytes()
        new = self._content("edited by an agent " + body)
        (self.root / path).write_bytes(new)
        self.alive[old] -= 1
        self.alive[new] += 1

    @precondition(lambda self: (self.root / "notes").is_dir())
    @rule(body=bodies)
    def agent_drops_a_new_file(self, body: str) -> None:
        path = self.root / f"notes/agent-{self.serial}.md"
        data = self._content("dropped by an agent " + body)
        path.write_bytes(data)
        self.alive[data] += 1

    # -- invariants -----------------------------------------------------------------------------------

    @invariant()
    def every_content_exists_exactly_once(self) -> None:
        have = capture(self.root).memory_contents()
        assert have == +self.alive, f"lost: {+self.alive - have}; extra: {have - self.alive}"

    @invariant()
    def saved_and_recovered_files_keep_their_index_line(self) -> None:
        if not self.indexed:
            return
        text = (self.root / INDEX_FILE).read_bytes().decode("utf-8", "surrogateescape")
        routes = {e.route for e in index.parse_index(text)}
        assert self.indexed <= routes, self.indexed - routes

    @invariant()
    def no_temp_file_no_journal_and_scan_works(self) -> None:
        if not self.root.exists():
            return
        assert not temp_files(self.root)
        assert not journal_files(self.root)
        snap = scan(self.root)
        assert snap.unfinished_action is None
        self._count("stateful_checks")


Memory.TestCase.settings = settings(
    max_examples=int(os.environ.get("PMEM_TUI_STATEFUL_EXAMPLES", sized(quick=20, full=50))),
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestMemory = Memory.TestCase
TestMemory.pytestmark = [pytest.mark.slow]
