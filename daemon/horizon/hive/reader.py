"""From journal bytes to records: seq numbering, decoding, clamping, flag checks.

One reader serves the daemon and the rebuild, so both give every line the same seq:
the main flow reads segments in order (archives up to where they were rotated, then
the live file); ranges the manifest records as read out of order are emitted at their
recorded seqs; lines found late in a rotated segment get seqs after the current end
and become new `late` records (ADR 0002).
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path

import msgspec

from horizon.core.entries import Entry, Rejection, decode_block
from horizon.hive.decoding import (
    CLOCK_SKEW_S,
    LineDecoder,
    Notes,
    takes_seq,
)
from horizon.hive.journal import (
    TAIL_BYTES,
    Checkpoint,
    hash_tail,
    read_blocks,
    read_lines,
    tail_hash,
    tail_hash_at,
)
from horizon.hive.layout import archive_dir
from horizon.hive.manifest import (
    Late,
    Manifest,
    Rotated,
)
from horizon.hive.segment_plan import SegmentPlan

# Records come out in batches: a batch holds records of one segment and one flow (the
# main flow, or a range read out of order), so `current_segment` and `main_flow` hold for
# all of it. A block of plain lines is one batch (a few, in a time-bound slice).
Batch = Sequence[Entry | Rejection]
# What a segment's reading gives back: where it ended, the lines it counted, the last
# line's bytes (for the checkpoint's tail) and whether the slice ran out there.
SegmentRead = Generator[Batch, None, tuple[int, int, bytes | None, bool]]
# A time-bound slice looks at the clock after batches of at most this many entries.
TIMED_BATCH = 256


def _last_line(block: bytes) -> bytes:
    """The last line of a block of whole lines, without its newline."""
    return block[block.rfind(b"\n", 0, len(block) - 1) + 1:-1]


def _after_lines(block: bytes, block_end: int, taken: int) -> tuple[int, bytes]:
    """Where the `taken`-th line of `block` ends, and that line."""
    lines = block.split(b"\n", taken)
    return block_end - len(block) + sum(map(len, lines[:taken])) + taken, lines[taken - 1]


class Slice:
    """What one reading may spend: bytes and seconds, each unbounded when None. The
    clock starts at `start`, when the reading starts."""

    def __init__(self, max_bytes: int | None, seconds: float | None) -> None:
        self.max_bytes = max_bytes
        self.seconds = seconds
        self.deadline: float | None = None

    @property
    def bounded(self) -> bool:
        return self.max_bytes is not None or self.seconds is not None

    def start(self) -> None:
        self.deadline = None if self.seconds is None else time.monotonic() + self.seconds

    def spent(self, done: int) -> bool:
        """Whether the slice is used up, `done` bytes read."""
        return ((self.max_bytes is not None and done >= self.max_bytes)
                or (self.deadline is not None and time.monotonic() >= self.deadline))

    def holds(self, done: int) -> bool:
        """Whether `done` bytes leave some of the slice's bytes."""
        return self.max_bytes is None or done < self.max_bytes


def _checkpoint_at(plan: SegmentPlan, hive: Path, name: str, path: Path, end: int,
                   seq: int, lines: int, last: bytes | None) -> Checkpoint:
    """The checkpoint after `lines` lines of segment `name`, at `end`, `seq` given; `last`
    is the last line's bytes when known (a long one's tail is hashed from it)."""
    fd = plan.opened.get(path)
    info = os.fstat(fd) if fd is not None else os.stat(path, follow_symlinks=False)
    if last is not None and len(last) + 1 >= TAIL_BYTES:
        tail = hash_tail(last + b"\n")
    else:
        tail = tail_hash_at(fd, end) if fd is not None else tail_hash(path, end, hive)
    return Checkpoint(name, end, seq, info.st_dev, info.st_ino, tail, lines)


