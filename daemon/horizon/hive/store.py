"""Derived files: atomic writes, state.json (zones + checkpoint), handoff.md."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import msgspec

from horizon.core.zones import Zones
from horizon.hive.journal import Checkpoint

STATE_FORMAT = 1
FILE_MODE = 0o640
DIR_MODE = 0o750


class StoreError(Exception):
    """A derived file could not be written; the previous version is still in place."""


class StateTooNew(Exception):
    """A state.json written by a newer horizon: left untouched and reported."""


class BeeState(msgspec.Struct, kw_only=True):
    """One bee's derived state and the read checkpoint it describes, as one file."""

    format: int = STATE_FORMAT
    bee: str
    checkpoint: Checkpoint = msgspec.field(default_factory=Checkpoint)
    zones: Zones = msgspec.field(default_factory=Zones)
    # A digest of every setting the zones depend on: another digest means recompute.
    settings_key: str = ""
    segments: dict[str, list[int]] = msgspec.field(default_factory=dict)
    mismatched_flags: list[int] = msgspec.field(default_factory=list)
    fallbacks: int = 0  # model calls that fell back a level, over the bee's life


_encoder = msgspec.json.Encoder()


class _Format(msgspec.Struct):
    format: int = 0


def derived_dir(hive: Path, bee: str) -> Path:
    return hive / "horizon" / bee


def ensure_dir(path: Path) -> None:
    """`path` and its parents up to the hive, each 0750 (mkdir's parents ignore `mode`)."""
    if not path.parent.is_dir():
        ensure_dir(path.parent)
    path.mkdir(mode=DIR_MODE, exist_ok=True)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = FILE_MODE, sync_dir: bool = True
                 ) -> None:
    """Temp file in the same folder, fsync, rename over `path`, fsync the folder.

    On failure the temp file is removed, `path` keeps its previous content, and
    StoreError says why.
    """
    temp = None
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
        temp = None
        if sync_dir:
            fsync_dir(path.parent)
    except OSError as error:
        raise StoreError(f"{path}: {error.strerror or error}") from None
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def remove_stale_temps(hive: Path) -> int:
    """Temp files a crash left behind in the derived folders; how many were removed."""
    removed = 0
    for temp in (hive / "horizon").glob("**/.*.tmp"):
        with contextlib.suppress(OSError):
            temp.unlink()
            removed += 1
    return removed


def state_path(hive: Path, bee: str) -> Path:
    return derived_dir(hive, bee) / "state.json"


def handoff_path(hive: Path, bee: str) -> Path:
    return derived_dir(hive, bee) / "handoff.md"


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
