"""The segment manifest `window/archive/<bee>-segments.jsonl`: append-only facts a rebuild replays.

Records are JSON objects with a `kind`. This module knows `clamp` (a `ts` in the future,
clamped to the instant it was read, so a rebuild gives the same instant).
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from horizon.journal import open_regular


class Clamp(msgspec.Struct, tag="clamp", tag_field="kind", frozen=True):
    seq: int
    instant: float


Record = Clamp
_decoder = msgspec.json.Decoder(Record)
_encoder = msgspec.json.Encoder()


def manifest_path(window: Path, bee: str) -> Path:
    return window / "archive" / f"{bee}-segments.jsonl"


def read_manifest(window: Path, bee: str) -> list[Record]:
    """Every well-formed record; a torn last line (crash mid-append) is ignored."""
    path = manifest_path(window, bee)
    if not path.exists():
        return []
    fd = open_regular(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read()
    finally:
        os.close(fd)
    records = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            records.append(_decoder.decode(line))
        except msgspec.MsgspecError:
            continue
    return records


def append_records(window: Path, bee: str, records: list[Record]) -> None:
    """Append records with one write, then fsync: they must be durable before the state."""
    if not records:
        return
    path = manifest_path(window, bee)
    path.parent.mkdir(mode=0o750, exist_ok=True)
    payload = b"".join(_encoder.encode(record) + b"\n" for record in records)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o640)
    try:
        os.write(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)
