"""The segment manifest `window/archive/<bee>-segments.jsonl`: append-only facts a rebuild
replays so that every line keeps its seq (ADR 0002).

- `rotated`: the live file (inode `ino`) became archive `segment`; its lines up to byte
  `offset` (seq `seq`) were read in file order, anything after is read late.
- `late`: the lines of `segment` in bytes [start, end) were read out of file order and
  got the seqs from `first_seq`.
- `jump`: the file `segment` (inode `ino`) was replaced or truncated by hand; its lines
  from byte 0 get seqs after `seq`.
- `sealed`: `segment` stayed quiet for `rotate_wait_s` at `size` bytes.
- `clamps`: the lines `first` to `last`, whose `ts` was in the future, clamped to the
  instant they were read (consecutive lines read at one instant make one record; older
  versions wrote a `clamp` record, `seq` and `instant`, per line: read as a range of one).
- `adopted`: an operator took in `segment`, a file no rotation made (`horizon adopt`):
  read whole, in name order among the segments.
- `aborted`: a rotation into `segment` backed out (the journal was replaced under its
  name between the record and the unlink); the record before it is void.

Every segment a record names is this bee's own (`<bee>-messages.<6 digits>.jsonl`, or its
live journal for a `jump`): a record naming anything else is refused, never used as a
path, and reported (`Manifest.refused`).
"""

from __future__ import annotations

import bisect
import os
import threading
from pathlib import Path
from typing import Annotated

import msgspec

from horizon.core.entries import LATEST
from horizon.hive.durable import append_durably, read_records
from horizon.hive.layout import archive_dir, live_path, manifest_path, parse_journal_name

# Offsets and seqs no file or history reaches: a record past them is malformed (a forged
# offset past 2**63 made the reader's pread overflow in every command and the daemon).
Count = Annotated[int, msgspec.Meta(ge=0, le=2**62)]


class Rotated(msgspec.Struct, tag="rotated", tag_field="kind", frozen=True):
    segment: str
    ino: Count
    offset: Count
    seq: Count


class Late(msgspec.Struct, tag="late", tag_field="kind", frozen=True):
    segment: str
    start: Count
    end: Count
    first_seq: Count
    last_seq: Count


class Jump(msgspec.Struct, tag="jump", tag_field="kind", frozen=True):
    segment: str
    ino: Count
    seq: Count


class Sealed(msgspec.Struct, tag="sealed", tag_field="kind", frozen=True):
    segment: str
    size: Count


class Adopted(msgspec.Struct, tag="adopted", tag_field="kind", frozen=True):
    segment: str


class Aborted(msgspec.Struct, tag="aborted", tag_field="kind", frozen=True):
    segment: str


Instant = Annotated[float, msgspec.Meta(ge=0, le=LATEST)]  # what a view can print


class Clamp(msgspec.Struct, tag="clamp", tag_field="kind", frozen=True):
    """One clamped line, as versions before ranges recorded it."""

    seq: Count
    instant: Instant


class Clamps(msgspec.Struct, tag="clamps", tag_field="kind", frozen=True):
    first: Count
    last: Count
    instant: Instant


Record = Rotated | Late | Jump | Sealed | Clamp | Clamps | Adopted | Aborted
_decoder = msgspec.json.Decoder(Record)
_encoder = msgspec.json.Encoder()


class Manifest(msgspec.Struct):
    """The records of one bee, indexed the way the reader asks for them."""

    rotated: dict[str, Rotated] = msgspec.field(default_factory=dict)
    late: list[Late] = msgspec.field(default_factory=list)
    jumps: list[Jump] = msgspec.field(default_factory=list)
    sealed: dict[str, Sealed] = msgspec.field(default_factory=dict)
    # Clamped ranges (first, last, instant), in order of first; `clamp_starts` their
    # firsts, for bisect. A million future-dated lines read in a few passes are a few.
    clamps: list[tuple[int, int, float]] = msgspec.field(default_factory=list)
    clamp_starts: list[int] = msgspec.field(default_factory=list)
    adopted: set[str] = msgspec.field(default_factory=set)
    # Records that named something other than this bee's files: line number and why.
    refused: list[str] = msgspec.field(default_factory=list)

    def add(self, record: Record) -> None:
        if isinstance(record, Rotated):
            self.rotated[record.segment] = record
        elif isinstance(record, Late):
            self.late.append(record)
        elif isinstance(record, Jump):
            self.jumps.append(record)
        elif isinstance(record, Sealed):
            self.sealed[record.segment] = record
        elif isinstance(record, Adopted):
            self.adopted.add(record.segment)
        elif isinstance(record, Aborted):
            self.rotated.pop(record.segment, None)
        elif isinstance(record, Clamp):
            self.add_clamps(record.seq, record.seq, record.instant)
        elif record.first <= record.last:
            self.add_clamps(record.first, record.last, record.instant)

    def add_clamps(self, first: int, last: int, instant: float) -> None:
        """A clamped range, merged with the one before it when it goes on from it at the
        same instant."""
        at = bisect.bisect_right(self.clamp_starts, first)
        if at and self.clamps[at - 1][1] == first - 1 and self.clamps[at - 1][2] == instant:
            self.clamps[at - 1] = (self.clamps[at - 1][0], last, instant)
            return
        self.clamps.insert(at, (first, last, instant))
        self.clamp_starts.insert(at, first)

    def clamp_at(self, seq: int) -> float | None:
        """The instant the line `seq` was clamped to, or None."""
        at = bisect.bisect_right(self.clamp_starts, seq) - 1
        if at >= 0 and self.clamps[at][1] >= seq:
            return self.clamps[at][2]
        return None

    def clamped_within(self, first: int, last: int) -> bool:
        """Whether a clamped range meets the seqs `first` to `last`."""
        at = bisect.bisect_right(self.clamp_starts, last) - 1
        return at >= 0 and self.clamps[at][1] >= first

    def segments(self) -> list[str]:
        """The bee's archive segments, recorded by a rotation or an adoption, in order."""
        return sorted(self.adopted | set(self.rotated))

    def interrupted_rotation(self, ino: int, read_to: int | None = None) -> str | None:
        """The segment a rotation of file `ino` names while that file is still the live
        journal: a crash stopped it before its link or unlink. `read_to` is how far a
        writer read that file in order: a record behind it is a rotation whose link
        failed while the daemon went on reading, not one to finish (the next rotation
        records the file again)."""
        for record in self.rotated.values():
            if record.ino == ino and (read_to is None or read_to <= record.offset):
                return record.segment
        return None

    def late_end(self, segment: str) -> int:
        """Where late reading of an archived segment resumes."""
        ends = [late.end for late in self.late if late.segment == segment]
        rotated = self.rotated.get(segment)
        return max([rotated.offset if rotated else 0, *ends])


