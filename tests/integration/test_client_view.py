"""horizon.client.view: read-your-writes. The view it computes is the one the daemon writes
once it has read every line, whatever the daemon had derived; it says where the text came
from, replays when it must, writes nothing and takes no lock."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from horizon import client
from horizon.client import (
    BeeNotFound,
    ClientError,
    HiveNotFound,
    InvalidBee,
    InvalidSettings,
    UnknownBee,
    ViewUnavailable,
    view,
)
from horizon.core.entries import format_instant
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.engine.fresh import NEW_SETTINGS, NO_STATE, OTHER_FORMAT, fresh_view
from horizon.hive.store import read_handoff
from tests.e2e.daemon_harness import (
    HORIZON,
    Daemon,
    clean_env,
    wait_for,
    wait_for_up_to,
    write_config,
)
from tests.integration.test_incremental_files import BAD_LINES
from tests.unit.strategies import histories, horizon_settings

# These tests start their bees, as a runtime does its first turn: `create=True`. What an
# unknown bee does without it is tested on its own, with `client.append`.
append = functools.partial(client.append, create=True)
BEE = "mia"
GOOD_ENTRY = {"ts": 1_790_000_000, "type": "task", "question": "q", "answer": "a"}
NOW = 1_790_000_000.0  # a fixed now, before the wall clock: no `ts` is clamped


def new_hive(tmp: Path, toml: str = "[horizon]\nactif = true\n") -> Path:
    hive = tmp / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "horizon.toml").write_text(toml)
    return hive


def journal(hive: Path) -> Path:
    return hive / "window" / f"{BEE}-messages.jsonl"


def lines_of(draw: st.DrawFn) -> list[bytes]:
    lines = []
    for item in draw(histories(max_size=30)):
        record: dict[str, Any] = {
            "ts": format_instant(item.instant) if item.seq % 2 else item.instant,
            "type": item.type, "question": item.question, "answer": item.answer}
        if item.sender:
            record["from"] = item.sender
        if item.phare:
            record["phare"] = True
        lines.append(json.dumps(record).encode())
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(st.sampled_from(BAD_LINES)))
    return lines


@st.composite
def split_histories(draw: st.DrawFn) -> tuple[list[bytes], int, bytes]:
    """Lines, how many of them the daemon read before the others were written, and a
    torn last line (a write not finished) or nothing."""
    lines = lines_of(draw)
    read = draw(st.integers(0, len(lines)))
    torn = draw(st.sampled_from([b"", b'{"ts": 1790000000, "type": "t'])) if lines else b""
    return lines, read, torn


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(split_histories(), horizon_settings(actif=True) | horizon_settings(actif=False))
def test_the_view_is_what_the_daemon_writes_once_it_has_read_every_line(
        tmp_path_factory: pytest.TempPathFactory, history: tuple[list[bytes], int, bytes],
        horizon: HorizonSettings) -> None:
    lines, read, torn = history
    hive = new_hive(tmp_path_factory.mktemp("view"))
    effective = Effective(horizon, {}, "Porter la station météo", None)
    config = GlobalConfig(max_line_bytes=4096)
    path = journal(hive)
    path.write_bytes(b"".join(line + b"\n" for line in lines[:read]))
    daemon = BeeEngine(hive, BEE, config, effective)  # the daemon's own engine, writing
    if read:
        daemon.run(ReadNew(), NOW)
    with path.open("ab") as out:
        out.write(b"".join(line + b"\n" for line in lines[read:]) + torn)

    fresh = fresh_view(hive, BEE, config, effective, NOW)

    assert fresh.replayed == (None if read else NO_STATE)
    assert fresh.behind == sum(1 for line in lines[read:] if line.strip())
    assert fresh.source == ("disk" if fresh.view.text == read_handoff(hive, BEE)
                            else "computed")
    daemon.run(ReadNew(), NOW)  # the daemon catches up (the torn line is still unread)
    assert fresh.view.text == read_handoff(hive, BEE)
    assert fresh.up_to == sum(1 for line in lines if line.strip())
    # Caught up, the same call finds the text on disk.
    again = fresh_view(hive, BEE, config, effective, NOW)
    assert (again.source, again.behind, again.view.text) == ("disk", 0, fresh.view.text)


def test_view_reads_the_bees_settings_and_says_what_it_read(tmp_path: Path) -> None:
    hive = new_hive(tmp_path, "[horizon]\nactif = true\nbudget_net = 3000\n")
    config = write_config(tmp_path, hive)
    for number in range(1, 31):
        append(hive, BEE, {"ts": time.time(), "type": "task", "question": f"étape {number}",
                           "answer": "fait " * 40})

    first = view(hive, BEE, config=config)

    assert (first.up_to, first.behind, first.replayed, first.source) == (
        30, 30, NO_STATE, "computed")
    assert first.text.startswith(f"<!-- horizon format=1 bee={BEE} mode=horizon up_to=30 ")
    assert "étape 30" in first.text
    # What a command prints is the same text.
    printed = subprocess.run([HORIZON, "render", str(hive), BEE, "--fresh", "--config",
                              str(config)], capture_output=True, text=True, env=clean_env(),
                             check=False)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == view(hive, BEE, config=config).text


def test_a_state_of_another_format_or_older_settings_is_replayed_and_says_so(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    config = write_config(tmp_path, hive)
    for number in range(1, 6):
        append(hive, BEE, {"ts": time.time(), "type": "task", "question": f"q{number}",
                           "answer": "a"})
    daemon = Daemon(config, tmp_path / "logs").started()
    try:
        written = wait_for_up_to(hive, 5, BEE)
    finally:
        daemon.stop()
    assert view(hive, BEE, config=config).source == "disk"
    expected = view(hive, BEE, config=config).text
    state = hive / "horizon" / BEE / "state.json"
    saved = state.read_bytes()

    state.write_bytes(re.sub(rb'"format":\s*\d+', b'"format": 1', saved, count=1))
    older = view(hive, BEE, config=config)
    assert (older.replayed, older.text) == (OTHER_FORMAT, expected)
    assert older.behind == 5  # the whole history was read again

    state.write_bytes(saved)
    (hive / "horizon.toml").write_text("[horizon]\nactif = false\n")
    changed = view(hive, BEE, config=config)
    assert changed.replayed == NEW_SETTINGS and changed.source == "computed"
    assert written == expected


def test_refusals_are_client_errors_naming_what(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    append(hive, BEE, {"ts": time.time(), "type": "task", "question": "q", "answer": "a"})
    with pytest.raises(InvalidBee, match="not a bee name"):
        view(hive, "../mia")
    with pytest.raises(InvalidBee, match="case twin of the hive's bee 'mia'"):
        view(hive, "MIA")
    with pytest.raises(BeeNotFound, match="has no bee 'noe' \\(its bees: mia\\)"):
        view(hive, "noe")  # a typo, or a bee not started yet: never an empty view
    (hive / "bees").mkdir()
    (hive / "bees" / "noe.toml").write_text('mission = "Tenir le rucher"\n')
    newcomer = view(hive, "noe")  # known by its settings, no line yet: an empty history
    assert (newcomer.up_to, newcomer.source, newcomer.replayed) == (0, "computed", NO_STATE)
    assert newcomer.text.startswith("<!-- horizon format=1 bee=noe mode=horizon up_to=0 ")
    (hive / "bees" / "noe.toml").unlink()
    with pytest.raises(HiveNotFound, match="hive not found"):
        view(tmp_path / "nowhere", BEE)
    with pytest.raises(HiveNotFound):  # the same error from both calls
        client.append(tmp_path / "nowhere", BEE, GOOD_ENTRY)
    (tmp_path / "a-file").write_text("not a hive")
    for call in (lambda: view(tmp_path / "a-file", BEE),
                 lambda: client.append(tmp_path / "a-file", BEE, GOOD_ENTRY)):
        with pytest.raises(HiveNotFound):
            call()
    with pytest.raises(BeeNotFound, match="create=True"):
        client.append(hive, "noe", GOOD_ENTRY)
    assert not (hive / "window" / "noe-messages.jsonl").exists()
    assert issubclass(HiveNotFound, UnknownBee) and issubclass(BeeNotFound, UnknownBee)
    broken = tmp_path / "config.json"
    broken.write_text('{"horizon": {"budget_net": "lots"}')
    with pytest.raises(InvalidSettings, match=r"config\.json"):
        view(hive, BEE, config=broken)
    with pytest.raises(InvalidSettings, match="config file not found"):
        view(hive, BEE, config=tmp_path / "missing.json")
    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nbudget_net = -4\n")
    with pytest.raises(InvalidSettings, match=f"{BEE}.toml"):
        view(hive, BEE, config=write_config(tmp_path, hive))
    (hive / "bees" / f"{BEE}.toml").unlink()
    state = hive / "horizon" / BEE / "state.json"
    state.parent.mkdir(parents=True)
    state.write_text('{"format": 99999}')
    with pytest.raises(ViewUnavailable, match="newer than this horizon"):
        view(hive, BEE, config=write_config(tmp_path, hive))
    assert issubclass(ViewUnavailable, ClientError)


# --- nothing written, no lock ----------------------------------------------------------------

_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CHANGES = {"os.rename", "os.replace", "os.remove", "os.unlink", "os.rmdir", "os.mkdir",
            "os.chmod", "os.chown", "os.link", "os.symlink", "os.truncate", "os.utime",
            "fcntl.flock", "fcntl.lockf", "fcntl.fcntl"}
_watching: list[list[tuple[str, tuple[Any, ...]]]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _watching:
        return
    if event == "open":
        mode, flags = args[1], args[2]
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITING)
        if writes:
            _watching[-1].append((event, args))
    elif event in _CHANGES or (event == "sqlite3.connect" and "mode=ro" not in str(args)):
        _watching[-1].append((event, args))


sys.addaudithook(_audit)


@contextlib.contextmanager
def watched() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    seen: list[tuple[str, tuple[Any, ...]]] = []
    _watching.append(seen)
    try:
        yield seen
    finally:
        _watching.remove(seen)


def test_it_writes_nothing_and_takes_no_lock(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    config = write_config(tmp_path, hive)
    for number in range(1, 41):
        append(hive, BEE, {"ts": time.time(), "type": "tool", "tool": "bash",
                           "question": f"pytest tests/test_{number}.py", "answer": "1 failed",
                           "ok": False, "files": [f"tests/test_{number}.py"]})
    BeeEngine(hive, BEE, GlobalConfig(), Effective(HorizonSettings(actif=True), {}, None,
                                                  None)).run(ReadNew(), time.time())
    before = {path: path.stat().st_mtime_ns for path in hive.rglob("*")}
    for number in range(41, 61):
        append(hive, BEE, {"ts": time.time(), "type": "task", "question": f"q{number}",
                           "answer": "a"})
    before = {path: path.stat().st_mtime_ns for path in hive.rglob("*")}

    with watched() as seen:
        result = view(hive, BEE, config=config)
        view(tmp_path / "hive", BEE, config=config, now=time.time() + 7 * 86400)

    assert result.behind == 20 and result.source == "computed"
    assert seen == []
    assert {path: path.stat().st_mtime_ns for path in hive.rglob("*")} == before


def test_the_audit_hook_sees_a_write(tmp_path: Path) -> None:
    """The watcher above is no blind one: an append is seen."""
    hive = new_hive(tmp_path)
    with watched() as seen:
        append(hive, BEE, {"ts": time.time(), "type": "task", "question": "q", "answer": "a"})
    assert any(event == "open" for event, _ in seen)


# --- while the daemon rotates ----------------------------------------------------------------


def test_read_your_writes_while_a_daemon_rotates_the_journal(tmp_path: Path) -> None:
    """A runtime appends and reads its view at once, while the daemon rotates every few
    lines and another writer appends too: every view holds the line written just before
    it was asked for, under the seq the daemon gives that line (unless the daemon reads it
    late, as the manifest then records)."""
    hive = new_hive(tmp_path)
    config = write_config(tmp_path, hive, rotation_entries=7, rotate_wait_s=0.05,
                          horizon={"budget_net": 100_000, "age_net_heures": 1000})
    daemon = Daemon(config, tmp_path / "logs").started()
    stop = threading.Event()
    noise: list[int] = []

    def other_writer() -> None:  # in bursts: the daemon rotates once the journal is quiet
        while not stop.is_set():
            for _ in range(3):
                append(hive, BEE, {"ts": time.time(), "type": "task", "question": "noise",
                                   "answer": "n"})
                noise.append(1)
            stop.wait(0.05)

    given: dict[int, str] = {}  # seq: the question a view showed under it
    archive = hive / "window" / "archive"

    def rotations() -> int:
        return len(list(archive.glob(f"{BEE}-messages.*.jsonl"))) if archive.exists() else 0

    thread = threading.Thread(target=other_writer)
    thread.start()
    # At least 120 lines, and on until the daemon rotated three times meanwhile: a busy
    # machine gives the daemon fewer quiet windows, never a wrong view.
    deadline = time.monotonic() + 300
    number = 0
    try:
        while number < 120 or (rotations() < 3 and number < 200  # search's limit
                               and time.monotonic() < deadline):
            number += 1
            if number % 10 == 0:
                time.sleep(0.1)  # quiet enough for a rotation, now and then
            question = f"mine-{number:03d}"
            append(hive, BEE, {"ts": time.time(), "type": "task", "question": question,
                               "answer": "a"})
            seen = view(hive, BEE, config=config)
            found = re.search(rf"### #(\d+) [^\n]*\n[^\n]*\n> {question}\n", seen.text)
            assert found is not None, (question, seen.text[-1500:])
            given[int(found.group(1))] = question
            assert int(found.group(1)) <= seen.up_to
    finally:
        stop.set()
        thread.join()
    total = number + len(noise)
    try:
        wait_for_up_to(hive, total, BEE)
        assert rotations() >= 3

        def caught_up() -> Any:
            latest = view(hive, BEE, config=config)
            return latest if latest.source == "disk" else None

        assert wait_for(caught_up, "the daemon to catch up").up_to == total
    finally:
        daemon.stop()
    # Each line under the seq the daemon gave it, found by recall.
    found = json.loads(_recall(hive, config, "search", "mine", "--limit", "200"))
    daemon_seq = {re.search(r"mine-\d+", hit["excerpt"]).group(0): hit["seq"]  # type: ignore[union-attr]
                  for hit in found}
    late = _late_seqs(hive)
    for seq, question in given.items():
        # A line the daemon had not read when it moved the journal aside is read late,
        # under a seq after the end (the manifest records it): no reader could know it.
        assert daemon_seq[question] == seq or daemon_seq[question] in late, (
            question, seq, daemon_seq[question], sorted(late))
    assert sum(daemon_seq[question] == seq for seq, question in given.items()) >= 60


def _recall(hive: Path, config: Path, command: str, *args: str) -> str:
    done = subprocess.run([HORIZON, command, str(hive), BEE, *args, "--json", "--config",
                           str(config)], capture_output=True, text=True, env=clean_env(),
                          check=True)
    return done.stdout


def _late_seqs(hive: Path) -> set[int]:
    seqs: set[int] = set()
    manifest = hive / "window" / "archive" / f"{BEE}-segments.jsonl"
    for line in manifest.read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "late":
            seqs.update(range(record["first_seq"], record["last_seq"] + 1))
    return seqs


def test_a_rotation_between_the_snapshot_and_the_read_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon rotates the journal after the reading loaded the derived state and
    before it reads the tail: that reading is done again, and gives the daemon's view."""
    import horizon.engine.fresh as fresh_module

    hive = new_hive(tmp_path)
    config = GlobalConfig(rotation_entries=5)
    effective = Effective(HorizonSettings(actif=True), {}, None, None)
    for number in range(1, 5):
        append(hive, BEE, {"ts": NOW - 60, "type": "task", "question": f"q{number}",
                           "answer": "a"})
    daemon = BeeEngine(hive, BEE, config, effective)
    daemon.run(ReadNew(), NOW)
    for number in range(5, 9):
        append(hive, BEE, {"ts": NOW - 60, "type": "task", "question": f"q{number}",
                           "answer": "a"})
    readings = []
    original = fresh_module.load_state

    def rotated_meanwhile(*args: Any) -> Any:
        state = original(*args)  # the state as the reading found it
        if not readings:
            daemon.run(ReadNew(), NOW)  # reads 5..8 and moves the journal aside
            assert list((hive / "window" / "archive").glob(f"{BEE}-messages.*.jsonl"))
            for number in range(9, 11):
                append(hive, BEE, {"ts": NOW - 60, "type": "task",
                                   "question": f"q{number}", "answer": "a"})
        readings.append(1)
        return state

    monkeypatch.setattr(fresh_module, "load_state", rotated_meanwhile)
    fresh = fresh_view(hive, BEE, config, effective, NOW)

    assert len(readings) == 2
    daemon.run(ReadNew(), NOW)
    assert (fresh.up_to, fresh.view.text) == (10, read_handoff(hive, BEE))
