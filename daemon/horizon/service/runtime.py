"""What the daemon keeps in memory for one bee between passes, beside its engine."""

from __future__ import annotations

from dataclasses import dataclass, field

from horizon.core.settings import Effective, HorizonSettings
from horizon.engine.bee_engine import BeeEngine
from horizon.service.modelwork import InFlight
from horizon.service.schedule import Schedule

DEFAULTS = HorizonSettings()


@dataclass
class BeeRuntime:
    """A served bee: its engine (once its settings loaded), when its next pass is due, and
    what went wrong."""

    name: str
    live_path: str = ""  # the live journal, as the stat fallback looks at it each poll
    engine: BeeEngine | None = None
    generation: int = 0  # its engine's number (HiveService.generations), in its commits
    settings_error: str | None = None
    state_error: str | None = None
    unavailable: dict[str, str] = field(default_factory=dict)  # summarizers that cannot run
    schedule: Schedule = field(default_factory=Schedule)  # when its next pass is due
    # Rotated segments and when their size last changed: quiet long enough, they are sealed.
    quiet_since: dict[str, tuple[int, float]] = field(default_factory=dict)
    write_failed: bool = False
    rotation_failed: str | None = None  # why, from the first failure to a rotation
    inflight: InFlight = field(default_factory=InFlight)
    refused_records: list[str] = field(default_factory=list)  # as last logged
    # The live journal as the last pass found it when it started: the poll looks again
    # only when it changed (an unterminated tail, a refused file are not re-read).
    seen_live: tuple[int, int, int] | None = None
    # Counted as horizon_passes_total counts them, for the heartbeat (`horizon top`).
    passes: int = 0
    last_pass: float | None = None

    @property
    def effective(self) -> Effective | None:
        return self.engine.effective if self.engine is not None else None

    @property
    def horizon(self) -> HorizonSettings:
        """Its `[horizon]` settings; the defaults while it has none (refused at start)."""
        effective = self.effective
        return effective.horizon if effective is not None else DEFAULTS

    def note_late(self, segment: str) -> None:
        """A rotated segment changed: the next pass looks at it for late lines."""
        if self.engine is not None:
            self.engine.late_check.add(segment)