class JournalReader:
    """Iterates the records written after `checkpoint`; `.checkpoint` follows the reading.

    `late_segments` names the rotated segments to look at for late lines (None: every
    rotated segment not sealed yet). `finish_in_memory`: a live journal that a rotation
    already recorded (a crash stopped it before its unlink) is read under its segment's
    name, as `finish_rotations` will leave it, so a reader that must not write gives the
    seqs the daemon will give. `slice_bytes` and `slice_s` bound one reading: once either
    is spent, it stops after a whole line, with the checkpoint there and `more` set.
    Every line is decoded and given (`RecallReader` reads as recall does).
    """

    def __init__(self, window: Path, bee: str, checkpoint: Checkpoint, max_line_bytes: int,
                 read_time: float, manifest: Manifest, flags: dict[int, str],
                 late_segments: set[str] | None = None, *,
                 finish_in_memory: bool = False, read_to: Checkpoint | None = None,
                 slice_bytes: int | None = None, slice_s: float | None = None) -> None:
        self.window = window
        self.hive = window.parent  # every journal is opened down from it, following no link
        self.checkpoint = checkpoint
        self.max_line_bytes = max_line_bytes
        self.read_time = read_time
        self.manifest = manifest
        self.late_segments = late_segments
        self.more = False  # stopped at the slice's bound: complete lines are left to read
        self.slice = Slice(slice_bytes, slice_s)
        self.notes = Notes()
        # `read_to`, how far the daemon has read, tells a rotation a crash stopped from one
        # whose link failed while reading went on (`Manifest.interrupted_rotation`).
        self.plan = SegmentPlan(window, bee, manifest, self.notes,
                                finish_in_memory=finish_in_memory,
                                read_to=read_to if read_to is not None else checkpoint)
        self.decoder = LineDecoder(flags, manifest, self.notes, read_time, max_line_bytes)
        self.current_segment = checkpoint.segment
        # False while records come from elsewhere than the segments in order (ranges read
        # out of order): their seqs are found through the manifest, not a segment's range.
        self.main_flow = True
        self._seq = checkpoint.seq
        self._reserved = sorted((late for late in manifest.late if late.first_seq > self._seq),
                                key=lambda late: late.first_seq)

    @property
    def seq(self) -> int:
        """The last seq given."""
        return self._seq

    # -- the main flow ------------------------------------------------------------------

    def _missing_before(self) -> list[Rotated]:
        """The rotated segments gone from the archive (deleted by hand), in name order: their
        lines are lost, but their seqs stay theirs, so later lines keep the seqs every
        reader gives them. Not a rotation whose file is still the live journal."""
        gone = self.plan.gone()
        if gone:
            names = {rotated.segment for rotated in gone}
            self._reserved = [late for late in self._reserved if late.segment not in names]
        return gone

    def _skip_missing(self, missing: list[Rotated], before: str) -> Iterator[Batch]:
        """Past each missing segment named before `before`: the counter to its recorded
        end (ranges read out of order up to there emitted first)."""
        while missing and missing[0].segment < before:
            gone = missing.pop(0)
            if gone.seq > self._seq:
                yield from self._emit_reserved(upto=gone.seq)
                self._seq = max(self._seq, gone.seq)

    def __iter__(self) -> Iterator[Entry | Rejection]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Iterator[Batch]:
        """The records, a batch at a time (what iterating the reader gives, grouped)."""
        try:
            yield from self._read()
        finally:
            self.plan.close()

    def _read(self) -> Iterator[Batch]:
        self.slice.start()
        done = 0  # bytes of the main flow read by earlier segments of this reading
        starts = self.plan.starts(self.checkpoint, self._seq)
        # Only a reading that listed the archive can pass a segment gone from it: one that
        # resumes in the live journal is past every segment already.
        missing = self._missing_before() if self.plan.listed else []
        for name, path, start, already in starts:
            yield from self._skip_missing(missing, name)
            lines = already
            target = self.plan.jump_at_start(name, path) if start == 0 else None
            if target is not None:
                # Ranges read late before the file was replaced keep their seqs.
                yield from self._emit_reserved(upto=target)
                self._seq = max(self._seq, target)
            self.current_segment = name
            limit = self.plan.main_end(name)
            end, read, last, stopped = yield from self._segment(path, start, limit, done)
            lines += read
            if stopped:
                # One bee's backlog never holds the loop: the rest is the next slice's.
                self.checkpoint = _checkpoint_at(self.plan, self.hive, name, path, end,
                                                 self._seq, lines, last)
                self.more = True
                return
            done += end - start
            if end != start or name != self.checkpoint.segment or start == 0:
                self.checkpoint = _checkpoint_at(self.plan, self.hive, name, path, end,
                                                 self._seq, lines, last)
        yield from self._emit_reserved()
        yield from self._read_late(done)
        self.checkpoint = msgspec.structs.replace(self.checkpoint, seq=self._seq)

    def _segment(self, path: Path, start: int, limit: int | None, done: int) -> SegmentRead:
        """One segment's lines from `start` (up to `limit`), a block at a time: a block of
        plain lines is decoded in one call; the others a line at a time. Gives what
        reading each line does (`RecallReader`'s reading)."""
        end, lines, last = start, 0, None
        for block, block_end in read_blocks(path, start, self.max_line_bytes, limit,
                                            self.hive, self.plan.opened.get(path)):
            # The seqs a block of one object a line takes: one a line.
            count = 0 if block is None else block.count(b"\n")
            entries = None
            if block is not None and self._plain(block, count, done + block_end - start):
                first = self._seq + 1
                if not self.decoder.marked(first, first + count - 1):
                    entries = decode_block(first, block, count, self.read_time + CLOCK_SKEW_S)
            if entries is None:  # a blank line, a null, a string ts, a flag...
                raws: Sequence[bytes | None] = [None] if block is None else (
                    block.split(b"\n")[:-1])
                end, lines, last, stopped = yield from self._each_line(
                    raws, block_end - len(block or b""), lines, last, done - start)
            elif self.slice.deadline is None:  # a generator less per entry: the usual case
                assert block is not None
                self._seq += len(entries)
                yield entries
                end, lines, last, stopped = (block_end, lines + len(entries),
                                             _last_line(block), False)
            else:
                assert block is not None
                end, lines, last, stopped = yield from self._timed(
                    entries, block, block_end, lines)
            if stopped:
                return end, lines, last, True
        return end, lines, last, False

    def _timed(self, records: list[Entry], block: bytes, block_end: int, lines: int
               ) -> SegmentRead:
        """A plain block's records given out in batches, one record first, then twice as
        many each time up to TIMED_BATCH, the slice's time looked at after each (the
        daemon's slices: one stops within a few records of its bound)."""
        deadline = self.slice.deadline
        assert deadline is not None
        taken, size = 0, 1
        while taken < len(records):
            batch = records[taken:taken + size]
            taken += len(batch)
            self._seq += len(batch)
            yield batch
            if time.monotonic() >= deadline and taken < len(records):
                end, line = _after_lines(block, block_end, taken)
                return end, lines + taken, line, True
            size = min(2 * size, TIMED_BATCH)
        return (block_end, lines + len(records), _last_line(block),
                time.monotonic() >= deadline)

    def _each_line(self, raws: Sequence[bytes | None], end: int, lines: int,
                   last: bytes | None, spent_before: int) -> SegmentRead:
        """A block's lines looked at one by one (blank lines, lines too long, ranges read
        out of order, the slice's end): from `end`, the block's start, with `lines` and
        `last` so far; `spent_before` plus an offset is what the slice has read."""
        for line in raws:
            raw = line
            if raw is not None:
                end += len(raw) + 1
                if not takes_seq(raw):  # however long
                    last = raw
                    continue
                if len(raw) > self.max_line_bytes:
                    raw = None
            last = raw
            if self._reserved:
                yield from self._emit_reserved()
            lines += 1
            if (record := self._record(raw)) is not None:
                yield (record,)
            if self.slice.spent(spent_before + end):
                return end, lines, last, True
        return end, lines, last, False

    def _plain(self, block: bytes, count: int, spent_at_end: int) -> bool:
        """Whether a block of `count` lines can be read without a look at each one: each
        is one object (the decoding checks that), none is too long, no range read out of
        order is to be emitted among them, and the slice's bytes are not spent before its
        end."""
        first = self._reserved[0].first_seq if self._reserved else None
        return ((first is None or first > self._seq + count)
                and self.slice.holds(spent_at_end)
                and (len(block) <= self.max_line_bytes
                     or max(map(len, block.split(b"\n"))) <= self.max_line_bytes))

    # -- ranges read out of order -----------------------------------------------------

    def _emit_reserved(self, upto: int | None = None) -> Iterator[Batch]:
        """Ranges the manifest gave seqs to, emitted when the counter reaches them (or,
        before a jump, every range that starts at or before it)."""
        segment = self.current_segment
        while self._reserved and (self._reserved[0].first_seq == self._seq + 1 or (
                upto is not None and self._reserved[0].first_seq <= upto)):
            late = self._reserved.pop(0)
            self._seq = late.first_seq - 1
            path = archive_dir(self.window) / late.segment
            self.current_segment = late.segment
            self.main_flow = False
            for raw, _ in read_lines(path, late.start, self.max_line_bytes, late.end, self.hive):
                if takes_seq(raw) and (record := self._record(raw)) is not None:
                    yield (record,)
        self.current_segment = segment  # the main flow goes on where it was
        self.main_flow = True

    def _read_late(self, done: int) -> Iterator[Batch]:
        """Lines that reached a rotated segment after it was moved: seqs after the end,
        within what is left of the slice (`done` bytes read already)."""
        names = self.late_segments
        if names is None:
            names = {name for name in self.manifest.rotated if name not in self.manifest.sealed}
        for name in sorted(names):
            if name not in self.manifest.rotated:
                continue
            path = self.plan.late_path(name)
            start = self.manifest.late_end(name)
            try:
                if os.stat(path, follow_symlinks=False).st_size <= start:
                    continue
            except FileNotFoundError:
                continue
            first = self._seq + 1
            end = start
            self.current_segment = name
            self.main_flow = False
            for raw, line_end in read_lines(path, start, self.max_line_bytes, None, self.hive):
                end = line_end
                if takes_seq(raw) and (record := self._record(raw)) is not None:
                    yield (record,)
                if self.slice.spent(done + end - start):
                    self.more = True  # the range read so far is recorded; the rest waits
                    break
            done += end - start
            if end > start:
                late = Late(name, start, end, first, self._seq)
                self.notes.records.append(late)
                self.manifest.add(late)
                if self._seq >= first:
                    self.notes.late_lines[name] = self._seq - first + 1
            if self.more:
                return

    # -- one line -----------------------------------------------------------------------

    def _record(self, raw: bytes | None) -> Entry | Rejection | None:
        """The next seq's record (None: one passed over, `RecallReader`)."""
        self._seq += 1
        return self.decoder.record(self._seq, raw)
