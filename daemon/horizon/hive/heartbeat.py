"""`horizon/daemon.json`: the daemon's heartbeat, read by `horizon status`."""

from __future__ import annotations

from pathlib import Path

import msgspec

from horizon.hive.durable import write_atomic
from horizon.hive.layout import heartbeat_path

BEAT_S = 10.0
HEARTBEAT_FORMAT = 1


class BeeHealth(msgspec.Struct, kw_only=True):
    lag_s: float = 0.0
    pending_bytes: int = 0
    write_failed: bool = False
    error: str | None = None


class Heartbeat(msgspec.Struct, kw_only=True):
    format: int = HEARTBEAT_FORMAT
    pid: int
    version: str
    started: str
    beat: str
    beat_epoch: float
    watch: str
    bees: dict[str, BeeHealth] = msgspec.field(default_factory=dict)


def read_heartbeat(hive: Path) -> Heartbeat | None:
    try:
        return msgspec.json.decode(heartbeat_path(hive).read_bytes(), type=Heartbeat)
    except (OSError, msgspec.MsgspecError):
        return None


def write_heartbeat(hive: Path, beat: Heartbeat) -> None:
    write_atomic(heartbeat_path(hive), msgspec.json.encode(beat))
