"""`horizon run`: the main loop. Watchdog and APScheduler threads only post to a queue;
this loop keeps each dirty bee's pass deadline, does every pass, pings systemd's
watchdog between them, and applies reloads and stops between two items, so a hung loop
stops reporting healthy.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType

import msgspec
from apscheduler.schedulers.background import BackgroundScheduler

from horizon import __version__
from horizon.core.errors import SettingsError
from horizon.core.settings import GlobalConfig
from horizon.core.text import counted
from horizon.hive import served
from horizon.hive.discovery import file_signature
from horizon.hive.durable import StoreError
from horizon.hive.heartbeat import BEAT_S
from horizon.hive.layout import (
    ArchiveSegment,
    FlagsFile,
    HiveFolder,
    LiveJournal,
    SettingsFile,
    archive_dir,
    bees_dir,
    classify,
    phares_dir,
)
from horizon.hive.lock import HiveLocked
from horizon.hive.settings_files import config_source, load_global
from horizon.service import logs, notify
from horizon.service.deadlines import Deadlines
from horizon.service.hive_service import HiveService
from horizon.service.messages import (
    Beat,
    Continue,
    FileEvent,
    Message,
    ModelDone,
    Poll,
    Reload,
    Sweep,
    Written,
)
from horizon.service.metrics import Listener, Metrics
from horizon.service.modelwork import ModelWork
from horizon.service.watch import Watcher, WatchLimit
from horizon.service.writer import Writer

log = logs.get_logger()
RELOAD_SETTLE_S = 0.2
CATCH_UP_EXTEND_S = 30.0
LOOP_TICK_S = 0.25



class Daemon:
    def __init__(self, config_path: Path | None, log_stdout: bool = False) -> None:
        # Absolute: events name absolute paths, and logs should say where it is.
        self.config_path = config_path.absolute() if config_path is not None else None
        config_path = self.config_path
        self.config_source = config_source(config_path)
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
        # Every pass's files are written by these threads, in order per bee (ADR 0004).
        self.writer = Writer(lambda commit, error: self.items.put(Written(commit, error)))
        self.watcher: Watcher | None = None
        self.stopping = False
        self.started_at = time.monotonic()
        self.continuing: set[tuple[Path, str]] = set()  # bees with a Continue queued
        self.deadlines = Deadlines()  # each dirty bee's next pass
        self.reload_requested = False
        self.reopen_requested = False
        self.config_seen = file_signature(config_path) if config_path else None
        self.served_hives: list[str] | None = None  # as last published
        self.served_file: Path | None = None

    # -- life cycle ----------------------------------------------------------------------

    def run(self) -> int:
        # First of all: a stop asked while hives are still being taken up (their locks
        # already held) is a clean stop, never a death by the default action.
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        signal.signal(signal.SIGHUP, self._on_hup)
        try:
            self.config = load_global(self.config_path)
        except SettingsError as error:
            print(f"horizon: {error}", file=sys.stderr)
            return 1
        if not self.config.hives:
            where = self.config_path or "a config.json (--config, $HORIZON_CONFIG)"
            print(f"horizon: no hive configured: list them under \"hives\" in {where}",
                  file=sys.stderr)
            return 1
        try:
            self._configure_logs()
        except logs.LogDirError as error:
            print(f"horizon: {error} (log.dir in {self.config_source})", file=sys.stderr)
            return 1
        if not self._serve_metrics(self.config):
            print(f"horizon: cannot serve metrics on {self.config.metrics} (metrics in "
                  f"{self.config_source}); see the log", file=sys.stderr)
            return 1
        self.models = ModelWork(self.config, self.items.put)
        for hive in self.config.hives:
            try:
                self._start_hive(Path(hive))
            except HiveLocked as error:
                print(f"horizon: {error}", file=sys.stderr)
                log.error("daemon.locked", hive=hive, holder=error.pid)
                self._release_all()
                log.info("daemon.stopped", pid=os.getpid(), exit_code=1, ran_s=0.0)
                return 1
        self._catch_up()
        self._publish_health()  # ready: what /healthz says is status's verdict from now on
        self.scheduler.start()
        self._schedule_periodic()
        bees = sum(len(service.bees) for service in self.services.values())
        notify.notify("READY=1", f"STATUS=serving {counted(len(self.services), 'hive')}, "
                                 f"{counted(bees, 'bee')}")
        modes = {str(hive): service.watch_mode for hive, service in self.services.items()}
        log.info("daemon.started", version=__version__, pid=os.getpid(),
                 config=self.config_source, hives=list(modes), bees=bees,
                 missing=sorted(str(hive) for hive in self.missing),
                 watch=next(iter(set(modes.values()))) if len(set(modes.values())) == 1
                 else modes or "none")
        self.started_at = time.monotonic()
        self._loop()
        return self._stop()

    def _serve_metrics(self, config: GlobalConfig) -> bool:
        """Listen where `metrics` says (or nowhere); False, logged, when it cannot."""
        address = config.metrics_address()
        try:
            self.listener.serve(address)
        except (OSError, ValueError, TypeError) as error:
            log.error("metrics.unavailable", listen=config.metrics,
                      reason=getattr(error, "strerror", None) or str(error))
            return False
        if address is not None and self.listener.address == address:
            log.info("metrics.listening", listen=config.metrics)
        return True

    def _configure_logs(self) -> None:
        log_dir = Path(self.config.log.dir)
        logs.configure(log_dir, self.config.log.level, self.config.log.format, self.log_stdout)

    def _start_hive(self, hive: Path, lock_wait_s: float = 1.0) -> None:
        """Serve `hive`, or keep it among the missing ones, said once per reason, and
        looked at again at each poll. HiveLocked propagates: at start, another daemon
        serving a configured hive is fatal."""
        if not hive.is_dir():
            self._still_missing(hive, "hive.missing", "not found (not mounted yet?)")
            return
        try:
            service = HiveService(hive, self.config, self.config_source, self.models,
                                  lock_wait_s=lock_wait_s, metrics=self.metrics,
                                  writer=self.writer)
        except OSError as error:  # its lock file cannot be opened: refused, a link...
            self._still_missing(hive, "hive.unusable",
                                f"{error.filename or hive}: {error.strerror or error}")
            return
        self.missing.pop(hive, None)
        self.services[hive] = service
        service.refresh_bees()
        service.settings_changed()
        self._watch_hive(service)
        service.heartbeat()  # status sees it served at once, not at the next beat

    def _still_missing(self, hive: Path, event: str, reason: str) -> None:
        if self.missing.get(hive) != reason:
            log.error(event, hive=str(hive), reason=reason,
                      consequence="taken up when it can be")
        self.missing[hive] = reason

    def _take_up(self, hive: Path) -> None:
        """Serve a hive while running: one added to the settings, or one that appeared,
        unlocked or became usable."""
        was_missing = hive in self.missing
        try:
            self._start_hive(hive, lock_wait_s=0.0)  # the loop never waits on a lock
        except HiveLocked as error:
            if self.missing.get(hive) != "locked":
                log.error("daemon.locked", hive=str(hive), holder=error.pid,
                          consequence="taken up when it is free")
            self.missing[hive] = "locked"
            return
        started = self.services.get(hive)
        if started is None:
            return
        if was_missing:
            log.info("hive.appeared", hive=str(hive), bees=len(started.bees))
        for bee in list(started.bees):
            self._process(hive, bee)

    def _watch_hive(self, service: HiveService) -> None:
        if service.watch_mode == "poll":
            return
        if self.watcher is None:
            self.watcher = Watcher(lambda path: self.items.put(FileEvent(path)))
        folders = [service.hive, service.window, archive_dir(service.window),
                   bees_dir(service.hive), phares_dir(service.hive)]
        if self.config_path is not None:
            folders.append(self.config_path.parent)
        try:
            for folder in folders:
                self.watcher.watch(folder)
        except WatchLimit as error:
            service.watch_mode = "poll"
            with service.bind():
                log.error("watch.limit_reached", reason=str(error), fallback="poll",
                          poll_s=self.config.poll_s)

    def _catch_up(self) -> None:
        """Before READY: every bee up to date with what was written while we were down,
        one slice of each bee's backlog in turn."""
        behind = [(service, bee) for service in self.services.values() for bee in service.bees]
        extend_at: float | None = None
        while behind and not self.stopping:
            still: list[tuple[HiveService, str]] = []
            for position, (service, bee) in enumerate(behind):
                if self.stopping:
                    break
                outcome = service.process(bee)
                if outcome is not None and outcome.more:
                    still.append((service, bee))
                if still and (extend_at is None or time.monotonic() >= extend_at):
                    # A bee still behind after a slice is a long catch-up, not a hung
                    # start: systemd gives us more time, a little ahead of each deadline,
                    # looked at after every slice (a round of a thousand bees is long).
                    waiting = len(still) + len(behind) - position - 1
                    notify.notify(f"EXTEND_TIMEOUT_USEC={int(CATCH_UP_EXTEND_S * 1_000_000)}",
                                  f"STATUS=catching up: {counted(waiting, 'bee')} behind")
                    extend_at = time.monotonic() + CATCH_UP_EXTEND_S / 3
            behind = still
        self.writer.drain()  # up to date means on disk: READY follows

    def _schedule_periodic(self) -> None:
        periodic: list[tuple[str, float, Message]] = [
            ("poll", self.config.poll_s, Poll()), ("sweep", self.config.sweep_s, Sweep()),
            ("beat", BEAT_S, Beat())]
        for name, seconds, message in periodic:
            self.scheduler.add_job(self.items.put, "interval", seconds=seconds,
                                   args=[message], id=name, replace_existing=True,
                                   coalesce=True, max_instances=1)
        self.items.put(Beat())

    def _on_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def _on_hup(self, signum: int, frame: FrameType | None) -> None:
        self.reload_requested = True
        self.reopen_requested = True

    def _stop(self) -> int:
        notify.notify("STOPPING=1")
        log.info("daemon.stopping")
        # Pause and empty the scheduler first: a one-shot job firing during shutdown
        # would otherwise be looked up after its removal (JobLookupError in its thread).
        self.scheduler.pause()
        self.scheduler.remove_all_jobs()
        self.scheduler.shutdown(wait=False)
        if self.watcher is not None:
            self.watcher.stop()
        if self.models is not None:
            self.models.stop()
        self.listener.stop()
        for service in self.services.values():
            # Lines already seen but still in their debounce are the batch in hand.
            for bee, runtime in list(service.bees.items()):
                if runtime.dirty and time.monotonic() >= runtime.retry_at:
                    service.process(bee)
        self.writer.close()  # every pass's files on disk before the locks are let go
        self._take_written()
        for service in self.services.values():
            service.heartbeat()
        self._release_all()
        if self.served_file is not None:
            served.withdraw(self.served_file)
        log.info("daemon.stopped", pid=os.getpid(), exit_code=0,
                 ran_s=round(time.monotonic() - self.started_at, 1))
        return 0

    def _release_all(self) -> None:
        for service in self.services.values():
            service.close()

    # -- the loop ------------------------------------------------------------------------

    def _loop(self) -> None:
        ping_every = notify.watchdog_interval()
        next_ping = time.monotonic()
        while not self.stopping:
            if ping_every is not None and time.monotonic() >= next_ping:
                notify.notify("WATCHDOG=1")
                next_ping = time.monotonic() + ping_every
            if self.reopen_requested:
                self.reopen_requested = False
                logs.reopen()
            if self.reload_requested:
                self.reload_requested = False
                self._reload()
            self._run_due()
            wait = LOOP_TICK_S
            earliest = self.deadlines.earliest()
            if earliest is not None:
                wait = min(wait, max(0.0, earliest - time.monotonic()))
            try:
                item = self.items.get(timeout=wait)
            except queue.Empty:
                continue
            try:
                self._handle(item)
            except Exception as error:  # the loop must outlive any one item; says what, not why
                log.error("daemon.error", item=item.label, error=type(error).__name__)

    def _run_due(self) -> None:
        """The passes whose deadline has come, earliest first. Passes that fall due while
        these run wait for the next turn, after one item of the queue at most."""
        now = time.monotonic()
        while not self.stopping and (due := self.deadlines.pop_due(now)) is not None:
            hive, bee = due
            try:
                if (hive, bee) not in self.continuing:  # its continuation reads it anyway
                    self._process(hive, bee)
            except Exception as error:  # as for an item: the loop goes on
                log.error("daemon.error", item=f"pass {bee}", error=type(error).__name__)

    def _handle(self, item: Message) -> None:
        match item:
            case FileEvent(path):
                self._on_event(path)
            case Written():
                self._written_item(item)
            case Continue(hive, bee):
                self.continuing.discard((hive, bee))
                self._process(hive, bee)
            case Poll():
                self._poll()
            case Sweep():
                self._sweep()
            case Beat():
                self._beat()
            case Reload():
                self._reload()
            case ModelDone(hive, bee, result):
                serving = self.services.get(hive)
                if serving is not None:
                    serving.apply_model(bee, result)

    def _take_written(self) -> None:
        """The writers' last news, said before stopping (the queue holds nothing else the
        stop needs)."""
        while True:
            try:
                item = self.items.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, Written):
                self._written_item(item)

    def _written_item(self, item: Written) -> None:
        service = self.services.get(item.commit.hive)
        if (service is not None and service.written(item.commit, item.error)
                and not self.stopping):
            self._schedule(service, item.commit.bee)  # again, after its back-off

    def _sweep(self) -> None:
        now = time.monotonic()
        for service in self.services.values():
            for bee, runtime in list(service.bees.items()):
                if now >= runtime.retry_at:  # a failing bee waits for its back-off
                    outcome = service.process(bee, sweep_only=True)
                    if outcome is not None and outcome.more:
                        self._continue(service.hive, bee)

    def _process(self, hive: Path, bee: str) -> None:
        service = self.services.get(hive)
        if service is None:
            return
        outcome = service.process(bee)
        if outcome is not None and outcome.more:
            self._continue(hive, bee)
            return
        runtime = service.bees.get(bee)
        if runtime is not None and runtime.dirty:
            self._schedule(service, bee)  # a failed write: retry after its back-off

    def _continue(self, hive: Path, bee: str) -> None:
        """The rest of a backlog, at once but behind what other bees already posted, and
        never more than one slice of it waiting in the queue."""
        if (hive, bee) not in self.continuing:
            self.continuing.add((hive, bee))
            self.items.put(Continue(hive, bee))

    def _written(self, service: HiveService, bee: str) -> None:
        # A name the daemon does not serve costs a rescan only when the window's entries
        # changed (a new file): appends to a refused twin or link cost nothing.
        if bee not in service.bees and service.window_changed():
            service.refresh_bees()
        if service.mark_dirty(bee, time.monotonic()) is not None:
            self._schedule(service, bee)

    def _schedule(self, service: HiveService, bee: str) -> None:
        """Set the bee's pass deadline (its debounce, capped by max_wait_s): a heap push,
        not a scheduler job, so a write costs microseconds however many bees write."""
        self.deadlines.set((service.hive, bee), service.due_at(service.bees[bee]))

    def _request_reload(self) -> None:
        self.scheduler.add_job(
            self.items.put, "date",
            run_date=datetime.now(UTC) + timedelta(seconds=RELOAD_SETTLE_S),
            args=[Reload()], id="reload", replace_existing=True, misfire_grace_time=None,
            max_instances=4,
        )

    def _on_event(self, path: Path) -> None:
        name = str(path)
        if self.config_path is not None and name == str(self.config_path):
            self._request_reload()
            return
        for service in self.services.values():
            bee = service.live_paths.get(name)
            if bee is not None:  # the usual event, found without taking the path apart
                service.live_event(bee)
                self._written(service, bee)
                return
        for hive, service in self.services.items():
            match classify(hive, path):
                case None:
                    continue
                case SettingsFile():
                    self._request_reload()
                case HiveFolder():
                    if self.watcher is not None:
                        self._watch_hive(service)
                case LiveJournal(bee):
                    service.live_event(bee)
                    self._written(service, bee)
                case ArchiveSegment(bee, segment):
                    runtime = service.bees.get(bee)
                    if runtime is not None:
                        runtime.note_late(segment)
                        self._written(service, bee)
                case FlagsFile(bee):
                    if bee in service.bees:
                        self._written(service, bee)
            return

    def _poll(self) -> None:
        """The stat fallback: what events missed, new bees, settings edits, a lost horizon/."""
        reload_needed = self.config_path is not None and self._config_changed()
        for hive in [hive for hive in self.missing if hive.is_dir()]:
            self._take_up(hive)
        for service in self.services.values():
            if service.window_changed():
                for bee in service.refresh_bees():
                    self._written(service, bee)
            for bee in service.changed_bees():
                if not service.bees[bee].dirty:
                    self._written(service, bee)
            for bee, runtime in service.bees.items():
                # Every dirty bee has a deadline or a continuation; a safety net all the same.
                key = (service.hive, bee)
                if runtime.dirty and key not in self.deadlines and key not in self.continuing:
                    self._schedule(service, bee)
            if service.settings_changed():
                reload_needed = True
        if reload_needed:
            self._request_reload()

    def _config_changed(self) -> bool:
        assert self.config_path is not None
        signature = file_signature(self.config_path)
        changed = signature != self.config_seen
        self.config_seen = signature
        return changed

    def _beat(self) -> None:
        for service in self.services.values():
            lost = service.lost_bees()
            if lost:
                with service.bind():
                    log.warning("derived.recreated", bees=len(lost))
                for bee in lost:
                    service.forget_state(bee)
                    self._process(service.hive, bee)
            service.heartbeat()
        lag = max((time.monotonic() - r.first_dirty for s in self.services.values()
                   for r in s.bees.values() if r.dirty and r.first_dirty), default=0.0)
        bees = sum(len(service.bees) for service in self.services.values())
        notify.notify(f"STATUS=serving {counted(len(self.services), 'hive')}, "
                      f"{counted(bees, 'bee')}, "
                      f"max lag {lag:.1f} s")
        self._publish_health()

    def _publish_health(self) -> None:
        """The /healthz verdict: what `horizon status` would say, as the daemon sees it."""
        reasons = [f"{hive}: not served: {why}" for hive, why in sorted(self.missing.items())]
        if self.config_rejected is not None:
            reasons.append(f"config.json rejected (the last good settings serve): "
                           f"{self.config_rejected}")
        for service in self.services.values():
            reasons += service.health_reasons()
        self.metrics.refused_files.set(sum(service.refused_count()
                                           for service in self.services.values()))
        self.metrics.publish_health(reasons)
        self._publish_served()

    def _publish_served(self) -> None:
        """The hives served, where `status` finds them when config.json is broken."""
        if self.config_path is None:
            return
        hives = sorted(str(hive) for hive in self.services)
        if hives == self.served_hives:
            return
        try:
            self.served_file = served.publish(self.config_path, hives)
            self.served_hives = hives
        except StoreError as error:
            # Only status with a broken config.json needs it: a warning, not a degraded hive.
            log.warning("daemon.served_unpublished", reason=str(error))
            self.served_hives = hives  # said once; tried again when the hives change

    # -- settings ------------------------------------------------------------------------

    def _reload(self) -> None:
        notify.reloading()
        # The files as they are now are the ones this reload reads: the poll must not
        # take the same save for another change (one save, one reload).
        if self.config_path is not None:
            self._config_changed()
        for service in self.services.values():
            service.settings_changed()
        try:
            config = load_global(self.config_path)
        except SettingsError as error:
            log.error("config.rejected", file=error.source, key=error.key, reason=error.reason)
            self.config_rejected = str(error)
            self._publish_health()
            notify.notify("READY=1")
            return
        self.config_rejected = None
        previous = self.config
        self.config = config
        if self.models is not None and config.providers != previous.providers:
            self.models.reconfigure(config)
        if config.metrics_address() != previous.metrics_address() and not (
                self._serve_metrics(config)):
            log.error("config.rejected", file=self.config_source, key="metrics",
                      reason=f"cannot listen on {config.metrics}", kept=previous.metrics)
            config = msgspec.structs.replace(config, metrics=previous.metrics)
            self.config = config
        if config.log != previous.log:
            try:
                self._configure_logs()
            except logs.LogDirError as error:
                log.error("config.rejected", file=self.config_source, key="log.dir",
                          reason=str(error), kept=previous.log.dir)
                self.config = config = msgspec.structs.replace(config, log=previous.log)
        wanted = {Path(hive) for hive in config.hives}
        for hive in [h for h in self.services if h not in wanted]:
            service = self.services.pop(hive)
            if self.watcher is not None:
                self.watcher.unwatch_under(hive)
            self.writer.drain()  # its files on disk before its lock is let go
            service.close()
            self.metrics.forget_hive(str(hive))
            log.info("hive.stopped", hive=str(hive))
        self.missing = {hive: why for hive, why in self.missing.items() if hive in wanted}
        for hive in [h for h in wanted if h not in self.services]:
            self._take_up(hive)
        changed = 0
        for service in self.services.values():
            service.reconfigure(config)
            service.refresh_bees()
            for runtime in service.bees.values():
                before = runtime.effective
                if service.load_settings(runtime) and runtime.effective != before:
                    changed += 1
                    self._process(service.hive, runtime.name)
            service.settings_reloaded()
        if (config.poll_s, config.sweep_s) != (previous.poll_s, previous.sweep_s):
            self._schedule_periodic()
        self._publish_health()
        log.info("config.reloaded", bees_recomputed=changed)
        notify.notify("READY=1")


def run(config_path: Path | None, log_stdout: bool) -> int:
    return Daemon(config_path, log_stdout).run()
