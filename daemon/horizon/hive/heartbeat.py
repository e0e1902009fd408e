"""`horizon/daemon.json`: the daemon's heartbeat, read by `horizon status` and `horizon top`."""

from __future__ import annotations

from pathlib import Path

import msgspec

from horizon.core.errors import JournalError
from horizon.hive.durable import ensure_dir, read_regular, write_atomic
from horizon.hive.layout import heartbeat_path

BEAT_S = 10.0
HEARTBEAT_FORMAT = 1


class BeeHealth(msgspec.Struct, kw_only=True):
    lag_s: float = 0.0
    pending_bytes: int = 0
    write_failed: bool = False
    error: str | None = None
    rotation_failed: str | None = None  # why the journal could not be rotated
    # Defaulted so a heartbeat written before they existed still decodes.
    passes: int = 0  # passes that read or changed the view since the daemon started
    last_pass: float | None = None  # epoch seconds


class Heartbeat(msgspec.Struct, kw_only=True):
    format: int = HEARTBEAT_FORMAT
    pid: int
    version: str
    started: str
    beat: str
    beat_epoch: float
    watch: str
    bees: dict[str, BeeHealth] = msgspec.field(default_factory=dict)
    log_file: str | None = None  # where the daemon logs, whatever config.json says now


def read_heartbeat(hive: Path) -> Heartbeat | None:
    try:
        data = read_regular(heartbeat_path(hive), under=hive)
        return msgspec.json.decode(data, type=Heartbeat) if data is not None else None
    except (OSError, JournalError, msgspec.MsgspecError, RecursionError):
        return None


def write_heartbeat(hive: Path, beat: Heartbeat) -> None:
    ensure_dir(heartbeat_path(hive).parent, hive)  # never through a link
    write_atomic(heartbeat_path(hive), msgspec.json.encode(beat), under=hive)
