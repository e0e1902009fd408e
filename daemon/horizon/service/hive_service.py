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

import msgspec
import structlog

from horizon.core.errors import JournalError, SettingsError
from horizon.core.settings import (
    Effective,
    GlobalConfig,
    HorizonSettings,
    level_names,
    unavailable_levels,
)
from horizon.core.summarizer import TRUNCATION, ModelResult
from horizon.engine.bee_engine import BeeEngine, Input, ReadNew, SweepAges
from horizon.engine.stepping import Commit, Pass
from horizon.hive.discovery import discover, file_signature, unrecorded_segments
from horizon.hive.durable import StoreError
from horizon.hive.layout import (
    bee_settings_path,
    live_path,
    window_dir,
)
from horizon.hive.lock import HiveLock
from horizon.hive.settings_files import effective_settings
from horizon.hive.store import StateTooNew, load_state, remove_stale_temps
from horizon.service.hive_health import HiveHealth
from horizon.service.logs import get_logger
from horizon.service.metrics import Metrics
from horizon.service.modelwork import ModelWork
from horizon.service.passlog import report_pass, report_refused_records
from horizon.service.polling import StatFallback
from horizon.service.runtime import BeeRuntime
from horizon.service.writer import Writer

log = get_logger()
DEFAULTS = HorizonSettings()
# One pass reads at most this much of a bee's backlog, so one bee never holds the loop:
# the other bees and systemd's watchdog are served between two slices.
SLICE_BYTES = 4 << 20
SLICE_S = 0.05


