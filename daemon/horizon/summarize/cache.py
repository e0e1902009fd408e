"""The model output cache: (exchange content, provider/model, prompt version) → text.

SQLite under `<hive>/horizon/`, so a lookup costs one indexed read whatever the history,
and a restart or `horizon rebuild` does not pay for the same model output twice.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
from pathlib import Path

from horizon.hive.durable import ensure_dir
from horizon.hive.layout import cache_path


class SummaryCache:
    """Shared by the main loop (reads) and the model workers (writes)."""

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = path
        self.create = create  # False: a reader that must write nothing (`render`)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
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
                ensure_dir(self.path.parent, self.path.parent.parent)
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o640))
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, "
                       "text TEXT NOT NULL)")
            self._db = db
        return self._db

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


def hive_cache(hive: Path, *, create: bool = True) -> SummaryCache:
    return SummaryCache(cache_path(hive), create=create)
