"""One bee's pass: read what is new, step the zones, render, write. The daemon and the
commands both go through here, so a rebuild and an incremental run share every line.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from horizon.entries import Rejection
from horizon.flags import read_flags
from horizon.ingest import JournalReader
from horizon.journal import JournalError
from horizon.manifest import Clamp, append_records, read_manifest
from horizon.render import View, render
from horizon.settings import Effective, GlobalConfig
from horizon.store import BeeState, save
from horizon.summarize.truncation import Truncation
from horizon.zones import Changes, Context, Zones, step, sweep

REJECTION_EXAMPLES = 10


@dataclass
class Pass:
    """What one pass over a bee did: the new state, the view, and what to report."""

    state: BeeState
    view: View
    changes: Changes
    read: int = 0
    rebuilt: bool = False
    rejections: Counter[str] = field(default_factory=Counter)
    first_rejected: list[int] = field(default_factory=list)
    clamps: list[Clamp] = field(default_factory=list)
    replaced_reason: str | None = None


def settings_key(effective: Effective, flags: dict[int, str]) -> str:
    """A digest of everything the zones depend on besides the journal."""
    payload = msgspec.json.encode(
        {"horizon": effective.horizon, "mission": effective.mission,
         "flags": sorted(flags.items())}
    )
    return hashlib.blake2b(payload, digest_size=12).hexdigest()


def context(bee: str, effective: Effective, now: float) -> Context:
    summarizer = Truncation(effective.horizon.ligne_max)
    return Context(bee, effective.horizon, summarizer, now, effective.mission)


def run_pass(hive: Path, bee: str, config: GlobalConfig, effective: Effective, now: float,
             state: BeeState | None, *, fresh_only: bool = False,
             read_time: float | None = None) -> Pass:
    """Bring `state` (or a new one) up to date with the journal; nothing is written.

    `now` drives age eviction; `read_time` (the wall clock, `now` by default) is what a
    `ts` in the future is clamped to, so `rebuild --now` in the past invents no skew.
    `fresh_only`: an in-memory look (render --fresh), recording no clamp.
    """
    window = hive / "window"
    flags = read_flags(hive, bee)
    key = settings_key(effective, flags)
    rebuilt = state is None or state.settings_key != key
    if state is None or rebuilt:
        state = BeeState(bee=bee, settings_key=key)
    clamps = {record.seq: record.instant for record in read_manifest(window, bee)
              if isinstance(record, Clamp)}
    ctx = context(bee, effective, now)
    outcome = Pass(state, View("", {}), Changes(), rebuilt=rebuilt)
    try:
        _read_into(outcome, window, bee, config, read_time or now, clamps, flags, ctx)
    except JournalError as error:
        # The file the checkpoint names is gone: start over from the files as they are.
        outcome.replaced_reason = str(error)
        outcome.state = BeeState(bee=bee, settings_key=key)
        outcome.changes = Changes()
        outcome.rebuilt = True
        _read_into(outcome, window, bee, config, read_time or now, clamps, flags, ctx)
    outcome.changes.evicted += sweep(outcome.state.zones, ctx).evicted
    outcome.view = render(outcome.state.zones, bee, effective.horizon, effective.mission)
    if fresh_only:
        outcome.clamps = []
    return outcome


def _read_into(outcome: Pass, window: Path, bee: str, config: GlobalConfig, read_time: float,
               clamps: dict[int, float], flags: dict[int, str], ctx: Context) -> None:
    state = outcome.state
    reader = JournalReader(window, bee, state.checkpoint, config.max_line_bytes, read_time,
                           clamps, flags)
    zones: Zones = state.zones
    for record in reader:
        step(zones, record, ctx, outcome.changes)
        outcome.read += 1
        _note_segment(state, reader.current_segment, record.seq)
        if isinstance(record, Rejection):
            outcome.rejections[record.reason.value] += 1
            if len(outcome.first_rejected) < REJECTION_EXAMPLES:
                outcome.first_rejected.append(record.seq)
    state.checkpoint = reader.checkpoint
    state.level = ctx.summarizer.level
    state.mismatched_flags = sorted(
        (set(state.mismatched_flags) | reader.mismatched_flags) - reader.matched_flags
    )
    outcome.clamps = reader.new_clamps


def _note_segment(state: BeeState, segment: str, seq: int) -> None:
    bounds = state.segments.get(segment)
    if bounds is None:
        state.segments[segment] = [seq, seq]
    else:
        bounds[1] = seq


def commit(hive: Path, bee: str, outcome: Pass) -> None:
    """Durable in order: manifest records, then handoff.md, then the state and checkpoint."""
    append_records(hive / "window", bee, list(outcome.clamps))
    save(hive, bee, outcome.state, outcome.view.text)
