"""watchdog adapter: folder watches whose events become paths on the daemon's queue.

Folders, not files, are watched: editors save by write-then-rename, and rotation
replaces the live journal. Events are hints only; the stat fallback catches what
inotify drops (queue overflow) or never sees (network filesystems, watch limits).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from horizon.core.errors import HiveError

# Not FileClosedEvent: every append is already a FileModifiedEvent, and a close after it
# would double the events a busy hive sends the loop (the poll catches what events miss).
_EVENTS: list[type[FileSystemEvent]] = [
    FileModifiedEvent, FileCreatedEvent, FileMovedEvent, FileDeletedEvent,
    DirCreatedEvent, DirMovedEvent,
]


class WatchLimit(HiveError):
    """The kernel refused another watch (ENOSPC: fs.inotify.max_user_watches)."""


class _Forward(FileSystemEventHandler):
    def __init__(self, post: Callable[[Path], None]) -> None:
        self.post = post

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.post(Path(str(event.src_path)))
        if event.dest_path:
            self.post(Path(str(event.dest_path)))


class Watcher:
    """One observer thread for every folder the daemon watches."""

    def __init__(self, post: Callable[[Path], None]) -> None:
        self.handler = _Forward(post)
        self.observer: BaseObserver = Observer()
        self.watches: dict[Path, ObservedWatch] = {}
        self.observer.daemon = True
        self.observer.start()

    def watch(self, folder: Path) -> bool:
        """Watch `folder` (not recursively); False when it does not exist."""
        if folder in self.watches:
            return True
        if not folder.is_dir():
            return False
        try:
            self.watches[folder] = self.observer.schedule(self.handler, str(folder),
                                                          event_filter=_EVENTS)
        except OSError as error:
            if error.errno in (errno.ENOSPC, errno.EMFILE):
                raise WatchLimit(f"{folder}: {error.strerror}") from None
            raise
        return True

    def unwatch_under(self, root: Path) -> None:
        for folder in [f for f in self.watches if f == root or root in f.parents]:
            self.observer.unschedule(self.watches.pop(folder))

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=5)
