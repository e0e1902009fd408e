"""Operator lighthouse flags: `phares/<bee>.jsonl`, append-only, never derived."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from horizon.core.errors import JournalError
from horizon.hive.durable import append_durably, read_records, require_real_dir
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
        except (msgspec.MsgspecError, RecursionError):
            continue  # a torn, hand-broken or hostile line must not cost the other flags
        if record.on:
            flags[record.seq] = record.hash
        else:
            flags.pop(record.seq, None)
    return flags


class FlagsCache:
    """One bee's flags, read again only when its flags file changed: a pass costs one
    lstat of it, not the walk down the hive and the read."""

    def __init__(self) -> None:
        self.signature: tuple[int, ...] | None = None
        self.flags: dict[int, str] = {}

    def read(self, hive: Path, bee: str) -> dict[int, str]:
        path = flags_path(hive, bee)
        try:
            # The folder too: one turned into a link to the same files is read again, and
            # read_flags refuses it.
            folder = os.lstat(path.parent)
            signature: tuple[int, ...] = (folder.st_mode, folder.st_ino)
            info = os.lstat(path)
            signature += (info.st_mode, info.st_dev, info.st_ino, info.st_size,
                          info.st_mtime_ns, info.st_ctime_ns)
        except FileNotFoundError:
            signature = ()
        except OSError:
            self.signature = None
            return read_flags(hive, bee)  # refused or unreadable: read_flags says why
        if signature != self.signature:
            # Taken before reading: a change while it reads is seen at the next pass.
            self.flags = read_flags(hive, bee)
            self.signature = signature
        return self.flags


def append_flag(hive: Path, bee: str, record: FlagRecord) -> None:
    append_durably(flags_path(hive, bee), _encoder.encode(record) + b"\n", under=hive)
