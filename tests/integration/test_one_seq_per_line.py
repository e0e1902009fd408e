"""Every line gets exactly one seq, the same in every reader: the daemon, `rebuild`,
`phare`, read-only readers, whatever crashes and interrupted rotations come between them.

In-process over real files: the daemon core (`HiveService`), the commands through the
command line's `main`, and read-only engines that write nothing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from horizon.cli.main import main
from horizon.core.entries import Entry, Rejection
from horizon.core.settings import GlobalConfig
from horizon.engine.bee_engine import BeeEngine, Rebuild
from horizon.engine.stepping import Pass
from horizon.hive.layout import archive_dir, archive_name, live_path
from horizon.hive.manifest import Rotated, append_records, read_manifest
from horizon.hive.settings_files import effective_settings, load_global
from horizon.hive.store import load_state
from horizon.service.hive_service import HiveService
from tests.integration.test_daemon_model import Crash, Faults

BEE = "mia"


def write_config(root: Path, hive: Path, rotation_entries: int) -> Path:
    config = root / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)], "rotation_entries": rotation_entries,
                                  "rotate_wait_s": 0, "log": {"dir": str(root / "logs")}}))
    (hive / "bees").mkdir(parents=True, exist_ok=True)
    (hive / "bees" / f"{BEE}.toml").write_text(
        "[horizon]\nactif = true\nbudget_net = 900\nbudget_condense = 600\n"
        "budget_recit = 700\n")
    return config


def served_once(hive: Path, config: GlobalConfig, source: str, bee: str = BEE) -> Pass | None:
    """One pass of `bee` by a daemon core started afresh on the hive, then closed."""
    service = HiveService(hive, config, source)
    try:
        service.refresh_bees()
        return service.process(bee)
    finally:
        service.close()


def journal_line(question: str) -> bytes:
    return json.dumps({"ts": time.time(), "type": "task", "question": question,
                       "answer": "réponse " * 12}).encode() + b"\n"


def command(*argv: str) -> tuple[int, str]:
    """The command line in-process: its exit code and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


def read_only_seqs(hive: Path, config_path: Path) -> dict[int, str]:
    """What a reader that must not write gives each line: seq → question."""
    config = load_global(config_path)
    effective = effective_settings(config, str(config_path), hive, BEE)
    seen: dict[int, str] = {}

    def keep(record: Entry | Rejection) -> None:
        assert record.seq not in seen, f"seq {record.seq} read twice"
        seen[record.seq] = record.question if isinstance(record, Entry) else "rejected"

    BeeEngine(hive, BEE, config, effective, writes=False, on_record=keep).run(
        Rebuild(), time.time())
    return seen


def interrupt_a_rotation(hive: Path, *, linked: bool) -> str:
    """A rotation a crash stopped: its manifest record written, its link made or not, the
    live journal still in place."""
    window = hive / "window"
    live = live_path(window, BEE)
    manifest = read_manifest(window, BEE)
    info = os.stat(live)
    archive = archive_dir(window)
    archive.mkdir(exist_ok=True)
    # As `rotate` does: a rotation stopped before its link keeps its segment's number.
    segment = next((r.segment for r in manifest.rotated.values()
                    if r.ino == info.st_ino and not (archive / r.segment).exists()),
                   archive_name(BEE, len(manifest.rotated) + 1))
    lines = live.read_bytes().count(b"\n")
    append_records(window, BEE, [Rotated(segment, info.st_ino, info.st_size, lines)])
    if linked:
        os.link(live, archive / segment)
    return segment


# -- the case an operator met -------------------------------------------------------------

