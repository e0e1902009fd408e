"""One hive served by the daemon: its bees, when their passes are due, what went wrong,
the heartbeat. The passes themselves are the bees' engines' (`BeeEngine`).

Everything here runs on the daemon's main loop, one call at a time: watchdog and
APScheduler threads only put work on that loop's queue, so no bee is ever processed
twice at once and no lock guards these objects.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from pathlib import Path

import structlog

from horizon.core.errors import JournalError
from horizon.core.settings import (
    GlobalConfig,
)
from horizon.core.summarizer import ModelResult
from horizon.engine.bee_engine import BeeEngine, Input, ReadNew, SweepAges
from horizon.engine.stepping import Commit, Pass
from horizon.hive.discovery import discover, file_signature, unrecorded_segments
from horizon.hive.durable import StoreError
from horizon.hive.layout import (
    live_path,
    window_dir,
)
from horizon.hive.lock import HiveLock
from horizon.hive.store import StateTooNew, remove_stale_temps
from horizon.service.bee_settings import BeeSettings
from horizon.service.hive_health import HiveHealth
from horizon.service.logs import get_logger
from horizon.service.metrics import Metrics
from horizon.service.modelwork import ModelWork
from horizon.service.passlog import report_pass, report_refused_records
from horizon.service.polling import StatFallback
from horizon.service.runtime import BeeRuntime
from horizon.service.writer import Writer

log = get_logger()


class HiveService:
    """Serves one hive: holds its lock from `__init__` until `close`."""

    def __init__(self, hive: Path, config: GlobalConfig, config_source: str,
                 models: ModelWork | None = None, lock_wait_s: float = 1.0,
                 metrics: Metrics | None = None, writer: Writer | None = None,
                 lock: HiveLock | None = None) -> None:
        # The lock first: a hive another daemon serves is left as it is found.
        self.lock = lock if lock is not None else HiveLock(hive, wait_s=lock_wait_s)
        self.hive = hive
        self.models = models
        self.writer = writer  # None: each pass writes its files itself (tests, tools)
        self.generations = itertools.count(1)  # of the bees' engines, for their receipts
        self.metrics = metrics
        if metrics is not None:
            metrics.serving(str(hive))
        self.window = window_dir(hive)
        self.config = config
        self.config_source = config_source
        self.bees: dict[str, BeeRuntime] = {}
        self.live_paths: dict[str, str] = {}  # each served bee's live journal, by its path
        self.problems: list[str] = []
        self.unrecorded: list[str] = []
        self.watch_mode = "poll" if config.watch == "poll" else "inotify"
        self.health = HiveHealth(self)
        self.settings = BeeSettings(self)
        self.fallback = StatFallback(hive, self.health.write_failed)
        remove_stale_temps(hive)

    def close(self) -> None:
        self.lock.release()

    def bind(self, bee: str | None = None) -> contextlib.AbstractContextManager[None]:
        return structlog.contextvars.bound_contextvars(hive=str(self.hive), bee=bee)

    # -- bees and their settings --------------------------------------------------------

    def refresh_bees(self) -> list[str]:
        """Pick up bees that appeared; returns the new ones."""
        bees, problems = discover(self.hive, served=self.bees)
        for problem in set(problems) - set(self.problems):
            with self.bind():
                log.warning("hive.problem", problem=problem)
        self.problems = problems
        unrecorded = unrecorded_segments(self.hive, bees)
        for segment in sorted(set(unrecorded) - set(self.unrecorded)):
            with self.bind():
                log.warning("archive.unrecorded", segment=segment,
                            hint="never read; horizon adopt takes it in")
        self.unrecorded = unrecorded
        new = [bee for bee in bees if bee not in self.bees]
        for bee in new:
            self.bees[bee] = BeeRuntime(bee, live_path=str(live_path(self.window, bee)))
            self.settings.load(self.bees[bee])
        for gone in set(self.bees) - set(bees):
            del self.bees[gone]
        self.live_paths = {runtime.live_path: name for name, runtime in self.bees.items()}
        if self.metrics is not None:
            self.metrics.served(str(self.hive), self.bees)
        self.fallback.note_window()
        return new

    # -- passes -------------------------------------------------------------------------

    def mark_dirty(self, bee: str, now: float) -> BeeRuntime | None:
        runtime = self.bees.get(bee)
        if runtime is None:
            return None
        runtime.schedule.wrote(now)
        return runtime

    def due_at(self, runtime: BeeRuntime) -> float:
        """Monotonic instant of the next pass: debounce_s after the last write, and never
        later than max_wait_s after the first unprocessed one."""
        return runtime.schedule.due_at(runtime.horizon, time.monotonic())

    def process(self, bee: str, *, sweep_only: bool = False) -> Pass | None:
        """Read what is new for `bee`, step its zones, write its view when it changed."""
        runtime = self.bees.get(bee)
        if runtime is None:
            return None
        first_dirty, was_dirty = runtime.schedule.start_pass()
        if runtime.engine is None:
            return None  # refused settings: untouched until a reload fixes them
        given: Input = SweepAges(reoffer=self.models is not None) if sweep_only else ReadNew()
        outcome = self._run(runtime, runtime.engine, given)
        if outcome is None and sweep_only and was_dirty:
            runtime.schedule.still_waiting(first_dirty)  # nothing could age, nothing read
        if outcome is not None and outcome.more:
            runtime.schedule.behind(first_dirty, time.monotonic())
        elif outcome is not None and outcome.committed and first_dirty is not None:
            if outcome.commit is not None and self.writer is not None:
                outcome.commit.receipt.first_dirty = first_dirty  # observed once written
            elif self.metrics is not None:
                self.metrics.write_to_view.observe(time.monotonic() - first_dirty)
        return outcome

    def written(self, commit: Commit, error: str | None) -> bool:
        """A writer thread's news of a pass's files. A failure resets the bee's engine to
        what the disk holds (its later commits were dropped); True when the bee needs a
        pass again."""
        runtime = self.bees.get(commit.bee)
        if runtime is None:
            return False
        if error is not None:
            if commit.receipt.generation != runtime.generation:
                return False  # a former engine's: this one was made from the disk after it
            if runtime.engine is not None:
                runtime.engine.reset()
            if self.writer is not None:
                self.writer.recovered((self.hive, commit.bee))
            self.health.write_failed(runtime, error)
            return True
        with self.bind(commit.bee):
            if commit.receipt.logged is not None:
                log.info("handoff.written", **commit.receipt.logged)
            self.health.recovered(runtime)
        first_dirty = commit.receipt.first_dirty
        if first_dirty is not None and self.metrics is not None:
            self.metrics.write_to_view.observe(time.monotonic() - first_dirty)
        return False

    def apply_model(self, bee: str, result: ModelResult) -> None:
        """A model's result goes through the bee's engine like any other input."""
        runtime = self.bees.get(bee)
        if runtime is None:
            return
        with self.bind(bee):
            for fallback in result.fallbacks:
                log.warning("summarizer.fallback", kind=result.kind,
                            summarizer=fallback.level, reason=fallback.reason)
        if self.metrics is not None:
            for fallback in result.fallbacks:
                self.metrics.summarizer_fallbacks.labels(fallback.level).inc()
            written = result.condensed or result.folded
            if written is not None:
                self.metrics.summarizer_calls.labels(written.level).inc()
        if result.kind == "condense":
            runtime.inflight.condense.discard((result.seqs[0], result.content))
        else:
            runtime.inflight.fold = False
        if runtime.engine is None:
            return
        self._run(runtime, runtime.engine, result)

    def _run(self, runtime: BeeRuntime, engine: BeeEngine, given: Input) -> Pass | None:
        # The live journal as this pass starts: seen by it only if the pass reads (a sweep
        # with nothing to age returns before reading, and must not hide new lines).
        live_before = file_signature(runtime.live_path)
        with self.bind(runtime.name):
            started = time.perf_counter()
            try:
                outcome = engine.run(given, time.time())
            except (StoreError, OSError) as error:
                self.health.write_failed(runtime, str(error))
                return None
            except StateTooNew as error:
                if runtime.state_error != str(error):
                    log.error("store.state_too_new", reason=str(error))
                runtime.state_error = str(error)
                return None
            except JournalError as error:
                # A journal that is not a regular file, a link, unreadable: the bee is
                # refused and reported until its files are fixed.
                if runtime.state_error != str(error):
                    log.error("bee.refused", reason=str(error))
                runtime.state_error = str(error)
                runtime.seen_live = live_before  # looked at again once its files change
                engine.reset()
                return None
            finally:
                # Even when the pass failed: the rotation it finished stays finished.
                for segment in engine.take_finished():
                    log.warning("archive.rotation_finished", segment=segment)
                report_refused_records(runtime, engine)
            if not isinstance(given, ModelResult):
                runtime.state_error = None  # a pass went through: the bee's files are fine
                if outcome is not None:
                    runtime.seen_live = live_before
            if outcome is not None:
                report_pass(self.health, runtime, given, outcome,
                            deferred=outcome.commit is not None and self.writer is not None)
                if outcome.committed:
                    runtime.passes += 1
                    runtime.last_pass = time.time()
                    if self.metrics is not None:
                        self.metrics.record_pass(str(self.hive), runtime.name, runtime.horizon,
                                                 outcome, time.perf_counter() - started,
                                                 isinstance(given, ModelResult))
            self._offer_to_models(runtime, engine, given, outcome)
        return outcome

    def _offer_to_models(self, runtime: BeeRuntime, engine: BeeEngine, given: Input,
                         outcome: Pass | None) -> None:
        """After a load from disk, and at each sweep, entries truncation condensed earlier
        (a restart, a closed model) are offered to the models again."""
        if self.models is None or engine.state is None:
            return
        if isinstance(given, ModelResult):
            self.models.submit(self.hive, runtime.name, engine.effective, engine.state, [],
                               runtime.inflight, engine.manifest)
            return
        if outcome is None:
            return
        self.models.submit(self.hive, runtime.name, engine.effective, engine.state,
                           outcome.changes.to_condense, runtime.inflight, engine.manifest,
                           upgrade=isinstance(given, SweepAges) or outcome.loaded)

    def forget_state(self, bee: str) -> None:
        """The bee's engine reads the disk again: its next pass rebuilds what is gone."""
        engine = self.bees[bee].engine
        if engine is not None:
            engine.reset()
