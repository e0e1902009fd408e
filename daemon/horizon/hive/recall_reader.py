"""Recall's reading of a journal: the reader's seqs and records, with lines passed over
undecoded when recall has no use for them, and one line's bytes kept when asked for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from horizon.core.entries import Entry, Rejection
from horizon.hive.decoding import holds_seqless_line
from horizon.hive.journal import Checkpoint, read_blocks
from horizon.hive.manifest import Manifest
from horizon.hive.reader import JournalReader, SegmentRead


@dataclass(frozen=True)
class Recall:
    """How recall reads: what it passes over undecoded, and which line's bytes it keeps.

    `keep`: a line it says no to (its seq, its bytes) keeps its seq but is neither decoded
    nor yielded, so a search or a lookup pays for the bytes only. `keep_block`: a test on a
    whole block of lines (the seqs of its first and last line, its bytes), False when `keep`
    would refuse every one of them, so a search passes over most of a history a block at a
    time. `raw_wanted`: the seq whose bytes `raw_found` keeps (`horizon phare`, the web
    view's rejected lines).
    """

    keep: Callable[[int, bytes], bool] | None = None
    keep_block: Callable[[int, int, bytes], bool] | None = None
    raw_wanted: int | None = None


class RecallReader(JournalReader):
    """A JournalReader that reads as `recall` says, a line at a time."""

    def __init__(self, window: Path, bee: str, checkpoint: Checkpoint, max_line_bytes: int,
                 read_time: float, manifest: Manifest, flags: dict[int, str],
                 late_segments: set[str] | None = None, *, recall: Recall,
                 finish_in_memory: bool = False, read_to: Checkpoint | None = None,
                 slice_bytes: int | None = None, slice_s: float | None = None) -> None:
        super().__init__(window, bee, checkpoint, max_line_bytes, read_time, manifest, flags,
                         late_segments, finish_in_memory=finish_in_memory, read_to=read_to,
                         slice_bytes=slice_bytes, slice_s=slice_s)
        self.keep = recall.keep
        self.keep_block = recall.keep_block
        self.raw_wanted = recall.raw_wanted
        self.raw_found: bytes | None = None  # the bytes of `raw_wanted`, once read

    def _segment(self, path: Path, start: int, limit: int | None, done: int) -> SegmentRead:
        """A line at a time, so `keep`, `keep_block` and `raw_wanted` see each one (and
        whole blocks can be passed over)."""
        end, lines, last = start, 0, None
        passing = self.keep_block is not None and not self.slice.bounded
        for block, block_end in read_blocks(path, start, self.max_line_bytes, limit,
                                            self.hive, self.plan.opened.get(path)):
            if (passing and block is not None and len(block) <= self.max_line_bytes
                    and (count := self._skip(block)) is not None):
                lines += count  # a block passed over: its lines only take their seqs
                self._seq += count
                end, last = block_end, None
                continue
            raws: Sequence[bytes | None] = [None] if block is None else (
                block.split(b"\n")[:-1])
            end, lines, last, stopped = yield from self._each_line(
                raws, block_end - len(block or b""), lines, last, done - start)
            if stopped:
                return end, lines, last, True
        return end, lines, last, False

    def _skip(self, block: bytes) -> int | None:
        """The seqs a block of complete lines takes, when it can be passed over whole: no
        blank line in it, no range read out of order or line asked for within it, and
        `keep_block` says no line of it is kept."""
        assert self.keep_block is not None
        count = block.count(b"\n")
        if block.count(b"\n{") + block.startswith(b"{") != count and (  # usual: fast
                holds_seqless_line(block)):
            return None
        first, last = self._seq + 1, self._seq + count
        if self._reserved and self._reserved[0].first_seq <= last + 1:
            return None
        if self.raw_wanted is not None and first <= self.raw_wanted <= last:
            return None
        if self.decoder.flagged_within(first, last):  # its flags are checked line by line
            return None
        return count if not self.keep_block(first, last, block) else None

    def _record(self, raw: bytes | None) -> Entry | Rejection | None:
        """The next seq's record; None when recall passes over it undecoded."""
        self._seq += 1
        seq = self._seq
        if seq == self.raw_wanted:
            self.raw_found = raw
        if raw is not None and self.keep is not None and not self.keep(seq, raw):
            return None
        return self.decoder.record(seq, raw)
