"""A rotation that cannot link (no hard links, a full disk) loses nothing, keeps its
segment number, and succeeds once linking works again."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

import horizon.engine.bee_engine
import horizon.hive.rotation
from horizon.core.entries import Entry, Rejection
from horizon.engine.bee_engine import BeeEngine, Rebuild
from horizon.engine.stepping import run_pass
from horizon.hive.manifest import read_manifest
from horizon.hive.settings_files import effective_settings, load_global
from horizon.service.hive_service import HiveService
from tests.integration.test_one_seq_per_line import command

BEE = "mia"


def new_hive(tmp_path: Path) -> tuple[Path, Path]:
    """A hive whose journals rotate every 3 lines, and its config.json."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps({"hives": [str(hive)], "rotation_entries": 3}))
    return hive, config_path


def append_lines(live: Path, count: int, start: int) -> None:
    with live.open("ab") as journal:
        for n in range(start, start + count):
            journal.write(json.dumps({"ts": time.time(), "type": "task",
                                      "question": f"q{n}", "answer": "a"}).encode() + b"\n")


def refuse(*args: Any, **kwargs: Any) -> None:
    """`os.link` where hard links are refused."""
    raise OSError(errno.EPERM, "Operation not permitted", str(args[0]))


def test_a_failed_link_is_retried_under_the_same_number(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"

    def append(count: int, start: int) -> None:
        append_lines(live, count, start)

    monkeypatch.setattr(horizon.hive.rotation.os, "link", refuse)
    monkeypatch.setattr(horizon.engine.bee_engine, "ROTATE_RETRY_S", 0.0)
    service = HiveService(hive, config, str(config_path))
    try:
        append(4, 0)
        service.refresh_bees()
        service.process(BEE)
        assert live.exists(), "the journal stays where it is"
        assert not (hive / "window" / "archive" / f"{BEE}-messages.000001.jsonl").exists()
        append(1, 4)
        service.process(BEE)  # tried again, still refused: no second number is taken
        names = set(read_manifest(hive / "window", BEE).rotated)
        assert names == {f"{BEE}-messages.000001.jsonl"}

        monkeypatch.undo()
        monkeypatch.setattr(horizon.engine.bee_engine, "ROTATE_RETRY_S", 0.0)
        append(1, 5)
        service.process(BEE)
        assert (hive / "window" / "archive" / f"{BEE}-messages.000001.jsonl").exists()
        assert not (hive / "window" / "archive" / f"{BEE}-messages.000002.jsonl").exists()
        append(2, 6)
        service.process(BEE)
        engine = service.bees[BEE].engine
        assert engine is not None
        state = engine.state
    finally:
        service.close()

    seen: list[str] = []

    def keep(record: Entry | Rejection) -> None:
        assert isinstance(record, Entry)
        seen.append(record.question)

    effective = effective_settings(config, str(config_path), hive, BEE)
    rebuilt = run_pass(hive, BEE, config, effective, time.time(), None, on_record=keep)
    assert seen == [f"q{n}" for n in range(8)], "every line once, in order"
    assert rebuilt.state.zones == state.zones
    assert os.path.exists(live)


def test_while_linking_fails_readers_and_restarts_keep_the_daemons_seqs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon goes on reading a journal whose rotation could not link. A read-only
    reader, `phare`, and a daemon restarted once linking works again read that rotation
    as failed, not as one a crash stopped: the lines keep the seqs the daemon gave."""
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"

    def append(count: int, start: int) -> None:
        append_lines(live, count, start)

    def seqs_read_only() -> list[tuple[int, str]]:
        seen: list[tuple[int, str]] = []

        def keep(record: Entry | Rejection) -> None:
            seen.append((record.seq, record.question if isinstance(record, Entry) else "?"))

        effective = effective_settings(config, str(config_path), hive, BEE)
        BeeEngine(hive, BEE, config, effective, writes=False, on_record=keep).run(
            Rebuild(), time.time())
        return seen

    expected = [(n + 1, f"q{n}") for n in range(6)]
    with monkeypatch.context() as patched:
        patched.setattr(horizon.hive.rotation.os, "link", refuse)
        patched.setattr(horizon.engine.bee_engine, "ROTATE_RETRY_S", 1000.0)
        service = HiveService(hive, config, str(config_path))
        try:
            append(4, 0)
            service.refresh_bees()
            service.process(BEE)  # the rotation is recorded, its link refused
            append(2, 4)
            outcome = service.process(BEE)
            assert outcome is not None and outcome.state.checkpoint.seq == 6
            assert seqs_read_only() == expected
            code, _ = command("phare", str(hive), BEE, "6", "--config", str(config_path))
            assert code == 0, "#6 exists: the daemon gave it"
        finally:
            service.close()
    restarted = HiveService(hive, config, str(config_path))  # linking works again
    try:
        restarted.refresh_bees()
        again = restarted.process(BEE)
        assert again is not None
        assert (again.state.zones.accepted, again.state.zones.up_to) == (6, 6)
    finally:
        restarted.close()
    assert seqs_read_only() == expected


def test_a_journal_replaced_during_its_rotation_is_never_unlinked_unread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    newcomer = tmp_path / "newcomer.jsonl"
    append_lines(newcomer, 2, 100)
    real_link = os.link

    def replaced_first(source: Any, target: Any, **kwargs: Any) -> None:
        # Someone replaces the journal between the daemon's read and its link.
        os.replace(newcomer, live)
        real_link(source, target, **kwargs)

    service = HiveService(hive, config, str(config_path))
    try:
        append_lines(live, 3, 0)
        service.refresh_bees()
        with monkeypatch.context() as patched:
            patched.setattr(horizon.hive.rotation.os, "link", replaced_first)
            service.process(BEE)
        assert live.exists(), "the newcomer is still the live journal"
        assert not list((hive / "window" / "archive").glob("*-messages.*.jsonl"))
        kinds = [record["kind"] for record in map(json.loads, (
            hive / "window" / "archive" / f"{BEE}-segments.jsonl").read_text().splitlines())]
        assert kinds == ["rotated", "aborted"]
        outcome = service.process(BEE)
        assert outcome is not None
    finally:
        service.close()
    seen: list[str] = []

    def keep(record: Entry | Rejection) -> None:
        seen.append(record.question if isinstance(record, Entry) else "?")

    effective = effective_settings(config, str(config_path), hive, BEE)
    run_pass(hive, BEE, config, effective, time.time(), None, on_record=keep)
    assert seen[-2:] == ["q100", "q101"], "the newcomer's lines are read"
