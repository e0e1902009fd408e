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
from horizon.core.records import RECORD_SPAN
from horizon.core.settings import HorizonSettings
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Context, Zones
from horizon.core.zones import settle, sweep
from tests.unit.ingesting import apply
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


# What the récit's rules read: commands that fail and are run again, whole-suite runs,
# read-only calls, tickets opened, parked, closed and not closed, decisions and their
# reversal, the operator's requests and questions, repeated words; and, as often as
# `steps` says, a next step (stated by the bee, or asked for by the operator).
_QUESTIONS = ["pytest tests/test_a.py", "pytest -q", "make docs", "git diff src/a.py",
              "cat docs/b.md", "Tu as fini ?", "Garde les journaux", "relis src/a.py",
              "ABC-12 est fermé ?", "WX-230 : la rafale est fausse", "grep -rn WX-230 src"]
_ANSWERS = ["3 passed", "Error: src/a.py failed\nexit code 1", "ok", "== 1 failed ==",
            "fixed ABC-12", "traceback in src/a.py", "rien à signaler " * 20,
            "done, ticket 42 closed", "ticket 42 : la page est en cours",
            "WX-230 is not fixed yet.", "Decision: we keep SQLite for the cache.",
            "Change of plan: the cache moves to Redis instead of SQLite.",
            "FAILED tests/test_a.py::test_x - AssertionError\n== 1 failed in 0.1s =="]
_NEXT_QUESTIONS = ["Nouveau ticket pour toi, #5385 : le cache", "ticket 42 : la page",
                   "Please port the gust parser next."]
_NEXT_ANSWERS = ["Next step: relire docs/b.md", "Prochaine étape : publier",
                 "Now let me rerun the suite.", "Je vais maintenant corriger src/a.py."]


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
            tool=rng.choice(["bash", "Read", "Edit"]) if kind == "tool" else None,
            sender=rng.choice([None, "apicultrice", "reine"]) if kind == "conversation"
            else None, phare=rng.random() < 0.3,
            ok=rng.choice([None, True, False]) if kind == "tool" else None,
            files=rng.choice([None, ("src/a.py",), ("a.py", "docs/b.md")])))
    return entries


# Not shrunk: a failing seed is already small to read, and shrinking 2,000 entries is slow.
@settings(max_examples=16, deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.integers(0, 10**6), horizon_settings(),
       st.lists(st.integers(1, RECORD_SPAN), max_size=3), st.sampled_from([0.0, 30.0]),
       st.sampled_from([0.0, 0.001, 0.01, 0.2]))
def test_a_backlog_past_the_window_folds_into_the_same_recit(seed: int,
                                                            horizon: HorizonSettings,
                                                            chunks: list[int], hours: float,
                                                            steps: float) -> None:
    """Long enough that a pass folds more than the records' span, and that the
    lighthouses' words are merged in several goes; next steps rare enough that the newest
    can be older than the span."""
    horizon = msgspec.structs.replace(horizon, budget_net=1000, budget_condense=600)
    entries = _long_history(seed, RECORD_SPAN + 2 * QUOTES_HELD + 200, steps)
    eager, _ = _both(entries, horizon, None, chunks, hours)
    assert eager.recit.folded > RECORD_SPAN


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


@settings(max_examples=100, deadline=None)
@given(st.integers(5, 60), st.sampled_from([600.0, 1800.0, 3600.0]), st.floats(1.5, 6),
       st.lists(st.integers(1, 20), min_size=1, max_size=6), st.floats(0.3, 3))
def test_a_later_pass_finds_nets_oldest_aged_behind_a_fresh_one(
        count: int, gap: float, age: float, chunks: list[int], hours: float) -> None:
    """Net holds exchanges a `gap` apart, its budget wide; each pass comes `hours` later,
    so its oldest exchanges age out while the newest of the older ones is still fresh: a
    pass that defers its text work must not take net for unaged from that one alone."""
    entries = [Entry(seq=seq, instant=START + seq * gap, type="task", question=f"q{seq}",
                     answer="a " * 20) for seq in range(1, count + 1)]
    horizon = HorizonSettings(actif=True, budget_net=60_000, age_net_heures=age)
    eager, lazy = Zones(), Zones()
    start = 0
    for size in [*chunks, count]:
        chunk = entries[start:start + size]
        start += len(chunk)
        if not chunk:
            continue
        now = chunk[-1].instant + hours * 3600  # each pass a little after its lines
        truncation = Truncation(horizon.ligne_max)
        apply(eager, copy.deepcopy(chunk), Context(BEE, horizon, truncation, now, None))
        owing = Context(BEE, horizon, truncation, now, None, deferred=Deferred())
        apply(lazy, copy.deepcopy(chunk), owing)
        settle(lazy, owing)
        assert msgspec.to_builtins(lazy) == msgspec.to_builtins(eager)
