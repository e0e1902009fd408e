"""The log lines of one pass over a bee: counts, seqs, reasons, never text."""

from __future__ import annotations

from horizon.engine.stepping import Pass
from horizon.hive.manifest import Clamp
from horizon.service.logs import get_logger

log = get_logger()


def log_pass(outcome: Pass) -> None:
    """Called with `hive` and `bee` bound."""
    zones = outcome.state.zones
    if outcome.missing_segment:
        log.warning("journal.replaced", reason=outcome.missing_segment, rebuilt=True)
    if outcome.notes.replaced:
        log.warning("journal.replaced", reason=outcome.notes.replaced,
                    seq_after=outcome.state.checkpoint.seq)
    for segment, count in outcome.notes.late_lines.items():
        log.warning("archive.late_lines", segment=segment, lines=count)
    clamps = [r.seq for r in outcome.notes.records if isinstance(r, Clamp)]
    if clamps:
        log.warning("entry.clock_skew", count=len(clamps), seqs=clamps[:10])
    if outcome.read:
        log.info("journal.ingested", lines=outcome.read, up_to=zones.up_to,
                 rebuilt=outcome.rebuilt)
    if outcome.rejections:
        log.warning("entry.rejected", count=sum(outcome.rejections.values()),
                    reasons=dict(outcome.rejections), first_seqs=outcome.first_rejected)
    if outcome.changes.evicted:
        log.info("zone.evicted", count=len(outcome.changes.evicted),
                 seqs=outcome.changes.evicted[:20])
    if outcome.changes.folds:
        log.info("zone.folded", batches=outcome.changes.folds,
                 count=len(outcome.changes.folded), summarizer=outcome.state.zones.recit_level)
    if outcome.view.guard_cut:
        log.error("render.guard_cut", chars=len(outcome.view.text))
    log.info("handoff.written", chars=len(outcome.view.text),
             cap=outcome.view.summary.get("cap"), up_to=zones.up_to,
             mode=outcome.view.summary.get("mode"))
