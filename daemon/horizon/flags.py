"""Operator lighthouse flags: `phares/<bee>.jsonl`, append-only, never derived."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from horizon.journal import open_regular


class FlagRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """`on` true flags the line at `seq` whose hash is `hash`; false removes the flag."""

    seq: int
    hash: str
    on: bool = True
    at: str = ""


_decoder = msgspec.json.Decoder(FlagRecord)
_encoder = msgspec.json.Encoder()


def flags_path(hive: Path, bee: str) -> Path:
    return hive / "phares" / f"{bee}.jsonl"


def read_flags(hive: Path, bee: str) -> dict[int, str]:
    """The flags in force: seq → hash of the flagged line (the last record per seq wins)."""
    path = flags_path(hive, bee)
    if not path.exists():
        return {}
    fd = open_regular(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read()
    finally:
        os.close(fd)
    flags: dict[int, str] = {}
    for line in data.split(b"\n"):
        if not line.strip():
            continue
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
    path = flags_path(hive, bee)
    path.parent.mkdir(mode=0o750, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o640)
    try:
        os.write(fd, _encoder.encode(record) + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
