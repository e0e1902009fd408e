"""What the main loop's queue carries. Watchdog, APScheduler, the writer and the model
workers only post these; the loop alone acts on them, one at a time, dispatched by type."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from horizon.core.summarizer import ModelResult
from horizon.engine.stepping import Commit


@dataclass(frozen=True)
class FileEvent:
    """Something changed at `path` (a watched folder's entry)."""

    label: ClassVar[str] = "event"  # as `daemon.error` names it

    path: Path


@dataclass(frozen=True)
class Written:
    """A writer thread wrote a pass's files, or failed to (`error`)."""

    label: ClassVar[str] = "written"  # as `daemon.error` names it

    commit: Commit
    error: str | None


@dataclass(frozen=True)
class Continue:
    """The rest of a bee's backlog: its next slice, behind what others already posted."""

    label: ClassVar[str] = "continue"  # as `daemon.error` names it

    hive: Path
    bee: str


@dataclass(frozen=True)
class Poll:
    """The stat fallback's turn: what events missed."""

    label: ClassVar[str] = "poll"  # as `daemon.error` names it


@dataclass(frozen=True)
class Sweep:
    """Age eviction for every bee."""

    label: ClassVar[str] = "sweep"  # as `daemon.error` names it


@dataclass(frozen=True)
class Beat:
    """Write the heartbeats and tell systemd how we are."""

    label: ClassVar[str] = "beat"  # as `daemon.error` names it


@dataclass(frozen=True)
class Reload:
    """Settings files changed (or SIGHUP): read them again."""

    label: ClassVar[str] = "reload"  # as `daemon.error` names it


@dataclass(frozen=True)
class ModelDone:
    """A model worker's answer for one bee."""

    label: ClassVar[str] = "model"  # as `daemon.error` names it

    hive: Path
    bee: str
    result: ModelResult


Message = FileEvent | Written | Continue | Poll | Sweep | Beat | Reload | ModelDone