def read_manifest(window: Path, bee: str) -> Manifest:
    """Every well-formed record of this bee's own files; a torn last line (a crash
    mid-append) is ignored, a record naming another file is refused."""
    manifest = Manifest()
    for number, line in enumerate(read_records(manifest_path(window, bee), under=window.parent),
                                  start=1):
        try:
            record = _decoder.decode(line)
        except (msgspec.MsgspecError, RecursionError):  # torn, or nested past the stack
            continue
        if isinstance(record, Clamp | Clamps) or _names_own_file(record, bee):
            manifest.add(record)
        else:
            manifest.refused.append(f"record {number}: {record.segment!r} is not one of "
                                    f"{bee}'s segments")
    return manifest


# The segments of each manifest read by `recorded_segments`, with the stat they were read
# at: discovery and status look at every bee's segments whenever a file appears in
# window/, and a manifest is appended to, never rewritten, so an unchanged stat is an
# unchanged list.
_SEGMENTS: dict[str, tuple[tuple[int, int, int, int], tuple[str, ...]]] = {}
_SEGMENTS_MAX = 4096
_SEGMENTS_LOCK = threading.Lock()


def recorded_segments(window: Path, bee: str) -> list[str]:
    """`read_manifest(window, bee).segments()`, read again only when the manifest changed."""
    path = manifest_path(window, bee)
    try:
        info = os.stat(path, follow_symlinks=False)
        key: tuple[int, int, int, int] | None = (info.st_dev, info.st_ino, info.st_size,
                                                 info.st_mtime_ns)
    except OSError:
        key = None
    cached = _SEGMENTS.get(str(path))
    if key is not None and cached is not None and cached[0] == key:
        return list(cached[1])
    segments = read_manifest(window, bee).segments()
    if key is not None:
        with _SEGMENTS_LOCK:
            if len(_SEGMENTS) >= _SEGMENTS_MAX:
                del _SEGMENTS[next(iter(_SEGMENTS))]
            _SEGMENTS[str(path)] = (key, tuple(segments))
    return segments


def archive_names(window: Path) -> set[str]:
    try:
        return set(os.listdir(archive_dir(window)))
    except OSError:
        return set()


def missing_segments(window: Path, bee: str, present: set[str] | None = None) -> list[str]:
    """Recorded segments gone from the archive (deleted by hand): their lines are lost and
    their seqs stay unused. A rotation whose file is still the live journal (interrupted,
    or an intent an older version never closed) is not missing. `present`: the archive's
    names, when the caller listed it for many bees."""
    recorded = recorded_segments(window, bee)
    if present is None:
        present = archive_names(window)
    if all(name in present for name in recorded):
        return []
    manifest = read_manifest(window, bee)
    gone = {rotated.segment for rotated in gone_rotations(manifest, present,
                                                          live_ino(window, bee))}
    return [name for name in recorded
            if name in gone or (name in manifest.adopted and name not in present)]


def live_ino(window: Path, bee: str) -> int | None:
    try:
        return os.stat(live_path(window, bee), follow_symlinks=False).st_ino
    except OSError:
        return None


def gone_rotations(manifest: Manifest, present: set[str], live: int | None) -> list[Rotated]:
    """The rotated segments not in `present`, in name order, but a rotation whose file is
    still the live journal `live` (interrupted, or an intent never closed): the ranges
    every reader keeps for lines deleted by hand."""
    return sorted((rotated for name, rotated in manifest.rotated.items()
                   if name not in present and rotated.ino != live),
                  key=lambda rotated: rotated.segment)


def _names_own_file(record: Rotated | Late | Jump | Sealed | Adopted | Aborted,
                    bee: str) -> bool:
    parsed = parse_journal_name(record.segment)
    if parsed is None or parsed.bee != bee:
        return False
    return parsed.number is not None or isinstance(record, Jump)


def append_records(window: Path, bee: str, records: list[Record]) -> None:
    """Durable before the state that depends on them."""
    if records:
        payload = b"".join(_encoder.encode(record) + b"\n" for record in records)
        append_durably(manifest_path(window, bee), payload, under=window.parent)
