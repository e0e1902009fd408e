"""Operator lighthouse flags: `phares/<bee>.jsonl`, append-only, never derived."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from horizon.hive.durable import JournalError, append_durably, read_records, require_real_dir
from horizon.hive.layout import flags_path


class FlagRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """`on` true flags the line at `seq` whose hash is `hash`; false removes the flag."""

    seq: int
    hash: str
    on: bool = True
    at: str = ""


_decoder = msgspec.json.Decoder(FlagRecord)
_encoder = msgspec.json.Encoder()


def read_flags(hive: Path, bee: str) -> dict[int, str]:
    """The flags in force: seq → hash of the flagged line (the last record per seq wins)."""
    flags: dict[int, str] = {}
    path = flags_path(hive, bee)
    if os.path.lexists(path.parent):
        require_real_dir(path.parent, JournalError)  # never read through a link
    for line in read_records(flags_path(hive, bee), under=hive):
        try:
            record = _decoder.decode(line)
        except msgspec.MsgspecError:
            continue  # a torn or hand-broken line must not cost the other flags
        if record.on:
            flags[record.seq] = record.hash
        else:
            flags.pop(record.seq, None)
    return flags


def append_flag(hive: Path, bee: str, record: FlagRecord) -> None:
    append_durably(flags_path(hive, bee), _encoder.encode(record) + b"\n", under=hive)