def test_phare_after_a_rotation_interrupted_once_linked_gives_each_line_one_seq(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    config = write_config(tmp_path, hive, rotation_entries=500)
    live = live_path(hive / "window", BEE)
    live.write_bytes(b"".join(journal_line(f"q{n}") for n in (1, 2, 3)))
    segment = interrupt_a_rotation(hive, linked=True)

    # A reader that must not write sees the rotation as finished, and touches nothing.
    before = sorted(p.name for p in (hive / "window").rglob("*"))
    code, out = command("render", str(hive), BEE, "--json", "--config", str(config))
    assert code == 0
    assert json.loads(out)["up_to"] == 3
    assert sorted(p.name for p in (hive / "window").rglob("*")) == before
    assert not (hive / "horizon").exists()

    code, _ = command("phare", str(hive), BEE, "2", "--config", str(config))
    assert code == 0
    state = load_state(hive, BEE)
    assert state is not None
    assert (state.zones.accepted, state.zones.up_to, state.checkpoint.seq) == (3, 3, 3)
    assert not live.exists(), "the interrupted rotation was finished first"
    assert (archive_dir(hive / "window") / segment).exists()
    assert [item.seq for item in state.zones.net if item.lighthouse] == [2]

    # A daemon started afterwards keeps three entries, and a new line is #4.
    service = HiveService(hive, load_global(config), str(config))
    try:
        service.refresh_bees()
        with live.open("ab") as out_file:
            out_file.write(journal_line("q4"))
        outcome = service.process(BEE)
        assert outcome is not None
        assert outcome.state.zones.up_to == 4
        assert outcome.state.zones.accepted == 4
    finally:
        service.close()
    assert read_only_seqs(hive, config) == {1: "q1", 2: "q2", 3: "q3", 4: "q4"}


def test_a_read_only_reader_reads_a_rotation_stopped_before_its_link_as_finished(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    config = write_config(tmp_path, hive, rotation_entries=500)
    live = live_path(hive / "window", BEE)
    live.write_bytes(b"".join(journal_line(f"q{n}") for n in (1, 2)))
    interrupt_a_rotation(hive, linked=False)
    with live.open("ab") as out:
        out.write(journal_line("late"))  # a writer's line after the record, before the link
    read_only = read_only_seqs(hive, config)
    assert not any(archive_dir(hive / "window").glob("*-messages.*.jsonl")), "wrote nothing"
    code, _ = command("rebuild", str(hive), BEE, "--config", str(config))
    assert code == 0
    assert read_only_seqs(hive, config) == read_only == {1: "q1", 2: "q2", 3: "late"}


# -- any interleaving ---------------------------------------------------------------------

class OneSeqPerLine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="horizon-seqs-"))
        self.hive = self.root / "hive"
        (self.hive / "window").mkdir(parents=True)
        self.config_path = write_config(self.root, self.hive, rotation_entries=4)
        self.service: HiveService | None = None
        self.written: list[str] = []
        self.seq_of: dict[str, int] = {}  # the seq every reader must give each line
        self.faults = Faults().wrap_every_io_step()

    def teardown(self) -> None:
        self.faults.restore()
        if self.service is not None:
            self.service.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def survive(self, action: Callable[[], object]) -> None:
        """Run `action`; a crash ends the process, daemon included."""
        try:
            action()
        except Crash as crash:
            event(f"crashed in {crash}")
            if self.service is not None:
                self.service.close()
                self.service = None
        finally:
            self.faults.countdown = None

    def observe(self, seqs: dict[int, str], committed: int) -> None:
        """What one reader gave: every line once, and each line a writer has committed
        (seqs up to the checkpoint on disk) at the seq every reader gave it before.

        Beyond the checkpoint, seqs are the reader's best guess: lines found late in a
        rotated segment get theirs from the first writer that reads them."""
        assert sorted(seqs) == list(range(1, len(seqs) + 1))
        for seq, question in seqs.items():
            if seq <= committed:
                assert self.seq_of.setdefault(question, seq) == seq, (
                    f"{question} had #{self.seq_of[question]}, now #{seq}")

    # -- rules --------------------------------------------------------------------------

    @rule(count=st.integers(1, 5))
    def a_bee_writes(self, count: int) -> None:
        with live_path(self.hive / "window", BEE).open("ab") as out:
            for _ in range(count):
                question = f"q{len(self.written) + 1}"
                out.write(journal_line(question))
                self.written.append(question)

    @precondition(lambda self: self.service is None)
    @rule()
    def the_daemon_starts(self) -> None:
        self.service = HiveService(self.hive, load_global(self.config_path),
                                   str(self.config_path))
        self.service.refresh_bees()

    @precondition(lambda self: self.service is not None)
    @rule()
    def the_daemon_stops(self) -> None:
        assert self.service is not None
        self.service.close()
        self.service = None

    @precondition(lambda self: self.service is not None)
    @rule(countdown=st.none() | st.integers(1, 6), after=st.booleans())
    def the_daemon_passes(self, countdown: int | None, after: bool) -> None:
        if countdown is not None:
            self.faults.arm(countdown, after)
        self.survive(lambda: self.service.process(BEE) if self.service else None)

    @precondition(lambda self: self.service is None and self.written)
    @rule(linked=st.booleans())
    def a_rotation_is_interrupted(self, linked: bool) -> None:
        """A daemon crashed inside a rotation (one still unfinished is not started again:
        the daemon finishes it first)."""
        window = self.hive / "window"
        live = live_path(window, BEE)
        if not live.exists() or not live.stat().st_size:
            return
        linked_already = any(
            r.ino == live.stat().st_ino and (archive_dir(window) / r.segment).exists()
            for r in read_manifest(window, BEE).rotated.values())
        if not linked_already:
            interrupt_a_rotation(self.hive, linked=linked)

    @precondition(lambda self: self.service is None)
    @rule(countdown=st.none() | st.integers(1, 6), after=st.booleans())
    def an_operator_rebuilds(self, countdown: int | None, after: bool) -> None:
        if countdown is not None:
            self.faults.arm(countdown, after)
        self.survive(lambda: command("rebuild", str(self.hive), BEE,
                                     "--config", str(self.config_path)))

    @precondition(lambda self: self.written)
    @rule(data=st.data(), countdown=st.none() | st.integers(1, 6), after=st.booleans())
    def an_operator_flags_a_line(self, data: st.DataObject, countdown: int | None,
                                 after: bool) -> None:
        seq = data.draw(st.integers(1, len(self.written)))
        if countdown is not None:
            self.faults.arm(countdown, after)
        self.survive(lambda: command("phare", str(self.hive), BEE, str(seq),
                                     "--config", str(self.config_path)))

    @rule()
    def an_operator_renders_fresh(self) -> None:
        before = sorted(str(p) for p in self.hive.rglob("*"))
        code, out = command("render", str(self.hive), BEE, "--fresh", "--json",
                            "--config", str(self.config_path))
        assert code == 0
        view = json.loads(out)
        assert view["up_to"] == len(self.written)
        assert sorted(str(p) for p in self.hive.rglob("*")) == before, "render wrote"

    # -- the check ------------------------------------------------------------------------

    @invariant()
    def every_reader_gives_every_line_one_seq(self) -> None:
        seqs = read_only_seqs(self.hive, self.config_path)
        assert sorted(seqs.values()) == sorted(self.written), "each line once"
        on_disk = load_state(self.hive, BEE)
        self.observe(seqs, on_disk.checkpoint.seq if on_disk is not None else 0)
        if self.service is not None and BEE in self.service.bees:
            engine = self.service.bees[BEE].engine
            state = engine.state if engine is not None else None
            if state is not None:
                zones = state.zones
                assert zones.accepted + zones.rejected == zones.up_to == state.checkpoint.seq
                for item in [*zones.net, *zones.condense]:
                    assert self.seq_of.get(item.question, item.seq) == item.seq
        state = on_disk
        if state is not None:
            assert state.zones.accepted + state.zones.rejected == state.zones.up_to
            assert state.zones.up_to <= len(self.written)
            for item in [*state.zones.net, *state.zones.condense]:
                assert self.seq_of.get(item.question, item.seq) == item.seq


