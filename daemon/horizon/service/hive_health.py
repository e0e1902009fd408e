"""One hive's health as the daemon tells it: the heartbeat `status` and `top` read, why
`status` would not say healthy, and the bees whose derived files went away."""

from __future__ import annotations

import os
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from horizon import __version__
from horizon.core.entries import format_instant
from horizon.engine import bee_engine
from horizon.hive.durable import StoreError
from horizon.hive.heartbeat import BeeHealth, Heartbeat, write_heartbeat
from horizon.hive.layout import handoff_path, state_path
from horizon.hive.manifest import archive_names, missing_segments
from horizon.service import logs
from horizon.service.metrics import Metrics
from horizon.service.runtime import BeeRuntime
from horizon.service.writer import Writer

log = logs.get_logger()


class ServedHive(Protocol):
    """What a hive's health looks at of the service that owns it (a HiveService)."""

    hive: Path
    window: Path
    bees: dict[str, BeeRuntime]
    metrics: Metrics | None
    writer: Writer | None
    watch_mode: str
    problems: list[str]
    unrecorded: list[str]

    def bind(self, bee: str | None = None) -> AbstractContextManager[None]: ...


class HiveHealth:
    def __init__(self, service: ServedHive) -> None:
        self.service = service
        self.started = format_instant(time.time())
        self.beat_failed: str | None = None  # why the last heartbeat was not written

    def heartbeat(self) -> None:
        """daemon.json, for `status` and `top`; a failure is logged and becomes a health
        reason."""
        service = self.service
        now = time.time()
        bees = {}
        for name, runtime in service.bees.items():
            lag = round(runtime.schedule.lag(time.monotonic()), 3)
            bees[name] = BeeHealth(
                lag_s=lag, write_failed=runtime.write_failed,
                rotation_failed=runtime.rotation_failed,
                error=runtime.settings_error or runtime.state_error,
                passes=runtime.passes, last_pass=runtime.last_pass,
            )
            if service.metrics is not None:
                service.metrics.lag_of(str(service.hive), name, lag)
        beat = Heartbeat(pid=os.getpid(), version=__version__, started=self.started,
                         beat=format_instant(now), beat_epoch=now, watch=service.watch_mode,
                         bees=bees, log_file=logs.current_file())
        try:
            write_heartbeat(service.hive, beat)
            self.beat_failed = None
        except StoreError as error:
            with service.bind():
                log.error("store.write_failed", file="daemon.json", reason=str(error))
            self.beat_failed = str(error)

    def reasons(self) -> list[str]:
        """Why `horizon status` would not exit 0 for this hive, as the daemon sees it."""
        service = self.service
        reasons = [f"{service.hive}: {problem}" for problem in service.problems]
        reasons += [f"{service.hive}: unrecorded segment {name}" for name in service.unrecorded]
        present = archive_names(service.window)  # listed once for every bee
        for name in sorted(service.bees):  # lines lost by hand: status says so too
            reasons += [f"{service.hive} {name}: archive segment gone: {segment}"
                        for segment in missing_segments(service.window, name, present)]
        if self.beat_failed is not None:
            reasons.append(f"{service.hive}: heartbeat not written: {self.beat_failed}")
        for name, runtime in sorted(service.bees.items()):
            if runtime.write_failed:
                reasons.append(f"{service.hive} {name}: a derived write failed")
            if runtime.rotation_failed is not None:
                reasons.append(f"{service.hive} {name}: rotation failed: "
                               f"{runtime.rotation_failed}")
            if runtime.settings_error:
                reasons.append(f"{service.hive} {name}: settings rejected: "
                               f"{runtime.settings_error}")
            if runtime.state_error:
                reasons.append(f"{service.hive} {name}: refused: {runtime.state_error}")
        return reasons

    def refused_count(self) -> int:
        service = self.service
        return (len(service.problems) + len(service.unrecorded)
                + sum(runtime.state_error is not None for runtime in service.bees.values()))

    def lost_bees(self) -> list[str]:
        """The bees whose handoff.md or state.json is gone though their engine holds them
        written: `horizon/`, or a bee's folder, deleted while running. A busy bee's write
        makes `horizon/` again at once, so each bee's own files are looked at. A bee with
        commits on their way, or whose writes fail, is left to them."""
        service = self.service
        lost = []
        for name, runtime in service.bees.items():
            engine = runtime.engine
            if engine is None or engine.state is None or runtime.write_failed:
                continue
            if service.writer is not None and service.writer.pending((service.hive, name)):
                continue
            if not (os.path.lexists(handoff_path(service.hive, name))
                    and os.path.lexists(state_path(service.hive, name))):
                lost.append(name)
        return lost

    def write_failed(self, runtime: BeeRuntime, reason: str) -> None:
        """A derived write failed: degraded, and the next pass waits out a back-off."""
        service = self.service
        now = time.monotonic()
        first = not runtime.write_failed
        if first or runtime.schedule.may_run(now):
            with service.bind(runtime.name):
                log.error("store.write_failed", reason=reason,
                          retry_in_s=runtime.schedule.backoff_s)
        runtime.write_failed = True
        if service.metrics is not None:
            service.metrics.write_failures.inc()
        runtime.schedule.failed(now)
        if first:
            self.heartbeat()  # status shows it now, not at the next beat

    def rotation_failed(self, runtime: BeeRuntime, reason: str) -> None:
        """The journal grows past its rotation: degraded from the first failure, until a
        rotation succeeds (the engine retries it after ROTATE_RETRY_S)."""
        service = self.service
        first = runtime.rotation_failed is None
        runtime.rotation_failed = reason
        log.error("archive.rotate_failed", reason=reason, retry_in_s=bee_engine.ROTATE_RETRY_S)
        if service.metrics is not None:
            service.metrics.rotation_failures.labels(str(service.hive)).inc()
        if first:
            self.heartbeat()  # status shows it now, not at the next beat

    def recovered(self, runtime: BeeRuntime) -> None:
        """A pass's files are on disk: the back-off is over."""
        was_failed = runtime.write_failed
        runtime.write_failed = False
        runtime.schedule.succeeded()
        if was_failed:
            log.info("store.recovered")
            self.heartbeat()  # status says healthy now, not at the next beat
