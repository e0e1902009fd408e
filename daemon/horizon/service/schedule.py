"""When a bee's next pass is due: the dirty / due / back-off state machine of one bee,
and the loop's deadlines across bees.

A write makes the bee dirty. Its pass is due `debounce_s` after its last write, and never
later than `max_wait_s` after the first write it has not read; a failed write holds the
next pass back, twice as long each time up to a minute, until a write succeeds.

The loop keeps each dirty bee's deadline itself (ADR 0004): a write moves its bee's
deadline, and the loop waits for the earliest. A push onto a heap is far cheaper than a
scheduler job per write.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from pathlib import Path

from horizon.core.settings import HorizonSettings

BACKOFF_MIN_S = 1.0
BACKOFF_MAX_S = 60.0


@dataclass
class Schedule:
    dirty: bool = False
    first_dirty: float | None = None  # the first write not read yet (monotonic)
    last_write: float | None = None
    backoff_s: float = BACKOFF_MIN_S
    retry_at: float = 0.0  # no pass before this, after a failed write

    def wrote(self, now: float) -> None:
        self.dirty = True
        self.last_write = now
        if self.first_dirty is None:
            self.first_dirty = now

    def due_at(self, settings: HorizonSettings, now: float) -> float:
        """Monotonic instant of the next pass."""
        last = self.last_write or now
        first = self.first_dirty or last
        return max(self.retry_at, min(last + settings.debounce_s, first + settings.max_wait_s))

    def may_run(self, now: float) -> bool:
        """Not waiting out a back-off."""
        return now >= self.retry_at

    def lag(self, now: float) -> float:
        """How long the oldest unread write has waited (0 when there is none)."""
        return now - self.first_dirty if self.dirty and self.first_dirty is not None else 0.0

    def start_pass(self) -> tuple[float | None, bool]:
        """A pass begins: clean from now on. What it was: (first_dirty, dirty)."""
        was = self.first_dirty, self.dirty
        self.dirty, self.first_dirty = False, None
        return was

    def still_waiting(self, first_dirty: float | None) -> None:
        """The pass read nothing (a sweep that could not age anything): the writes that
        made the bee dirty still wait, due by their first, not a later one."""
        self.dirty = True
        self.first_dirty = first_dirty or self.first_dirty

    def behind(self, first_dirty: float | None, now: float) -> None:
        """The pass stopped at its slice: the lag goes on from the first write."""
        self.dirty = True
        self.first_dirty = first_dirty or now

    def failed(self, now: float) -> None:
        """A write failed: the next pass waits out the back-off, which doubles."""
        self.retry_at = now + self.backoff_s
        self.backoff_s = min(self.backoff_s * 2, BACKOFF_MAX_S)
        self.dirty = True
        self.first_dirty = self.first_dirty or now

    def succeeded(self) -> None:
        self.backoff_s = BACKOFF_MIN_S
        self.retry_at = 0.0


Key = tuple[Path, str]  # (hive, bee)


class Deadlines:
    """Monotonic instants by bee. A heap entry whose instant is no longer its bee's
    deadline is stale, and skipped when it comes up."""

    def __init__(self) -> None:
        self.due: dict[Key, float] = {}
        self.heap: list[tuple[float, Path, str]] = []

    def __contains__(self, key: Key) -> bool:
        return key in self.due

    def set(self, key: Key, instant: float) -> None:
        if self.due.get(key) != instant:
            self.due[key] = instant
            heapq.heappush(self.heap, (instant, *key))

    def earliest(self) -> float | None:
        return self.heap[0][0] if self.heap else None

    def pop_due(self, now: float) -> Key | None:
        """The bee whose deadline came first, at or before `now`, now no longer due."""
        while self.heap and self.heap[0][0] <= now:
            instant, hive, bee = heapq.heappop(self.heap)
            if self.due.get((hive, bee)) == instant:
                del self.due[(hive, bee)]
                return hive, bee
        return None
