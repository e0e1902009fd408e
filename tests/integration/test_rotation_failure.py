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
from horizon.engine.stepping import PassRequest, run_pass
from horizon.hive.heartbeat import read_heartbeat
from horizon.hive.manifest import read_manifest
from horizon.hive.settings_files import effective_settings, load_global
from horizon.service.hive_service import HiveService
from horizon.service.metrics import Metrics
from tests.integration.test_one_seq_per_line import command, read_only_seqs

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


def first_pass_with(service: HiveService, live: Path, lines: int,
                    monkeypatch: pytest.MonkeyPatch, call: str, fake: Any) -> Any:
    """`lines` lines, then the bee's first pass with rotation's `os.<call>` replaced."""
    append_lines(live, lines, 0)
    service.refresh_bees()
    with monkeypatch.context() as patched:
        patched.setattr(horizon.hive.rotation.os, call, fake)
        return service.process(BEE)


def refuse(*args: Any, **kwargs: Any) -> None:
    """`os.link` where hard links are refused."""
    raise OSError(errno.EPERM, "Operation not permitted", str(args[0]))


def manifest_kinds(hive: Path) -> list[str]:
    path = hive / "window" / "archive" / f"{BEE}-segments.jsonl"
    if not path.exists():
        return []
    return [record["kind"] for record in map(json.loads, path.read_text().splitlines())]


