"""The stepping part of a bee's pass: read what is new, step the zones, render; nothing is
written here (`BeeEngine` commits). A rebuild and an incremental run share every line.
"""

from __future__ import annotations

import bisect
import hashlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import msgspec

from horizon.core.deferred import Deferred
from horizon.core.entries import Entry, Rejection
from horizon.core.errors import JournalError
from horizon.core.ingest import Stepper
from horizon.core.render import render
from horizon.core.settings import Effective, GlobalConfig
from horizon.core.truncation import Truncation
from horizon.core.upgrades import FoldQueue, QueuedFolds
from horizon.core.view import View, unrendered
from horizon.core.view_memo import BlockMemo
from horizon.core.zone_state import Changes, Context
from horizon.core.zones import settle, sweep
from horizon.hive.decoding import Notes
from horizon.hive.durable import require_real_dir
from horizon.hive.flags import read_flags
from horizon.hive.journal import Checkpoint
from horizon.hive.layout import archive_dir, window_dir
from horizon.hive.manifest import Manifest, Record, append_records, read_manifest
from horizon.hive.reader import JournalReader
from horizon.hive.store import BeeState, save_encoded
from horizon.summarize.cache import SummaryCache
from horizon.summarize.cached import CachedSummarizer

REJECTION_EXAMPLES = 10


@dataclass
class Receipt:
    """What the daemon reports of a commit once its files are written."""

    # Which of the bee's engines made it: a failure of a former engine's commit is not news
    # for the engine made from the disk after it.
    generation: int = 0
    first_dirty: float | None = None  # when the lines it covers made the bee dirty
    logged: dict[str, object] | None = None  # the handoff.written event, logged once written


@dataclass
class Commit:
    """One pass's files, encoded when the pass ends: manifest records, then handoff.md,
    then state.json, written in that order. A daemon hands them to writer threads
    (`deliver`); commands write them at once."""

    hive: Path
    bee: str
    records: list[Record]
    handoff: bytes
    state: bytes
    receipt: Receipt = field(default_factory=Receipt)

    def write(self) -> None:
        append_records(window_dir(self.hive), self.bee, self.records)
        save_encoded(self.hive, self.bee, self.handoff, self.state)


@dataclass
class Pass:
    """What one pass over a bee did: the new state, the view, and what to report."""

    state: BeeState
    view: View
    changes: Changes
    manifest: Manifest
    notes: Notes = field(default_factory=Notes)
    read: int = 0
    reread: int = 0  # of `read`, lines a rebuild read again (read before, not news)
    rebuilt: bool = False
    # Rejected lines read for the first time (a rebuild reads old ones again: not news).
    rejections: Counter[str] = field(default_factory=Counter)
    first_rejected: list[int] = field(default_factory=list)
    missing_segment: str | None = None
    more: bool = False  # the reading stopped at its slice's bound: lines are left to read
    # Filled in by BeeEngine: what the rest of the pass did with the files.
    loaded: bool = False  # the state came from the files at this pass (not from memory)
    committed: bool = False
    rotated: Checkpoint | None = None  # the live journal moved to this segment
    rotated_lines: int = 0
    rotate_failed: str | None = None
    # Lines a journal removed by hand during its rotation took with it (none: 0); the
    # next pass rebuilds the view from the files left.
    journal_lost: int = 0
    write_failed: str | None = None  # the state after a rotation could not be saved
    commit: Commit | None = None  # the files it wrote or handed to the daemon's writer
    owed: Deferred | None = None  # a slice of a rebuild: the text work left to the next


@dataclass
class HeldPass:
    """What the slices of a rebuild read before its last one."""

    read: int = 0
    reread: int = 0
    rejections: Counter[str] = field(default_factory=Counter)
    first_rejected: list[int] = field(default_factory=list)

    def add(self, outcome: Pass) -> None:
        """Moved here from the slice's outcome, which then tells none of it: a rejected
        line a slice ended on is told once, with the last slice."""
        self.read += outcome.read
        self.reread += outcome.reread
        self.rejections += outcome.rejections
        self.first_rejected = (self.first_rejected + outcome.first_rejected)[
            :REJECTION_EXAMPLES]
        outcome.read = outcome.reread = 0
        outcome.rejections = Counter()
        outcome.first_rejected = []

    def into(self, last: Pass) -> Pass:
        last.read += self.read
        last.reread += self.reread
        last.rebuilt = True
        last.rejections = self.rejections + last.rejections
        last.first_rejected = (self.first_rejected + last.first_rejected)[:REJECTION_EXAMPLES]
        return last


