"""A real `horizon run` process on real files.

Each test starts the installed daemon on a hive in tmp_path with fast timings, acts as an
agent runtime or an operator would (append lines, edit settings, send signals, break the
disk), and checks what they can observe: derived files, the JSON log, the heartbeat, the
other commands, the sd_notify datagrams.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from horizon import __version__
from tests.e2e.daemon_harness import (
    BEE,
    HORIZON,
    NotifyListener,
    Start,
    append,
    clean_env,
    derived,
    entry,
    event_time,
    handoff,
    header_up_to,
    horizon,
    journal_path,
    make_hive,
    state,
    wait_for,
    wait_for_up_to,
    write_config,
)


def status(config: Path, hive: Path) -> tuple[int, dict[str, Any]]:
    """`horizon status HIVE --json`: its exit code and the hive's report."""
    result = horizon(config, "status", hive, "--json")
    assert result.returncode in {0, 3}, result.stderr
    [report] = json.loads(result.stdout)["hives"]
    return result.returncode, report


def wait_status(config: Path, hive: Path, code: int, what: str) -> dict[str, Any]:
    """The hive's report once `horizon status` exits with `code`."""

    def report() -> dict[str, Any] | None:
        result = status(config, hive)
        return result[1] if result[0] == code else None

    return wait_for(report, f"horizon status exit {code} ({what})")


def bee_report(report: dict[str, Any], bee: str = BEE) -> dict[str, Any]:
    return next(item for item in report["bees"] if item["bee"] == bee)


def heartbeat(hive: Path) -> dict[str, Any] | None:
    beat: dict[str, Any] | None = None
    with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
        beat = json.loads((hive / "horizon" / "daemon.json").read_text(encoding="utf-8"))
    return beat


