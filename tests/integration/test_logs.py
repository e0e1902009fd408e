"""The log file: the libraries' warnings as JSON lines, without their shutdown noise."""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import structlog
from apscheduler.schedulers.background import BackgroundScheduler

from horizon.service import logs


def test_watchdogs_stopping_race_is_not_logged_but_its_other_errors_are(
        tmp_path: Path) -> None:
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    inotify = logging.getLogger("watchdog.observers.inotify")
    inotify.error("InotifyEmitter.queue_events() called when the thread is inactive")
    inotify.error("something else went wrong")
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(event["event"], event["library"], event["message"]) for event in events] == [
        ("library.error", "watchdog", "something else went wrong")]


def test_a_missed_scheduler_job_is_a_structured_event_naming_the_job(tmp_path: Path) -> None:
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    scheduler = BackgroundScheduler(timezone=UTC)
    scheduler.start()
    try:
        # Due 30 s ago with 1 s of grace: APScheduler itself says it was missed.
        scheduler.add_job(print, "date", run_date=datetime.now(UTC) - timedelta(seconds=30),
                          id="beat", misfire_grace_time=1)

        def missed() -> dict[str, object] | None:
            lines = path.read_text().splitlines() if path.exists() else []
            return next((event for event in map(json.loads, lines)
                         if event["event"] == "library.warning"), None)

        deadline = time.monotonic() + 30
        while (event := missed()) is None and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        scheduler.shutdown(wait=False)
    assert event is not None, "APScheduler's warning reached the log"
    assert event["library"] == "apscheduler" and event["job"] == "beat"
    assert "was missed" in str(event["message"])
    assert (event["hive"], event["bee"], event["level"]) == (None, None, "warning")


def test_a_library_logging_inside_a_bees_pass_names_the_hive_and_bee(tmp_path: Path) -> None:
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    with structlog.contextvars.bound_contextvars(hive="/h", bee="mia"):
        logging.getLogger("watchdog.observers").warning("cannot watch %s", "/h/window")
    [event] = [json.loads(line) for line in path.read_text().splitlines()]
    assert (event["hive"], event["bee"], event["message"]) == ("/h", "mia",
                                                               "cannot watch /h/window")


def test_a_log_file_moved_away_by_logrotate_is_opened_again(tmp_path: Path) -> None:
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    log = logs.get_logger()
    log.info("before.rotation")
    path.rename(tmp_path / "horizon.jsonl.1")  # logrotate's create mode
    log.info("after.rotation")
    assert [json.loads(line)["event"] for line in path.read_text().splitlines()] == [
        "after.rotation"]
    rotated = (tmp_path / "horizon.jsonl.1").read_text().splitlines()
    assert [json.loads(line)["event"] for line in rotated] == ["before.rotation"]
    path.unlink()  # removed outright: opened again as well
    log.warning("after.removal")
    assert json.loads(path.read_text())["level"] == "warning"


def test_a_new_level_applies_to_loggers_made_before_it(tmp_path: Path) -> None:
    log = logs.get_logger()
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    log.debug("hidden")
    log.info("shown")
    logs.configure(tmp_path, "debug", "json")  # a reload asks for more
    log.debug("now.shown")
    logs.configure(tmp_path, "warning", "json")
    log.info("hidden.again")
    log.error("an.error", count=2)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert [event["event"] for event in events] == ["shown", "now.shown", "an.error"]
    assert events[-1]["count"] == 2 and events[-1]["level"] == "error"


def test_a_log_line_that_cannot_be_written_never_stops_the_caller(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    os.symlink("/dev/full", tmp_path / "horizon.jsonl")  # every write: ENOSPC
    logs.configure(tmp_path, "info", "json")
    log = logs.get_logger()
    log.error("store.write_failed", reason="No space left on device")
    log.error("store.write_failed", reason="No space left on device")
    said = capfd.readouterr().err.splitlines()
    assert said == ["horizon: a log line could not be written: [Errno 28] No space left on "
                    "device"], "said once, and the caller went on"


def test_a_name_no_utf_8_can_hold_is_logged_as_an_escape(tmp_path: Path) -> None:
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    log = logs.get_logger()
    log.warning("archive.unrecorded", segment="\udcff-messages.000001.jsonl")  # os.listdir's
    log.info("after")
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [event["event"] for event in events] == ["archive.unrecorded", "after"]
    assert events[0]["segment"] == "\udcff-messages.000001.jsonl"
