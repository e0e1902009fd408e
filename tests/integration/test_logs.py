"""The log file: the libraries' warnings as JSON lines, without their shutdown noise."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from horizon.service import logs


def test_watchdogs_stopping_race_is_not_logged_but_its_other_errors_are(
        tmp_path: Path) -> None:
    path = logs.configure(tmp_path, "info", "json")
    assert path is not None
    inotify = logging.getLogger("watchdog.observers.inotify")
    inotify.error("InotifyEmitter.queue_events() called when the thread is inactive")
    inotify.error("something else went wrong")
    events = [json.loads(line)["event"] for line in path.read_text().splitlines()]
    assert events == ["something else went wrong"]
