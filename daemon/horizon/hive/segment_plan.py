"""Which files a reading of a bee's journal goes through, in order, and where it starts
in each: the live journal alone in the usual case (no archive listing, so a pass costs the
same with 400 segments behind it as with none), else the archive's segments from the
checkpoint's on, an interrupted rotation read as if finished when asked, and a journal
replaced or truncated by hand noted as a jump."""

from __future__ import annotations

import os
from pathlib import Path

from horizon.core.errors import JournalError
from horizon.hive.decoding import Notes
from horizon.hive.durable import open_regular
from horizon.hive.journal import Checkpoint, segment_paths, tail_hash, tail_hash_at
from horizon.hive.layout import archive_dir, live_name, live_path
from horizon.hive.manifest import Jump, Manifest, Rotated, gone_rotations, live_ino
from horizon.hive.rotation import read_offset


class SegmentPlan:
    """The segments of one reading; it holds the live journal open until `close`."""

    def __init__(self, window: Path, bee: str, manifest: Manifest, notes: Notes, *,
                 finish_in_memory: bool, read_to: Checkpoint) -> None:
        self.window = window
        self.hive = window.parent  # every journal is opened down from it, following no link
        self.bee = bee
        self.manifest = manifest
        self.notes = notes
        self.finish_in_memory = finish_in_memory
        self.read_to = read_to
        self.seq = 0  # the reading's last seq when it started: a jump starts after it
        self.listed = False  # whether this reading listed the archive
        self.unlinked: dict[str, Path] = {}  # segments only the live file names yet
        # The live journal, opened once by `starts` for the whole reading (the check of its
        # tail, its lines, the checkpoint), and closed when the reading ends.
        self.opened: dict[Path, int] = {}

    def close(self) -> None:
        for fd in self.opened.values():
            os.close(fd)
        self.opened.clear()

    def gone(self) -> list[Rotated]:
        """The rotated segments gone from the archive (deleted by hand), in name order."""
        present = {name for name, _ in self._segments()}
        return gone_rotations(self.manifest, present, live_ino(self.window, self.bee))

    def late_path(self, name: str) -> Path:
        """Where a rotated segment's late lines are read: its archive file, or the live
        file while an interrupted rotation has not linked it yet."""
        return self.unlinked.get(name) or archive_dir(self.window) / name

    def starts(self, checkpoint: Checkpoint, seq: int) -> list[tuple[str, Path, int, int]]:
        """(name, file, start offset, lines already read there) of each main-flow segment,
        for a reading from `checkpoint` whose last seq given is `seq`."""
        self.seq = seq
        live = live_path(self.window, self.bee)
        if checkpoint.segment == live.name and (fd := self._open_live(live)) is not None:
            # The usual case: still in the live file. No archive listing, so a pass costs
            # the same with 400 segments behind it as with none.
            info = os.fstat(fd)
            if (info.st_ino == checkpoint.ino and info.st_size >= checkpoint.offset
                    and (info.st_size == checkpoint.offset
                         or tail_hash_at(fd, checkpoint.offset) == checkpoint.tail)
                    and self._rotated_as(info.st_ino) is None):
                return [(live.name, live, checkpoint.offset, checkpoint.lines)]
        segments = self._segments()
        if not checkpoint.segment:
            return [(name, path, 0, 0) for name, path in segments]
        names = [name for name, _ in segments]
        name = self._resolve(checkpoint, segments)
        if name not in names and name == live_name(self.bee):
            # The live journal was deleted: nothing to read until a writer makes a new
            # one, whose lines then get seqs after ours (a `jump`, see _resolve).
            return []
        if name not in names:
            raise JournalError(f"{self.window / checkpoint.segment}: the segment of the "
                               "checkpoint is gone")
        index = names.index(name)
        start, lines = (0, 0) if self.notes.replaced is not None else (
            checkpoint.offset, checkpoint.lines)
        return [(name, segments[index][1], start, lines)] + [
            (later, path, 0, 0) for later, path in segments[index + 1:]]

    def _open_live(self, live: Path) -> int | None:
        """A descriptor on the live journal, kept for the reading; None when it is absent
        (a link or anything but a regular file is refused: JournalError)."""
        try:
            fd = open_regular(live, self.hive)
        except JournalError:
            if not os.path.lexists(live):
                return None
            raise
        self.opened[live] = fd
        return fd

    def _segments(self) -> list[tuple[str, Path]]:
        """(name, file) of every segment in order: the archives, then the live journal."""
        self.listed = True
        segments = [(path.name, path) for path in
                    segment_paths(self.window, self.bee, self.manifest.segments())]
        if not segments or segments[-1][0] != live_name(self.bee):
            return segments
        live = segments[-1][1]
        try:
            pending = self._rotated_as(os.stat(live, follow_symlinks=False).st_ino)
        except FileNotFoundError:
            pending = None
        if pending is None:
            return segments
        del segments[-1]
        if pending not in dict(segments):
            # Not linked yet: the live file is the segment's only name.
            self.unlinked[pending] = live
            segments.append((pending, live))
            segments.sort()
        return segments

    def _rotated_as(self, ino: int) -> str | None:
        """With `finish_in_memory`, the segment a recorded rotation of file `ino` names."""
        if not self.finish_in_memory:
            return None
        return self.manifest.interrupted_rotation(ino, read_offset(self.read_to, ino))

    def _resolve(self, checkpoint: Checkpoint, segments: list[tuple[str, Path]]) -> str:
        """The name the checkpoint's file has now; notes a journal replaced or truncated."""
        by_name = dict(segments)
        path = by_name.get(checkpoint.segment)
        info = os.stat(path, follow_symlinks=False) if path is not None else None
        if info is not None and info.st_ino == checkpoint.ino:
            if info.st_size < checkpoint.offset:
                self._replaced(checkpoint.segment, info.st_ino, "truncated")
            elif path is not None and (
                    tail_hash(path, checkpoint.offset, self.hive) != checkpoint.tail):
                self._replaced(checkpoint.segment, info.st_ino, "rewritten")
            return checkpoint.segment
        for rotated in self.manifest.rotated.values():
            if rotated.ino == checkpoint.ino and rotated.segment in by_name:
                return rotated.segment  # rotated after the checkpoint was saved
        if checkpoint.segment == live_name(self.bee):
            live = by_name.get(checkpoint.segment)
            if live is not None:
                self._replaced(checkpoint.segment, os.stat(live).st_ino, "replaced")
            return checkpoint.segment
        return checkpoint.segment

    def _replaced(self, segment: str, ino: int, how: str) -> None:
        self.notes.replaced = f"{segment} {how}"
        jump = Jump(segment, ino, self.seq)
        self.notes.records.append(jump)
        self.manifest.add(jump)

    def main_end(self, name: str) -> int | None:
        """Where the main flow leaves a rotated segment (None: it reads to the end)."""
        rotated = self.manifest.rotated.get(name)
        return rotated.offset if rotated is not None else None

    def jump_at_start(self, name: str, path: Path) -> int | None:
        """The seq a hand-replaced file's lines start after, when the manifest says so."""
        rotated = self.manifest.rotated.get(name)
        try:
            ino = rotated.ino if rotated else os.stat(path, follow_symlinks=False).st_ino
        except FileNotFoundError:
            return None
        target = None
        for jump in self.manifest.jumps:
            if jump.ino == ino and (jump.segment == name or rotated is not None):
                target = max(target or 0, jump.seq)
        return target
