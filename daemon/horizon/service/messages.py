"""What the main loop's queue carries. Watchdog, APScheduler and the model workers only
post these; the loop alone acts on them, one at a time, dispatched by type."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from horizon.core.summarizer import ModelResult


@dataclass(frozen=True)
class FileEvent:
    """Something changed at `path` (a watched folder's entry)."""

    path: Path


@dataclass(frozen=True)
class PassDue:
    """A bee's debounce (or `max_wait_s`, or a back-off) ran out: time for its pass."""

    hive: Path
    bee: str


@dataclass(frozen=True)
class Poll:
    """The stat fallback's turn: what events missed."""


@dataclass(frozen=True)
class Sweep:
    """Age eviction for every bee."""


@dataclass(frozen=True)
class Beat:
    """Write the heartbeats and tell systemd how we are."""


@dataclass(frozen=True)
class Reload:
    """Settings files changed (or SIGHUP): read them again."""


@dataclass(frozen=True)
class ModelDone:
    """A model worker's answer for one bee."""

    hive: Path
    bee: str
    result: ModelResult


Message = FileEvent | PassDue | Poll | Sweep | Beat | Reload | ModelDone
