"""What the daemon's handlers share: the settings in force, the hives served and missing,
the queue the other threads post to, and when each dirty bee's next pass is due.

The loop (`service.loop`) owns one `DaemonState` and hands it to each handler; nothing
else changes it, so it needs no lock.
"""

from __future__ import annotations

import queue
import time
from datetime import UTC
from pathlib import Path

from apscheduler.schedulers.background import BackgroundScheduler

from horizon.core.settings import GlobalConfig
from horizon.hive.discovery import file_signature
from horizon.hive.lock import HiveLock
from horizon.hive.settings_files import config_source
from horizon.service import polling
from horizon.service.hive_service import HiveService
from horizon.service.messages import Continue, Message, Written
from horizon.service.metrics import Listener, Metrics
from horizon.service.modelwork import ModelWork
from horizon.service.schedule import Deadlines
from horizon.service.watch import Watcher
from horizon.service.writer import Writer


class DaemonState:
    """The daemon's state, and how a bee's next pass is asked for."""

    def __init__(self, config_path: Path | None, log_stdout: bool = False) -> None:
        # Absolute: events name absolute paths, and logs should say where it is.
        self.config_path = config_path.absolute() if config_path is not None else None
        self.config_source = config_source(self.config_path)
        self.log_stdout = log_stdout
        self.config = GlobalConfig()
        self.services: dict[Path, HiveService] = {}
        self.metrics = Metrics()
        self.listener = Listener(self.metrics)
        self.config_rejected: str | None = None  # a config.json refused at reload
        # Configured hives not served yet (absent, unusable, locked), with why: taken up
        # when they can be.
        self.missing: dict[Path, str] = {}
        self.items: queue.Queue[Message] = queue.Queue()
        self.scheduler = BackgroundScheduler(timezone=UTC)
        self.models: ModelWork | None = None
        # Every pass's files are written by this thread, in order per bee (ADR 0004).
        self.writer = Writer(lambda commit, error: self.items.put(Written(commit, error)))
        self.watcher: Watcher | None = None
        self.stopping = False
        self.started_at = time.monotonic()
        self.continuing: set[tuple[Path, str]] = set()  # bees with a Continue queued
        self.deadlines = Deadlines()  # each dirty bee's next pass
        self.reload_requested = False
        self.reopen_requested = False
        self.config_seen = file_signature(self.config_path) if self.config_path else None
        self.served_hives: list[str] | None = None  # as last published
        self.served_file: Path | None = None
        # The hives' locks taken at start, before anything binds or logs; each goes to
        # its hive's service when it is taken up.
        self.start_locks: dict[Path, HiveLock] = {}

    def bee_count(self) -> int:
        return sum(len(service.bees) for service in self.services.values())

    def process(self, hive: Path, bee: str) -> None:
        """A pass of `bee`: the rest of a backlog is continued, a failed write retried."""
        service = self.services.get(hive)
        if service is None:
            return
        outcome = service.process(bee)
        if outcome is not None and outcome.more:
            self.continue_later(hive, bee)
            return
        runtime = service.bees.get(bee)
        if runtime is not None and runtime.schedule.dirty:
            self.schedule(service, bee)  # a failed write: retry after its back-off

    def continue_later(self, hive: Path, bee: str) -> None:
        """The rest of a backlog, at once but behind what other bees already posted, and
        never more than one slice of it waiting in the queue."""
        if (hive, bee) not in self.continuing:
            self.continuing.add((hive, bee))
            self.items.put(Continue(hive, bee))

    def schedule(self, service: HiveService, bee: str) -> None:
        """Set the bee's pass deadline (its debounce, capped by max_wait_s): a heap push,
        not a scheduler job, so a write costs microseconds however many bees write."""
        self.deadlines.set((service.hive, bee), service.due_at(service.bees[bee]))

    def bee_wrote(self, service: HiveService, bee: str) -> None:
        """Something the bee's pass reads changed: it is dirty, due after its debounce."""
        # A name the daemon does not serve costs a rescan only when the window's entries
        # changed (a new file): appends to a refused twin or link cost nothing.
        if bee not in service.bees and polling.window_changed(service):
            service.refresh_bees()
        if service.mark_dirty(bee, time.monotonic()) is not None:
            self.schedule(service, bee)

    def config_changed(self) -> bool:
        """Whether config.json changed since this was last asked."""
        assert self.config_path is not None
        signature = file_signature(self.config_path)
        changed = signature != self.config_seen
        self.config_seen = signature
        return changed
