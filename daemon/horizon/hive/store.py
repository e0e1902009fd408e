"""A bee's derived files: state.json (zones + checkpoint) and handoff.md."""

from __future__ import annotations

import contextlib
from pathlib import Path

import msgspec

from horizon.core.upgrades import FoldQueue
from horizon.core.zones import Zones
from horizon.hive.durable import StoreError, ensure_dir, write_atomic
from horizon.hive.journal import Checkpoint
from horizon.hive.layout import derived_dir, derived_root, handoff_path, state_path

STATE_FORMAT = 2  # 2: the fold queue left the zones (a format-1 state is rebuilt)


class StateTooNew(Exception):
    """A state.json written by a newer horizon: left untouched and reported."""


class BeeState(msgspec.Struct, kw_only=True):
    """One bee's derived state and the read checkpoint it describes, as one file."""

    format: int = STATE_FORMAT
    bee: str
    checkpoint: Checkpoint = msgspec.field(default_factory=Checkpoint)
    zones: Zones = msgspec.field(default_factory=Zones)
    folds: FoldQueue = msgspec.field(default_factory=FoldQueue)  # what the models owe
    # A digest of every setting the zones depend on: another digest means recompute.
    settings_key: str = ""
    segments: dict[str, list[int]] = msgspec.field(default_factory=dict)
    mismatched_flags: list[int] = msgspec.field(default_factory=list)
    fallbacks: int = 0  # model calls that fell back a level, over the bee's life


_encoder = msgspec.json.Encoder()


class _Format(msgspec.Struct):
    format: int = 0


def remove_stale_temps(hive: Path) -> int:
    """Temp files a crash left behind in the derived folders; how many were removed."""
    removed = 0
    for temp in derived_root(hive).glob("**/.*.tmp"):
        with contextlib.suppress(OSError):
            temp.unlink()
            removed += 1
    return removed


def read_handoff(hive: Path, bee: str) -> str | None:
    """The handoff.md on disk, or None: a restart rewrites it only when it would change."""
    try:
        return handoff_path(hive, bee).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def load_state(hive: Path, bee: str) -> BeeState | None:
    """The saved state, or None when absent, unreadable or of an older format (rebuild)."""
    path = state_path(hive, bee)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise StoreError(f"{path}: {error.strerror or error}") from None
    try:
        version = msgspec.json.decode(data, type=_Format).format
    except msgspec.MsgspecError:
        return None
    if version > STATE_FORMAT:
        raise StateTooNew(f"{path}: format {version} is newer than this horizon's "
                          f"({STATE_FORMAT}); left untouched")
    if version < STATE_FORMAT:
        return None
    try:
        state = msgspec.json.decode(data, type=BeeState)
    except msgspec.MsgspecError:
        return None
    return state if state.bee == bee else None


def save(hive: Path, bee: str, state: BeeState, handoff: str) -> None:
    """Write handoff.md, then state.json (the checkpoint only after what it describes)."""
    directory = derived_dir(hive, bee)
    try:
        ensure_dir(directory)
    except OSError as error:
        raise StoreError(f"{directory}: {error.strerror or error}") from None
    # One folder fsync covers both renames: the state is renamed last, and a state that
    # survives without its handoff.md is only re-rendered at the next start.
    write_atomic(handoff_path(hive, bee), handoff.encode("utf-8"), sync_dir=False)
    write_atomic(state_path(hive, bee), _encoder.encode(state))


def save_state(hive: Path, bee: str, state: BeeState) -> None:
    """Only state.json: the view it describes is already on disk."""
    write_atomic(state_path(hive, bee), _encoder.encode(state))
