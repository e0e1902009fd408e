"""The log lines of one pass over a bee: counts, seqs, reasons, never text."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from horizon.core.summarizer import ModelResult
from horizon.engine.bee_engine import BeeEngine, Input
from horizon.engine.stepping import Pass
from horizon.hive.manifest import Clamps
from horizon.service import logs
from horizon.service.logs import get_logger
from horizon.service.runtime import BeeRuntime

if TYPE_CHECKING:  # handed in by the service that owns it
    from horizon.service.hive_health import HiveHealth

log = get_logger()


def log_pass(outcome: Pass, *, deferred: bool = False) -> dict[str, object]:
    """Called with `hive` and `bee` bound: one info line per pass (`handoff.written`, with
    the pass's counts), warnings for what an operator must look at, and the per-entry
    decisions at debug level. `deferred`: the files are still to be written, and
    `handoff.written` is said once they are; its fields are returned for then."""
    if outcome.missing_segment:
        log.warning("journal.replaced", reason=outcome.missing_segment, rebuilt=True)
    if outcome.notes.replaced:
        log.warning("journal.replaced", reason=outcome.notes.replaced,
                    seq_after=outcome.state.checkpoint.seq)
    for segment, count in outcome.notes.late_lines.items():
        log.warning("archive.late_lines", segment=segment, lines=count)
    ranges = [r for r in outcome.notes.records if isinstance(r, Clamps)]
    if ranges:
        seqs = [seq for r in ranges for seq in range(r.first, min(r.last, r.first + 9) + 1)]
        log.warning("entry.clock_skew", count=sum(r.last - r.first + 1 for r in ranges),
                    seqs=seqs[:10])
    if outcome.rejections:
        log.warning("entry.rejected", count=sum(outcome.rejections.values()),
                    reasons=dict(outcome.rejections), first_seqs=outcome.first_rejected)
    if outcome.view.guard_cut:
        log.error("render.guard_cut", chars=len(outcome.view.text))
    if debugging():
        _log_decisions(outcome)
    fields = {
        **_view_fields(outcome, outcome.read),
        "rejected": sum(outcome.rejections.values()), "evicted": len(outcome.changes.evicted),
        "folded": len(outcome.changes.folded), "rebuilt": outcome.rebuilt}
    if not deferred:
        log.info("handoff.written", **fields)
    return fields


def _view_fields(outcome: Pass, lines: int) -> dict[str, object]:
    """What every `handoff.written` says of the view, and the lines the pass read."""
    return {"chars": len(outcome.view.text), "cap": outcome.view.cap,
            "up_to": outcome.state.zones.up_to, "mode": outcome.view.mode, "lines": lines}


def debugging() -> bool:
    # Checked once per pass: the per-entry lines cost nothing when nobody reads them.
    return logs.debugging()


def _log_decisions(outcome: Pass) -> None:
    zones = outcome.state.zones
    if outcome.read:
        log.debug("journal.ingested", lines=outcome.read, up_to=zones.up_to,
                  rebuilt=outcome.rebuilt, checkpoint=outcome.state.checkpoint.offset,
                  segment=outcome.state.checkpoint.segment or "live")
    sources = {item.seq: item.source for item in zones.condense}
    for seq in outcome.changes.evicted:
        log.debug("zone.evicted", seq=seq, to="condense" if seq in sources else "recit",
                  summarizer=sources.get(seq))
    if outcome.changes.folds:
        log.debug("zone.folded", batches=outcome.changes.folds,
                  seqs=outcome.changes.folded, summarizer=zones.recit_level)
    for cut in outcome.view.summary.get("cut", []):
        log.debug("view.cut", **cut)


def report_refused_records(runtime: BeeRuntime, engine: BeeEngine) -> None:
    """Manifest records naming another file than the bee's own: logged once each."""
    refused = engine.manifest.refused if engine.manifest is not None else []
    if refused and refused != runtime.refused_records:
        log.error("manifest.refused", count=len(refused), records=refused[:10])
    runtime.refused_records = list(refused)


def report_pass(health: HiveHealth, runtime: BeeRuntime, given: Input, outcome: Pass, *,
                deferred: bool) -> None:
    """Logs what the pass did (called with `hive` and `bee` bound); `deferred`: its files
    are still on their way to disk."""
    if outcome.committed:
        if not deferred:
            health.recovered(runtime)
        fields: dict[str, object]
        if isinstance(given, ModelResult):
            fields = {**_view_fields(outcome, 0), "source": given.kind}
            if not deferred:
                log.info("handoff.written", **fields)
        else:
            fields = log_pass(outcome, deferred=deferred)
        if deferred and outcome.commit is not None:
            outcome.commit.receipt.logged = fields
    elif not isinstance(given, ModelResult):
        health.recovered(runtime)
    if outcome.rotate_failed is not None:
        health.rotation_failed(runtime, outcome.rotate_failed)
    if outcome.journal_lost:
        log.warning("journal.lost", lines=outcome.journal_lost,
                    reason="the live journal was removed while it was being rotated",
                    consequence="its lines are gone; the view is rebuilt from the files left")
    moved = outcome.rotated
    if moved is not None:
        if runtime.rotation_failed is not None:
            log.info("archive.rotation_recovered", segment=moved.segment)
            runtime.rotation_failed = None
            health.heartbeat()  # status says healthy now, not at the next beat
        runtime.quiet_since[moved.segment] = (moved.offset, time.monotonic())
        log.info("archive.rotated", segment=moved.segment, lines=outcome.rotated_lines,
                 up_to=moved.seq)
    if outcome.write_failed is not None:
        health.write_failed(runtime, outcome.write_failed)
