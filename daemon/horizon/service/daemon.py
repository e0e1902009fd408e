"""`horizon run`: the daemon's start and stop. The work in between is the loop's
(`service.loop`), one handler per message (`service.handlers`)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from horizon import __version__
from horizon.core.errors import SettingsError
from horizon.core.text import counted
from horizon.hive import served
from horizon.hive.lock import HiveLock, HiveLocked
from horizon.hive.settings_files import load_global
from horizon.service import hives, logs, loop, notify
from horizon.service.health import publish_health
from horizon.service.modelwork import ModelWork
from horizon.service.state import DaemonState

log = logs.get_logger()


class Daemon:
    """Starts serving, runs the loop until a stop is asked, and stops cleanly."""

    def __init__(self, config_path: Path | None, log_stdout: bool = False) -> None:
        self.state = DaemonState(config_path, log_stdout)

    def run(self) -> int:
        state = self.state
        # First of all: a stop asked while hives are still being taken up (their locks
        # already held) is a clean stop, never a death by the default action.
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        signal.signal(signal.SIGHUP, self._on_hup)
        # A launcher may hold them blocked until now (the demo does): taken from here on.
        signal.pthread_sigmask(signal.SIG_UNBLOCK,
                               {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
        problem = self._start()
        if problem is not None:
            print(f"horizon: {problem}", file=sys.stderr)
            return 1
        hives.catch_up(state)
        publish_health(state)  # ready: what /healthz says is status's verdict from now on
        state.scheduler.start()
        hives.schedule_periodic(state)
        notify.notify("READY=1", f"STATUS=serving {counted(len(state.services), 'hive')}, "
                                 f"{counted(state.bee_count(), 'bee')}")
        modes = {str(hive): service.watch_mode for hive, service in state.services.items()}
        log.info("daemon.started", version=__version__, pid=os.getpid(),
                 config=state.config_source, hives=list(modes), bees=state.bee_count(),
                 missing=sorted(str(hive) for hive in state.missing),
                 watch=next(iter(set(modes.values()))) if len(set(modes.values())) == 1
                 else modes or "none")
        state.started_at = time.monotonic()
        loop.run(state)
        return self.stop()

    def _start(self) -> str | None:
        """Settings, logs, metrics and the hives' locks; what stops the start, if any."""
        state = self.state
        try:
            state.config = load_global(state.config_path)
        except SettingsError as error:
            return str(error)
        if not state.config.hives:
            where = state.config_path or "a config.json (--config, $HORIZON_CONFIG)"
            return f"no hive configured: list them under \"hives\" in {where}"
        # The locks before anything binds or logs: a second daemon on the same hives says
        # who holds them and leaves the first's port and log alone.
        for folder in map(Path, state.config.hives):
            try:
                if folder.is_dir():
                    state.start_locks[folder] = HiveLock(folder)
            except HiveLocked as error:
                for lock in state.start_locks.values():
                    lock.release()
                return f"{error}: another horizon serves it; nothing was started"
            except OSError:
                pass  # a lock file that cannot be opened: reported once the log is up
        try:
            hives.configure_logs(state, state.config)
        except logs.LogDirError as error:
            return f"{error} (log.dir in {state.config_source})"
        if not hives.serve_metrics(state, state.config):
            return (f"cannot serve metrics on {state.config.metrics} (metrics in "
                    f"{state.config_source}); see the log")
        state.models = ModelWork(state.config, state.items.put)
        for hive in state.config.hives:
            try:
                hives.start_hive(state, Path(hive))
            except HiveLocked as error:  # taken in between: made after the first look
                log.error("daemon.locked", hive=hive, holder=error.pid)
                hives.release_all(state)
                log.info("daemon.stopped", pid=os.getpid(), exit_code=1, ran_s=0.0)
                return str(error)
        return None

    def _on_stop(self, signum: int, frame: FrameType | None) -> None:
        self.state.stopping = True

    def _on_hup(self, signum: int, frame: FrameType | None) -> None:
        self.state.reload_requested = True
        self.state.reopen_requested = True

    def stop(self) -> int:
        state = self.state
        notify.notify("STOPPING=1")
        log.info("daemon.stopping")
        # Pause and empty the scheduler first: a one-shot job firing during shutdown
        # would otherwise be looked up after its removal (JobLookupError in its thread).
        state.scheduler.pause()
        state.scheduler.remove_all_jobs()
        state.scheduler.shutdown(wait=False)
        if state.watcher is not None:
            state.watcher.stop()
        if state.models is not None:
            state.models.stop()
        state.listener.stop()
        for service in state.services.values():
            # Lines already seen but still in their debounce are the batch in hand.
            for bee, runtime in list(service.bees.items()):
                if runtime.schedule.dirty and runtime.schedule.may_run(time.monotonic()):
                    service.process(bee)
        state.writer.close()  # every pass's files on disk before the locks are let go
        loop.take_written(state)
        for service in state.services.values():
            service.health.heartbeat()
        hives.release_all(state)
        if state.served_file is not None:
            served.withdraw(state.served_file)
        log.info("daemon.stopped", pid=os.getpid(), exit_code=0,
                 ran_s=round(time.monotonic() - state.started_at, 1))
        return 0


def run(config_path: Path | None, log_stdout: bool) -> int:
    return Daemon(config_path, log_stdout).run()
