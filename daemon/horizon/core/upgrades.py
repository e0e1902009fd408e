"""Model texts replacing truncation's in the zones, when what was asked is still there
(pure: the daemon's main loop calls these with a result from the worker pool)."""

from __future__ import annotations

from horizon.core.summarizer import TRUNCATION, ModelResult
from horizon.core.zones import (
    Changes,
    Context,
    Zones,
    advance_chain,
    fold_if_over,
    replace_condensed,
)


def take_condensed(zones: Zones, result: ModelResult, ctx: Context) -> bool:
    """A condensation replaces the truncated text; the zone folds again if it grew."""
    condensed = result.condensed
    if condensed is None or condensed.level == TRUNCATION:
        return False
    if not replace_condensed(zones, result.seqs[0], result.content, condensed.text,
                             condensed.level):
        return False  # folded meanwhile: the text stays in the cache for rebuilds
    fold_if_over(zones, ctx, Changes())
    return True


def take_folded(zones: Zones, result: ModelResult, ctx: Context) -> bool:
    """A fold of the first queued batches advances the models' chain; True when the récit
    shown changed (the queue is empty)."""
    pending = zones.pending_folds
    if result.folded is None or zones.chain is None or len(pending) < result.batches:
        return False
    merged = [item for batch in pending[: result.batches] for item in batch]
    if [item.seq for item in merged] != result.seqs:
        return False  # rebuilt, reset or replayed meanwhile: nothing to replace
    advance_chain(zones, result.folded, merged, result.batches, ctx)
    return not zones.pending_folds
