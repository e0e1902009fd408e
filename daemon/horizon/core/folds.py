"""Folds: the oldest condensed exchanges, once condensé is over its budget, folded into the
récit (pure, no I/O): by the rules at once, by the models later, or at the end of a pass.
"""

from __future__ import annotations

from horizon.core.blocks import Item, condensed_size
from horizon.core.deferred import lighthouse_quotes, quotes_kept
from horizon.core.recit import Line, Recit, add_quotes
from horizon.core.settings import HorizonSettings
from horizon.core.summarizer import TRUNCATION
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Changes, Context, Zones


def replace_condensed(zones: Zones, seq: int, content: str, text: str, level: str,
                      settings: HorizonSettings) -> bool:
    """A model's condensation replaces the truncated one, if the entry is still there."""
    for item in zones.condense:
        if item.seq == seq and item.content == content:
            zones.condense_chars -= item.chars
            item.answer = text
            item.source = level
            item.whole = False
            item.chars = condensed_size(item, settings.labels)
            zones.condense_chars += item.chars
            return True
    return False


def fold_if_over(zones: Zones, ctx: Context, changes: Changes) -> None:
    """Fold the oldest condensed entries while the zone is over budget (public: the
    daemon calls it again when a model's condensation changes an entry's size)."""
    settings = ctx.settings
    protect = settings.plancher_phare == "condense"
    budget = settings.budget_condense
    batch: set[int] = set()
    size = zones.condense_chars
    if size > budget:
        for item in zones.condense:
            if size <= budget // 2:
                break
            if not (protect and item.lighthouse):
                batch.add(item.seq)
                size -= item.chars
    # Lighthouses stay at their floor within half the budget, so that a fold always
    # brings the zone back to half and folds stay rare; over half, the oldest fold even
    # when the zone is within its budget, down to three eighths (the same hysteresis: a fold
    # per lighthouse past half would make folds as frequent as the operator's words).
    # The lighthouses left are at most what is left: measure them only when that is over
    # half.
    if protect and size > budget // 2:
        lighthouse_size = sum(
            item.chars for item in zones.condense if item.lighthouse and item.seq not in batch
        )
        if lighthouse_size > budget // 2:
            for item in zones.condense:
                if lighthouse_size <= budget * 3 // 8:
                    break
                if item.lighthouse and item.seq not in batch:
                    batch.add(item.seq)
                    lighthouse_size -= item.chars
    if batch:
        folding = [item for item in zones.condense if item.seq in batch]
        zones.condense = [item for item in zones.condense if item.seq not in batch]
        zones.condense_chars = sum(item.chars for item in zones.condense)
        fold_batch(zones, folding, ctx)
        changes.folded.extend(item.seq for item in folding)
        changes.folds += 1


def fold_batch(zones: Zones, batch: list[Item], ctx: Context) -> None:
    """One summarizer call for the batch; the daemon adds the quotes and bounds the result.

    With models configured the fold goes to what they owe (`ctx.upgrades`), which says
    what to show until they have folded it.
    """
    before = zones.recit
    if ctx.deferred is not None:
        ctx.deferred.fold(before, batch, ctx.settings)  # the récit is composed by `settle`
        return
    if ctx.upgrades is not None:
        zones.recit, zones.recit_level = ctx.upgrades.fold(before, batch, ctx,
                                                           zones.first_lighthouse)
        return
    if isinstance(ctx.summarizer, Truncation):
        zones.recit = fold_by_truncation(before, batch, ctx, zones.first_lighthouse)
        zones.recit_level = TRUNCATION
        return
    folded = ctx.summarizer.fold(before, batch)
    zones.recit = compose_recit(before, folded.recit.sections, batch, ctx,
                                zones.first_lighthouse)
    zones.recit_level = folded.level


def fold_by_truncation(before: Recit, batch: list[Item], ctx: Context,
                       first_lighthouse: str | None) -> Recit:
    """compose_recit over truncation's own sections."""
    return compose_recit(before, None, batch, ctx, first_lighthouse)


def compose_recit(before: Recit, sections: dict[str, tuple[Line, ...]] | None,
                  batch: list[Item], ctx: Context, first_lighthouse: str | None) -> Recit:
    """The free sections a summarizer wrote (None: truncation's), truncation's memory of
    the folded entries (kept whatever level writes, so the rules can take over at any
    fold), and the daemon's quotes of the folded lighthouses merged in. What the view
    shows of it is chosen when it renders."""
    learnt = Truncation(ctx.settings.ligne_max, ctx.labels).fold_recit(before, batch, sections)
    return add_quotes(learnt, lighthouse_quotes(batch), quotes_kept(ctx.settings))
