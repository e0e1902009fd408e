"""The segment manifest `window/archive/<bee>-segments.jsonl`: append-only facts a rebuild
replays so that every line keeps its seq (SPEC section 3, ADR 0002).

- `rotated`: the live file (inode `ino`) became archive `segment`; its lines up to byte
  `offset` (seq `seq`) were read in file order, anything after is read late.
- `late`: the lines of `segment` in bytes [start, end) were read out of file order and
  got the seqs from `first_seq`.
- `jump`: the file `segment` (inode `ino`) was replaced or truncated by hand; its lines
  from byte 0 get seqs after `seq`.
- `sealed`: `segment` stayed quiet for `rotate_wait_s` at `size` bytes.
- `clamp`: a `ts` in the future, clamped to the instant it was read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec

from horizon.core.entries import LATEST
from horizon.hive.durable import append_durably, read_records
from horizon.hive.layout import manifest_path


class Rotated(msgspec.Struct, tag="rotated", tag_field="kind", frozen=True):
    segment: str
    ino: int
    offset: int
    seq: int


class Late(msgspec.Struct, tag="late", tag_field="kind", frozen=True):
    segment: str
    start: int
    end: int
    first_seq: int
    last_seq: int


class Jump(msgspec.Struct, tag="jump", tag_field="kind", frozen=True):
    segment: str
    ino: int
    seq: int


class Sealed(msgspec.Struct, tag="sealed", tag_field="kind", frozen=True):
    segment: str
    size: int


class Clamp(msgspec.Struct, tag="clamp", tag_field="kind", frozen=True):
    seq: int
    # What a view can print: a record edited out of that range is not well formed.
    instant: Annotated[float, msgspec.Meta(ge=0, le=LATEST)]


Record = Rotated | Late | Jump | Sealed | Clamp
_decoder = msgspec.json.Decoder(Record)
_encoder = msgspec.json.Encoder()


class Manifest(msgspec.Struct):
    """The records of one bee, indexed the way the reader asks for them."""

    rotated: dict[str, Rotated] = msgspec.field(default_factory=dict)
    late: list[Late] = msgspec.field(default_factory=list)
    jumps: list[Jump] = msgspec.field(default_factory=list)
    sealed: dict[str, Sealed] = msgspec.field(default_factory=dict)
    clamps: dict[int, float] = msgspec.field(default_factory=dict)

    def add(self, record: Record) -> None:
        if isinstance(record, Rotated):
            self.rotated[record.segment] = record
        elif isinstance(record, Late):
            self.late.append(record)
        elif isinstance(record, Jump):
            self.jumps.append(record)
        elif isinstance(record, Sealed):
            self.sealed[record.segment] = record
        else:
            self.clamps[record.seq] = record.instant

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
    """Every well-formed record; a torn last line (crash mid-append) is ignored."""
    manifest = Manifest()
    for line in read_records(manifest_path(window, bee)):
        try:
            manifest.add(_decoder.decode(line))
        except msgspec.MsgspecError:
            continue
    return manifest


def append_records(window: Path, bee: str, records: list[Record]) -> None:
    """Durable before the state that depends on them."""
    if records:
        payload = b"".join(_encoder.encode(record) + b"\n" for record in records)
        append_durably(manifest_path(window, bee), payload)