TestOneSeqPerLine = OneSeqPerLine.TestCase
TestOneSeqPerLine.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)


def test_a_blank_line_too_long_to_hold_takes_no_seq_whatever_the_limit(
        tmp_path: Path) -> None:
    """Blank lines take no seq, however long: a line of spaces longer than
    max_line_bytes (within a block, and longer than a whole read chunk) once took one,
    so that raising the limit moved every later seq in the daemon, search, show and
    rebuild alike."""
    from horizon.engine.recall import search, show
    from horizon.hive.journal import CHUNK

    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    config_path = write_config(tmp_path, hive, rotation_entries=1000)
    live_path(hive / "window", BEE).write_bytes(
        journal_line("one") + b" " * 5000 + b"\n" + journal_line("two")
        + b"\t " * (CHUNK + 10) + b"\n" + journal_line("three needle"))

    def seqs(max_line_bytes: int) -> dict[str, object]:
        config = load_global(config_path)
        config = type(config)(**{**{f: getattr(config, f) for f in config.__struct_fields__},
                                 "max_line_bytes": max_line_bytes})
        effective = effective_settings(config, str(config_path), hive, BEE)
        seen: dict[int, str] = {}

        def keep(record: Entry | Rejection) -> None:
            seen[record.seq] = record.question if isinstance(record, Entry) else "?"

        outcome = BeeEngine(hive, BEE, config, effective, writes=False,
                            on_record=keep).run(Rebuild(), time.time())
        assert outcome is not None
        [hit] = search(hive, BEE, "needle", max_line_bytes, lighthouses=effective.horizon)
        shown = show(hive, BEE, [3], max_line_bytes, lighthouses=effective.horizon)
        return {"engine": seen, "up_to": outcome.state.zones.up_to, "search": hit.entry.seq,
                "show": [item.entry.question for item in shown.shown]}

    small, large = seqs(4096), seqs(4 * CHUNK)
    assert small == large
    assert small["engine"] == {1: "one", 2: "two", 3: "three needle"}
    assert (small["up_to"], small["search"], small["show"]) == (3, 3, ["three needle"])