def write_atomically(path: Path, text: str) -> None:
    """How an editor saves: a whole new file renamed over the old one."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)


def headings(text: str) -> list[int]:
    """The seqs of the entries shown in a horizon view, in order."""
    return [int(line.split(" ")[1][1:]) for line in text.split("\n")
            if line.startswith("### #")]


# --- ingestion and the view ---------------------------------------------------------------


def test_appended_lines_reach_handoff_md_and_status(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("première question")])
    config = write_config(tmp_path, hive)
    daemon = start(config)
    # Before READY every bee is brought up to date.
    assert header_up_to(handoff(hive)) == 1

    append(hive, entry("deuxième question", "réponse deux"))
    append(hive, entry("troisième question", "réponse trois"))
    text = wait_for_up_to(hive, 3)
    assert text.startswith(f"<!-- horizon format=1 bee={BEE} mode=horizon up_to=3 ")
    assert headings(text) == [1, 2, 3]
    assert "> troisième question" in text
    assert "> réponse trois" in text

    beat = wait_for(lambda: heartbeat(hive), "horizon/daemon.json")
    assert beat["pid"] == daemon.pid
    assert beat["version"] == __version__

    code, report = status(config, hive)
    assert code == 0
    assert report["degraded"] is False
    daemon_report = report["daemon"]
    assert daemon_report["running"] is True
    assert daemon_report["pid"] == daemon.pid
    assert daemon_report["version"] == __version__
    assert daemon_report["watch"] == "inotify"
    assert daemon_report["started"] == beat["started"]
    assert 0 <= daemon_report["beat_age_s"] < 30
    assert "stale" not in daemon_report
    bee = bee_report(report)
    assert (bee["entries"], bee["rejected"], bee["up_to"]) == (3, 0, 3)
    assert bee["write_failed"] is False
    assert bee["lag_bytes"] == 0
    assert bee["mode"] == "horizon"


def test_a_burst_of_writes_is_coalesced(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path)
    daemon = start(write_config(tmp_path, hive))
    before = len(daemon.events("handoff.written", BEE))

    for n in range(1, 201):
        append(hive, entry(f"rafale {n}"))
    text = wait_for_up_to(hive, 200)

    assert header_up_to(text) == 200
    assert headings(text)[-1] == 200
    # The event is logged after the file is in place: wait for it, then for any pass
    # still to come (it would show here).
    wait_for(lambda: [e for e in daemon.events("handoff.written", BEE)[before:]
                      if e["up_to"] == 200] or None, "handoff.written up to 200")
    time.sleep(1.0)
    written = daemon.events("handoff.written", BEE)[before:]
    assert 1 <= len(written) <= 20, [event["up_to"] for event in written]
    assert written[-1]["up_to"] == 200
    assert header_up_to(handoff(hive)) == 200
    assert sum(event["lines"] for event in daemon.events("handoff.written", BEE)) == 200


def test_continuous_writes_are_processed_while_they_go_on(tmp_path: Path,
                                                          start: Start) -> None:
    """The debounce alone would wait for the writes to stop: max_wait_s makes passes while
    they go on. How far apart is the scheduler's arithmetic, tested with a given clock
    (test_hive_service): a loaded machine stretches any gap measured here."""
    max_wait = 1.0
    hive = make_hive(tmp_path)
    daemon = start(write_config(tmp_path, hive,
                                horizon={"debounce_s": 0.3, "max_wait_s": max_wait}))
    before = len(daemon.events("handoff.written", BEE))

    began = time.time()
    written_lines = 0
    # A line every 0.05 s: the debounce alone would never fire while this lasts.
    while time.time() - began < 4.0:
        written_lines += 1
        append(hive, entry(f"continu {written_lines}"))
        time.sleep(0.05)
    ended = time.time()
    wait_for_up_to(hive, written_lines)

    written = daemon.events("handoff.written", BEE)[before:]
    during = [event_time(event) for event in written if event_time(event) <= ended]
    assert len(during) >= 2, f"only {len(during)} passes while writing for {ended - began:.1f} s"


# --- settings, hot reloaded ---------------------------------------------------------------


def long_entries(count: int) -> list[str]:
    return [entry(f"Étape {n}", f"Fait l'étape {n}. " + "détail " * 110)
            for n in range(1, count + 1)]


def test_settings_are_hot_reloaded_bad_ones_refused_and_sighup_reloads(
        tmp_path: Path, start: Start) -> None:
    bee_file = tmp_path / "hive" / "bees" / f"{BEE}.toml"
    hive = make_hive(tmp_path, long_entries(10),
                     bee_toml="[horizon]\nactif = true\nbudget_net = 12000\n")
    config = write_config(tmp_path, hive)
    daemon = start(config)
    wide = wait_for_up_to(hive, 10)
    assert headings(wide) == list(range(1, 11))  # everything fits the net zone
    assert bee_report(status(config, hive)[1])["zones"]["net"]["budget"] == 12000

    # A smaller budget takes effect without a restart.
    reloads = len(daemon.events("config.reloaded"))
    write_atomically(bee_file, "[horizon]\nactif = true\nbudget_net = 2000\n")
    daemon.wait_event("config.reloaded", after=reloads)
    daemon.wait_event("handoff.written", bee=BEE, where=lambda event: event["cap"] == 11000)
    narrow = handoff(hive)
    assert narrow is not None
    assert len(narrow) < len(wide)
    assert header_up_to(narrow) == 10
    assert bee_report(status(config, hive)[1])["zones"]["net"]["budget"] == 2000

    # A half-written file is refused, naming the file and the reason; the last good
    # settings stay.
    rejected = len(daemon.events("config.rejected"))
    reloads = len(daemon.events("config.reloaded"))
    bee_file.write_text("[horizon]\nactif = true\nbudget_net = ", encoding="utf-8")
    refusal = daemon.wait_event("config.rejected", after=rejected)
    assert refusal["file"] == str(bee_file)
    assert refusal["key"]
    assert refusal["reason"]
    daemon.wait_event("config.reloaded", after=reloads)
    assert handoff(hive) == narrow

    # An out-of-range value is refused naming its key.
    rejected = len(daemon.events("config.rejected"))
    bee_file.write_text("[horizon]\nactif = true\nbudget_net = 0\n", encoding="utf-8")
    refusal = daemon.wait_event("config.rejected", after=rejected)
    assert refusal["file"] == str(bee_file)
    assert refusal["key"] == "horizon.budget_net"
    assert refusal["reason"]
    assert handoff(hive) == narrow

    # The daemon keeps serving the bee with budget_net = 2000.
    append(hive, entry("Étape 11", "fait"))
    event = daemon.wait_written(11)
    assert (event["up_to"], event["cap"]) == (11, 11000)
    daemon.assert_alive()

    # Fixed again, then SIGHUP reloads with no file change at all.
    write_atomically(bee_file, "[horizon]\nactif = true\nbudget_net = 3000\n")
    daemon.wait_event("handoff.written", bee=BEE, where=lambda event: event["cap"] == 12000)
    time.sleep(1.0)  # let the reload the edit asked for settle
    reloads = len(daemon.events("config.reloaded"))
    daemon.signal(signal.SIGHUP)
    reloaded = daemon.wait_event("config.reloaded", after=reloads)
    assert reloaded["bees_recomputed"] == 0
    daemon.assert_alive()


# --- systemd notifications ----------------------------------------------------------------


def test_sd_notify_ready_status_watchdog_reloading_stopping(
        tmp_path: Path, start: Start, notify_socket: NotifyListener) -> None:
    hive = make_hive(tmp_path, [entry("q")])
    env = clean_env(NOTIFY_SOCKET=str(notify_socket.path), WATCHDOG_USEC="400000")
    daemon = start(write_config(tmp_path, hive), env)

    ready = notify_socket.wait("READY=1")
    assert ready == 0, notify_socket.datagrams  # nothing before READY
    notify_socket.wait("STATUS=")
    status_line = next(item for item in notify_socket.datagrams[ready]
                       if item.startswith("STATUS="))
    assert "1 bee" in status_line and "1 bees" not in status_line
    # Every 0.1 s (a quarter of WATCHDOG_USEC) from the working loop: several in a second.
    wait_for(lambda: sum(d == ["WATCHDOG=1"] for d in notify_socket.datagrams) >= 3,
             "three WATCHDOG=1")
    assert notify_socket.wait("WATCHDOG=1") > ready

    daemon.signal(signal.SIGHUP)
    reloading = notify_socket.wait("RELOADING=1", after=ready + 1)
    datagram = notify_socket.datagrams[reloading]
    [usec] = [item.removeprefix("MONOTONIC_USEC=") for item in datagram
              if item.startswith("MONOTONIC_USEC=")]
    # CLOCK_MONOTONIC is the machine's, shared with this test.
    assert abs(int(usec) - time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000) < 60_000_000
    notify_socket.wait("READY=1", after=reloading + 1)

    assert daemon.stop() == 0
    stopping = notify_socket.wait("STOPPING=1")
    assert stopping == len(notify_socket.datagrams) - 1, notify_socket.datagrams[stopping:]
    assert stopping > reloading


# --- stopping -----------------------------------------------------------------------------


def test_sigterm_exits_0_with_a_final_checkpoint(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("un")])
    daemon = start(write_config(tmp_path, hive))
    for n in range(2, 6):
        append(hive, entry(f"ligne {n}"))
    wait_for_up_to(hive, 5)

    daemon.signal(signal.SIGTERM)
    assert daemon.process.wait(20) == 0
    assert daemon.events("daemon.stopping")
    saved = state(hive)
    assert saved is not None
    assert saved["checkpoint"]["segment"] == journal_path(hive).name
    assert saved["checkpoint"]["offset"] == journal_path(hive).stat().st_size
    assert saved["checkpoint"]["seq"] == 5
    assert "Traceback" not in daemon.read_output()


def test_sigterm_checkpoints_the_lines_in_hand(tmp_path: Path, start: Start) -> None:
    """Lines the daemon was told about but had not processed yet (a long debounce) are
    read and checkpointed before it exits (SIGTERM finishes the batch in
    hand, checkpoints, exits 0)."""
    hive = make_hive(tmp_path, [entry("un")])
    daemon = start(write_config(tmp_path, hive,
                                horizon={"debounce_s": 30, "max_wait_s": 60}))
    for n in range(2, 5):
        append(hive, entry(f"ligne {n}"))
    time.sleep(1.0)  # events and a few stat polls have told the daemon
    assert header_up_to(handoff(hive)) == 1

    daemon.signal(signal.SIGTERM)
    assert daemon.process.wait(20) == 0
    assert daemon.events("daemon.stopping")
    saved = state(hive)
    assert saved is not None
    assert saved["checkpoint"]["offset"] == journal_path(hive).stat().st_size
    assert saved["checkpoint"]["seq"] == 4
    assert header_up_to(handoff(hive)) == 4


# --- one daemon per hive ------------------------------------------------------------------


def test_one_daemon_per_hive(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("un")])
    config = write_config(tmp_path, hive)
    daemon = start(config)

    second = subprocess.run([HORIZON, "run", "--config", str(config)], capture_output=True,
                            text=True, env=clean_env(), timeout=60, check=False)
    assert second.returncode == 1, second.stderr
    assert f"pid {daemon.pid}" in second.stderr
    assert "Traceback" not in second.stderr
    daemon.assert_alive()
    assert (hive / ".horizon.lock").read_text().strip() == str(daemon.pid)

    rebuild = horizon(config, "rebuild", hive)
    assert rebuild.returncode == 1, rebuild.stderr
    assert f"pid {daemon.pid}" in rebuild.stderr
    assert "Traceback" not in rebuild.stderr
    daemon.assert_alive()


# --- a write that fails for real ----------------------------------------------------------


def _blocks_writes(folder: Path) -> bool:
    try:
        fd, temp = tempfile.mkstemp(dir=folder)
    except OSError:
        return True
    os.close(fd)
    os.unlink(temp)
    return False


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[str]:
    """Make `folder` refuse writes even to root: a read-only bind mount of itself, else
    the immutable attribute; skip when this machine allows neither. Yields the means."""
    folder_arg = str(folder)

    def quiet(*command: str) -> bool:
        return subprocess.run(command, capture_output=True, check=False).returncode == 0

    undo: tuple[str, ...] | None = None
    means = ""
    if shutil.which("mount") and quiet("mount", "--bind", folder_arg, folder_arg):
        if quiet("mount", "-o", "remount,bind,ro", folder_arg) and _blocks_writes(folder):
            undo, means = ("umount", folder_arg), "read-only bind mount"
        else:
            quiet("umount", folder_arg)
    if undo is None and shutil.which("chattr") and quiet("chattr", "+i", folder_arg):
        if _blocks_writes(folder):
            undo, means = ("chattr", "-i", folder_arg), "chattr +i"
        else:
            quiet("chattr", "-i", folder_arg)
    if undo is None:
        pytest.skip("cannot make a folder read-only for this user: no permitted "
                    "`mount -o remount,bind,ro` nor `chattr +i` here")
    restored = False
    try:
        yield means
        restored = quiet(*undo)
        assert restored, f"could not undo the {means} of {folder}"
    finally:
        if not restored:
            quiet(*undo)


def test_a_failed_write_keeps_the_view_degrades_status_and_recovers(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("un"), entry("deux")])
    config = write_config(tmp_path, hive)
    daemon = start(config)
    kept = wait_for_up_to(hive, 2)
    kept_state = state(hive)
    assert kept_state is not None

    appended = 12
    with read_only(derived(hive)):
        for n in range(3, 3 + appended):
            append(hive, entry(f"pendant la panne {n}"))
            time.sleep(0.2)
        first = daemon.wait_event("store.write_failed", bee=BEE)
        assert str(derived(hive)) in first["reason"]
        # The heartbeat carries it: within a beat (10 s).
        report = wait_status(config, hive, 3, "degraded")
        assert report["degraded"] is True
        assert bee_report(report)["write_failed"] is True
        beat = heartbeat(hive)
        assert beat is not None
        assert beat["bees"][BEE]["write_failed"] is True

        # Logged once per back-off (1 s, then doubling), not once per line.
        failures = daemon.events("store.write_failed", BEE)
        elapsed = time.time() - event_time(failures[0])
        assert len(failures) <= 1 + math.floor(math.log2(1 + elapsed)), (len(failures), elapsed)
        assert len(failures) < appended
        # The previous view and checkpoint are intact, no temp file is left behind.
        assert handoff(hive) == kept
        assert state(hive) == kept_state
        assert sorted(path.name for path in derived(hive).iterdir()) == [
            "handoff.md", "state.json"]
        daemon.assert_alive()

    last = 2 + appended
    daemon.wait_event("store.recovered", bee=BEE)
    text = wait_for_up_to(hive, last)
    assert f"> pendant la panne {last}" in text
    report = wait_status(config, hive, 0, "recovered")
    assert bee_report(report)["write_failed"] is False
    assert bee_report(report)["up_to"] == last


# --- rotation -----------------------------------------------------------------------------


def segment_lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def test_the_daemon_rotates_and_a_rebuild_agrees(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path)
    config = write_config(tmp_path, hive, rotation_entries=5)
    daemon = start(config)

    lines = [entry(f"rotation {n}") for n in range(1, 24)]
    for line in lines:
        append(hive, line)
        time.sleep(0.08)
    wait_for_up_to(hive, 23)
    wait_for(lambda: (saved := state(hive)) and saved["checkpoint"]["seq"] == 23,
             "state.json at #23")

    archive = hive / "window" / "archive"
    segments = sorted(archive.glob(f"{BEE}-messages.*.jsonl"))
    names = [path.name for path in segments]
    assert len(names) >= 2, names
    assert names == [f"{BEE}-messages.{n:06d}.jsonl" for n in range(1, len(names) + 1)]
    assert all(len(segment_lines(path)) >= 5 for path in segments)
    rotated = daemon.events("archive.rotated", BEE)
    assert sorted(event["segment"] for event in rotated) == names
    # Every line written is in exactly one file, in the order written.
    live = journal_path(hive)
    union = [line for path in segments for line in segment_lines(path)]
    union += segment_lines(live) if live.exists() else []
    assert union == lines
    assert (archive / f"{BEE}-segments.jsonl").exists()

    assert daemon.stop() == 0
    by_daemon = state(hive)
    assert by_daemon is not None
    result = horizon(config, "rebuild", hive)
    assert result.returncode == 0, result.stderr
    rebuilt = state(hive)
    assert rebuilt is not None
    assert rebuilt["checkpoint"]["seq"] == by_daemon["checkpoint"]["seq"] == 23
    assert rebuilt["zones"] == by_daemon["zones"]


# --- a deleted horizon/ -------------------------------------------------------------------


def _unless_gone(function: object, path: str, error: tuple[object, BaseException, object]
                 ) -> None:
    if not isinstance(error[1], FileNotFoundError):
        raise error[1]


def test_a_deleted_horizon_folder_is_recreated(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("un"), entry("deux"), entry("trois")])
    daemon = start(write_config(tmp_path, hive))
    view = wait_for_up_to(hive, 3)
    wait_for(lambda: heartbeat(hive), "horizon/daemon.json")

    # As `rm -rf` does: a temporary file the daemon renames meanwhile is simply gone.
    shutil.rmtree(hive / "horizon", onerror=_unless_gone)
    # The daemon beats every 10 s: allow three beats.
    rebuilt = wait_for_up_to(hive, 3, timeout=35)
    assert rebuilt == view
    assert daemon.events("derived.recreated")
    saved = wait_for(lambda: state(hive), "state.json")
    assert saved["checkpoint"]["seq"] == 3
    beat = wait_for(lambda: heartbeat(hive), "horizon/daemon.json recreated")
    assert beat["pid"] == daemon.pid
    daemon.assert_alive()

    append(hive, entry("quatre"))
    assert headings(wait_for_up_to(hive, 4)) == [1, 2, 3, 4]


def test_a_deleted_horizon_folder_made_again_by_a_busy_bee_still_rebuilds_the_quiet_ones(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("calme")], bee="quiet")
    append(hive, entry("un"), "busy")
    daemon = start(write_config(tmp_path, hive))
    wait_for_up_to(hive, 1, bee="quiet")
    wait_for(lambda: heartbeat(hive), "horizon/daemon.json")
    writing = threading.Event()

    def keep_writing() -> None:  # its passes make horizon/ again before the next beat
        while not writing.wait(0.05):
            append(hive, entry("encore"), "busy")

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        shutil.rmtree(hive / "horizon", onerror=_unless_gone)
        wait_for(lambda: handoff(hive, "busy"), "busy's view, made again by its passes")
        # The daemon beats every 10 s: allow three beats.
        wait_for(lambda: handoff(hive, "quiet"), "quiet's view, rebuilt", timeout=35)
    finally:
        writing.set()
        writer.join()
    assert wait_for_up_to(hive, 1, bee="quiet")
    assert wait_for(lambda: state(hive, "quiet"), "quiet's state.json")
    shutil.rmtree(hive / "horizon" / "quiet")  # one bee's folder alone
    wait_for(lambda: handoff(hive, "quiet"), "quiet's view, rebuilt again", timeout=35)
    # Told once a beat, with how many bees lost their files (busy's own write may have
    # been first the first time).
    told = [event["bees"] for event in daemon.events("derived.recreated")]
    assert len(told) == 2 and told[0] in {1, 2} and told[1] == 1, told


def test_a_long_catch_up_extends_the_start_timeout_before_ready(
        tmp_path: Path, start: Start, notify_socket: NotifyListener) -> None:
    hive = make_hive(tmp_path)
    # About 8 MB: more than one slice (4 MiB) however fast the machine reads.
    with journal_path(hive).open("w", encoding="utf-8") as journal:
        for number in range(20_000):
            journal.write(entry(f"q{number}", "r" * 300) + "\n")
    env = clean_env(NOTIFY_SOCKET=str(notify_socket.path))
    start(write_config(tmp_path, hive), env)
    ready = notify_socket.wait("READY=1")
    extend = notify_socket.index("EXTEND_TIMEOUT_USEC=")
    assert extend is not None and extend < ready, notify_socket.datagrams[:ready + 1]
    assert wait_for_up_to(hive, 20_000)