def settings_key(effective: Effective, flags: dict[int, str]) -> str:
    """A digest of everything the zones depend on besides the journal."""
    payload = msgspec.json.encode(
        {"horizon": effective.horizon, "mission": effective.mission,
         "flags": sorted(flags.items()), "levels": list(effective.levels)}
    )
    return hashlib.blake2b(payload, digest_size=12).hexdigest()


def context(bee: str, effective: Effective, now: float,
            cache: SummaryCache | None = None, folds: FoldQueue | None = None, *,
            deferred: Deferred | None = None) -> Context:
    """The step context: with model levels, texts come from the cache or truncation, and
    folds join `folds`, the queue of what the models owe. `deferred`: where truncation
    leaves its text work until `settle` (models read every exchange as it leaves)."""
    if not effective.levels:
        return Context(bee, effective.horizon, Truncation(effective.horizon.ligne_max,
                                                            effective.horizon.labels), now,
                       effective.mission, deferred=deferred)
    cached = CachedSummarizer(list(effective.levels), effective.horizon, cache)
    upgrades = QueuedFolds(folds if folds is not None else FoldQueue(), cached)
    return Context(bee, effective.horizon, cached, now, effective.mission, upgrades)


@dataclass
class PassRequest:
    """What one pass is asked to do: bring `state` (or a new one) up to date with the
    journal, at `now`.

    `now` drives age eviction; `read_time` (the wall clock, `now` by default) is what a
    `ts` in the future is clamped to, so `rebuild --now` in the past invents no skew.
    `finish_in_memory`: read an interrupted rotation as if it were finished (readers that
    must not write give the seqs the daemon will give; `read_to`, the checkpoint of the
    state on disk, tells such a rotation from one whose link failed). `slice_bytes` and
    `slice_s` bound the reading (`Pass.more` says lines are left). A slice of a rebuild
    that is not its last (`rebuilding` goes on with one) shows nothing: it leaves its
    text work and its view to the next, handing `Pass.owed` over as the next's `owed`.
    `flags`: the bee's flags in force, when the caller keeps them (read otherwise).
    `seen_seq`: rejected lines up to it were reported already (the state's checkpoint by
    default). `on_record` sees every record read, in seq order.
    """

    hive: Path
    bee: str
    config: GlobalConfig
    effective: Effective
    now: float
    state: BeeState | None
    read_time: float | None = None
    manifest: Manifest | None = None
    late_segments: set[str] | None = None
    on_record: Callable[[Entry | Rejection], None] | None = None
    cache: SummaryCache | None = None
    finish_in_memory: bool = False
    read_to: Checkpoint | None = None
    slice_bytes: int | None = None
    slice_s: float | None = None
    seen_seq: int | None = None
    blocks: BlockMemo | None = None
    owed: Deferred | None = None
    rebuilding: bool = False
    flags: dict[int, str] | None = None


def run_pass(request: PassRequest) -> Pass:
    """The pass `request` asks for; nothing is written. The pass mutates the request's
    `state` and `manifest`: on a failed commit the caller drops both."""
    hive, bee, effective, now = request.hive, request.bee, request.effective, request.now
    window = window_dir(hive)
    # Journals are read only from the hive's own folders, never through a link.
    require_real_dir(window, JournalError)
    if os.path.lexists(archive_dir(window)):
        require_real_dir(archive_dir(window), JournalError)
    flags = request.flags if request.flags is not None else read_flags(hive, bee)
    key = settings_key(effective, flags)
    manifest = request.manifest
    if manifest is None:
        manifest = read_manifest(window, bee)
    state = request.state
    late_segments = request.late_segments
    rebuilt = state is None or state.settings_key != key
    seen_seq = request.seen_seq
    if seen_seq is None:
        seen_seq = state.checkpoint.seq if state is not None else 0
    if state is None or rebuilt:
        state = BeeState(bee=bee, settings_key=key)
        late_segments = set(manifest.rotated)  # a rebuild looks at every rotated segment
    owed = request.owed if request.owed is not None and not rebuilt else Deferred()
    ctx = context(bee, effective, now, request.cache, state.folds, deferred=owed)
    outcome = Pass(state, unrendered(), Changes(), manifest, rebuilt=rebuilt)
    reading = _Reading(request, outcome, window, request.read_time or now, flags, ctx,
                       late_segments, seen_seq)
    try:
        reading.run()
    except JournalError as error:
        # The file the checkpoint names is gone: start over from the files as they are.
        outcome.missing_segment = str(error)
        # The failed attempt may have added records in memory: start from the disk's.
        manifest = read_manifest(window, bee)
        outcome.manifest = manifest
        outcome.notes = Notes()
        outcome.state = BeeState(bee=bee, settings_key=key)
        outcome.changes = Changes()
        outcome.rebuilt = True
        outcome.read = 0
        ctx = context(bee, effective, now, request.cache, outcome.state.folds,
                      deferred=Deferred())
        reading.ctx = ctx
        reading.late_segments = set(manifest.rotated)
        reading.run()
    outcome.state.settings = effective
    outcome.changes.evicted += sweep(outcome.state.zones, ctx).evicted
    if outcome.more and (request.rebuilding or outcome.rebuilt):
        outcome.owed = ctx.deferred  # nothing is shown before the rebuild's last slice
        return outcome
    settle(outcome.state.zones, ctx)
    outcome.view = render(outcome.state.zones, bee, effective.horizon, effective.mission,
                          request.blocks)
    return outcome


