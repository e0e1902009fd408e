"""A bee's whole history, read without writing and without the lock (recall).

The seqs are the daemon's: the one reader gives them, an interrupted rotation is read as
if it were finished, and the manifest's records place every range read out of order.
Finding a seq starts where the main flow left the segment before the one that holds it:
each `rotated` record says at which byte and seq its segment's main flow ended. A lookup costs
the manifest and one segment's bytes, however long the history.

A daemon may rotate the journal while a reading goes on: the manifest read first no longer
says where the files are, and the lines of the journal just moved would be missed and
their seqs given to the next ones. A reading that saw the files move raises
`HistoryChanged`, to be read again.
"""

from __future__ import annotations

import bisect
import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from horizon.core.entries import Entry, Rejection
from horizon.core.errors import JournalError
from horizon.hive.flags import read_flags
from horizon.hive.journal import Checkpoint, tail_hash
from horizon.hive.layout import archive_dir, live_path, window_dir
from horizon.hive.manifest import Manifest, Rotated, read_manifest
from horizon.hive.recall_reader import Recall, RecallReader
from horizon.hive.rotation import read_offset
from horizon.hive.store import load_state

Keep = Callable[[int, bytes], bool]
KeepBlock = Callable[[int, int, bytes], bool]  # (first seq, last seq, block): any kept?
# What places the lines a reading numbers, besides what writers append: the live journal's
# inode, and the manifest's rotations and adoptions. A rotation is recorded before its
# file moves, and its end changes the live journal's inode.
Layout = tuple[int | None, frozenset[Rotated], frozenset[str]]


class HistoryChanged(JournalError):
    """The journal was rotated (or adopted segments added) while it was being read."""


