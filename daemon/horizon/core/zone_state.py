"""The zones' state, and what a step is given and gives back (pure): the state after a
history, the context a step depends on, the changes a batch of steps made.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from horizon.core.blocks import Item, net_overhead
from horizon.core.deferred import Deferred
from horizon.core.labels import Labels
from horizon.core.recit import Recit
from horizon.core.settings import HorizonSettings
from horizon.core.summarizer import TRUNCATION, Summarizer


class Zones(msgspec.Struct):
    """Everything the view is made of, plus the bookkeeping of what was read."""

    up_to: int = 0
    at: float = 0.0
    accepted: int = 0
    rejected: int = 0
    rejections: dict[str, int] = msgspec.field(default_factory=dict)  # by reason
    bad_fields: int = 0  # accepted entries whose `ok` or `files` had the wrong type
    last_rejected: list[int] = msgspec.field(default_factory=list)  # their seqs, newest last
    net: list[Item] = msgspec.field(default_factory=list)
    condense: list[Item] = msgspec.field(default_factory=list)
    recit: Recit = msgspec.field(default_factory=Recit)
    first_lighthouse: str | None = None
    turns: list[str] = msgspec.field(default_factory=list)
    net_chars: int = 0
    condense_chars: int = 0
    recit_level: str = TRUNCATION


class Upgrades(Protocol):
    """What the models owe while they are configured (`upgrades.QueuedFolds`): the zones
    hand it every fold, and it says which récit to show meanwhile, and by whom."""

    def fold(self, before: Recit, batch: list[Item], ctx: Context,
             first_lighthouse: str | None) -> tuple[Recit, str]:
        ...


@dataclass(frozen=True)
class Context:
    """What a step depends on besides the zones: all of it passed in, nothing read.

    `upgrades` is set when model levels stand above truncation: evicted answers are then
    kept whole for them, and folds go through it. `deferred` (truncation alone) leaves
    the text work to the end of the pass: whoever sets it calls `settle` then.
    """

    bee: str
    settings: HorizonSettings
    summarizer: Summarizer
    now: float
    mission: str | None = None
    upgrades: Upgrades | None = None
    deferred: Deferred | None = None

    @functools.cached_property
    def labels(self) -> Labels:
        return self.settings.labels  # looked up once, not at every step

    @functools.cached_property
    def net_overhead(self) -> int:
        return net_overhead(self.bee, self.labels)


@dataclass
class Changes:
    """What a batch of steps did, for logs and for the model worker."""

    evicted: list[int] = field(default_factory=list)
    folded: list[int] = field(default_factory=list)
    folds: int = 0
    # Evicted exchanges, answers whole, that truncation condensed while models wait.
    to_condense: list[Item] = field(default_factory=list)