@dataclass
class _Reading:
    """One reading of the journal into a pass's outcome (done again from the files when
    the checkpoint's file is gone)."""

    request: PassRequest
    outcome: Pass
    window: Path
    read_time: float
    flags: dict[int, str]
    ctx: Context
    late_segments: set[str] | None
    seen_seq: int

    def run(self) -> None:
        outcome = self.outcome
        state = outcome.state
        request = self.request
        reader = JournalReader(self.window, request.bee, state.checkpoint,
                               request.config.max_line_bytes, self.read_time,
                               outcome.manifest, self.flags, self.late_segments,
                               finish_in_memory=request.finish_in_memory,
                               read_to=request.read_to, slice_bytes=request.slice_bytes,
                               slice_s=request.slice_s)
        stepper = Stepper(state.zones, self.ctx, outcome.changes)
        seen = self.seen_seq
        on_record = request.on_record
        for batch in reader.batches():
            outcome.read += len(batch)
            if batch[0].seq <= seen:  # read before: a rebuild's, not news
                outcome.reread += sum(1 for record in batch if record.seq <= seen)
            if reader.main_flow:  # a batch's seqs rise one by one: its ends bound them
                _note_segment(state, reader.current_segment, batch[0].seq)
                _note_segment(state, reader.current_segment, batch[-1].seq)
            if on_record is not None:
                for record in batch:
                    on_record(record)
            if len(batch) > 1:  # a block of plain lines: entries only
                stepper.add_entries(cast("list[Entry]", batch))
                continue
            record = batch[0]
            stepper.add(record)
            if isinstance(record, Rejection) and record.seq > self.seen_seq:
                outcome.rejections[record.reason.value] += 1
                if len(outcome.first_rejected) < REJECTION_EXAMPLES:
                    outcome.first_rejected.append(record.seq)
        stepper.flush()
        state.checkpoint = reader.checkpoint
        outcome.more = reader.more
        _keep_segments_in_use(state)
        notes = reader.notes
        state.mismatched_flags = sorted(
            (set(state.mismatched_flags) | notes.mismatched_flags) - notes.matched_flags
        )
        outcome.notes.records += notes.records
        outcome.notes.late_lines.update(notes.late_lines)
        outcome.notes.replaced = outcome.notes.replaced or notes.replaced


def _note_segment(state: BeeState, segment: str, seq: int) -> None:
    bounds = state.segments.get(segment)
    if bounds is None:
        state.segments[segment] = [seq, seq]
    elif seq > bounds[1]:  # the usual case: the main flow's seqs grow
        bounds[1] = seq
    elif seq < bounds[0]:
        bounds[0] = seq


def _keep_segments_in_use(state: BeeState) -> None:
    """Forget the seq ranges of segments nothing will look up again, so the state (written
    at every pass) does not grow with history.

    Ranges serve to find the line of an entry net or condensé holds (`locate`: a model
    upgrade after a restart). Kept: the segment reading is in, whose range must go on
    from its first line, and every segment holding one of those entries. Lines read out
    of order have no range: the manifest's late records locate them.
    """
    zones = state.zones
    held = sorted({item.seq for item in zones.net} | {item.seq for item in zones.condense})

    def in_use(name: str, first: int, last: int) -> bool:
        if name == state.checkpoint.segment:
            return True
        index = bisect.bisect_left(held, first)
        return index < len(held) and held[index] <= last

    state.segments = {name: bounds for name, bounds in state.segments.items()
                      if in_use(name, *bounds)}
