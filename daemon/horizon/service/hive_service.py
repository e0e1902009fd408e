"""One hive served by the daemon: its bees, their passes, rotation, sealing, heartbeat.

Everything here runs on the daemon's main loop, one call at a time: watchdog and
APScheduler threads only put work on that loop's queue, so no bee is ever processed
twice at once and no lock guards these objects.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from horizon import __version__
from horizon.core.entries import format_instant
from horizon.core.render import render
from horizon.core.settings import Effective, GlobalConfig, SettingsError
from horizon.core.summarizer import TRUNCATION, ModelResult
from horizon.core.upgrades import take_condensed, take_folded
from horizon.core.zones import has_aged
from horizon.engine.bee_pass import Pass, commit, context, run_pass
from horizon.hive.discovery import discover, file_signature
from horizon.hive.durable import JournalError, StoreError
from horizon.hive.heartbeat import BeeHealth, Heartbeat, write_heartbeat
from horizon.hive.layout import derived_root, live_name, live_path, window_dir
from horizon.hive.lock import HiveLock
from horizon.hive.manifest import Manifest, read_manifest
from horizon.hive.rotation import finish_rotations, rotate
from horizon.hive.settings_files import bee_file, effective_settings, hive_file
from horizon.hive.store import (
    StateTooNew,
    load_state,
    read_handoff,
    remove_stale_temps,
    save,
    save_state,
)
from horizon.service.logs import get_logger
from horizon.service.modelwork import InFlight, ModelWork
from horizon.service.passlog import log_pass
from horizon.service.polling import StatFallback
from horizon.summarize.cascade import level_names

BACKOFF_MIN_S = 1.0
BACKOFF_MAX_S = 60.0
ROTATE_RETRY_S = 60.0
log = get_logger()


@dataclass
class BeeRuntime:
    """What the daemon keeps in memory for one bee between passes."""

    name: str
    live_path: str = ""  # the live journal, as the stat fallback looks at it each poll
    effective: Effective | None = None
    settings_error: str | None = None
    state_error: str | None = None
    state: Any = None  # BeeState once loaded; None means: load it from disk
    manifest: Manifest | None = None
    dirty: bool = False
    first_dirty: float | None = None
    last_write: float | None = None
    late_check: set[str] = field(default_factory=set)
    quiet_since: dict[str, tuple[int, float]] = field(default_factory=dict)
    write_failed: bool = False
    backoff_s: float = BACKOFF_MIN_S
    retry_at: float = 0.0
    last_text: str | None = None
    inflight: InFlight = field(default_factory=InFlight)
    rotate_retry_at: float = 0.0


class HiveService(StatFallback):
    """Serves one hive: holds its lock from `__init__` until `close`."""

    def __init__(self, hive: Path, config: GlobalConfig, config_source: str,
                 models: ModelWork | None = None) -> None:
        self.hive = hive
        self.models = models
        self.window = window_dir(hive)
        self.config = config
        self.config_source = config_source
        self.lock = HiveLock(hive)
        self.bees: dict[str, BeeRuntime] = {}
        self.problems: list[str] = []
        self.started = format_instant(time.time())
        self.watch_mode = "poll" if config.watch == "poll" else "inotify"
        self.settings_seen: dict[Path, tuple[int, int, int] | None] = {}
        self.window_seen: tuple[int, int, int] | None = None
        remove_stale_temps(hive)

    def close(self) -> None:
        self.lock.release()

    def bind(self, bee: str | None = None) -> Any:
        return structlog.contextvars.bound_contextvars(hive=str(self.hive), bee=bee)

    # -- bees and their settings --------------------------------------------------------

    def refresh_bees(self) -> list[str]:
        """Pick up bees that appeared; returns the new ones."""
        bees, problems = discover(self.hive)
        for problem in set(problems) - set(self.problems):
            with self.bind():
                log.warning("hive.problem", problem=problem)
        self.problems = problems
        new = [bee for bee in bees if bee not in self.bees]
        for bee in new:
            self.bees[bee] = BeeRuntime(bee, live_path=str(live_path(self.window, bee)))
            self.load_settings(self.bees[bee])
        for gone in set(self.bees) - set(bees):
            del self.bees[gone]
        self.window_seen = file_signature(self.window)
        return new

    def load_settings(self, runtime: BeeRuntime) -> bool:
        """Reload one bee's settings; False when refused (the last good ones stay)."""
        try:
            effective = effective_settings(self.config, self.config_source, self.hive,
                                           runtime.name)
        except SettingsError as error:
            if runtime.settings_error != str(error):
                with self.bind(runtime.name):
                    log.error("config.rejected", file=error.source, key=error.key,
                              reason=error.reason)
            runtime.settings_error = str(error)
            return False
        runtime.settings_error = None
        runtime.effective = effective
        return True

    def settings_files(self) -> list[Path]:
        files = [hive_file(self.hive)]
        files += [bee_file(self.hive, bee) for bee in self.bees]
        return files

    # -- one pass -------------------------------------------------------------------------

    def mark_dirty(self, bee: str, now: float) -> BeeRuntime | None:
        runtime = self.bees.get(bee)
        if runtime is None:
            return None
        runtime.dirty = True
        runtime.last_write = now
        if runtime.first_dirty is None:
            runtime.first_dirty = now
        return runtime

    def due_at(self, runtime: BeeRuntime) -> float:
        """Monotonic instant of the next pass: debounce_s after the last write, and never
        later than max_wait_s after the first unprocessed one."""
        settings = runtime.effective.horizon if runtime.effective else None
        debounce = settings.debounce_s if settings else 2.0
        max_wait = settings.max_wait_s if settings else 10.0
        last = runtime.last_write or time.monotonic()
        first = runtime.first_dirty or last
        return max(runtime.retry_at, min(last + debounce, first + max_wait))

    def process(self, bee: str, *, sweep_only: bool = False) -> Pass | None:
        """Read what is new for `bee`, step its zones, write its view when it changed."""
        runtime = self.bees.get(bee)
        if runtime is None:
            return None
        if runtime.effective is None:
            runtime.dirty = False  # refused settings: untouched until a reload fixes them
            return None
        runtime.dirty = False
        runtime.first_dirty = None
        with self.bind(bee):
            try:
                return self._process(runtime, sweep_only)
            except (StoreError, OSError) as error:
                self._write_failed(runtime, str(error))
            except StateTooNew as error:
                if runtime.state_error != str(error):
                    log.error("store.state_too_new", reason=str(error))
                runtime.state_error = str(error)
            except JournalError as error:
                # A journal that is not a regular file, a link, unreadable: the bee is
                # refused and reported until its files are fixed.
                if runtime.state_error != str(error):
                    log.error("bee.refused", reason=str(error))
                runtime.state_error = str(error)
                runtime.state = None
                runtime.manifest = None
        return None

    def _process(self, runtime: BeeRuntime, sweep_only: bool) -> Pass | None:
        assert runtime.effective is not None
        if sweep_only and runtime.state is not None and not self._may_age(runtime):
            return None  # nothing in net can have aged: a sweep costs one comparison
        if runtime.manifest is None:
            runtime.manifest = read_manifest(self.window, runtime.name)
            for segment in finish_rotations(self.window, runtime.name, runtime.manifest):
                log.warning("archive.rotation_finished", segment=segment)
        loaded = runtime.state is None
        if runtime.state is None:
            runtime.state = load_state(self.hive, runtime.name)
            runtime.late_check |= set(runtime.manifest.rotated)  # catch up on every segment
            runtime.last_text = read_handoff(self.hive, runtime.name)
        runtime.state_error = None
        late = None if not runtime.late_check else (
            runtime.late_check | {name for name in runtime.manifest.rotated
                                  if name not in runtime.manifest.sealed})
        cache = self.models.cache(self.hive) if self.models else None
        outcome = run_pass(self.hive, runtime.name, self.config, runtime.effective, time.time(),
                           runtime.state, manifest=runtime.manifest, late_segments=late,
                           cache=cache)
        runtime.manifest = outcome.manifest  # a retried pass starts from a fresh one
        changed = (outcome.read or outcome.changes.evicted or outcome.notes.records
                   or outcome.rebuilt or outcome.view.text != runtime.last_text)
        if sweep_only and not changed:
            return outcome
        if changed:
            try:
                commit(self.hive, runtime.name, outcome)
            except (StoreError, OSError):
                runtime.state = None  # the disk still holds the last good state: start there
                runtime.manifest = None
                raise
        runtime.state = outcome.state
        runtime.late_check.clear()
        runtime.last_text = outcome.view.text
        self._recovered(runtime)
        if changed:
            log_pass(outcome)
        self._maybe_rotate(runtime)
        if self.models is not None:
            # After a load from disk, and at each sweep, entries truncation condensed
            # earlier (a restart, a closed model) are offered to the models again.
            self.models.submit(self.hive, runtime.name, runtime.effective, runtime.state,
                               outcome.changes.to_condense, runtime.inflight, runtime.manifest,
                               upgrade=sweep_only or loaded)
        return outcome

    # -- model results ------------------------------------------------------------------

    def apply_model(self, bee: str, result: ModelResult) -> None:
        """A model's text replaces truncation's, if what it was asked about is still there."""
        runtime = self.bees.get(bee)
        if runtime is None:
            return
        with self.bind(bee):
            for fallback in result.fallbacks:
                log.warning("summarizer.fallback", kind=result.kind,
                            summarizer=fallback.level, reason=fallback.reason)
            if result.kind == "condense":
                runtime.inflight.condense.discard((result.seqs[0], result.content))
            else:
                runtime.inflight.fold = False
            state = runtime.state
            if state is None or runtime.effective is None:
                return
            state.fallbacks += len(result.fallbacks)
            cache = self.models.cache(self.hive) if self.models else None
            ctx = context(bee, runtime.effective, time.time(),
                          level_names(self.config, runtime.effective), cache)
            zones = state.zones
            if result.kind == "condense":
                changed = take_condensed(zones, result, ctx)
            else:
                changed = take_folded(zones, result, ctx)
            if changed:
                view = render(zones, bee, runtime.effective.horizon, runtime.effective.mission)
                try:
                    save(self.hive, bee, state, view.text)
                except StoreError as error:
                    self._write_failed(runtime, str(error))
                    runtime.state = None
                    runtime.manifest = None
                    return
                runtime.last_text = view.text
                log.info("handoff.written", chars=len(view.text), cap=view.summary.get("cap"),
                         up_to=zones.up_to, source=result.kind)
            if self.models is not None:
                self.models.submit(self.hive, bee, runtime.effective, state, [],
                                   runtime.inflight, runtime.manifest)

    def _may_age(self, runtime: BeeRuntime) -> bool:
        """Whether a sweep could evict anything: a non-last exchange older than the age
        limit, or model texts still to offer (the sweep re-offers them)."""
        assert runtime.effective is not None
        settings = runtime.effective.horizon
        zones = runtime.state.zones
        if self.models is not None and any(item.source == TRUNCATION
                                           for item in zones.condense):
            return bool(level_names(self.config, runtime.effective))
        return settings.actif and has_aged(zones, settings, time.time())

    def _maybe_rotate(self, runtime: BeeRuntime) -> None:
        state = runtime.state
        checkpoint = state.checkpoint
        if (checkpoint.segment != live_name(runtime.name)
                or checkpoint.lines < self.config.rotation_entries
                or runtime.manifest is None):
            return
        if time.monotonic() < runtime.rotate_retry_at:
            return
        try:
            moved = rotate(self.window, runtime.name, checkpoint, runtime.manifest)
        except OSError as error:
            # No hard links here, a full disk...: the journal keeps growing, nothing is
            # lost, and the rotation is tried again later.
            runtime.rotate_retry_at = time.monotonic() + ROTATE_RETRY_S
            log.error("archive.rotate_failed", reason=f"{error.filename}: {error.strerror}",
                      retry_in_s=ROTATE_RETRY_S)
            return
        if moved is None:
            return
        state.checkpoint = moved
        if checkpoint.segment in state.segments:
            state.segments[moved.segment] = state.segments.pop(checkpoint.segment)
        runtime.quiet_since[moved.segment] = (moved.offset, time.monotonic())
        log.info("archive.rotated", segment=moved.segment, lines=checkpoint.lines,
                 up_to=checkpoint.seq)
        # The checkpoint follows the moved file; saving it now spares a restart the search.
        save_state(self.hive, runtime.name, state)

    def _write_failed(self, runtime: BeeRuntime, reason: str) -> None:
        now = time.monotonic()
        if not runtime.write_failed or now >= runtime.retry_at:
            log.error("store.write_failed", reason=reason, retry_in_s=runtime.backoff_s)
        runtime.write_failed = True
        runtime.retry_at = now + runtime.backoff_s
        runtime.backoff_s = min(runtime.backoff_s * 2, BACKOFF_MAX_S)
        runtime.dirty = True
        runtime.first_dirty = runtime.first_dirty or now

    def _recovered(self, runtime: BeeRuntime) -> None:
        if runtime.write_failed:
            log.info("store.recovered")
        runtime.write_failed = False
        runtime.backoff_s = BACKOFF_MIN_S
        runtime.retry_at = 0.0

    # -- heartbeat ------------------------------------------------------------------------

    def heartbeat(self) -> None:
        now = time.time()
        bees = {}
        for name, runtime in self.bees.items():
            lag = 0.0
            if runtime.dirty and runtime.first_dirty is not None:
                lag = round(time.monotonic() - runtime.first_dirty, 3)
            bees[name] = BeeHealth(
                lag_s=lag, write_failed=runtime.write_failed,
                error=runtime.settings_error or runtime.state_error,
            )
        beat = Heartbeat(pid=os.getpid(), version=__version__, started=self.started,
                         beat=format_instant(now), beat_epoch=now, watch=self.watch_mode,
                         bees=bees)
        try:
            write_heartbeat(self.hive, beat)
        except StoreError as error:
            with self.bind():
                log.error("store.write_failed", file="daemon.json", reason=str(error))

    def derived_missing(self) -> bool:
        return not derived_root(self.hive).is_dir()

    def forget_states(self) -> None:
        for runtime in self.bees.values():
            runtime.state = None
            runtime.last_text = None