class History:
    """One bee's history as it stands on disk, for one command or one tool call."""

    def __init__(self, hive: Path, bee: str, max_line_bytes: int) -> None:
        self.hive = hive
        self.bee = bee
        self.window = window_dir(hive)
        self.max_line_bytes = max_line_bytes
        state = load_state(hive, bee)
        self.read_to = state.checkpoint if state is not None else None
        self.flags = read_flags(hive, bee)
        self.read_time = time.time()

    def reader(self, start: Checkpoint, recall: Recall,
               manifest: Manifest | None = None) -> RecallReader:
        """A reader from `start` that writes nothing: late lines no record holds yet get
        the seqs after the end that the daemon will give them."""
        manifest = manifest if manifest is not None else read_manifest(self.window, self.bee)
        return RecallReader(self.window, self.bee, start, self.max_line_bytes,
                            self.read_time, manifest, self.flags,
                            late_segments=set(manifest.rotated), finish_in_memory=True,
                            read_to=self.read_to if self.read_to is not None else start,
                            recall=recall)

    def entries(self, keep: Keep | None = None, keep_block: KeepBlock | None = None
                ) -> Iterator[Entry | Rejection]:
        """Every record in seq order. Those `keep` refuses are skipped undecoded, and
        blocks of lines `keep_block` refuses (None of their lines would be kept) are
        passed over whole. HistoryChanged, once the records are given, when the files
        moved meanwhile (what was given may be misnumbered)."""
        before, manifest = self._layout()
        try:
            yield from self.reader(Checkpoint(), Recall(keep, keep_block), manifest)
        except (JournalError, OSError):
            self._check(before)  # a file gone because it moved: read again
            raise
        self._check(before)

    def find(self, seqs: Iterable[int]) -> tuple[dict[int, Entry | Rejection], int]:
        """The records given these seqs (a seq absent from the result: no line has it),
        and the highest seq the readings reached. HistoryChanged when the files moved
        meanwhile."""
        before, manifest = self._layout()
        try:
            found, highest = self._find(seqs, manifest)
        except (JournalError, OSError):
            self._check(before)
            raise
        self._check(before)
        return found, highest

    def _find(self, seqs: Iterable[int], manifest: Manifest
              ) -> tuple[dict[int, Entry | Rejection], int]:
        by_start: dict[Checkpoint, set[int]] = {}
        for seq in sorted(set(seqs)):
            by_start.setdefault(self.start_of(seq, manifest), set()).add(seq)
        found: dict[int, Entry | Rejection] = {}
        highest = 0
        for start, group in by_start.items():
            last = max(group)
            # A block holding no seq asked for is passed over whole: a seq far into a long
            # segment costs its bytes, not a call per line.
            reader = self.reader(start, Recall(_within(group), _holds_any(sorted(group))))
            for record in reader:
                if record.seq in group:
                    found[record.seq] = record
                if record.seq >= last:
                    break
            highest = max(highest, reader.seq)
        return found, highest

    def _layout(self) -> tuple[Layout, Manifest]:
        return layout(self.window, self.bee)

    def _check(self, before: Layout) -> None:
        if layout(self.window, self.bee)[0] != before:
            raise HistoryChanged(f"{self.window}: {self.bee}'s journal was rotated while "
                                 "it was being read; read it again")

    def start_of(self, seq: int, manifest: Manifest) -> Checkpoint:
        """Where to start reading to reach `seq`: the end of the main flow of the segment
        before the one that holds it. Ranges read out of order are emitted when the main
        flow reaches their seqs, so the same start serves them."""
        before: list[Rotated] = []  # the rotated segments before seq's, in order
        for name in manifest.segments():
            rotated = manifest.rotated.get(name)
            if rotated is None:
                before = []  # adopted: its lines were never counted in a record
                continue
            if seq <= rotated.seq:
                break
            before.append(rotated)
        # The nearest first, and only until one is there: a seq 400 segments in costs one
        # segment's opening, as a seq in the first does.
        for rotated in reversed(before):
            end = self._end_of(rotated, manifest)
            if end is not None:
                return end
        return Checkpoint()

    def _end_of(self, rotated: Rotated, manifest: Manifest) -> Checkpoint | None:
        """Where the main flow leaves a rotated segment. None when no file is that segment
        (the reader reads on from the segment before): its link failed and the daemon read
        on in the live journal, or it is gone."""
        path = archive_dir(self.window) / rotated.segment
        try:
            if not os.path.lexists(path):
                # A rotation not linked yet: the live file, when the reader takes it for
                # that segment (not when the daemon read on past the record).
                path = live_path(self.window, self.bee)
                ino = os.stat(path, follow_symlinks=False).st_ino
                if manifest.interrupted_rotation(
                        ino, read_offset(self.read_to, ino)) != rotated.segment:
                    return None
            info = os.stat(path, follow_symlinks=False)
            tail = tail_hash(path, rotated.offset, self.hive)
        except FileNotFoundError:
            return None
        except (OSError, JournalError, OverflowError):
            # Read from the start: slower, never wrong. (An offset past what a file can
            # hold is no place to hash from: a record edited by hand.)
            return Checkpoint()
        return Checkpoint(rotated.segment, rotated.offset, rotated.seq, info.st_dev,
                          info.st_ino, tail, 0)


def layout(window: Path, bee: str) -> tuple[Layout, Manifest]:
    """Where the files are now, and the manifest: the live journal's inode is taken first,
    so a rotation recorded before the manifest was read and finished after is seen too."""
    try:
        live: int | None = os.stat(live_path(window, bee), follow_symlinks=False).st_ino
    except FileNotFoundError:
        live = None
    manifest = read_manifest(window, bee)
    # Copied now: a reader adds the records it would write to the manifest it is given.
    return (live, frozenset(manifest.rotated.values()), frozenset(manifest.adopted)
            ), manifest


def _within(seqs: set[int]) -> Keep:
    def keep(seq: int, _raw: bytes) -> bool:
        return seq in seqs
    return keep


def _holds_any(seqs: list[int]) -> KeepBlock:
    """Whether a block's seqs hold one of `seqs` (sorted)."""
    def keep_block(first: int, last: int, _block: bytes) -> bool:
        at = bisect.bisect_left(seqs, first)
        return at < len(seqs) and seqs[at] <= last
    return keep_block
