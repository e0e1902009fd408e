"""From journal bytes to records: seq numbering, decoding, clamping, flag checks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import msgspec

from horizon.entries import Entry, Rejection, decode_line, too_long
from horizon.journal import (
    Checkpoint,
    JournalError,
    is_blank,
    line_hash,
    read_lines,
    segment_paths,
    tail_hash,
)
from horizon.manifest import Clamp

CLOCK_SKEW_S = 300.0


class JournalReader:
    """Iterates the records written after `checkpoint`; `.checkpoint` follows the reading.

    `clamps` are the instants the manifest already fixed; new ones are collected in
    `.new_clamps` for the caller to record before the state that depends on them.
    """

    def __init__(self, window: Path, bee: str, checkpoint: Checkpoint, max_line_bytes: int,
                 read_time: float, clamps: dict[int, float], flags: dict[int, str]) -> None:
        self.window = window
        self.bee = bee
        self.checkpoint = checkpoint
        self.max_line_bytes = max_line_bytes
        self.read_time = read_time
        self.clamps = clamps
        self.flags = flags
        self.new_clamps: list[Clamp] = []
        self.matched_flags: set[int] = set()
        self.mismatched_flags: set[int] = set()
        self.current_segment = checkpoint.segment

    def _segments(self) -> list[tuple[Path, int]]:
        paths = segment_paths(self.window, self.bee)
        if not self.checkpoint.segment:
            return [(path, 0) for path in paths]
        names = [path.name for path in paths]
        if self.checkpoint.segment not in names:
            raise JournalError(
                f"{self.window / self.checkpoint.segment}: the segment of the checkpoint is gone"
            )
        index = names.index(self.checkpoint.segment)
        return [(paths[index], self.checkpoint.offset)] + [(p, 0) for p in paths[index + 1:]]

    def __iter__(self) -> Iterator[Entry | Rejection]:
        seq = self.checkpoint.seq
        for path, start in self._segments():
            end = start
            self.current_segment = path.name
            for raw, line_end in read_lines(path, start, self.max_line_bytes):
                end = line_end
                if raw is None:
                    seq += 1
                    yield too_long(seq, self.max_line_bytes)
                    continue
                if is_blank(raw):
                    continue
                seq += 1
                flagged = False
                if seq in self.flags:
                    flagged = self.flags[seq] == line_hash(raw)
                    (self.matched_flags if flagged else self.mismatched_flags).add(seq)
                yield self._adjusted(decode_line(seq, raw), flagged)
            if end != start or path.name != self.checkpoint.segment:
                info = os.stat(path, follow_symlinks=False)
                self.checkpoint = Checkpoint(path.name, end, seq, info.st_dev, info.st_ino,
                                             tail_hash(path, end))
            elif seq != self.checkpoint.seq:
                self.checkpoint = Checkpoint(self.checkpoint.segment, end, seq,
                                             self.checkpoint.dev, self.checkpoint.ino,
                                             self.checkpoint.tail)

    def _adjusted(self, record: Entry | Rejection, flagged: bool) -> Entry | Rejection:
        """The entry with its clamped instant and its operator flag applied."""
        if isinstance(record, Rejection):
            return record
        fixed = self.clamps.get(record.seq)
        if fixed is None and record.instant > self.read_time + CLOCK_SKEW_S:
            fixed = self.read_time
            self.new_clamps.append(Clamp(record.seq, fixed))
            self.clamps[record.seq] = fixed
        if fixed is None and not flagged:
            return record
        return msgspec.structs.replace(
            record, instant=record.instant if fixed is None else fixed,
            phare=record.phare or flagged,
        )
