"""One bee's pass, end to end, for the daemon and every command.

`BeeEngine` is the only writer of a bee's `state.json` and `handoff.md` and the only
place a pass is put together: load the state, finish interrupted rotations, read what is
new, step the zones, render, commit (manifest records, then the view and the state), and
rotate the live journal when it is due. A model's result is one more input to the same
unit. Read-only engines (`render`, the recall commands) write nothing and never finish a
rotation: they read an interrupted one as if it were finished, so their seqs are the ones
the daemon will give.

The daemon keeps one engine per bee between passes (its state and manifest stay in
memory); a command makes one, runs it once and drops it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from horizon.core.deferred import Deferred
from horizon.core.entries import Entry, Rejection
from horizon.core.render import render
from horizon.core.settings import Effective, GlobalConfig
from horizon.core.summarizer import TRUNCATION, ModelResult
from horizon.core.upgrades import take_condensed, take_folded
from horizon.core.view import View
from horizon.core.view_memo import BlockMemo
from horizon.core.zone_state import Changes
from horizon.core.zones import has_aged, settle, sweep
from horizon.engine.stepping import (
    Commit,
    HeldPass,
    Pass,
    PassRequest,
    context,
    run_pass,
    settings_key,
)
from horizon.hive.durable import StoreError
from horizon.hive.flags import FlagsCache
from horizon.hive.journal import Checkpoint
from horizon.hive.layout import live_name, live_path, window_dir
from horizon.hive.manifest import Manifest, Record, read_manifest
from horizon.hive.rotation import finish_rotations, rotate, seal
from horizon.hive.store import BeeState, encode_state, load_state, read_handoff, save_state
from horizon.summarize.cache import SummaryCache

ROTATE_RETRY_S = 60.0


def digest(text: str | None) -> tuple[int, int] | None:
    """What the engine keeps of a view to tell whether the next one differs: its length
    and the interpreter's own hash of it (64 bits, no encoding, no copy). It is compared
    only within one process's life, where that hash is stable."""
    if text is None:
        return None
    return len(text), hash(text)


@dataclass(frozen=True)
class ReadNew:
    """Read the lines written since the checkpoint (the usual pass)."""


@dataclass(frozen=True)
class SweepAges:
    """Apply age eviction without a new line; skipped when nothing can have aged.

    `reoffer`: truncated texts are offered to the models again at each sweep, so a sweep
    is due whenever the zones still hold one.
    """

    reoffer: bool = False


@dataclass(frozen=True)
class Rebuild:
    """Forget the derived state and read the whole history again."""


Input = ReadNew | SweepAges | Rebuild | ModelResult


