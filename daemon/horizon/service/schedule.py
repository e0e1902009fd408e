"""When a bee's next pass is due: the dirty / due / back-off state machine of one bee.

A write makes the bee dirty. Its pass is due `debounce_s` after its last write, and never
later than `max_wait_s` after the first write it has not read; a failed write holds the
next pass back, twice as long each time up to a minute, until a write succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass

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
