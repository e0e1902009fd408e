"""How the daemon says how it is: each hive's heartbeat, lost bees found again, systemd's
STATUS, the /healthz verdict, and the hives it serves for `status` without config.json."""

from __future__ import annotations

import time

from horizon.core.text import counted
from horizon.hive import served
from horizon.hive.durable import StoreError
from horizon.service import logs, notify
from horizon.service.state import DaemonState

log = logs.get_logger()


def beat(state: DaemonState) -> None:
    """The heartbeats, after a bee whose derived files went away is made again."""
    for service in state.services.values():
        lost = service.health.lost_bees()
        if lost:
            with service.bind():
                log.warning("derived.recreated", bees=len(lost))
            for bee in lost:
                service.forget_state(bee)
                state.process(service.hive, bee)
        service.health.heartbeat()
    now = time.monotonic()
    lag = max((runtime.schedule.lag(now) for service in state.services.values()
               for runtime in service.bees.values()), default=0.0)
    notify.notify(f"STATUS=serving {counted(len(state.services), 'hive')}, "
                  f"{counted(state.bee_count(), 'bee')}, max lag {lag:.1f} s")
    publish_health(state)


def publish_health(state: DaemonState) -> None:
    """The /healthz verdict: what `horizon status` would say, as the daemon sees it."""
    reasons = [f"{hive}: not served: {why}" for hive, why in sorted(state.missing.items())]
    if state.config_rejected is not None:
        reasons.append(f"config.json rejected (the last good settings serve): "
                       f"{state.config_rejected}")
    for service in state.services.values():
        reasons += service.health.reasons()
    state.metrics.refused_files.set(sum(service.health.refused_count()
                                        for service in state.services.values()))
    state.metrics.publish_health(reasons)
    _publish_served(state)


def _publish_served(state: DaemonState) -> None:
    """The hives served, where `status` finds them when config.json is broken."""
    if state.config_path is None:
        return
    hives = sorted(str(hive) for hive in state.services)
    if hives == state.served_hives:
        return
    try:
        state.served_file = served.publish(state.config_path, hives)
        state.served_hives = hives
    except StoreError as error:
        # Only status with a broken config.json needs it: a warning, not a degraded hive.
        log.warning("daemon.served_unpublished", reason=str(error))
        state.served_hives = hives  # said once; tried again when the hives change
