"""One journal line to its record: decoded with the writer contract's types, its `ts` in
the future clamped (and the clamp recorded, so a rebuild gives the same instant), and an
operator's lighthouse flag applied while the flagged line is still the one flagged."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import msgspec

from horizon.core.entries import Entry, Rejection, decode_line, too_long
from horizon.hive.journal import is_blank, line_hash
from horizon.hive.manifest import Clamps, Manifest, Record

CLOCK_SKEW_S = 300.0
# A line after another one, of nothing but what bytes.strip() strips: searched in a block
# only when some line of it does not open an object (rejected lines, which a hostile
# writer can make by the million: a block of them is searched at once, far cheaper than
# one at a time; ADR 0010 has the figures).
_BLANK_LINE = re.compile(rb"\n[ \t\r\x0b\x0c]*\n")


@dataclass
class Notes:
    """What the reader noticed, for the caller to record and log."""

    records: list[Record] = field(default_factory=list)
    replaced: str | None = None
    late_lines: dict[str, int] = field(default_factory=dict)
    matched_flags: set[int] = field(default_factory=set)
    mismatched_flags: set[int] = field(default_factory=set)


def takes_seq(raw: bytes | None) -> bool:
    """Whether a line gets a seq: every line holding a non-blank byte (a line too long to
    hold, `None`, is one), none of nothing but what bytes.strip() strips."""
    return raw is None or raw.startswith(b"{") or not is_blank(raw)


def holds_seqless_line(block: bytes) -> bool:
    """Whether a block of whole lines holds one that takes no seq (`takes_seq`)."""
    return is_blank(block[:block.index(b"\n")]) or _BLANK_LINE.search(block) is not None


class LineDecoder:
    """Decodes the lines of one reading; clamps and flag checks go to its `notes`."""

    def __init__(self, flags: dict[int, str], manifest: Manifest, notes: Notes,
                 read_time: float, max_line_bytes: int) -> None:
        self.flags = flags
        self.manifest = manifest
        self.notes = notes
        self.read_time = read_time
        self.max_line_bytes = max_line_bytes

    def record(self, seq: int, raw: bytes | None) -> Entry | Rejection:
        """The line given `seq` (None: a line too long to hold)."""
        if raw is None:
            return too_long(seq, self.max_line_bytes)
        return self.adjusted(decode_line(seq, raw), self.flagged(seq, raw))

    def flagged_within(self, first: int, last: int) -> bool:
        """Whether an operator flag names a seq from `first` to `last`."""
        return any(first <= seq <= last for seq in self.flags)

    def marked(self, first: int, last: int) -> bool:
        """Whether a flag or a clamp names a seq from `first` to `last`: such lines are
        decoded one by one, through `record`."""
        return self.flagged_within(first, last) or (
            bool(self.manifest.clamps) and self.manifest.clamped_within(first, last))

    def flagged(self, seq: int, raw: bytes) -> bool:
        """Whether an operator flag holds for this line (its hash still matches), noted."""
        if seq not in self.flags:
            return False
        flagged = self.flags[seq] == line_hash(raw)
        (self.notes.matched_flags if flagged else self.notes.mismatched_flags).add(seq)
        return flagged

    def adjusted(self, record: Entry | Rejection, flagged: bool) -> Entry | Rejection:
        """The entry with its clamped instant and its operator flag applied."""
        if isinstance(record, Rejection):
            return record
        fixed = self.manifest.clamp_at(record.seq) if self.manifest.clamps else None
        if fixed is None and record.instant > self.read_time + CLOCK_SKEW_S:
            fixed = self.read_time
            records = self.notes.records
            last = records[-1] if records else None
            if (isinstance(last, Clamps) and last.last == record.seq - 1
                    and last.instant == fixed):
                records[-1] = Clamps(last.first, record.seq, fixed)  # one record a run
            else:
                records.append(Clamps(record.seq, record.seq, fixed))
            self.manifest.add_clamps(record.seq, record.seq, fixed)
        if fixed is None and not flagged:
            return record
        return msgspec.structs.replace(
            record, instant=record.instant if fixed is None else fixed,
            phare=record.phare or flagged,
        )
