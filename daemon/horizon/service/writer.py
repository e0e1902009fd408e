"""The derived files' writes, off the loop: a writer thread waits on fsync, so the loop
goes on with other bees' passes meanwhile.

Each bee's commits are written in the order its passes made them, so a state never lands
before the manifest records and the view it depends on, nor after a later state. When a
bee's passes come faster than the disk takes them, the commits waiting for it are written
as one: every manifest record of each, in order, then the newest view and state (each
commit holds the whole files, so the older ones would only be overwritten). When a write
fails, the commits queued after it for that bee are dropped: the loop hears of it
(`on_done` with the error), resets the bee's engine to what the disk holds, and its next
pass reads again from that checkpoint (ADR 0004).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable

from horizon.engine.stepping import Commit
from horizon.hive.durable import StoreError

Done = Callable[[Commit, "str | None"], None]  # the commit, and why it failed (None: written)


def merged(commits: list[Commit]) -> Commit:
    """What writing `commits` in turn leaves on disk, as one commit: all their records,
    the last one's files."""
    last = commits[-1]
    if len(commits) == 1:
        return last
    records = [record for commit in commits for record in commit.records]
    return Commit(last.hive, last.bee, records, last.handoff, last.state, last.receipt)


class Writer:
    """Writes commits on one thread of its own.

    One thread: with several, their system calls and fsyncs fought the loop for the
    interpreter's lock, and a busy hive's daemon spent more CPU waiting than writing (ADR
    0004 has the figures). Commits waiting for a bee are merged, so one thread keeps up
    with a slow disk by writing each bee less often, not later.
    """

    def __init__(self, on_done: Done) -> None:
        self.on_done = on_done
        self.lock = threading.Condition()
        # Per bee, the commits waiting (`queued`), in the order the bees handed them in
        # (`ready`) unless some of the bee's are being written (`writing`).
        self.queued: dict[Hashable, deque[Commit]] = {}
        self.ready: deque[Hashable] = deque()
        self.writing: set[Hashable] = set()
        self.awaited: dict[Hashable, int] = {}  # bees the loop waits for: written first
        # Bees whose write failed, until the loop has reset their engine: what their
        # engine commits meanwhile builds on a state the disk does not hold.
        self.failed: set[Hashable] = set()
        self.closing = False
        self.thread = threading.Thread(target=self._run, name="horizon-write", daemon=True)
        self.thread.start()

    def submit(self, key: Hashable, commit: Commit) -> None:
        with self.lock:
            if key in self.failed:
                return
            waiting = self.queued.setdefault(key, deque())
            waiting.append(commit)
            if len(waiting) == 1 and key not in self.writing:
                self.ready.append(key)
                self.lock.notify_all()

    def recovered(self, key: Hashable) -> None:
        """The bee's engine starts again from the disk: its commits are written again."""
        with self.lock:
            self.failed.discard(key)

    def pending(self, key: Hashable) -> bool:
        """Whether some of `key`'s commits are still on their way to disk."""
        with self.lock:
            return self._pending(key)

    def _pending(self, key: Hashable) -> bool:
        return key in self.queued or key in self.writing

    def has_failed(self, key: Hashable) -> bool:
        with self.lock:
            return key in self.failed

    def wait(self, key: Hashable, timeout: float | None = None) -> bool:
        """Until every commit of `key` handed in so far is written or dropped. The loop
        waits here (a rotation): `key` goes ahead of the other bees waiting."""
        with self.lock:
            if key in self.ready and self.ready[0] != key:
                self.ready.remove(key)
                self.ready.appendleft(key)
            self.awaited[key] = self.awaited.get(key, 0) + 1
            try:
                return self.lock.wait_for(lambda: not self._pending(key), timeout)
            finally:
                self.awaited[key] -= 1
                if not self.awaited[key]:
                    del self.awaited[key]

    def drain(self) -> None:
        """Until every commit is written or dropped (a stop)."""
        with self.lock:
            self.lock.wait_for(lambda: not self.queued and not self.writing)

    def close(self) -> None:
        self.drain()
        with self.lock:
            self.closing = True
            self.lock.notify_all()
        self.thread.join()

    def _run(self) -> None:
        while True:
            with self.lock:
                self.lock.wait_for(lambda: self.ready or self.closing)
                if not self.ready:
                    return
                key = self.ready.popleft()
                commits = list(self.queued.pop(key))
                self.writing.add(key)
            error = None
            try:
                merged(commits).write()
            except (StoreError, OSError) as failure:
                error = str(failure)
            except Exception as failure:  # a bug: told as a failed write, the thread lives
                error = f"unexpected {type(failure).__name__}: {failure}"
            with self.lock:
                self.writing.discard(key)
                if error is not None:
                    self.queued.pop(key, None)  # written after a failure, they'd skip its lines
                    self.failed.add(key)
                elif key in self.awaited and key in self.queued:
                    self.ready.appendleft(key)  # handed in while these were written
                elif key in self.queued:
                    self.ready.append(key)
                self.lock.notify_all()
            if error is not None:
                self.on_done(commits[0], error)
                continue
            for commit in commits:
                self.on_done(commit, None)
