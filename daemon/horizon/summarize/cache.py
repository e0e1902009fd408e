"""The model output cache: (exchange content, provider/model, prompt version) → text.

SQLite under `<hive>/horizon/`, so a lookup costs one indexed read whatever the history,
and a restart or `horizon rebuild` does not pay for the same model output twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from horizon.summarize.prompts import PROMPT_VERSION

CACHE_NAME = "summaries.sqlite"


def cache_key(kind: str, level: str, parts: Iterable[str]) -> str:
    digest = hashlib.blake2b(digest_size=20)
    for part in (kind, level, PROMPT_VERSION, *parts):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class SummaryCache:
    """Shared by the main loop (reads) and the model workers (writes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
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


def hive_cache(hive: Path) -> SummaryCache:
    return SummaryCache(hive / "horizon" / CACHE_NAME)
