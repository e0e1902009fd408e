"""The model output cache: (exchange content, provider/model, prompt version) → text.

SQLite under `<hive>/horizon/`, so a lookup costs one indexed read whatever the history,
and a restart or `horizon rebuild` does not pay for the same model output twice.

SQLite opens its files by path and resolves links in that path itself, so no folder
descriptor can pin them. The cache is therefore used only where no untrusted user can
change the names on that path: the hive and `horizon/` are real folders owned by the
daemon's user (or root), and not writable by all (the hive group holds the daemon and the
runtime, both trusted). Elsewhere it is refused; model outputs then cost calls again,
never correctness.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
from collections.abc import Callable
from pathlib import Path

from horizon.hive.durable import StoreError, ensure_dir
from horizon.hive.layout import cache_path


class SummaryCache:
    """Shared by the main loop (reads) and the model workers (writes)."""

    def __init__(self, path: Path, *, create: bool = True,
                 on_refused: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.create = create  # False: a reader that must write nothing (`render`)
        self.on_refused = on_refused
        self.refused: str | None = None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            hive = self.path.parent.parent
            if self.create:
                try:
                    ensure_dir(self.path.parent, hive)
                except StoreError as error:
                    raise sqlite3.OperationalError(str(error)) from None
            self._refuse_unless_private(hive, self.path.parent)
            # SQLite follows links: the database and its journals must be our own files.
            for path in (self.path, self.path.with_name(self.path.name + "-wal"),
                         self.path.with_name(self.path.name + "-shm")):
                with contextlib.suppress(FileNotFoundError):
                    if not stat.S_ISREG(os.lstat(path).st_mode):
                        raise sqlite3.OperationalError(f"{path}: not a regular file; refused")
            if not self.path.exists():
                if not self.create:
                    raise sqlite3.OperationalError("no cache yet")
                # Derived text of journals: 0750 folders, a 0640 file, like every other.
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o640))
            if not self.create:
                self._db = self._reader()
                return self._db
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, "
                       "text TEXT NOT NULL)")
            self._db = db
        return self._db

    def _reader(self) -> sqlite3.Connection:
        """A connection that writes nothing into the hive. Opened read-write (or even with
        mode=ro), SQLite makes a WAL database's -wal and -shm files, and mode=ro leaves
        them behind: with neither there, every summary is in the file itself, read as
        immutable; with both (a daemon has it open), mode=ro shares them."""
        journals = [self.path.with_name(self.path.name + suffix) for suffix in ("-wal", "-shm")]
        query = "mode=ro" if all(path.exists() for path in journals) else "immutable=1"
        return sqlite3.connect(f"{self.path.absolute().as_uri()}?{query}", uri=True,
                               check_same_thread=False, isolation_level=None)

    def _refuse_unless_private(self, *folders: Path) -> None:
        for folder in folders:
            problem = _not_private(folder)
            if problem is not None:
                if problem != self.refused:
                    self.refused = problem
                    if self.on_refused is not None:
                        self.on_refused(problem)
                raise sqlite3.OperationalError(problem)
        self.refused = None

    def get(self, key: str) -> str | None:
        with self._lock:
            try:
                row = self._connection().execute(
                    "SELECT text FROM summaries WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error:
                self._reset()
                return None
        return None if row is None else str(row[0])

    def put(self, key: str, text: str) -> None:
        with self._lock:
            try:
                self._connection().execute(
                    "INSERT OR REPLACE INTO summaries (key, text) VALUES (?, ?)", (key, text))
            except sqlite3.Error:
                self._reset()  # a lost cache costs model calls, never correctness

    def _reset(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        self._db = None

    def close(self) -> None:
        with self._lock:
            self._reset()


def _not_private(folder: Path) -> str | None:
    """Why another user could swap a name under `folder`, or None when nobody can."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None  # nothing to swap yet: a reader finds no cache, a writer made it
    except OSError as error:
        return f"{folder}: {error.strerror}"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder}: not a real folder"
    if info.st_uid not in (os.geteuid(), 0):
        return f"{folder}: owned by another user"
    if info.st_mode & stat.S_IWOTH:
        return f"{folder}: writable by all"
    return None


def hive_cache(hive: Path, *, create: bool = True,
               on_refused: Callable[[str], None] | None = None) -> SummaryCache:
    return SummaryCache(cache_path(hive), create=create, on_refused=on_refused)
