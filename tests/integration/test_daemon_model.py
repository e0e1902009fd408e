"""A model-based test of the daemon's core, in-process over real files.

Random sequences of appends (whole and partial lines), rotations, a writer holding an
old descriptor, restarts, crashes at any I/O step, and settings changes. After each
step the bee is brought up to date and checked against the model: every complete line
written was ingested exactly once, and the zones equal a full rebuild's.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import horizon.engine.stepping
import horizon.hive.rotation
import horizon.hive.store
from horizon.core.entries import Entry, Rejection
from horizon.engine.stepping import PassRequest, run_pass
from horizon.hive.settings_files import effective_settings, load_global
from horizon.service.hive_service import HiveService

BEE = "mia"


class Crash(BaseException):
    """The process dies here: nothing after this point happens."""


class Faults:
    """Counts I/O steps of the daemon and crashes at the chosen one, before or after it."""

    def __init__(self) -> None:
        self.countdown: int | None = None
        self.after = False
        self.originals: list[tuple[Any, str, Any]] = []

    def arm(self, countdown: int, after: bool) -> None:
        self.countdown = countdown
        self.after = after

    def wrap(self, owner: Any, name: str) -> None:
        original = getattr(owner, name)
        self.originals.append((owner, name, original))

        def step(*args: Any, **kwargs: Any) -> Any:
            if self.countdown is None:
                return original(*args, **kwargs)
            self.countdown -= 1
            if self.countdown > 0:
                return original(*args, **kwargs)
            self.countdown = None
            if self.after:
                original(*args, **kwargs)
            raise Crash(name)

        setattr(owner, name, step)

    def wrap_every_io_step(self) -> Faults:
        """A derived write, a manifest append (a pass's or a rotation's), a link, an unlink."""
        self.wrap(horizon.hive.store, "write_atomic")
        self.wrap(horizon.engine.stepping, "append_records")
        self.wrap(horizon.hive.rotation, "append_records")
        self.wrap(os, "link")
        self.wrap(os, "unlink")
        return self

    def restore(self) -> None:
        for owner, name, original in reversed(self.originals):
            setattr(owner, name, original)
        self.originals.clear()


def line(writer: str, number: int, size: int) -> bytes:
    record = {"ts": time.time(), "type": "conversation" if number % 5 == 0 else "task",
              "question": f"{writer}-{number}", "answer": "réponse " * size}
    if number % 7 == 3:
        return b'{"ts": "never", "type": "task", "question": "' + f"{writer}-{number}".encode() \
            + b'", "answer": ""}'
    return json.dumps(record, ensure_ascii=False).encode()


class DaemonModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="horizon-model-"))
        self.hive = self.root / "hive"
        (self.hive / "window").mkdir(parents=True)
        (self.hive / "bees").mkdir()
        self.config_path = self.root / "config.json"
        self.config_path.write_text(json.dumps(
            {"hives": [str(self.hive)], "rotation_entries": 4, "rotate_wait_s": 0,
             "log": {"dir": str(self.root / "logs")}}))
        self.budgets = (900, 600, 700)
        self.write_settings()
        self.config = load_global(self.config_path)
        self.service: HiveService | None = None
        self.written: list[str] = []  # questions of complete lines, in write order
        self.partial: tuple[str, bytes, int] | None = None
        self.held: int | None = None
        self.counter = 0
        self.faults = Faults().wrap_every_io_step()
        self.start()

    def teardown(self) -> None:
        self.faults.restore()
        if self.held is not None:
            os.close(self.held)
        if self.partial is not None:
            os.close(self.partial[2])
        if self.service is not None:
            self.service.close()
        shutil.rmtree(self.root, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------------

    def write_settings(self) -> None:
        net, condense, recit = self.budgets
        (self.hive / "bees" / f"{BEE}.toml").write_text(
            f"[horizon]\nactif = true\nbudget_net = {net}\nbudget_condense = {condense}\n"
            f"budget_recit = {recit}\n")

    def start(self) -> None:
        self.service = HiveService(self.hive, self.config, str(self.config_path))
        self.service.refresh_bees()

    def survive(self, action: Callable[[], object]) -> None:
        """Run `action`; on a crash, the process is gone: start a new one."""
        try:
            action()
        except Crash as crash:
            event(f"crashed in {crash}")
            assert self.service is not None
            self.service.close()
            self.service = None
            self.start()

    def process(self) -> None:
        assert self.service is not None
        self.survive(lambda: self.service.process(BEE) if self.service else None)

    def append(self, data: bytes, fd: int | None = None) -> None:
        if fd is None:
            path = self.hive / "window" / f"{BEE}-messages.jsonl"
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        else:
            os.write(fd, data)

    def next_line(self, writer: str, size: int) -> tuple[str, bytes]:
        """The line and what the history will say of it (its question, or "rejected")."""
        self.counter += 1
        label = "rejected" if self.counter % 7 == 3 else f"{writer}-{self.counter}"
        return label, line(writer, self.counter, size)

    # -- rules ----------------------------------------------------------------------------

    # While a line is half written, other writers wait: interleaved writes would break the
    # writer contract (one write() per line), which no daemon can undo.
    @precondition(lambda self: self.partial is None)
    @rule(count=st.integers(1, 6), size=st.integers(0, 40))
    def append_whole_lines(self, count: int, size: int) -> None:
        for _ in range(count):
            question, data = self.next_line("w", size)
            self.append(data + b"\n")
            self.written.append(question)

    @precondition(lambda self: self.partial is None)
    @rule(size=st.integers(0, 40), split=st.floats(0.1, 0.9))
    def append_a_partial_line(self, size: int, split: float) -> None:
        question, data = self.next_line("p", size)
        cut = max(1, int(len(data) * split))
        # One writer, two write()s on one descriptor: the line ends wherever the file went.
        path = self.hive / "window" / f"{BEE}-messages.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        self.append(data[:cut], fd)
        self.partial = (question, data[cut:], fd)

    @precondition(lambda self: self.partial is not None)
    @rule()
    def complete_the_partial_line(self) -> None:
        assert self.partial is not None
        question, rest, fd = self.partial
        self.append(rest + b"\n", fd)
        os.close(fd)
        self.written.append(question)
        self.partial = None

    @precondition(lambda self: self.held is None and self.partial is None)
    @rule()
    def a_writer_holds_a_descriptor(self) -> None:
        path = self.hive / "window" / f"{BEE}-messages.jsonl"
        self.held = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)

    @precondition(lambda self: self.held is not None and self.partial is None)
    @rule(count=st.integers(1, 3))
    def the_holding_writer_appends(self, count: int) -> None:
        for _ in range(count):
            question, data = self.next_line("h", 3)
            self.append(data + b"\n", self.held)
            self.written.append(question)

    @precondition(lambda self: self.held is not None)
    @rule()
    def the_holding_writer_closes(self) -> None:
        assert self.held is not None
        os.close(self.held)
        self.held = None

    @rule()
    def the_daemon_processes(self) -> None:
        self.process()  # rotation happens in here once the live file holds 4 lines

    @rule()
    def restart(self) -> None:
        assert self.service is not None
        self.service.close()
        self.start()

    @precondition(lambda self: self.partial is None)
    @rule(lines=st.integers(1, 5), countdown=st.integers(1, 7), after=st.booleans())
    def crash_during_a_pass(self, lines: int, countdown: int, after: bool) -> None:
        """New lines (enough to rotate, at times), then a crash at one I/O step of the pass:
        a derived write, a manifest append, the link or the unlink of a rotation."""
        self.append_whole_lines(lines, 2)
        self.faults.arm(countdown, after)
        self.process()
        self.faults.countdown = None

    @rule(net=st.integers(600, 3000), condense=st.integers(300, 2000),
          recit=st.integers(300, 2000))
    def change_settings(self, net: int, condense: int, recit: int) -> None:
        self.budgets = (net, condense, recit)
        self.write_settings()
        assert self.service is not None
        runtime = self.service.bees[BEE]
        assert self.service.settings.load(runtime)

    # -- the check ------------------------------------------------------------------------

    @invariant()
    def ingested_exactly_once_and_zones_equal_a_rebuild(self) -> None:
        self.process()
        self.process()  # a crash may have been armed by nothing; make sure we are caught up
        assert self.service is not None
        runtime = self.service.bees[BEE]
        state = runtime.engine.state if runtime.engine else None
        if state is None:
            return
        config = load_global(self.config_path)
        effective = effective_settings(config, str(self.config_path), self.hive, BEE)
        history: dict[int, str] = {}

        def collect(record: Entry | Rejection) -> None:
            assert record.seq not in history, f"seq {record.seq} read twice"
            history[record.seq] = _question(record)

        rebuild = run_pass(PassRequest(self.hive, BEE, config, effective, time.time(), None,
                           on_record=collect))
        assert sorted(history) == list(range(1, len(history) + 1))
        questions = [history[seq] for seq in sorted(history)]
        assert sorted(questions) == sorted(self.written), "each line written, once"
        by_writer_seq = [q for q in questions if q.startswith("w-")]
        assert by_writer_seq == [q for q in self.written if q.startswith("w-")]
        assert state.checkpoint.seq == len(history)
        manifest = runtime.engine.manifest if runtime.engine else None
        if manifest is not None and manifest.rotated:
            event("rotated")
        if manifest is not None and manifest.late:
            event("late lines")
        assert msgspec.to_builtins(state.zones) == msgspec.to_builtins(rebuild.state.zones)


def _question(record: Entry | Rejection) -> str:
    if isinstance(record, Entry):
        return record.question
    return "rejected"


TestDaemonModel = DaemonModel.TestCase
TestDaemonModel.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
