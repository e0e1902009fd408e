"""One daemon per hive: `<hive>/.horizon.lock`, held with flock, holding the holder's pid."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from horizon.core.errors import HiveError
from horizon.hive.layout import lock_path


class HiveLocked(HiveError):
    def __init__(self, hive: Path, pid: int | None) -> None:
        holder = f"pid {pid}" if pid else "another process"
        super().__init__(f"{hive} is locked by {holder} ({lock_path(hive)})")
        self.pid = pid


def _read_pid(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode().strip() or 0) or None
    return None


class HiveLock:
    """Held for as long as the object lives; `release` or process exit lets it go."""

    def __init__(self, hive: Path, wait_s: float = 1.0) -> None:
        path = lock_path(hive)
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o640)
        # A status probe holds a shared lock for an instant: retry briefly before giving up.
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    pid = _read_pid(self.fd)
                    os.close(self.fd)
                    raise HiveLocked(hive, pid) from None
                time.sleep(0.05)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def holder(hive: Path) -> int | None:
    """The pid holding the hive's lock, or None when nobody does."""
    path = lock_path(hive)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_pid(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
