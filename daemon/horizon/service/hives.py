"""The hives the daemon serves and the ones it waits for: taking one up, watching it, the
catch-up before READY, and a reload of the settings, which may add and drop hives."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from horizon.core.errors import SettingsError
from horizon.core.settings import GlobalConfig
from horizon.core.text import counted
from horizon.hive.heartbeat import BEAT_S
from horizon.hive.layout import archive_dir, bees_dir, phares_dir
from horizon.hive.lock import HiveLocked
from horizon.hive.settings_files import load_global
from horizon.service import logs, notify, polling
from horizon.service.health import publish_health
from horizon.service.hive_service import HiveService
from horizon.service.messages import Beat, FileEvent, Message, Poll, Reload, Sweep
from horizon.service.state import DaemonState
from horizon.service.watch import Watcher, WatchLimit

log = logs.get_logger()
RELOAD_SETTLE_S = 0.2
CATCH_UP_EXTEND_S = 30.0


def serve_metrics(state: DaemonState, config: GlobalConfig) -> bool:
    """Listen where `metrics` says (or nowhere); False, logged, when it cannot."""
    address = config.metrics_address()
    try:
        state.listener.serve(address)
    except (OSError, ValueError, TypeError) as error:
        log.error("metrics.unavailable", listen=config.metrics,
                  reason=getattr(error, "strerror", None) or str(error))
        return False
    if address is not None and state.listener.address == address:
        log.info("metrics.listening", listen=config.metrics)
    return True


def configure_logs(state: DaemonState, config: GlobalConfig) -> None:
    logs.configure(Path(config.log.dir), config.log.level, config.log.format,
                   state.log_stdout)


def start_hive(state: DaemonState, hive: Path, lock_wait_s: float = 1.0) -> None:
    """Serve `hive`, or keep it among the missing ones, said once per reason, and looked
    at again at each poll. HiveLocked propagates: at start, another daemon serving a
    configured hive is fatal."""
    if not hive.is_dir():
        _still_missing(state, hive, "hive.missing", "not found (not mounted yet?)")
        return
    try:
        service = HiveService(hive, state.config, state.config_source, state.models,
                              lock_wait_s=lock_wait_s, metrics=state.metrics,
                              writer=state.writer, lock=state.start_locks.pop(hive, None))
    except OSError as error:  # its lock file cannot be opened: refused, a link...
        _still_missing(state, hive, "hive.unusable",
                       f"{error.filename or hive}: {error.strerror or error}")
        return
    state.missing.pop(hive, None)
    state.services[hive] = service
    service.refresh_bees()
    polling.settings_changed(service)
    watch_hive(state, service)
    service.health.heartbeat()  # status sees it served at once, not at the next beat


def _still_missing(state: DaemonState, hive: Path, event: str, reason: str) -> None:
    if state.missing.get(hive) != reason:
        log.error(event, hive=str(hive), reason=reason, consequence="taken up when it can be")
    state.missing[hive] = reason


def take_up(state: DaemonState, hive: Path) -> None:
    """Serve a hive while running: one added to the settings, or one that appeared,
    unlocked or became usable."""
    was_missing = hive in state.missing
    try:
        start_hive(state, hive, lock_wait_s=0.0)  # the loop never waits on a lock
    except HiveLocked as error:
        if state.missing.get(hive) != "locked":
            log.error("daemon.locked", hive=str(hive), holder=error.pid,
                      consequence="taken up when it is free")
        state.missing[hive] = "locked"
        return
    started = state.services.get(hive)
    if started is None:
        return
    if was_missing:
        log.info("hive.appeared", hive=str(hive), bees=len(started.bees))
    for bee in list(started.bees):
        state.process(hive, bee)


def watch_hive(state: DaemonState, service: HiveService) -> None:
    if service.watch_mode == "poll":
        return
    if state.watcher is None:
        state.watcher = Watcher(lambda path: state.items.put(FileEvent(path)))
    folders = [service.hive, service.window, archive_dir(service.window),
               bees_dir(service.hive), phares_dir(service.hive)]
    if state.config_path is not None:
        folders.append(state.config_path.parent)
    try:
        for folder in folders:
            state.watcher.watch(folder)
    except WatchLimit as error:
        service.watch_mode = "poll"
        with service.bind():
            log.error("watch.limit_reached", reason=str(error), fallback="poll",
                      poll_s=state.config.poll_s)


def catch_up(state: DaemonState) -> None:
    """Before READY: every bee up to date with what was written while we were down, one
    slice of each bee's backlog in turn."""
    behind = [(service, bee) for service in state.services.values() for bee in service.bees]
    extend_at: float | None = None
    while behind and not state.stopping:
        still: list[tuple[HiveService, str]] = []
        for position, (service, bee) in enumerate(behind):
            if state.stopping:
                break
            outcome = service.process(bee)
            if outcome is not None and outcome.more:
                still.append((service, bee))
            if still and (extend_at is None or time.monotonic() >= extend_at):
                # A bee still behind after a slice is a long catch-up, not a hung start:
                # systemd gives us more time, a little ahead of each deadline, looked at
                # after every slice (a round of a thousand bees is long).
                waiting = len(still) + len(behind) - position - 1
                notify.notify(f"EXTEND_TIMEOUT_USEC={int(CATCH_UP_EXTEND_S * 1_000_000)}",
                              f"STATUS=catching up: {counted(waiting, 'bee')} behind")
                extend_at = time.monotonic() + CATCH_UP_EXTEND_S / 3
        behind = still
    state.writer.drain()  # up to date means on disk: READY follows


