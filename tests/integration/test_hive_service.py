"""The daemon's per-hive bookkeeping around the engines: settings that follow a reload,
errors that stay reported until fixed."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from horizon.core.settings import GlobalConfig, ProviderConfig
from horizon.core.summarizer import ModelResult
from horizon.engine.stepping import Commit
from horizon.hive.heartbeat import read_heartbeat
from horizon.service import bee_settings, handlers, hive_service, hives, polling
from horizon.service.hive_service import HiveService
from horizon.service.messages import FileEvent
from horizon.service.state import DaemonState
from horizon.service.writer import Writer

BEE = "mia"


def test_a_bee_with_refused_settings_follows_a_new_config_for_its_model_levels(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    (hive / "bees" / f"{BEE}.toml").write_text('modele = "ollama/m"\n')
    with_ollama = GlobalConfig(providers={"ollama": ProviderConfig(url="http://127.0.0.1:9")})
    service = HiveService(hive, with_ollama, "config.json")
    try:
        service.refresh_bees()
        engine = service.bees[BEE].engine
        assert engine is not None and engine.effective.levels == ("ollama/m",)

        (hive / "bees" / f"{BEE}.toml").write_text('modele = "ollama/m"\n[horizon\n')
        service.settings.reconfigure(GlobalConfig())  # the provider is gone from config.json
        assert not service.settings.load(service.bees[BEE])  # the bee's file is broken
        assert engine.effective.modele == "ollama/m", "the last good settings serve"
        assert engine.effective.levels == (), "a provider no longer configured is not asked"
    finally:
        service.close()


def test_a_model_result_does_not_clear_a_refused_journal(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    os.mkfifo(hive / "window" / f"{BEE}-messages.jsonl")
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        assert service.process(BEE) is None
        error = service.bees[BEE].state_error
        assert error is not None and "not a regular file" in error
        service.apply_model(BEE, ModelResult("condense", [1]))
        assert service.bees[BEE].state_error == error
    finally:
        service.close()


def test_the_poll_does_not_reread_a_refused_file_or_an_unterminated_tail(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    os.mkfifo(hive / "window" / f"{BEE}-messages.jsonl")
    tail = hive / "window" / "noe-messages.jsonl"
    tail.write_bytes(b'{"ts": 1790000000, "type": "task", "question": "q", "answer": "a"}\n'
                     b'{"ts": 1790000000, "type": "task", "question": "half')
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        assert sorted(polling.changed_bees(service)) == [BEE, "noe"]
        service.process(BEE)  # refused: a FIFO
        outcome = service.process("noe")
        assert outcome is not None and outcome.state.zones.up_to == 1
        assert polling.changed_bees(service) == [], "nothing changed since the passes looked"
        with tail.open("ab") as out:
            out.write(b'", "answer": "a"}\n')
        assert polling.changed_bees(service) == ["noe"]
    finally:
        service.close()


def test_appends_to_a_name_the_daemon_does_not_serve_cost_no_rescan(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / f"{BEE}-messages.jsonl").write_text("")
    (hive / "window" / f"{BEE.upper()}-messages.jsonl").write_text("")  # a case twin
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)]}))
    daemon = DaemonState(config)
    service = HiveService(hive, GlobalConfig(), str(config))
    daemon.services[hive] = service
    try:
        service.refresh_bees()
        scans: list[Path] = []
        real_discover = hive_service.discover

        def counted(*args: Any, **kwargs: Any) -> Any:
            scans.append(args[0])
            return real_discover(*args, **kwargs)

        monkeypatch.setattr(hive_service, "discover", counted)
        twin = hive / "window" / f"{BEE.upper()}-messages.jsonl"
        for _ in range(50):
            with twin.open("a") as out:
                out.write("{}\n")
            handlers.on_file_event(daemon, FileEvent(twin))
        assert scans == [], "the refused twin's appends never rescan the hive"
        (hive / "window" / "new-messages.jsonl").write_text("")
        handlers.on_file_event(daemon, FileEvent(hive / "window" / "new-messages.jsonl"))
        assert scans == [hive] and "new" in service.bees
    finally:
        service.close()


def test_the_heartbeat_counts_each_bee_s_passes_and_stamps_the_last(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    journal = hive / "window" / f"{BEE}-messages.jsonl"
    line = b'{"ts": 1790000000, "type": "task", "question": "q", "answer": "a"}\n'
    journal.write_bytes(line)
    (hive / "window" / "noe-messages.jsonl").write_bytes(b"")
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        before = time.time()
        service.process(BEE)
        with journal.open("ab") as out:
            out.write(line)
        service.process(BEE)
        service.process(BEE)  # nothing new: no pass to count
        service.health.heartbeat()
        beat = read_heartbeat(hive)
        assert beat is not None
        mia = beat.bees[BEE]
        assert mia.passes == 2
        assert mia.last_pass is not None and before <= mia.last_pass <= time.time()
        assert (beat.bees["noe"].passes, beat.bees["noe"].last_pass) == (0, None)
    finally:
        service.close()


def test_a_sweep_with_nothing_to_age_keeps_a_dirty_bee_due_by_its_first_write(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "horizon.toml").write_text("[horizon]\nactif = true\n")
    journal = hive / "window" / f"{BEE}-messages.jsonl"
    line = f'{{"ts": {time.time()}, "type": "task", "question": "q", "answer": "a"}}\n'
    journal.write_text(line)
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        service.process(BEE)
        with journal.open("a") as out:
            out.write(line)
        first = time.monotonic()
        runtime = service.mark_dirty(BEE, first)
        assert runtime is not None
        service.mark_dirty(BEE, first + 1.0)  # a bee that keeps writing
        due = service.due_at(runtime)
        assert service.process(BEE, sweep_only=True) is None  # nothing aged: nothing read
        # Still due by its first write: a sweep must not restart max_wait_s's count.
        assert runtime.schedule.dirty and runtime.schedule.first_dirty == first
        service.mark_dirty(BEE, first + 2.0)
        assert service.due_at(runtime) == min(due + 1.0, first + 10.0)
        outcome = service.process(BEE)
        assert outcome is not None and outcome.read == 1
        assert not runtime.schedule.dirty and runtime.schedule.first_dirty is None
    finally:
        service.close()


def test_the_catch_up_extends_the_start_timeout_between_slices_of_one_round(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A round of many bees' slices can outlast systemd's start timeout: the deadline is
    looked at after every slice, not once a round."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    bees = ["ana", "bob", "cyd", "dee"]
    line = b'{"ts": 1790000000, "type": "task", "question": "q", "answer": "' + b"a" * 60 + b'"}\n'
    for bee in bees:  # two slices each: more than one, less than two slices' worth
        (hive / "window" / f"{bee}-messages.jsonl").write_bytes(line * 20)
    monkeypatch.setattr(bee_settings, "SLICE_BYTES", len(line) * 12)
    monkeypatch.setattr(bee_settings, "SLICE_S", 60.0)  # only the bytes end a slice
    monkeypatch.setattr(hives, "CATCH_UP_EXTEND_S", 0.0)  # every look is due
    sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sink.bind(str(tmp_path / "notify"))
    sink.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    daemon = DaemonState(tmp_path / "config.json")
    service = HiveService(hive, GlobalConfig(), "config.json", writer=daemon.writer)
    daemon.services[hive] = service
    try:
        service.refresh_bees()
        hives.catch_up(daemon)
        said = []
        with contextlib.suppress(BlockingIOError):
            while True:
                said.append(sink.recv(4096).decode())
        # Round one: each bee's first slice leaves it behind, and each is followed by an
        # extension; round two brings every bee up to date, so nothing more is asked.
        assert said == [f"EXTEND_TIMEOUT_USEC=0\nSTATUS=catching up: {len(bees)} bees behind"
                        ] * len(bees)
        for bee in bees:
            assert service.bees[bee].engine is not None
            assert service.bees[bee].engine.state.zones.up_to == 20
    finally:
        sink.close()
        daemon.writer.close()
        service.close()


def test_a_bee_let_go_after_a_failed_write_is_written_again_when_served_again(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    journal = hive / "window" / f"{BEE}-messages.jsonl"
    line = b'{"ts": 1790000000, "type": "task", "question": "q", "answer": "a"}\n'
    journal.write_bytes(line)
    (hive / "horizon").mkdir()
    (hive / "horizon" / BEE).write_text("not a folder")  # the first write fails
    told: list[tuple[Commit, str | None]] = []
    writer = Writer(lambda commit, error: told.append((commit, error)))
    service = HiveService(hive, GlobalConfig(), "config.json", writer=writer)
    try:
        service.refresh_bees()
        service.process(BEE)
        writer.drain()
        assert [error is not None for _, error in told] == [True]
        journal.unlink()
        service.refresh_bees()
        assert BEE not in service.bees
        (hive / "horizon" / BEE).unlink()
        journal.write_bytes(line)
        service.refresh_bees()
        service.process(BEE)
        writer.drain()
        assert [error is None for _, error in told[1:]] == [True]
        assert (hive / "horizon" / BEE / "handoff.md").is_file()
        # The former engine's failure, told only now, is not the new engine's.
        assert not service.written(*told[0])
        runtime = service.bees[BEE]
        assert not runtime.write_failed
        assert runtime.engine is not None and runtime.engine.state is not None
    finally:
        writer.close()
        service.close()


def test_a_bee_that_never_stops_writing_is_due_max_wait_s_after_its_first_write(
        tmp_path: Path) -> None:
    """A write every 0.05 s keeps pushing the debounce; max_wait_s bounds the wait from
    the first unprocessed write (the daemon's clock is given, not read: no timing here)."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "horizon.toml").write_text("[horizon]\nactif = true\ndebounce_s = 0.3\n"
                                       "max_wait_s = 1\n")
    (hive / "window" / f"{BEE}-messages.jsonl").write_text("")
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        first = 1000.0
        runtime = None
        for tick in range(100):  # 5 s of writes, one every 0.05 s
            runtime = service.mark_dirty(BEE, first + tick * 0.05)
            assert runtime is not None
            assert service.due_at(runtime) <= first + 1.0 + 1e-9, tick
        assert runtime is not None and runtime.schedule.first_dirty == first
    finally:
        service.close()


def test_a_bee_s_mended_settings_reach_the_heartbeat_before_the_next_beat(
        tmp_path: Path) -> None:
    """status reads a bee's settings error from the heartbeat: it says the bee is healthy
    again as soon as the daemon took the mended file, not up to a beat later."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    (hive / "window" / f"{BEE}-messages.jsonl").write_text(
        json.dumps({"ts": 1, "type": "task", "question": "q", "answer": "a"}) + "\n")
    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nactif = true\n")
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        service.health.heartbeat()
        (hive / "bees" / f"{BEE}.toml").write_text("[horizon\n")
        assert not service.settings.load(service.bees[BEE])
        beat = read_heartbeat(hive)
        assert beat is not None and beat.bees[BEE].error is not None
        (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nactif = true\n")
        assert service.settings.load(service.bees[BEE])
        beat = read_heartbeat(hive)
        assert beat is not None and beat.bees[BEE].error is None
    finally:
        service.close()
