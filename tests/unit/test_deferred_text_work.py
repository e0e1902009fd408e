"""A pass that leaves its text work to its end (`Deferred`, then `settle`) ends with the
zones of a pass that reads every exchange as it leaves net and composes the récit at
every fold: the same signals, hashes, récit and operator's words, whatever the chunks."""

from __future__ import annotations

import copy
import random

import msgspec
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from horizon.core.deferred import QUOTES_HELD, Deferred
from horizon.core.entries import Entry
from horizon.core.ingest import apply
from horizon.core.settings import HorizonSettings
from horizon.core.truncation import ERRORS_WINDOW, Truncation
from horizon.core.zones import Context, Zones, settle, sweep
from tests.unit.strategies import START, histories, horizon_settings, missions

BEE = "mia"


def _both(entries: list[Entry], horizon: HorizonSettings, mission: str | None,
          chunks: list[int], hours: float) -> tuple[Zones, Zones]:
    """The zones after each chunk, eager and deferred, compared at every chunk's end."""
    eager, lazy = Zones(), Zones()
    start = 0
    now = max(entry.instant for entry in entries)
    for size in [*chunks, len(entries)]:
        chunk = entries[start:start + size]
        start += len(chunk)
        now += hours * 3600
        truncation = Truncation(horizon.ligne_max)
        plain = Context(BEE, horizon, truncation, now, mission)
        apply(eager, copy.deepcopy(chunk), plain)
        sweep(eager, plain)
        owing = Context(BEE, horizon, truncation, now, mission, deferred=Deferred())
        apply(lazy, copy.deepcopy(chunk), owing)
        sweep(lazy, owing)
        settle(lazy, owing)
        assert msgspec.to_builtins(lazy) == msgspec.to_builtins(eager)
    return eager, lazy


@settings(max_examples=150, deadline=None)
@given(histories(max_size=90), horizon_settings(), missions,
       st.lists(st.integers(1, 90), max_size=5), st.floats(0, 30))
def test_settling_at_the_end_gives_the_zones_of_every_step(entries: list[Entry],
                                                           horizon: HorizonSettings,
                                                           mission: str | None,
                                                           chunks: list[int],
                                                           hours: float) -> None:
    _both(entries, horizon, mission, chunks, hours)


# What the récit's rules read: failures and their fixes, paths, tickets opened and closed,
# the operator's requests and questions, repeated words; and, as often as `steps` says,
# a next step (stated by the bee, or a ticket the operator asks for).
_QUESTIONS = ["lance les tests de src/a.py", "ouvre docs/b.md", "corrige lib/c.rs",
              "Tu as fini ?", "Garde les journaux", "relis src/a.py", "ABC-12 est fermé ?"]
_ANSWERS = ["3 passed", "Error: src/a.py failed\nexit code 1", "ok", "FAILED lib/c.rs",
            "fixed ABC-12", "traceback in src/a.py", "rien à signaler " * 20,
            "done, ticket 42 closed", "ticket 42 : la page est en cours"]
_NEXT_QUESTIONS = ["Nouveau ticket pour toi, #5385 : le cache", "ticket 42 : la page"]
_NEXT_ANSWERS = ["Next step: relire docs/b.md", "Prochaine étape : publier"]


def _long_history(seed: int, count: int, steps: float) -> list[Entry]:
    rng = random.Random(seed)
    entries = []
    instant = START
    for seq in range(1, count + 1):
        instant += rng.choice([0.5, 30.0, 600.0])
        kind = rng.choice(["tool", "tool", "task", "conversation"])
        stepping = rng.random() < steps
        entries.append(Entry(
            seq=seq, instant=instant, type=kind,
            question=rng.choice(_NEXT_QUESTIONS if stepping else _QUESTIONS),
            answer=rng.choice(_NEXT_ANSWERS if stepping else _ANSWERS),
            tool=rng.choice(["bash", "read_file"]) if kind == "tool" else None,
            sender=rng.choice([None, "apicultrice", "reine"]) if kind == "conversation"
            else None, phare=rng.random() < 0.3))
    return entries


# Not shrunk: a failing seed is already small to read, and shrinking 2,000 entries is slow.
@settings(max_examples=16, deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.integers(0, 10**6), horizon_settings(),
       st.lists(st.integers(1, 2 * ERRORS_WINDOW), max_size=3), st.sampled_from([0.0, 30.0]),
       st.sampled_from([0.0, 0.001, 0.01, 0.2]))
def test_a_backlog_past_the_window_folds_into_the_same_recit(seed: int,
                                                            horizon: HorizonSettings,
                                                            chunks: list[int], hours: float,
                                                            steps: float) -> None:
    """Long enough that a pass folds more than the window, and that the lighthouses' words
    are merged in several goes; next steps rare enough that the newest can be older than
    the window."""
    horizon = msgspec.structs.replace(horizon, budget_net=1000, budget_condense=600)
    entries = _long_history(seed, 3 * ERRORS_WINDOW + 2 * QUOTES_HELD, steps)
    eager, _ = _both(entries, horizon, None, chunks, hours)
    assert eager.recit.folded > ERRORS_WINDOW


def test_settling_twice_owes_nothing_the_second_time() -> None:
    horizon = HorizonSettings(actif=True, budget_net=1000, budget_condense=600)
    owing = Context(BEE, horizon, Truncation(horizon.ligne_max), START + 10**6, None,
                    deferred=Deferred())
    zones = Zones()
    apply(zones, _long_history(7, 600, 0.01), owing)
    settle(zones, owing)
    once = msgspec.to_builtins(zones)
    settle(zones, owing)
    assert msgspec.to_builtins(zones) == once