def test_a_failed_link_is_closed_retried_without_records_and_degrades_the_bee(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link that fails after its intent (no hard links here) closes the intent with
    `aborted`; retries probe first and record nothing; the bee is degraded from the first
    failure to the rotation that succeeds, under the number it would have had."""
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    segment = hive / "window" / "archive" / f"{BEE}-messages.000001.jsonl"

    def append(count: int, start: int) -> None:
        append_lines(live, count, start)

    monkeypatch.setattr(horizon.hive.rotation.os, "link", refuse)
    monkeypatch.setattr(horizon.engine.bee_engine, "ROTATE_RETRY_S", 0.0)
    service = HiveService(hive, config, str(config_path), metrics=Metrics())
    try:
        append(4, 0)
        service.refresh_bees()
        service.process(BEE)
        assert live.exists(), "the journal stays where it is"
        assert not segment.exists()
        assert manifest_kinds(hive) == ["rotated", "aborted"]
        assert not read_manifest(hive / "window", BEE).segments(), "no segment claimed"
        reasons = service.health.reasons()
        assert any(f"{BEE}: rotation failed" in reason and "not permitted" in reason
                   for reason in reasons), reasons
        beat = read_heartbeat(hive)
        assert beat is not None and beat.bees[BEE].rotation_failed
        for n in range(4, 7):  # tried again and again, still failing: nothing recorded
            append(1, n)
            service.process(BEE)
        assert manifest_kinds(hive) == ["rotated", "aborted"]
        assert service.metrics is not None
        assert service.metrics.rotation_failures.labels(str(hive))._value.get() == 4

        monkeypatch.undo()
        monkeypatch.setattr(horizon.engine.bee_engine, "ROTATE_RETRY_S", 0.0)
        append(1, 7)
        service.process(BEE)
        assert segment.exists(), "the number the failed rotation had"
        assert not (hive / "window" / "archive" / f"{BEE}-messages.000002.jsonl").exists()
        assert not any("rotation" in reason for reason in service.health.reasons())
        append(2, 8)
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
    rebuilt = run_pass(PassRequest(hive, BEE, config, effective, time.time(), None, on_record=keep))
    assert seen == [f"q{n}" for n in range(10)], "every line once, in order"
    assert rebuilt.state.zones == state.zones
    assert os.path.exists(live)


def test_a_link_the_kernel_would_refuse_records_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked before the intent (fs.protected_hardlinks, a journal not the daemon's): no
    record, and the journal keeps growing where it is."""
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    monkeypatch.setattr(horizon.hive.rotation, "link_refusal",
                        lambda info, who, protected: "fs.protected_hardlinks: not ours")
    monkeypatch.setattr(horizon.engine.bee_engine, "ROTATE_RETRY_S", 0.0)
    service = HiveService(hive, config, str(config_path))
    try:
        append_lines(live, 4, 0)
        service.refresh_bees()
        service.process(BEE)
        append_lines(live, 1, 4)
        service.process(BEE)
        assert manifest_kinds(hive) == []
        assert any("protected_hardlinks" in reason for reason in service.health.reasons())
    finally:
        service.close()


def test_unclosed_intents_of_an_older_version_are_ignored_and_nothing_renumbered(
        tmp_path: Path) -> None:
    """An older daemon recorded an intent at each failed retry and never closed them.
    Those records claim nothing; the next rotation takes their number, and every line
    keeps one seq."""
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    append_lines(live, 4, 0)
    service = HiveService(hive, config, str(config_path))
    try:
        service.refresh_bees()
        with pytest.MonkeyPatch.context() as patched:  # the state of the older daemon
            patched.setattr(horizon.hive.rotation, "rotate", lambda *args, **kwargs: None)
            patched.setattr(horizon.engine.bee_engine, "rotate",
                            lambda *args, **kwargs: None)
            service.process(BEE)
    finally:
        service.close()
    ino = live.stat().st_ino
    size = live.stat().st_size
    name = f"{BEE}-messages.000001.jsonl"
    (hive / "window" / "archive").mkdir(exist_ok=True)
    with (hive / "window" / "archive").joinpath(f"{BEE}-segments.jsonl").open("a") as out:
        for offset, seq in ((size * 3 // 4, 3), (size, 4)):
            out.write(json.dumps({"kind": "rotated", "segment": name, "ino": ino,
                                  "offset": offset, "seq": seq}) + "\n")
    code, printed = command("status", str(hive), "--config", str(config_path), "--json")
    assert code == 1, "no daemon serves it"
    [report] = json.loads(printed)["hives"]
    assert (report["unrecorded"], report["problems"]) == ([], []), report
    append_lines(live, 2, 4)
    restarted = HiveService(hive, config, str(config_path))
    try:
        restarted.refresh_bees()
        outcome = restarted.process(BEE)
        assert outcome is not None
        assert (hive / "window" / "archive" / name).exists()
        assert not (hive / "window" / "archive" / f"{BEE}-messages.000002.jsonl").exists()
    finally:
        restarted.close()
    assert read_only_seqs(hive, config_path) == {n + 1: f"q{n}" for n in range(6)}


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
        first_pass_with(service, live, 3, monkeypatch, "link", replaced_first)
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
    run_pass(PassRequest(hive, BEE, config, effective, time.time(), None, on_record=keep))
    assert seen[-2:] == ["q100", "q101"], "the newcomer's lines are read"


def test_a_journal_removed_between_the_link_and_the_unlink_is_rotated_all_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone removes the live journal while its rotation's link is done and its unlink
    not yet: the archive's name is the only one left. The daemon's view is then the one a
    rebuild makes, every line still on disk (it used to stay on the live name it had)."""
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    real_unlink = os.unlink

    def removed_first(path: Any, *args: Any, **kwargs: Any) -> None:
        if str(path) == live.name:
            live.unlink()  # by hand, a moment earlier
        real_unlink(path, *args, **kwargs)

    service = HiveService(hive, config, str(config_path))
    try:
        outcome = first_pass_with(service, live, 4, monkeypatch, "unlink", removed_first)
        assert outcome is not None and outcome.rotate_failed is None
        assert (hive / "window" / "archive" / f"{BEE}-messages.000001.jsonl").exists()
        assert manifest_kinds(hive) == ["rotated"]
        append_lines(live, 2, 4)  # the runtime makes a new live journal
        outcome = service.process(BEE)
        assert outcome is not None
        state = outcome.state
    finally:
        service.close()
    effective = effective_settings(config, str(config_path), hive, BEE)
    rebuilt = run_pass(PassRequest(hive, BEE, config, effective, time.time(), None))
    assert rebuilt.state.zones == state.zones
    assert read_only_seqs(hive, config_path) == {n + 1: f"q{n}" for n in range(6)}


def test_a_journal_removed_before_its_rotation_links_it_leaves_the_view_a_rebuild_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone removes the live journal after the rotation's intent and before its link:
    its lines are on no disk any more. The daemon notices, says so, and takes the view a
    rebuild makes from what is left; the lines written afterwards keep the seqs a rebuild
    gives them."""
    hive, config_path = new_hive(tmp_path)
    config = load_global(config_path)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    real_link = os.link

    def removed_first(source: Any, target: Any, **kwargs: Any) -> None:
        live.unlink()  # by hand, a moment earlier
        real_link(source, target, **kwargs)

    service = HiveService(hive, config, str(config_path))
    try:
        first_pass_with(service, live, 4, monkeypatch, "link", removed_first)
        assert not live.exists()
        assert not list((hive / "window" / "archive").glob("*-messages.*.jsonl"))
        append_lines(live, 2, 4)  # the runtime makes a new live journal
        outcome = service.process(BEE)
        assert outcome is not None
        state = outcome.state
    finally:
        service.close()
    effective = effective_settings(config, str(config_path), hive, BEE)
    rebuilt = run_pass(PassRequest(hive, BEE, config, effective, time.time(), None))
    assert rebuilt.state.zones == state.zones
    assert rebuilt.state.checkpoint.seq == state.checkpoint.seq