def schedule_periodic(state: DaemonState) -> None:
    periodic: list[tuple[str, float, Message]] = [
        ("poll", state.config.poll_s, Poll()), ("sweep", state.config.sweep_s, Sweep()),
        ("beat", BEAT_S, Beat())]
    for name, seconds, message in periodic:
        state.scheduler.add_job(state.items.put, "interval", seconds=seconds,
                                args=[message], id=name, replace_existing=True,
                                coalesce=True, max_instances=1)
    state.items.put(Beat())


def request_reload(state: DaemonState) -> None:
    """A reload once the files settle: an editor's several writes make one reload."""
    state.scheduler.add_job(
        state.items.put, "date",
        run_date=datetime.now(UTC) + timedelta(seconds=RELOAD_SETTLE_S),
        args=[Reload()], id="reload", replace_existing=True, misfire_grace_time=None,
        max_instances=4,
    )


def release_all(state: DaemonState) -> None:
    for service in state.services.values():
        service.close()
    for lock in state.start_locks.values():  # hives the start locked, never taken up
        lock.release()
    state.start_locks.clear()


def reload(state: DaemonState) -> None:
    """The settings read again: config.json (refused whole when invalid), and every
    hive's and bee's files; hives added are taken up, hives dropped let go."""
    notify.reloading()
    # The files as they are now are the ones this reload reads: the poll must not take
    # the same save for another change (one save, one reload).
    if state.config_path is not None:
        state.config_changed()
    for service in state.services.values():
        polling.settings_changed(service)
    try:
        config = load_global(state.config_path)
    except SettingsError as error:
        log.error("config.rejected", file=error.source, key=error.key, reason=error.reason)
        state.config_rejected = str(error)
        publish_health(state)
        notify.notify("READY=1")
        return
    state.config_rejected = None
    previous = state.config
    state.config = config = _kept_where_refused(state, config, previous)
    wanted = {Path(hive) for hive in config.hives}
    for hive in [h for h in state.services if h not in wanted]:
        service = state.services.pop(hive)
        if state.watcher is not None:
            state.watcher.unwatch_under(hive)
        state.writer.drain()  # its files on disk before its lock is let go
        service.close()
        state.metrics.forget_hive(str(hive))
        log.info("hive.stopped", hive=str(hive))
    state.missing = {hive: why for hive, why in state.missing.items() if hive in wanted}
    for hive in [h for h in wanted if h not in state.services]:
        take_up(state, hive)
    changed = 0
    for service in state.services.values():
        service.settings.reconfigure(config)
        service.refresh_bees()
        for runtime in service.bees.values():
            before = runtime.effective
            if service.settings.load(runtime) and runtime.effective != before:
                changed += 1
                state.process(service.hive, runtime.name)
        service.settings.reloaded()
    if (config.poll_s, config.sweep_s) != (previous.poll_s, previous.sweep_s):
        schedule_periodic(state)
    publish_health(state)
    log.info("config.reloaded", bees_recomputed=changed)
    notify.notify("READY=1")


def _kept_where_refused(state: DaemonState, config: GlobalConfig,
                        previous: GlobalConfig) -> GlobalConfig:
    """The new settings, with the previous metrics address or log folder kept when the
    new one cannot be used (said as a rejected key)."""
    if state.models is not None and config.providers != previous.providers:
        state.models.reconfigure(config)
    if config.metrics_address() != previous.metrics_address() and not (
            serve_metrics(state, config)):
        log.error("config.rejected", file=state.config_source, key="metrics",
                  reason=f"cannot listen on {config.metrics}", kept=previous.metrics)
        config = msgspec.structs.replace(config, metrics=previous.metrics)
    if config.log != previous.log:
        try:
            configure_logs(state, config)
        except logs.LogDirError as error:
            log.error("config.rejected", file=state.config_source, key="log.dir",
                      reason=str(error), kept=previous.log.dir)
            config = msgspec.structs.replace(config, log=previous.log)
    return config