class BeeEngine:
    """Owns one bee's derived state and every pass over it."""

    def __init__(self, hive: Path, bee: str, config: GlobalConfig, effective: Effective, *,
                 cache: SummaryCache | None = None, writes: bool = True,
                 on_record: Callable[[Entry | Rejection], None] | None = None,
                 slice_bytes: int | None = None, slice_s: float | None = None) -> None:
        self.hive = hive
        self.bee = bee
        self.window = window_dir(hive)
        self.config = config
        self.effective = effective
        self.cache = cache
        self.writes = writes
        self.on_record = on_record  # sees every record read, in seq order (recall, tests)
        # A pass reads at most this much of a backlog (None: all of it, as commands do).
        self.slice_bytes = slice_bytes
        self.slice_s = slice_s
        self.state: BeeState | None = None
        self.manifest: Manifest | None = None
        # What handoff.md on disk holds: the view this engine last made (`shown_is_ours`,
        # so a pass that changed nothing has nothing to write), or, just after a load, a
        # digest of the file found there (rewritten only when the next view differs).
        self.shown: tuple[int, int] | None = None
        self.shown_is_ours = False
        self.blocks: BlockMemo = {}  # the view's blocks, reused while their entry stays
        self.flags = FlagsCache()
        # Rotated segments to look at for late lines at the next pass (events, the poll).
        self.late_check: set[str] = set()
        self.rotate_retry_at = 0.0
        self.rebuild_due = False  # the files lost lines the state holds: read them again
        self.finished: list[str] = []  # rotations finished here, until the caller takes them
        self.rotations_checked = False
        self.rebuilding = False
        self.held_records: list[Record] = []  # of slices not committed yet
        self.held_pass = HeldPass()  # what those slices read, told with the last one
        self.owed: Deferred | None = None  # the text work those slices left to the last
        # Rejected lines up to this seq were reported: a rebuild re-reads them, no news.
        self.reported_seq = 0
        # The daemon's writer: commits are handed to it instead of written here, and a
        # rotation first waits until this bee's are on disk (False: one of them failed).
        self.deliver: Callable[[Commit], None] | None = None
        self.wait_written: Callable[[], bool] | None = None

    def reset(self) -> None:
        """Drop what is in memory: the next pass starts from the files."""
        self.state = None
        self.manifest = None
        self.shown = None
        self.shown_is_ours = False
        self.blocks = {}
        self.flags = FlagsCache()
        self.rotations_checked = False
        self.rebuilding = False
        self.held_records = []
        self.held_pass = HeldPass()
        self.owed = None

    # -- the pass -------------------------------------------------------------------------

    def run(self, given: Input, now: float, read_time: float | None = None) -> Pass | None:
        """One pass at `now` (`read_time`, the wall clock, is what clamps a `ts` in the
        future). None when there was nothing to do. A failed commit raises StoreError or
        OSError, and the engine starts again from the files at its next pass.
        """
        if isinstance(given, ModelResult):
            return self._take_model(given, now)
        if self.rebuild_due and not isinstance(given, SweepAges):
            self.rebuild_due, given = False, Rebuild()
        if (isinstance(given, SweepAges) and self.state is not None
                and not self.may_age(now, given.reoffer)):
            return None  # nothing in net can have aged: a sweep costs one comparison
        loaded = self.state is None or isinstance(given, Rebuild)
        if self.state is None:
            self.state = load_state(self.hive, self.bee)
            self.late_check |= set(self._manifest().rotated)  # catch up on every segment
            if self.writes:
                self.shown = digest(read_handoff(self.hive, self.bee))
                self.shown_is_ours = False
        read_to = self.state.checkpoint if self.state is not None else None
        self.finished += self._finish_rotations(read_to)
        if isinstance(given, Rebuild):
            self.state = None
            self.late_check |= set(self._manifest().rotated)
        manifest = self._manifest()
        late = None if not self.late_check else (
            self.late_check | {name for name in manifest.rotated if name not in manifest.sealed})
        if read_to is not None:
            self.reported_seq = max(self.reported_seq, read_to.seq)
        flags = self.flags.read(self.hive, self.bee)
        outcome = run_pass(PassRequest(
            self.hive, self.bee, self.config, self.effective, now, self.state,
            read_time=read_time, manifest=manifest, late_segments=late,
            on_record=self.on_record, cache=self.cache, finish_in_memory=not self.writes,
            read_to=read_to, slice_bytes=self.slice_bytes, slice_s=self.slice_s,
            seen_seq=self.reported_seq, blocks=self.blocks, owed=self.owed,
            rebuilding=self.rebuilding, flags=flags))
        self.owed = outcome.owed
        outcome.loaded = loaded
        self.manifest = outcome.manifest  # a retried pass starts from a fresh one
        # A history re-read in slices (new settings, a replaced journal) is committed
        # whole: until its last slice, the bee keeps the view it had, not a younger one.
        was_rebuilding = self.rebuilding
        changed = bool(outcome.read or outcome.changes.evicted or outcome.notes.records
                       or outcome.rebuilt
                       # A rebuild's last slice commits it, whatever that slice read.
                       or was_rebuilding
                       # Nothing read, evicted or recorded: the zones, and so the view
                       # (settings changes rebuild), are as this engine last made them.
                       or (not self.shown_is_ours and digest(outcome.view.text) != self.shown))
        self.rebuilding = (self.rebuilding or outcome.rebuilt) and outcome.more
        if self.rebuilding:
            self.held_pass.add(outcome)
        elif was_rebuilding:
            outcome = self.held_pass.into(outcome)  # the whole rebuild, told once
            self.held_pass = HeldPass()
        if self.writes and self.rebuilding:
            self.held_records += outcome.notes.records
        elif self.writes and changed:
            self._commit(outcome)
        if not self.rebuilding:
            self.reported_seq = max(self.reported_seq, outcome.state.checkpoint.seq)
        self.state = outcome.state
        if not outcome.more:
            self.late_check.clear()  # else the next slice goes on with the same segments
        if not self.rebuilding:
            self.shown_is_ours = True
        if self.writes and not isinstance(given, Rebuild):
            self._rotate_if_due(outcome)  # a rebuild only rebuilds the derived files
        return outcome

    def may_age(self, now: float, reoffer: bool) -> bool:
        """Whether a sweep could change anything: a non-last exchange older than the age
        limit, or (`reoffer`) a truncated text the models could still replace."""
        assert self.state is not None
        zones = self.state.zones
        settings = self.effective.horizon
        if reoffer and any(item.source == TRUNCATION for item in zones.condense):
            return bool(self.effective.levels)
        return settings.actif and has_aged(zones, settings, now)

    def stale(self) -> bool:
        """Whether the state on disk was made with other settings or flags than today's."""
        state = self._loaded()
        return state is None or state.settings_key != settings_key(
            self.effective, self.flags.read(self.hive, self.bee))

    def current_view(self, now: float, read_time: float, *,
                     sweep_at: float | None = None) -> View:
        """The view as the bee reads it (`handoff.md`'s text), computed in memory when
        nothing usable is derived yet (`engine.fresh` also folds in the lines not read
        yet). Writes nothing, whatever the engine's mode."""
        state = self._loaded()
        self._settle_owed(now)
        if state is None or self.stale():
            # As a daemon does when it loads a state: every rotated segment is looked at
            # for late lines, sealed ones too, so the seqs are the ones it will give.
            self.late_check |= set(self._manifest().rotated)
            writes, self.writes = self.writes, False
            try:
                outcome = self.run(ReadNew(), now, read_time)
            finally:
                self.writes = writes
            assert outcome is not None
            return outcome.view
        if sweep_at is not None:
            sweep(state.zones, context(self.bee, self.effective, sweep_at, self.cache,
                                       state.folds))
        return render(state.zones, self.bee, self.effective.horizon, self.effective.mission,
                      self.blocks)

    def seal(self, segment: str, size: int) -> None:
        """Record that a rotated segment stayed quiet at `size` bytes."""
        seal(self.window, self.bee, segment, size, self._manifest())

    # -- model results ----------------------------------------------------------------------

    def _take_model(self, result: ModelResult, now: float) -> Pass | None:
        """A model's text replaces truncation's, if what it was asked about is still there."""
        state = self.state
        if state is None:
            return None
        self._settle_owed(now)
        state.fallbacks += len(result.fallbacks)
        ctx = context(self.bee, self.effective, now, self.cache, state.folds)
        if result.kind == "condense":
            changed = take_condensed(state.zones, result, ctx)
        else:
            changed = take_folded(state.zones, state.folds, result, ctx)
        if not changed:
            return None
        view = render(state.zones, self.bee, self.effective.horizon, self.effective.mission,
                      self.blocks)
        outcome = Pass(state, view, Changes(), self._manifest())
        if self.writes:
            self._commit(outcome)
        self.shown_is_ours = True
        return outcome

    def _settle_owed(self, now: float) -> None:
        """The text work a rebuild's slices left, done before the state serves otherwise."""
        if self.owed is not None and self.state is not None:
            settle(self.state.zones, context(self.bee, self.effective, now, self.cache,
                                             self.state.folds, deferred=self.owed))
        self.owed = None

    # -- files ------------------------------------------------------------------------------

    def _loaded(self) -> BeeState | None:
        if self.state is None:
            self.state = load_state(self.hive, self.bee)
        return self.state

    def _manifest(self) -> Manifest:
        if self.manifest is None:
            self.manifest = read_manifest(self.window, self.bee)
        return self.manifest

    def _finish_rotations(self, read_to: Checkpoint | None) -> list[str]:
        """Once after the files are (re)read, a writing engine finishes the rotation a
        crash interrupted (the segments it finished); a read-only one reads it as
        finished."""
        if not self.writes or self.rotations_checked:
            return []
        self.rotations_checked = True
        return finish_rotations(self.window, self.bee, self._manifest(), read_to)

    def take_finished(self) -> list[str]:
        """The rotations finished since the last call: logged once, even by a failed pass."""
        finished, self.finished = self.finished, []
        return finished

    def _commit(self, outcome: Pass) -> None:
        """Durable in order: manifest records, then handoff.md, then the state; handed to
        the daemon's writer when it has one (the state is encoded now: the next pass
        changes it)."""
        commit = Commit(self.hive, self.bee, self.held_records + outcome.notes.records,
                        outcome.view.text.encode("utf-8"), encode_state(outcome.state))
        if self.deliver is not None:
            self.deliver(commit)
        else:
            try:
                commit.write()
            except (StoreError, OSError):
                self.reset()  # the disk still holds the last good state: start there
                raise
        self.held_records = []
        outcome.committed = True
        outcome.commit = commit

    def _rotate_if_due(self, outcome: Pass) -> None:
        """Move the live journal to the next archive segment once it holds
        `rotation_entries` lines. A failure loses nothing: the journal keeps growing and
        the rotation is tried again after `ROTATE_RETRY_S`."""
        state = self.state
        assert state is not None
        checkpoint = state.checkpoint
        if (outcome.more or checkpoint.segment != live_name(self.bee)
                or checkpoint.lines < self.config.rotation_entries
                or time.monotonic() < self.rotate_retry_at):
            return
        if self.wait_written is not None and not self.wait_written():
            # A commit of this bee failed: the disk is behind this engine, and the
            # rotation's record and state must not land ahead of what they build on.
            self.reset()
            raise StoreError(f"{self.hive} {self.bee}: an earlier write failed")
        try:
            moved = rotate(self.window, self.bee, checkpoint, self._manifest(),
                           probe=self.rotate_retry_at > 0.0)
        except OSError as error:
            if (isinstance(error, FileNotFoundError)
                    and not os.path.lexists(live_path(self.window, self.bee))):
                # Removed by hand between the intent and the link: its lines are on no
                # disk any more, and a rebuild would not show them. The view follows the
                # files: the next pass reads them again.
                outcome.journal_lost = checkpoint.lines
                self.rebuild_due = True
                return
            self.rotate_retry_at = time.monotonic() + ROTATE_RETRY_S
            outcome.rotate_failed = f"{error.filename}: {error.strerror}"
            return
        self.rotate_retry_at = 0.0
        if moved is None:
            return
        state.checkpoint = moved
        if checkpoint.segment in state.segments:
            state.segments[moved.segment] = state.segments.pop(checkpoint.segment)
        outcome.rotated = moved
        outcome.rotated_lines = checkpoint.lines
        try:
            # The checkpoint follows the moved file; saving it now spares a restart the
            # search (the state on disk still resolves it through the manifest).
            save_state(self.hive, self.bee, state)
        except StoreError as error:
            outcome.write_failed = str(error)
