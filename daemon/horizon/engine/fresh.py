"""The view as it will be once every complete line written so far is read
(read-your-writes): the derived state and the journal's tail, stepped in memory by a
read-only engine, for `horizon.client.view` and `render --fresh`.

Nothing here writes or locks. The daemon may rotate the journal while the tail is read;
a reading that saw the files move is done again, as recall does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from horizon.core.errors import JournalError
from horizon.core.settings import Effective, GlobalConfig
from horizon.core.view import View
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.engine.stepping import settings_key
from horizon.hive.history import layout
from horizon.hive.layout import state_path, window_dir
from horizon.hive.manifest import Manifest
from horizon.hive.store import load_state, read_handoff
from horizon.summarize.cache import SummaryCache

# Readings of a journal a daemon keeps rotating under them before the last one is taken
# whatever happens: a rotation comes every few hundred lines.
READINGS = 3

NO_STATE = "no derived state yet"
OTHER_FORMAT = "the derived state is of another format or unreadable"
NEW_SETTINGS = "the settings or lighthouse flags changed since the daemon's last pass"

Source = Literal["disk", "computed"]


@dataclass(frozen=True)
class Fresh:
    """A view read fresh: its text and what it covers."""

    view: View
    up_to: int  # the highest seq folded in
    source: Source  # "disk": handoff.md already holds this text
    behind: int  # complete lines read past the derived state
    replayed: str | None  # why the whole history was read, when it was


def fresh_view(hive: Path, bee: str, config: GlobalConfig, effective: Effective,
               now: float, read_time: float | None = None,
               cache: SummaryCache | None = None) -> Fresh:
    """The bee's view once every complete line is read, at `now` (`read_time`, the wall
    clock, clamps a `ts` in the future). Raises what reading the files raises (StoreError,
    StateTooNew, JournalError, OSError) once the readings are spent."""
    window = window_dir(hive)
    for reading in range(READINGS):
        last = reading == READINGS - 1
        before, manifest = layout(window, bee)
        try:
            fresh = _read(hive, bee, config, effective, now, read_time, cache, manifest)
        except (JournalError, OSError):
            if last or layout(window, bee)[0] == before:
                raise
            continue  # a file gone because it moved: read again
        if last or layout(window, bee)[0] == before:
            return fresh
    raise AssertionError("unreachable: the last reading returns or raises")


def _read(hive: Path, bee: str, config: GlobalConfig, effective: Effective, now: float,
          read_time: float | None, cache: SummaryCache | None, manifest: Manifest) -> Fresh:
    engine = BeeEngine(hive, bee, config, effective, cache=cache, writes=False)
    engine.manifest = manifest
    state = load_state(hive, bee)
    engine.state = state
    replayed = _why_replayed(hive, bee, engine)
    derived = state.checkpoint.seq if state is not None else 0  # before the pass moves it
    # As a daemon does when it loads a state: every rotated segment is looked at for late
    # lines, sealed ones too, so the seqs are the ones it will give.
    engine.late_check |= set(manifest.rotated)
    outcome = engine.run(ReadNew(), now, read_time)
    assert outcome is not None  # a read is always run
    text = outcome.view.text
    source: Source = "disk" if read_handoff(hive, bee) == text else "computed"
    return Fresh(outcome.view, outcome.state.zones.up_to, source,
                 max(outcome.state.checkpoint.seq - derived, 0), replayed)


def _why_replayed(hive: Path, bee: str, engine: BeeEngine) -> str | None:
    state = engine.state
    if state is None:
        return OTHER_FORMAT if state_path(hive, bee).exists() else NO_STATE
    if state.settings_key != settings_key(engine.effective, engine.flags.read(hive, bee)):
        return NEW_SETTINGS
    return None
