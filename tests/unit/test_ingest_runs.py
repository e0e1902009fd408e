"""A run of entries stepped in one loop (`ingest.step_entries`) leaves exactly the zones,
the text work owed and the changes of stepping each entry in turn, whatever the runs."""

from __future__ import annotations

import copy
import dataclasses
from collections import deque
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core import ingest
from horizon.core.deferred import Deferred
from horizon.core.entries import Entry
from horizon.core.settings import HorizonSettings
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Changes, Context, Zones
from horizon.core.zones import step, sweep
from tests.unit.strategies import START, histories, horizon_settings, missions

BEE = "mia"


def owed(deferred: Deferred) -> dict[str, Any]:
    fields = {field.name: getattr(deferred, field.name)
              for field in dataclasses.fields(deferred)}
    return msgspec.to_builtins({name: list(value) if isinstance(value, deque) else value
                                for name, value in fields.items()})


def both(entries: list[Entry], horizon: HorizonSettings, mission: str | None,
         runs: list[int], hours: float) -> int:
    """Steps `entries` one by one and by runs, comparing after each run; how many runs
    took the one-loop path."""
    one, many = Zones(), Zones()
    changes_one, changes_many = Changes(), Changes()
    truncation = Truncation(horizon.ligne_max)
    now = max(entry.instant for entry in entries) + hours * 3600
    ctx_one = Context(BEE, horizon, truncation, now, mission, deferred=Deferred())
    ctx_many = Context(BEE, horizon, truncation, now, mission, deferred=Deferred())
    start, plain = 0, 0
    for size in [*runs, len(entries)]:
        run = entries[start:start + size]
        start += len(run)
        if not run:
            continue
        for entry in copy.deepcopy(run):
            step(one, entry, ctx_one, changes_one)
        plain += ingest._plain_run(many, run, ctx_many)
        ingest.step_entries(many, copy.deepcopy(run), ctx_many, changes_many)
        assert msgspec.to_builtins(many) == msgspec.to_builtins(one)
        assert owed(ctx_many.deferred) == owed(ctx_one.deferred)  # type: ignore[arg-type]
        assert changes_many == changes_one
    sweep(one, ctx_one)
    sweep(many, ctx_many)
    assert msgspec.to_builtins(many) == msgspec.to_builtins(one)
    return plain


@settings(max_examples=150, deadline=None)
@given(histories(max_size=120), horizon_settings(), missions,
       st.lists(st.integers(1, 120), max_size=6), st.floats(0, 30))
def test_a_run_of_entries_steps_as_each_entry_does(entries: list[Entry],
                                                   horizon: HorizonSettings,
                                                   mission: str | None, runs: list[int],
                                                   hours: float) -> None:
    both(entries, horizon, mission, runs, hours)


def test_a_catch_up_takes_the_one_loop_path_and_folds_the_same() -> None:
    """A long recent backlog at the default settings, as a catch-up reads it: every run
    takes the one loop, and it folds many times over."""
    entries = [Entry(seq=seq, instant=START + seq, type="tool" if seq % 3 else "conversation",
                     question=f"étape {seq} : src/mod{seq % 50}.py",
                     answer="Les tests passent. " * (1 + seq % 9),
                     tool="bash" if seq % 3 else None,
                     sender="apicultrice" if seq % 17 == 0 else None)
               for seq in range(1, 3001)]
    horizon = HorizonSettings(actif=True)
    runs = [256] * 11
    assert both(entries, horizon, None, runs, 0.0) == len(runs) + 1


@st.composite
def skewed_histories(draw: st.DrawFn) -> tuple[list[Entry], list[int]]:
    """Fresh entries a few minutes apart, some stamped by a clock far behind (older than
    the age limit), and runs that often end on such an entry: net then holds an aged
    exchange as its last, which the next run's first entry makes leave by age. Now and
    then two entries come out of seq order (a range read late)."""
    entries: list[Entry] = []
    runs: list[int] = []
    since = 0
    for seq in range(1, draw(st.integers(2, 80)) + 1):
        instant = START + seq * draw(st.sampled_from([1.0, 60.0, 300.0]))
        skewed = draw(st.integers(0, 7)) == 0
        if skewed:
            instant -= draw(st.sampled_from([3 * 3600.0, 30 * 3600.0]))
        entries.append(Entry(seq=seq, instant=instant, type="task",
                             question=f"q{seq} " * draw(st.integers(1, 30)),
                             answer="a " * draw(st.integers(0, 400)),
                             phare=draw(st.integers(0, 7)) == 0))
        since += 1
        if (skewed and draw(st.booleans())) or draw(st.integers(0, 15)) == 0:
            runs.append(since)  # the run ends here
            since = 0
    if len(entries) > 3 and draw(st.integers(0, 3)) == 0:  # the last run ends lower
        entries[-2], entries[-1] = entries[-1], entries[-2]
        kept, total = [], 0
        for run in runs:  # no run ends between the two
            if total + run >= len(entries) - 1:
                break
            kept.append(run)
            total += run
        runs = kept
    return entries, runs


@settings(max_examples=200, deadline=None)
@given(skewed_histories(), horizon_settings())
def test_a_run_after_an_exchange_aged_out_of_order_steps_as_each_entry_does(
        history: tuple[list[Entry], list[int]], horizon: HorizonSettings) -> None:
    entries, runs = history
    horizon = msgspec.structs.replace(horizon, age_net_heures=2.0)
    both(entries, horizon, None, runs, 0.0)


def test_a_run_whose_seqs_fall_back_steps_as_each_entry_does() -> None:
    """A range read late can hand the stepper a lower seq after a higher one: the run's
    last entry is then not its highest, and `up_to` must stay the highest."""
    entries = [Entry(seq=seq, instant=START + seq, type="task", question=f"q{seq}",
                     answer="a " * 50) for seq in range(1, 11)]
    entries[-2], entries[-1] = entries[-1], entries[-2]
    both(entries, HorizonSettings(actif=True, budget_net=1000), None, [8], 0.0)
