"""The stat fallback: what inotify events miss (a full queue, a watch limit, a network
filesystem) is found by comparing a few stat() results with what the daemon knows."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from horizon.core.settings import GlobalConfig
from horizon.hive.discovery import file_signature
from horizon.hive.layout import (
    archive_dir,
    bees_dir,
    flags_path,
    hive_settings_path,
    live_name,
    phares_dir,
)
from horizon.hive.rotation import seal
from horizon.service.logs import get_logger

if TYPE_CHECKING:
    from horizon.service.hive_service import BeeRuntime

log = get_logger()


class StatFallback:
    """Mixed into HiveService: every method runs on the daemon's main loop."""

    hive: Path
    window: Path
    config: GlobalConfig
    bees: dict[str, BeeRuntime]
    settings_seen: dict[Path, tuple[int, int, int] | None]
    watch_mode: str
    window_seen: tuple[int, int, int] | None

    # Provided by HiveService.
    def bind(self, bee: str | None = None) -> Any:
        raise NotImplementedError

    def settings_files(self) -> list[Path]:
        raise NotImplementedError

    def _write_failed(self, runtime: BeeRuntime, reason: str) -> None:
        raise NotImplementedError

    def changed_bees(self) -> list[str]:
        """Bees whose files moved since their checkpoint (what lost events would hide)."""
        changed = []
        for name, runtime in self.bees.items():
            state = runtime.state
            live = file_signature(runtime.live_path)
            if state is None:
                if live is not None or runtime.dirty:
                    changed.append(name)
                continue
            checkpoint = state.checkpoint
            if live is not None and checkpoint.segment == live_name(name):
                if live[0] != checkpoint.ino or live[1] != checkpoint.offset:
                    changed.append(name)
            elif live is not None and live[1] > 0:
                changed.append(name)  # a new live file after a rotation
            if self._unsealed_grew(runtime):
                changed.append(name)
        return changed

    def _unsealed_grew(self, runtime: BeeRuntime) -> bool:
        manifest = runtime.manifest
        if manifest is None:
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
                    runtime.late_check.add(name)
                    grew = True
            elif now - seen[1] >= self.config.rotate_wait_s and size[1] <= manifest.late_end(
                    name):
                with self.bind(runtime.name):
                    try:
                        seal(self.window, runtime.name, name, size[1], manifest)
                    except OSError as error:
                        self._write_failed(runtime, f"{error.filename}: {error.strerror}")
                        continue
                    runtime.quiet_since.pop(name, None)
                    log.info("archive.sealed", segment=name, size=size[1])
        return grew

    def settings_changed(self) -> bool:
        """Whether a settings or flags file changed since the last look. With inotify the
        folders' own signatures stand for their files (events cover in-place edits);
        polling alone looks at every file."""
        files = [hive_settings_path(self.hive), bees_dir(self.hive), phares_dir(self.hive)]
        if self.watch_mode == "poll":
            files += self.settings_files() + [flags_path(self.hive, bee) for bee in self.bees]
        changed = False
        for path in files:
            signature = file_signature(path)
            if self.settings_seen.get(path, signature) != signature:
                changed = True
            self.settings_seen[path] = signature
        return changed

    def window_changed(self) -> bool:
        return file_signature(self.window) != self.window_seen

