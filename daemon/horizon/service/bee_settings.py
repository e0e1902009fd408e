"""A served bee's settings: loaded (or refused, the last good ones serving), its engine
made with them, a summarizer it asks for that cannot run, and a new config.json."""

from __future__ import annotations

import itertools
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

import msgspec

from horizon.core.errors import JournalError, SettingsError
from horizon.core.settings import Effective, GlobalConfig, level_names, unavailable_levels
from horizon.core.summarizer import TRUNCATION
from horizon.engine.bee_engine import BeeEngine
from horizon.engine.stepping import Commit
from horizon.hive.durable import StoreError
from horizon.hive.layout import bee_settings_path
from horizon.hive.settings_files import effective_settings
from horizon.hive.store import StateTooNew, load_state
from horizon.service import logs
from horizon.service.hive_health import HiveHealth
from horizon.service.modelwork import ModelWork
from horizon.service.runtime import BeeRuntime
from horizon.service.writer import Writer

log = logs.get_logger()


class ServedHive(Protocol):
    """What a bee's settings need of the service that owns them (a HiveService)."""

    hive: Path
    config: GlobalConfig
    config_source: str
    bees: dict[str, BeeRuntime]
    models: ModelWork | None
    writer: Writer | None
    generations: itertools.count[int]
    health: HiveHealth

    def bind(self, bee: str | None = None) -> AbstractContextManager[None]: ...


# One pass reads at most this much of a bee's backlog, so one bee never holds the loop:
# the other bees and systemd's watchdog are served between two slices.
SLICE_BYTES = 4 << 20
SLICE_S = 0.05


class BeeSettings:
    """Loads the settings of a hive's bees and makes their engines with them."""

    def __init__(self, service: ServedHive) -> None:
        self.service = service
        self.rejected_logged: set[str] = set()  # settings errors in force, logged once each
        self.unavailable_logged: set[tuple[str, str]] = set()  # (summarizer, why), likewise

    def load(self, runtime: BeeRuntime) -> bool:
        """Reload one bee's settings; False when refused (the last good ones stay)."""
        service = self.service
        try:
            effective = effective_settings(service.config, service.config_source, service.hive,
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
                own = error.source == str(bee_settings_path(service.hive, runtime.name))
                with service.bind(runtime.name if own else None):
                    log.error("config.rejected", file=error.source, key=error.key,
                              reason=error.reason, consequence=(
                                  "the last good settings serve" if runtime.engine is not None
                                  else "not served until the file is fixed"))
            self._settings_error(runtime, str(error))
            return False
        self._settings_error(runtime, None)
        runtime.unavailable = {}
        self._report_unavailable(runtime, effective)
        if runtime.engine is None:
            self._make_engine(runtime, effective)
        else:
            runtime.engine.config = service.config
            runtime.engine.effective = effective
        return True

    def _make_engine(self, runtime: BeeRuntime, effective: Effective) -> None:
        service = self.service
        cache = service.models.cache(service.hive) if service.models else None
        engine = BeeEngine(service.hive, runtime.name, service.config, effective, cache=cache,
                           slice_bytes=SLICE_BYTES, slice_s=SLICE_S)
        writer = service.writer
        if writer is not None:
            key = (service.hive, runtime.name)
            # A new engine starts from the disk: once a former engine's commits for this
            # bee are on it, and even if the last of them failed after its bee was let go.
            writer.wait(key)
            writer.recovered(key)

            # Numbered across the hive's bees and their comings and goings: a bee let go
            # and served again never reuses a former engine's number.
            generation = runtime.generation = next(service.generations)

            def deliver(commit: Commit) -> None:
                commit.receipt.generation = generation  # whose commit: see written
                writer.submit(key, commit)

            engine.deliver = deliver
            engine.wait_written = lambda: writer.wait(key) and not writer.has_failed(key)
        runtime.engine = engine

    def _last_good(self, bee: str) -> Effective | None:
        service = self.service
        try:
            state = load_state(service.hive, bee)
        except (StateTooNew, StoreError, JournalError, OSError):
            return None
        return state.settings if state is not None else None

    def _settings_error(self, runtime: BeeRuntime, error: str | None) -> None:
        """A bee's settings refused or mended: status says so now, not at the next beat
        (a bee being taken up beats when its hive is served)."""
        changed = runtime.settings_error != error
        runtime.settings_error = error
        if changed and runtime.engine is not None:
            self.service.health.heartbeat()

    def _report_unavailable(self, runtime: BeeRuntime, effective: Effective) -> None:
        """A summarizer the settings ask for and that cannot run: said once per cause."""
        service = self.service
        for level, reason in unavailable_levels(service.config, effective).items():
            runtime.unavailable[level] = reason
            if (level, reason) not in self.unavailable_logged:
                self.unavailable_logged.add((level, reason))
                with service.bind():
                    log.warning("summarizer.unavailable", summarizer=level, reason=reason,
                                serving=effective.levels[0] if effective.levels
                                else TRUNCATION)

    def reloaded(self) -> None:
        """After every bee's settings were loaded again: a fixed file is logged again the
        next time it breaks."""
        service = self.service
        self.rejected_logged = {runtime.settings_error for runtime in service.bees.values()
                                if runtime.settings_error}
        self.unavailable_logged = {(level, reason) for runtime in service.bees.values()
                                   for level, reason in runtime.unavailable.items()}

    def reconfigure(self, config: GlobalConfig) -> None:
        """A new config.json: every engine works with it from its next pass, including
        the model levels of a bee whose own settings are refused (its last good ones)."""
        service = self.service
        service.config = config
        for runtime in service.bees.values():
            engine = runtime.engine
            if engine is not None:
                engine.config = config
                engine.effective = msgspec.structs.replace(
                    engine.effective, levels=level_names(config, engine.effective))
