"""What an operator leans on: a status to page on, paths that mean the same from any
folder, settings that say when they cannot work, and logs that say each thing once.

Real daemons on real hives; every wait polls with a generous deadline.
"""

from __future__ import annotations

import fcntl
import json
import signal
import subprocess
from pathlib import Path
from typing import Any

from horizon.hive.lock import holder
from tests.e2e.daemon_harness import (
    BEE,
    HORIZON,
    Daemon,
    Start,
    append,
    clean_env,
    entry,
    horizon,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)

OTHER = "noe"


def status(config: Path, *args: str | Path) -> tuple[int, dict[str, Any]]:
    result = horizon(config, "status", *args, "--json")
    return result.returncode, json.loads(result.stdout)


def healthy_within_deadline(config: Path) -> dict[str, Any]:
    """The status report once it exits 0 (a first heartbeat may take a beat)."""
    def healthy() -> dict[str, Any] | None:
        code, report = status(config)
        return report if code == 0 else None

    return wait_for(healthy, "status exit 0")


# -- status as a health check -----------------------------------------------------------------


def test_status_exits_1_with_no_hive_and_with_no_daemon(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    nothing = write_config(tmp_path, hive, hives=[])
    result = horizon(nothing, "status")
    assert result.returncode == 1
    assert "no hive" in result.stderr and "Traceback" not in result.stderr

    config = write_config(tmp_path, hive)
    code, report = status(config)
    assert code == 1, "no daemon serves the hive"
    assert report["hives"][0]["daemon"]["running"] is False
    assert f"{hive}: no daemon serves it" in horizon(config, "status").stderr


def test_a_missing_hive_is_reported_and_taken_up_when_it_appears(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    later = tmp_path / "later" / "hive"
    config = write_config(tmp_path, hive, hives=[str(hive), str(later)])
    daemon = start(config)
    daemon.wait_event("hive.missing")
    wait_for_up_to(hive, 1)

    code, report = status(config)
    assert code == 1, "the worst hive wins: a missing one is a problem"
    by_hive = {entry["hive"]: entry for entry in report["hives"]}
    assert by_hive[str(later)]["error"] == "hive not found"
    assert by_hive[str(hive)]["exit"] == 0

    make_hive(later.parent, [entry("arrivée")])  # mounted at last: no restart, no SIGHUP
    daemon.wait_event("hive.appeared")
    assert status(config, later)[0] == 0, "served, and its heartbeat says so at once"
    wait_for_up_to(later, 1)
    assert len(daemon.events("hive.missing")) == 1, "reported once, not at every poll"


def test_a_hive_that_appears_locked_is_taken_up_once_free(tmp_path: Path,
                                                          start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    later = tmp_path / "later" / "hive"
    daemon = start(write_config(tmp_path, hive, hives=[str(hive), str(later)]))
    daemon.wait_event("hive.missing")
    make_hive(later.parent, [entry("arrivée")])
    with (later / ".horizon.lock").open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # a rebuild or phare at that very moment
        daemon.wait_event("daemon.locked")
    daemon.wait_event("hive.appeared")
    wait_for_up_to(later, 1)
    assert len(daemon.events("daemon.locked")) == 1


def test_a_hive_whose_lock_cannot_be_opened_is_reported_not_a_traceback(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    odd = make_hive(tmp_path / "odd", [entry("one")])
    (odd / ".horizon.lock").symlink_to(tmp_path / "elsewhere")
    daemon = start(write_config(tmp_path, hive, hives=[str(hive), str(odd)]))
    unusable = daemon.wait_event("hive.unusable")
    assert unusable["hive"] == str(odd) and ".horizon.lock" in unusable["reason"]
    wait_for_up_to(hive, 1)
    assert "Traceback" not in daemon.read_output()
    assert not (tmp_path / "elsewhere").exists()


def test_an_empty_new_hive_is_healthy(tmp_path: Path, start: Start) -> None:
    hive = tmp_path / "hive"
    hive.mkdir()
    config = write_config(tmp_path, hive)
    start(config)
    report = healthy_within_deadline(config)
    assert report["hives"][0]["daemon"]["running"] is True
    assert (hive / "horizon" / "daemon.json").is_file()


def test_a_rejected_settings_file_degrades_status_which_shows_the_last_good(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one"), "[1]"], bee_toml="[horizon]\nactif = true\n")
    config = write_config(tmp_path, hive)
    daemon = start(config)
    wait_for_up_to(hive, 2)
    healthy_within_deadline(config)

    (hive / "horizon.toml").write_text("[horizon]\nbudget_net = 'lots'\n")
    daemon.wait_event("config.rejected")
    code, report = status(config)
    assert code == 3
    [bee] = report["hives"][0]["bees"]
    assert str(hive / "horizon.toml") in bee["settings_error"]
    assert bee["settings_in_use"] == "last good"
    assert bee["settings"]["actif"] is True and bee["settings"]["budget_net"] == 12000
    assert bee["zones"]["net"]["budget"] == 12000, "the budgets the daemon still serves"
    assert bee["rejections"] == {"not_object": 1}
    text = horizon(config, "status")
    assert "settings rejected" in text.stdout and "horizon.toml" in text.stdout

    (hive / "horizon.toml").unlink()
    healthy_within_deadline(config)


# -- derived views while settings are broken ---------------------------------------------------


def test_derived_view_commands_work_while_settings_are_broken(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("one"), entry("two")],
                     bee_toml="[horizon]\nactif = true\n")
    config = write_config(tmp_path, hive)
    assert horizon(config, "rebuild", hive).returncode == 0
    expected = horizon(config, "render", hive, BEE).stdout

    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nactif = 'yes'\n")
    shown = horizon(config, "render", hive, BEE)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == expected, "the view made with the last good settings"
    assert f"{BEE}.toml" in shown.stderr
    as_json = horizon(config, "render", hive, BEE, "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["up_to"] == 2
    fresh = horizon(config, "render", hive, BEE, "--fresh")
    assert fresh.returncode == 1 and f"{BEE}.toml" in fresh.stderr

    config.write_text("{ not json")
    shown = horizon(config, "render", hive, BEE)
    assert shown.returncode == 0 and shown.stdout == expected
    assert str(config) in shown.stderr
    result = horizon(config, "status", hive)
    assert result.returncode == 1 and str(config) in result.stderr, "no daemon, and named"


# -- paths beside config.json ------------------------------------------------------------------


def test_relative_paths_mean_beside_config_json_from_any_folder(tmp_path: Path) -> None:
    home = tmp_path / "etc"
    make_hive(home, [entry("one")])
    config = home / "config.json"
    config.write_text(json.dumps({"hives": ["hive"], "log": {"dir": "logs"},
                                  "poll_s": 0.2, "horizon": {"debounce_s": 0.1}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    checked = subprocess.run([HORIZON, "check", "--config", str(config)], cwd=elsewhere,
                             capture_output=True, text=True, env=clean_env(), check=False)
    assert checked.returncode == 0, checked.stderr

    daemon = Daemon(config, home / "logs", cwd=elsewhere)
    try:
        daemon.started()
        wait_for_up_to(home / "hive", 1)
        assert (home / "logs" / "horizon.jsonl").is_file()
        assert sorted(p.name for p in elsewhere.iterdir()) == [], "nothing where it ran"
    finally:
        daemon.stop()


def test_run_without_a_hive_or_a_writable_log_folder_exits_1(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    cases = {"no hive": ({"hives": []}, "no hive configured"),
             "log.dir": ({"log": {"dir": str(a_file / "logs")}}, "log file")}
    for name, (settings, said) in cases.items():
        config = write_config(tmp_path, hive, **settings)
        result = subprocess.run([HORIZON, "run", "--config", str(config)], capture_output=True,
                                text=True, env=clean_env(), timeout=60, check=False)
        assert result.returncode == 1, name
        assert said in result.stderr, (name, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, (name, result.stderr)


# -- settings that say when they cannot work -------------------------------------------------


def test_an_unusable_summarizer_is_reported_by_check_config_the_daemon_and_status(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")],
                     bee_toml='[horizon]\nactif = true\nresumeur = "ollama/qwen3"\n')
    make_hive(tmp_path, [entry("one")], bee=OTHER,
              bee_toml='[horizon]\nresumeur = "ollama/qwen3"\n')
    config = write_config(tmp_path, hive)

    checked = horizon(config, "check")
    assert checked.returncode == 1
    [line] = [line for line in checked.stderr.splitlines() if f"{BEE}.toml" in line]
    assert f"(bee {BEE})" in line and "no provider 'ollama'" in line
    shown = horizon(config, "config", hive, BEE)
    assert shown.returncode == 0 and "ollama/qwen3" in shown.stderr

    daemon = start(config)
    wait_for_up_to(hive, 1)
    wait_for_up_to(hive, 1, bee=OTHER)
    [logged] = daemon.events("summarizer.unavailable")
    assert logged["summarizer"] == "ollama/qwen3" and logged["serving"] == "troncature"
    _, report = status(config)
    bee = next(b for b in report["hives"][0]["bees"] if b["bee"] == BEE)
    assert bee["summarizer"]["in_use"] == "troncature"
    assert "ollama/qwen3" in bee["summarizer"]["unavailable"]


def test_check_says_ok_or_error_once_per_file_naming_the_bees_and_the_choices(
        tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("one")], bee_toml="[horizon]\nactif = true\n")
    make_hive(tmp_path, [entry("one")], bee=OTHER, bee_toml="[horizon]\nactif = true\n")
    (hive / "horizon.toml").write_text(
        "[horizon]\nbudget_net = 300\nbudget_condense = 300\nbudget_recit = 300\n")
    config = write_config(tmp_path, hive)

    result = horizon(config, "check")
    assert result.returncode == 1
    hive_file = str(hive / "horizon.toml")
    assert f"ok: {hive_file}" not in result.stdout
    [error] = [line for line in result.stderr.splitlines() if hive_file in line]
    assert f"(bees {BEE}, {OTHER})" in error
    assert f"ok: {hive / 'bees' / f'{BEE}.toml'}" in result.stdout

    (hive / "horizon.toml").write_text("[horizon]\nplancher_phare = 'toit'\n")
    result = horizon(config, "check")
    assert 'expected one of "net", "condense", "recit"' in result.stderr


# -- logs that say each thing once ----------------------------------------------------------


def test_one_save_one_reload_one_rejection_and_one_info_line_per_pass(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one"), "not json"], bee_toml="[horizon]\nactif = true\n")
    make_hive(tmp_path, [entry("one")], bee=OTHER)
    config = write_config(tmp_path, hive)
    daemon = start(config)
    wait_for_up_to(hive, 2)
    started = daemon.events("daemon.started")[0]
    assert (started["pid"], started["config"], started["watch"]) == (
        daemon.pid, str(config), "inotify")
    assert started["version"]
    assert len(daemon.events("entry.rejected")) == 1

    reloads = len(daemon.events("config.reloaded"))
    (hive / "horizon.toml").write_text("[horizon]\nbudget_net = 9000\n")
    daemon.wait_event("config.reloaded", after=reloads)
    wait_for(lambda: (daemon.events("handoff.written", BEE) or [{}])[-1].get("rebuilt"),
             "the bee recomputed")
    append(hive, entry("after"), bee=OTHER)
    wait_for_up_to(hive, 2, bee=OTHER)  # a poll or two went by after the save
    assert len(daemon.events("config.reloaded")) == reloads + 1, "one save, one reload"
    assert len(daemon.events("entry.rejected")) == 1, "old rejected lines are not news"

    (hive / "horizon.toml").write_text("[horizon]\nbudget_net = 'lots'\n")
    daemon.wait_event("config.rejected")
    append(hive, entry("later"), bee=OTHER)
    wait_for_up_to(hive, 3, bee=OTHER)
    daemon.wait_written(3, OTHER)
    assert len(daemon.events("config.rejected")) == 1, "one broken file, one line"

    before = len(daemon.events())
    append(hive, entry("three"), bee=OTHER)
    wait_for_up_to(hive, 4, bee=OTHER)
    daemon.wait_written(4, OTHER)
    infos = [e for e in daemon.events()[before:] if e["level"] == "info"
             and e.get("bee") == OTHER]
    assert [e["event"] for e in infos] == ["handoff.written"]
    assert (infos[0]["lines"], infos[0]["rejected"]) == (1, 0)

    assert daemon.stop() == 0
    [stopped] = daemon.events("daemon.stopped")
    assert stopped["pid"] == daemon.pid


def test_debug_level_adds_the_per_entry_decisions(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry(f"q{n}", "a" * 400) for n in range(40)],
                     bee_toml="[horizon]\nactif = true\nbudget_net = 2000\n")
    quiet = start(write_config(tmp_path, hive))
    wait_for_up_to(hive, 40)
    assert not [e for e in quiet.events() if e["level"] == "debug"]
    quiet.stop()

    loud_hive = make_hive(tmp_path / "loud", [entry(f"q{n}", "a" * 400) for n in range(40)],
                          bee_toml="[horizon]\nactif = true\nbudget_net = 2000\n")
    loud = Daemon(write_config(tmp_path / "loud", loud_hive, log={
        "dir": str(tmp_path / "loud" / "logs"), "level": "debug"}), tmp_path / "loud" / "logs")
    try:
        loud.started()
        wait_for_up_to(loud_hive, 40)
        evicted = loud.wait_event("zone.evicted")
        assert evicted["level"] == "debug" and isinstance(evicted["seq"], int)
        assert loud.events("journal.ingested")
    finally:
        loud.stop()


def test_under_systemd_stdout_lines_carry_their_syslog_priority(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("one"), "not json"])
    stream = tmp_path / "journal-stream"  # stands for the journal's socket
    stream.write_bytes(b"")
    info = stream.stat()
    daemon = Daemon(write_config(tmp_path, hive), tmp_path / "logs", clean_env(
        INVOCATION_ID="0123abcd", JOURNAL_STREAM=f"{info.st_dev}:{info.st_ino}"),
        output=stream).started()
    try:
        _check_priorities(daemon, hive)
    finally:
        daemon.stop()


def test_an_inherited_journal_stream_adds_no_prefix(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    daemon = start(write_config(tmp_path, hive), clean_env(JOURNAL_STREAM="8:12345"))
    wait_for_up_to(hive, 1)
    daemon.wait_event("handoff.written")
    assert any(line.startswith("{") for line in daemon.read_output().splitlines())
    assert not any(line.startswith("<") for line in daemon.read_output().splitlines())


def _check_priorities(daemon: Daemon, hive: Path) -> None:
    daemon.wait_event("entry.rejected")
    wait_for_up_to(hive, 2)
    # The loop logs handoff.written once the writer thread reports the file on disk: a
    # moment after the file can be seen.
    wait_for(lambda: any(line.startswith("<6>{") and '"handoff.written"' in line
                         for line in daemon.read_output().splitlines()),
             "handoff.written on stdout")
    lines = [line for line in daemon.read_output().splitlines() if line]
    assert any(line.startswith("<4>{") and '"entry.rejected"' in line for line in lines)
    assert all(line[:3] in ("<3>", "<4>", "<6>", "<7>") for line in lines), lines[:5]


def test_a_daemon_started_with_a_broken_bee_file_serves_its_last_good_settings(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")], bee_toml="[horizon]\nactif = true\n")
    config = write_config(tmp_path, hive)
    assert horizon(config, "rebuild", hive).returncode == 0
    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nactif = 'yes'\n")

    daemon = start(config)
    rejected = daemon.wait_event("config.rejected")
    assert rejected["consequence"] == "the last good settings serve"
    append(hive, entry("two"))
    assert "mode=horizon" in wait_for_up_to(hive, 2), "served, in the mode it had"


def test_a_stop_asked_while_starting_is_a_clean_stop(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path)
    with (hive / "window" / f"{BEE}-messages.jsonl").open("w", encoding="utf-8") as journal:
        for number in range(60_000):  # a catch-up long enough to stop it midway
            journal.write(entry(f"q{number}") + "\n")
    daemon = Daemon(write_config(tmp_path, hive), tmp_path / "logs")
    try:
        wait_for(lambda: holder(hive), "the hive's lock taken")
        daemon.signal(signal.SIGTERM)
        assert daemon.process.wait(60) == 0, daemon.read_output()
        assert daemon.events("daemon.stopped")
    finally:
        daemon.stop()
