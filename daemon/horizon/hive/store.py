"""A bee's derived files: state.json (zones + checkpoint) and handoff.md."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import msgspec

from horizon.core.errors import HiveError, JournalError
from horizon.core.settings import Effective
from horizon.core.upgrades import FoldQueue
from horizon.core.zone_state import Zones
from horizon.hive.durable import StoreError, open_made_dir, read_regular, replace_in, write_atomic
from horizon.hive.journal import Checkpoint
from horizon.hive.layout import (
    derived_dir,
    derived_root,
    handoff_path,
    parse_journal_name,
    state_path,
)

# 2: the fold queue left the zones; 3: rejected lines counted by reason, the settings
# that made the state kept with it; 4: the récit keeps the facts its rules learnt and
# every quote's seqs (ADR 0008); 5: condensed entries keep the signals read from their
# whole text; 6: the quotes' seqs as arrays; 7: the récit's per-key records and the
# entries' `ok` and `files` (ADR 0008); 8: a failed call's heading and condensed answer,
# quotes without chatter nor runtime noise; 9: a condensed call marked failed by its
# output, its failing lines kept. An older state is rebuilt.
STATE_FORMAT = 10


class StateTooNew(HiveError):
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
    # The settings that made this state: what serves while a settings file is broken,
    # and what the derived-view commands show then.
    settings: Effective | None = None


_encoder = msgspec.json.Encoder()


class _Format(msgspec.Struct):
    format: int = 0


def remove_stale_temps(hive: Path) -> int:
    """Temp files a crash left behind in the derived folders; how many were removed."""
    removed = 0
    root = derived_root(hive)
    if root.is_symlink():
        return 0  # refused at the first write; nothing of ours is behind a link
    for folder, _, names in os.walk(root, followlinks=False):
        for name in names:
            if name.startswith(".") and name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
                    removed += 1
    return removed


def read_handoff(hive: Path, bee: str) -> str | None:
    """The handoff.md on disk, or None: a restart rewrites it only when it would change
    (a link or a FIFO in its place is replaced by the next write)."""
    try:
        data = read_regular(handoff_path(hive, bee), under=hive)
        return data.decode("utf-8") if data is not None else None
    except (OSError, JournalError, UnicodeDecodeError):
        return None


def load_state(hive: Path, bee: str) -> BeeState | None:
    """The saved state, or None when absent, unreadable or of an older format (rebuild)."""
    path = state_path(hive, bee)
    try:
        data = read_regular(path, under=hive)
    except JournalError:
        return None  # a link or a FIFO is no state of ours: rebuilt, and replaced by it
    except NotADirectoryError:
        return None
    except OSError as error:
        raise StoreError(f"{path}: {error.strerror or error}") from None
    if data is None:
        return None
    try:
        version = msgspec.json.decode(data, type=_Format).format
    except (msgspec.MsgspecError, RecursionError):  # nested past the stack: not ours
        return None
    if version > STATE_FORMAT:
        raise StateTooNew(f"{path}: format {version} is newer than this horizon's "
                          f"({STATE_FORMAT}); left untouched")
    if version < STATE_FORMAT:
        return None
    try:
        state = msgspec.json.decode(data, type=BeeState)
    except (msgspec.MsgspecError, RecursionError):
        return None
    # Names are read from the file as names of this bee's journals, or the state is not
    # ours: a forged '../../elsewhere/x-messages.jsonl' must never become a path.
    names = [state.checkpoint.segment, *state.segments] if state.checkpoint.segment else [
        *state.segments]
    if state.bee != bee or not all(_own_journal(name, bee) for name in names):
        return None
    return state


def _own_journal(name: str, bee: str) -> bool:
    parsed = parse_journal_name(name)
    return parsed is not None and parsed.bee == bee


def encode_state(state: BeeState) -> bytes:
    return _encoder.encode(state)


def save_encoded(hive: Path, bee: str, handoff: bytes, state: bytes) -> None:
    """Write handoff.md, then state.json (the checkpoint only after what it describes),
    both already encoded (by the loop, for the writer thread)."""
    directory = derived_dir(hive, bee)
    try:
        folder = open_made_dir(directory, hive)  # one walk down the hive for both files
    except OSError as error:
        raise StoreError(f"{directory}: {error.strerror or error}") from None
    try:
        # One folder fsync covers both renames: the state is renamed last, and a state
        # that survives without its handoff.md is only re-rendered at the next start.
        replace_in(folder, handoff_path(hive, bee), handoff, sync_dir=False)
        replace_in(folder, state_path(hive, bee), state)
    finally:
        os.close(folder)


def save_state(hive: Path, bee: str, state: BeeState) -> None:
    """Only state.json: the view it describes is already on disk."""
    write_atomic(state_path(hive, bee), _encoder.encode(state), under=hive)
