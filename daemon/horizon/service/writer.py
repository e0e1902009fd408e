"""The derived files' writes, off the loop: a few threads wait on fsync, so the loop goes
on with other bees' passes and the disk commits several bees' files at once.

Each bee's commits are written in the order its passes made them, one at a time, so a
state never lands before the manifest records and the view it depends on, nor after a
later state. When one fails, the commits queued after it for that bee are dropped: the
loop hears of it (`on_done` with the error), resets the bee's engine to what the disk
holds, and its next pass reads again from that checkpoint (ADR 0004).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor

from horizon.engine.stepping import Commit
from horizon.hive.durable import StoreError

WRITER_THREADS = 4

Done = Callable[[Commit, "str | None"], None]  # the commit, and why it failed (None: written)


class Writer:
    def __init__(self, on_done: Done, threads: int = WRITER_THREADS) -> None:
        self.on_done = on_done
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="horizon-write")
        self.lock = threading.Condition()
        self.queued: dict[Hashable, deque[Commit]] = {}  # per bee; its head is being written
        # Bees whose write failed, until the loop has reset their engine: what their
        # engine commits meanwhile builds on a state the disk does not hold.
        self.failed: set[Hashable] = set()

    def submit(self, key: Hashable, commit: Commit) -> None:
        with self.lock:
            if key in self.failed:
                return
            queue = self.queued.setdefault(key, deque())
            queue.append(commit)
            if len(queue) == 1:
                self.pool.submit(self._write, key)

    def recovered(self, key: Hashable) -> None:
        """The bee's engine starts again from the disk: its commits are written again."""
        with self.lock:
            self.failed.discard(key)

    def has_failed(self, key: Hashable) -> bool:
        with self.lock:
            return key in self.failed

    def wait(self, key: Hashable, timeout: float | None = None) -> bool:
        """Until every commit of `key` handed in so far is written or dropped."""
        with self.lock:
            return self.lock.wait_for(lambda: key not in self.queued, timeout)

    def drain(self) -> None:
        """Until every commit is written or dropped (a stop)."""
        with self.lock:
            self.lock.wait_for(lambda: not self.queued)

    def close(self) -> None:
        self.drain()
        self.pool.shutdown(wait=True)

    def _write(self, key: Hashable) -> None:
        while True:
            with self.lock:
                commit = self.queued[key][0]
            error = None
            try:
                commit.write()
            except (StoreError, OSError) as failure:
                error = str(failure)
            with self.lock:
                queue = self.queued[key]
                queue.popleft()
                if error is not None:
                    queue.clear()  # written after a failure, they would skip its lines
                    self.failed.add(key)
                more = bool(queue)
                if not more:
                    del self.queued[key]  # a later submit starts a new writer for it
                    self.lock.notify_all()
            self.on_done(commit, error)
            if not more:
                return