def test_a_rotated_segment_deleted_by_hand_keeps_its_seqs_in_every_reader(
        tmp_path: Path) -> None:
    """Its lines are lost, but the seqs it recorded stay its own: the daemon, a rebuild,
    show and search give each later line the same seq (rebuild once stopped short)."""
    from horizon.engine.recall import search, show

    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    config_path = write_config(tmp_path, hive, rotation_entries=3)
    config = load_global(config_path)
    live = live_path(hive / "window", BEE)
    service = HiveService(hive, config, str(config_path))
    try:
        service.refresh_bees()
        for number in range(8):
            with live.open("ab") as out:
                out.write(journal_line(f"word{number}"))
            service.process(BEE)
    finally:
        service.close()
    gone = archive_dir(hive / "window") / archive_name(BEE, 2)
    assert gone.exists()
    gone.unlink()
    with live.open("ab") as out:
        out.write(journal_line("word8"))
    outcome = served_once(hive, config, str(config_path))  # a restarted daemon's pass
    assert outcome is not None and outcome.state.zones.up_to == 9
    expected = {1: "word0", 2: "word1", 3: "word2", 7: "word6", 8: "word7", 9: "word8"}
    assert read_only_seqs(hive, config_path) == expected
    effective = effective_settings(config, str(config_path), hive, BEE)
    shown = show(hive, BEE, [7, 9], config.max_line_bytes, lighthouses=effective.horizon)
    assert [item.entry.question for item in shown.shown] == ["word6", "word8"]
    [hit] = search(hive, BEE, "word7", config.max_line_bytes, lighthouses=effective.horizon)
    assert hit.entry.seq == 8
    code, out = command("status", str(hive), "--config", str(config_path), "--json")
    assert code == 1, "no daemon serves it"
    [report] = json.loads(out)["hives"]
    [bee] = report["bees"]
    assert bee["missing_segments"] == [archive_name(BEE, 2)]
    assert report["degraded"] is True