class HiveService:
    """Serves one hive: holds its lock from `__init__` until `close`."""

    def __init__(self, hive: Path, config: GlobalConfig, config_source: str,
                 models: ModelWork | None = None, lock_wait_s: float = 1.0,
                 metrics: Metrics | None = None, writer: Writer | None = None) -> None:
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
        self.lock = HiveLock(hive, wait_s=lock_wait_s)
        self.bees: dict[str, BeeRuntime] = {}
        self.live_paths: dict[str, str] = {}  # each served bee's live journal, by its path
        self.problems: list[str] = []
        self.rejected_logged: set[str] = set()  # settings errors in force, logged once each
        self.unavailable_logged: set[tuple[str, str]] = set()  # (summarizer, why), likewise
        self.unrecorded: list[str] = []
        self.watch_mode = "poll" if config.watch == "poll" else "inotify"
        self.health = HiveHealth(self)
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
            self.load_settings(self.bees[bee])
        for gone in set(self.bees) - set(bees):
            del self.bees[gone]
        self.live_paths = {runtime.live_path: name for name, runtime in self.bees.items()}
        if self.metrics is not None:
            self.metrics.served(str(self.hive), self.bees)
        self.fallback.note_window()
        return new

    def load_settings(self, runtime: BeeRuntime) -> bool:
        """Reload one bee's settings; False when refused (the last good ones stay)."""
        try:
            effective = effective_settings(self.config, self.config_source, self.hive,
                                           runtime.name)
        except SettingsError as error:
            if runtime.engine is None:
                # Just started: the last good settings are those its state was made with.
                last_good = self._last_good(runtime.name)
                if last_good is not None:
                    self._make_engine(runtime, last_good)
            # One line per broken file, however many bees it serves.
            if str(error) not in self.rejected_logged:
                self.rejected_logged.add(str(error))
                own = error.source == str(bee_settings_path(self.hive, runtime.name))
                with self.bind(runtime.name if own else None):
                    log.error("config.rejected", file=error.source, key=error.key,
                              reason=error.reason, consequence=(
                                  "the last good settings serve" if runtime.engine is not None
                                  else "not served until the file is fixed"))
            runtime.settings_error = str(error)
            return False
        runtime.settings_error = None
        runtime.unavailable = {}
        self._report_unavailable(runtime.name, effective)
        if runtime.engine is None:
            self._make_engine(runtime, effective)
        else:
            runtime.engine.config = self.config
            runtime.engine.effective = effective
        return True

    def _make_engine(self, runtime: BeeRuntime, effective: Effective) -> None:
        cache = self.models.cache(self.hive) if self.models else None
        engine = BeeEngine(self.hive, runtime.name, self.config, effective, cache=cache,
                           slice_bytes=SLICE_BYTES, slice_s=SLICE_S)
        writer = self.writer
        if writer is not None:
            key = (self.hive, runtime.name)
            # A new engine starts from the disk: once a former engine's commits for this
            # bee are on it, and even if the last of them failed after its bee was let go.
            writer.wait(key)
            writer.recovered(key)

            # Numbered across the hive's bees and their comings and goings: a bee let go
            # and served again never reuses a former engine's number.
            generation = runtime.generation = next(self.generations)

            def deliver(commit: Commit) -> None:
                commit.receipt.generation = generation  # whose commit: see written
                writer.submit(key, commit)

            engine.deliver = deliver
            engine.wait_written = lambda: writer.wait(key) and not writer.has_failed(key)
        runtime.engine = engine

    def _last_good(self, bee: str) -> Effective | None:
        try:
            state = load_state(self.hive, bee)
        except (StateTooNew, StoreError, JournalError, OSError):
            return None
        return state.settings if state is not None else None

    def _report_unavailable(self, bee: str, effective: Effective) -> None:
        """A summarizer the settings ask for and that cannot run: said once per cause."""
        for level, reason in unavailable_levels(self.config, effective).items():
            runtime = self.bees.get(bee)
            if runtime is not None:
                runtime.unavailable[level] = reason
            if (level, reason) not in self.unavailable_logged:
                self.unavailable_logged.add((level, reason))
                with self.bind():
                    log.warning("summarizer.unavailable", summarizer=level, reason=reason,
                                serving=effective.levels[0] if effective.levels
                                else TRUNCATION)

    def settings_reloaded(self) -> None:
        """After every bee's settings were loaded again: a fixed file is logged again the
        next time it breaks."""
        self.rejected_logged = {runtime.settings_error for runtime in self.bees.values()
                                if runtime.settings_error}
        self.unavailable_logged = {(level, reason) for runtime in self.bees.values()
                                   for level, reason in runtime.unavailable.items()}

    def reconfigure(self, config: GlobalConfig) -> None:
        """A new config.json: every engine works with it from its next pass, including
        the model levels of a bee whose own settings are refused (its last good ones)."""
        self.config = config
        for runtime in self.bees.values():
            engine = runtime.engine
            if engine is not None:
                engine.config = config
                engine.effective = msgspec.structs.replace(
                    engine.effective, levels=level_names(config, engine.effective))

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
        settings = runtime.effective.horizon if runtime.effective else DEFAULTS
        return runtime.schedule.due_at(settings, time.monotonic())

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
                        settings = (runtime.effective.horizon if runtime.effective
                                    else DEFAULTS)
                        self.metrics.record_pass(str(self.hive), runtime.name, settings,
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

    # -- the stat fallback ----------------------------------------------------------------

    def changed_bees(self) -> list[str]:
        changed = self.fallback.changed_bees(self.bees, self.config.rotate_wait_s)
        if self.watch_mode == "poll":
            changed += [bee for bee in self.fallback.sealed_grew(self.bees)
                        if bee not in changed]
        return changed

    def live_event(self, bee: str) -> None:
        """An event on a live journal's name. inotify names a write by the name its file
        was opened under: a writer holding a descriptor on a journal since moved to the
        archive shows as a write to the live name. When the live file itself did not
        change, the bee's rotated segments are the ones to look at."""
        runtime = self.bees.get(bee)
        if runtime is not None and file_signature(runtime.live_path) == runtime.seen_live:
            self.fallback.grown_segments(runtime)

    def settings_changed(self) -> bool:
        return self.fallback.settings_changed(list(self.bees), self.watch_mode == "poll")

    def window_changed(self) -> bool:
        return self.fallback.window_changed()

    def forget_state(self, bee: str) -> None:
        """The bee's engine reads the disk again: its next pass rebuilds what is gone."""
        engine = self.bees[bee].engine
        if engine is not None:
            engine.reset()
