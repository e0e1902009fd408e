"""Each dirty bee's pass deadline, kept by the loop itself (ADR 0004): a write moves its
bee's deadline, the loop waits for the earliest. A push costs about a microsecond, where
a scheduler job per write cost hundreds.
"""

from __future__ import annotations

import heapq
from pathlib import Path

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
