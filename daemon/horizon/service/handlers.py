"""One function per message the loop's queue carries (`service.messages`); each is handed
the daemon's state and the message, and is the only code that acts on that message."""

from __future__ import annotations

import time
from pathlib import Path

from horizon.hive.layout import (
    ArchiveSegment,
    FlagsFile,
    HiveFolder,
    LiveJournal,
    SettingsFile,
    classify,
)
from horizon.service import hives, polling
from horizon.service.health import beat
from horizon.service.messages import (
    Beat,
    Continue,
    FileEvent,
    ModelDone,
    Poll,
    Reload,
    Sweep,
    Written,
)
from horizon.service.state import DaemonState


def on_file_event(state: DaemonState, event: FileEvent) -> None:
    """A watched folder's entry changed: a bee wrote, settings or flags were edited, a
    hive's folders came or went."""
    path = event.path
    name = str(path)
    if state.config_path is not None and name == str(state.config_path):
        hives.request_reload(state)
        return
    for service in state.services.values():
        bee = service.live_paths.get(name)
        if bee is not None:  # the usual event, found without taking the path apart
            polling.live_event(service, bee)
            state.bee_wrote(service, bee)
            return
    for hive, service in state.services.items():
        match classify(hive, path):
            case None:
                continue
            case SettingsFile():
                hives.request_reload(state)
            case HiveFolder():
                if state.watcher is not None:
                    hives.watch_hive(state, service)
            case LiveJournal(bee):
                polling.live_event(service, bee)
                state.bee_wrote(service, bee)
            case ArchiveSegment(bee, segment):
                runtime = service.bees.get(bee)
                if runtime is not None:
                    runtime.note_late(segment)
                    state.bee_wrote(service, bee)
            case FlagsFile(bee):
                if bee in service.bees:
                    state.bee_wrote(service, bee)
        return


def on_written(state: DaemonState, item: Written) -> None:
    """The writer wrote a pass's files, or failed to: a failed bee is retried after its
    back-off."""
    service = state.services.get(item.commit.hive)
    if (service is not None and service.written(item.commit, item.error)
            and not state.stopping):
        state.schedule(service, item.commit.bee)


def on_continue(state: DaemonState, item: Continue) -> None:
    state.continuing.discard((item.hive, item.bee))
    state.process(item.hive, item.bee)


def on_poll(state: DaemonState, _: Poll) -> None:
    """The stat fallback: what events missed, new bees, settings edits, a lost horizon/."""
    reload_needed = state.config_path is not None and state.config_changed()
    for hive in [hive for hive in state.missing if hive.is_dir()]:
        hives.take_up(state, hive)
    for service in state.services.values():
        if polling.window_changed(service):
            for bee in service.refresh_bees():
                state.bee_wrote(service, bee)
        for bee in polling.changed_bees(service):
            if not service.bees[bee].schedule.dirty:
                state.bee_wrote(service, bee)
        for bee, runtime in service.bees.items():
            # Every dirty bee has a deadline or a continuation; a safety net all the same.
            key = (service.hive, bee)
            if (runtime.schedule.dirty and key not in state.deadlines
                    and key not in state.continuing):
                state.schedule(service, bee)
        if polling.settings_changed(service):
            reload_needed = True
    if reload_needed:
        hives.request_reload(state)


def on_sweep(state: DaemonState, _: Sweep) -> None:
    """Age eviction for every bee not waiting out a back-off."""
    now = time.monotonic()
    for service in state.services.values():
        for bee, runtime in list(service.bees.items()):
            if runtime.schedule.may_run(now):
                outcome = service.process(bee, sweep_only=True)
                if outcome is not None and outcome.more:
                    state.continue_later(service.hive, bee)


def on_beat(state: DaemonState, _: Beat) -> None:
    beat(state)


def on_reload(state: DaemonState, _: Reload) -> None:
    hives.reload(state)


def on_model_done(state: DaemonState, item: ModelDone) -> None:
    serving = state.services.get(item.hive)
    if serving is not None:
        serving.apply_model(item.bee, item.result)


def run_due(state: DaemonState, hive: Path, bee: str) -> None:
    """A bee whose deadline came: its pass, unless its continuation will read it anyway."""
    if (hive, bee) not in state.continuing:
        state.process(hive, bee)
