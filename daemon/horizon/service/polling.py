"""The stat fallback: what inotify events miss (a full queue, a watch limit, a network
filesystem) is found by comparing a few stat() results with what the daemon knows."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from horizon.core.settings import GlobalConfig
from horizon.hive.discovery import file_signature
from horizon.hive.layout import (
    archive_dir,
    bee_settings_path,
    bees_dir,
    flags_path,
    hive_settings_path,
    live_name,
    phares_dir,
    window_dir,
)
from horizon.service.logs import get_logger
from horizon.service.runtime import BeeRuntime

log = get_logger()
SEALED_PER_POLL = 64  # sealed segments stat'ed per poll in poll mode


class StatFallback:
    """One hive's stat fallback; every method runs on the daemon's main loop."""

    def __init__(self, hive: Path, on_write_failed: Callable[[BeeRuntime, str], None]) -> None:
        self.hive = hive
        self.window = window_dir(hive)
        self.on_write_failed = on_write_failed
        self.settings_seen: dict[Path, tuple[int, int, int] | None] = {}
        self.window_seen: tuple[int, int, int] | None = None
        self.sealed_cursor = 0

    def changed_bees(self, bees: dict[str, BeeRuntime], rotate_wait_s: float) -> list[str]:
        """Bees whose files moved since their checkpoint (what lost events would hide)."""
        changed = []
        for name, runtime in bees.items():
            state = runtime.engine.state if runtime.engine is not None else None
            live = file_signature(runtime.live_path)
            if self._unsealed_grew(runtime, rotate_wait_s):
                changed.append(name)
                continue
            if live is not None and live == runtime.seen_live and not runtime.schedule.dirty:
                continue  # as the last pass found it: a partial tail, a refused file
            if state is None:
                if live is not None or runtime.schedule.dirty:
                    changed.append(name)
                continue
            checkpoint = state.checkpoint
            if live is not None and checkpoint.segment == live_name(name):
                if live[0] != checkpoint.ino or live[1] != checkpoint.offset:
                    changed.append(name)
            elif live is not None and live[1] > 0:
                changed.append(name)  # a new live file after a rotation
        return changed

    def grown_segments(self, runtime: BeeRuntime, names: list[str] | None = None) -> bool:
        """Note for the next pass the rotated segments (`names`, else all) that hold bytes
        past what was read of them: a writer's descriptor still open on a moved file."""
        engine = runtime.engine
        manifest = engine.manifest if engine is not None else None
        if manifest is None:
            return False
        grew = False
        for name in manifest.rotated if names is None else names:
            size = file_signature(archive_dir(self.window) / name)
            if size is not None and name in manifest.rotated and (
                    size[1] > manifest.late_end(name)):
                runtime.note_late(name)
                grew = True
        return grew

    def sealed_grew(self, bees: dict[str, BeeRuntime]) -> list[str]:
        """Polling alone sees no event: a few sealed segments are looked at each poll, in
        turn, so a late line in any of them is found within a bounded number of polls."""
        sealed = [(name, segment) for name, runtime in bees.items()
                  if runtime.engine is not None and runtime.engine.manifest is not None
                  for segment in runtime.engine.manifest.sealed]
        if not sealed:
            return []
        start = self.sealed_cursor % len(sealed)
        turn = (sealed + sealed)[start:start + min(SEALED_PER_POLL, len(sealed))]
        self.sealed_cursor = start + len(turn)
        return sorted({name for name, segment in turn
                       if self.grown_segments(bees[name], [segment])})

    def _unsealed_grew(self, runtime: BeeRuntime, rotate_wait_s: float) -> bool:
        engine = runtime.engine
        manifest = engine.manifest if engine is not None else None
        if engine is None or manifest is None:
            return False
        grew = False
        now = time.monotonic()
        for name in manifest.rotated:
            if name in manifest.sealed:
                continue
            size = file_signature(archive_dir(self.window) / name)
            if size is None:
                continue
            seen = runtime.quiet_since.get(name)
            if seen is None or seen[0] != size[1]:
                runtime.quiet_since[name] = (size[1], now)
                if size[1] > manifest.late_end(name):
                    runtime.note_late(name)
                    grew = True
            elif now - seen[1] >= rotate_wait_s and size[1] <= manifest.late_end(name):
                try:
                    engine.seal(name, size[1])
                except OSError as error:
                    self.on_write_failed(runtime, f"{error.filename}: {error.strerror}")
                    continue
                runtime.quiet_since.pop(name, None)
                log.info("archive.sealed", hive=str(self.hive), bee=runtime.name,
                         segment=name, size=size[1])
        return grew

    def settings_changed(self, bees: list[str], polling: bool) -> bool:
        """Whether a settings or flags file changed since the last look. With inotify the
        folders' own signatures stand for their files (events cover in-place edits);
        polling alone looks at every file."""
        files = [hive_settings_path(self.hive), bees_dir(self.hive), phares_dir(self.hive)]
        if polling:
            files += [bee_settings_path(self.hive, bee) for bee in bees]
            files += [flags_path(self.hive, bee) for bee in bees]
        changed = False
        for path in files:
            signature = file_signature(path)
            if self.settings_seen.get(path, signature) != signature:
                changed = True
            self.settings_seen[path] = signature
        return changed

    def window_changed(self) -> bool:
        return file_signature(self.window) != self.window_seen

    def note_window(self) -> None:
        """The window as it is now has been looked at (bees discovered)."""
        self.window_seen = file_signature(self.window)


# What the daemon asks of a hive's stat fallback, with the hive's bees and settings.

class ServedHive(Protocol):
    """What the loop's questions need of the service that owns the fallback."""

    fallback: StatFallback
    bees: dict[str, BeeRuntime]
    config: GlobalConfig
    watch_mode: str


def changed_bees(service: ServedHive) -> list[str]:
    """The bees whose files changed since the fallback last looked."""
    fallback = service.fallback
    changed = fallback.changed_bees(service.bees, service.config.rotate_wait_s)
    if service.watch_mode == "poll":
        changed += [bee for bee in fallback.sealed_grew(service.bees) if bee not in changed]
    return changed


def live_event(service: ServedHive, bee: str) -> None:
    """An event on a live journal's name. inotify names a write by the name its file was
    opened under: a writer holding a descriptor on a journal since moved to the archive
    shows as a write to the live name. When the live file itself did not change, the
    bee's rotated segments are the ones to look at."""
    runtime = service.bees.get(bee)
    if runtime is not None and file_signature(runtime.live_path) == runtime.seen_live:
        service.fallback.grown_segments(runtime)


def settings_changed(service: ServedHive) -> bool:
    return service.fallback.settings_changed(list(service.bees),
                                             service.watch_mode == "poll")


def window_changed(service: ServedHive) -> bool:
    return service.fallback.window_changed()
