"""What the models owe while they are configured, and their texts replacing
truncation's when they arrive (pure: the daemon's engine calls these, on its main loop).

Folds made while models are configured queue up, oldest first, with the récit the models
started from (the chain). Truncation's récit is shown until the models have folded every
queued batch; then theirs is. What the cache already holds is replayed at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from horizon.core.blocks import Item
from horizon.core.folds import compose_recit, fold_by_truncation, fold_if_over, replace_condensed
from horizon.core.recit import Recit
from horizon.core.summarizer import TRUNCATION, Folded, ModelResult
from horizon.core.zone_state import Changes, Context, Zones

MAX_PENDING_FOLDS = 32


class FoldQueue(msgspec.Struct):
    """Folds truncation made while models are configured, oldest first, and the récit
    the models started from."""

    batches: list[list[Item]] = msgspec.field(default_factory=list)
    chain: Recit | None = None

    def merged(self, count: int) -> list[Item]:
        """The first `count` batches as one: the models fold a run of them in one call."""
        return [item for batch in self.batches[:count] for item in batch]


class CachedFolds(Protocol):
    """The models' folds already paid for (the summary cache)."""

    def cached_fold(self, recit: Recit, batch: Sequence[Item]) -> Folded | None:
        ...


@dataclass
class QueuedFolds:
    """The zones' `Upgrades` while models are configured: each fold joins the queue."""

    queue: FoldQueue
    cache: CachedFolds

    def fold(self, before: Recit, batch: list[Item], ctx: Context,
             first_lighthouse: str | None) -> tuple[Recit, str]:
        queue = self.queue
        if not queue.batches or queue.chain is None:
            queue.batches = []
            queue.chain = before
        queue.batches.append([msgspec.structs.replace(item) for item in batch])
        shown = self._replay(ctx, first_lighthouse)
        if shown is not None:
            return shown
        recit = fold_by_truncation(before, batch, ctx, first_lighthouse)
        if len(queue.batches) > MAX_PENDING_FOLDS:
            # The models are far behind: these folds stay as truncation wrote them.
            queue.batches = []
            queue.chain = None
        return recit, TRUNCATION

    def _replay(self, ctx: Context, first_lighthouse: str | None) -> tuple[Recit, str] | None:
        """Advance the chain with what the cache holds, taking the longest run of batches
        it has; the models' récit and level once the queue is empty."""
        queue = self.queue
        while queue.batches and queue.chain is not None:
            for count in range(len(queue.batches), 0, -1):
                merged = queue.merged(count)
                folded = self.cache.cached_fold(queue.chain, merged)
                if folded is not None:
                    shown = advance_chain(queue, folded, merged, count, ctx, first_lighthouse)
                    if shown is not None:
                        return shown
                    break
            else:
                return None
        return None


def advance_chain(queue: FoldQueue, folded: Folded, merged: list[Item], count: int,
                  ctx: Context, first_lighthouse: str | None) -> tuple[Recit, str] | None:
    """The models folded the first `count` queued batches: the chain moves on; once the
    queue is empty, their récit is the one to show (returned with its level)."""
    assert queue.chain is not None
    queue.chain = compose_recit(queue.chain, folded.recit.sections, merged, ctx,
                                first_lighthouse)
    del queue.batches[:count]
    if queue.batches:
        return None
    shown = queue.chain
    queue.chain = None
    return shown, folded.level


def take_condensed(zones: Zones, result: ModelResult, ctx: Context) -> bool:
    """A condensation replaces the truncated text; the zone folds again if it grew."""
    condensed = result.condensed
    if condensed is None or condensed.level == TRUNCATION:
        return False
    if not replace_condensed(zones, result.seqs[0], result.content, condensed.text,
                             condensed.level, ctx.settings):
        return False  # folded meanwhile: the text stays in the cache for rebuilds
    fold_if_over(zones, ctx, Changes())
    return True


def take_folded(zones: Zones, queue: FoldQueue, result: ModelResult, ctx: Context) -> bool:
    """A fold of the first queued batches advances the models' chain; True when the récit
    shown changed (the queue is empty)."""
    if (result.folded is None or queue.chain is None
            or len(queue.batches) < result.batches):
        return False
    merged = queue.merged(result.batches)
    if [item.seq for item in merged] != result.seqs:
        return False  # rebuilt, reset or replayed meanwhile: nothing to replace
    shown = advance_chain(queue, result.folded, merged, result.batches, ctx,
                          zones.first_lighthouse)
    if shown is None:
        return False
    zones.recit, zones.recit_level = shown
    return True
