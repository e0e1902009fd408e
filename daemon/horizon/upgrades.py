"""Model texts replacing truncation's in the zones, when what was asked is still there
(pure: the daemon's main loop calls these with a result from the worker pool)."""

from __future__ import annotations

from horizon.summarize.base import TRUNCATION, ModelResult
from horizon.zones import Changes, Context, Zones, compose_recit, fold_if_over, replace_condensed


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
    """A fold advances the model chain; the récit shown changes when the chain is done."""
    pending = zones.pending_folds
    if (result.folded is None or not pending or zones.chain is None
            or [item.seq for item in pending[0]] != result.seqs):
        return False  # rebuilt or reset meanwhile: nothing to replace
    batch = pending.pop(0)
    chain = compose_recit(zones.chain, result.folded.recit, batch, ctx,
                          zones.first_lighthouse)
    if pending:
        zones.chain = chain
        return False
    zones.recit = chain
    zones.recit_level = result.folded.level
    zones.chain = None
    return True
