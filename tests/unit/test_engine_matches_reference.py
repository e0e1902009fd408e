"""The engine's zones equal the plain reading of the rules (tests/unit/reference.py), and
each piece it measures by arithmetic or matches in part equals what it stands for."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.blocks import (
    Item,
    exchange_block,
    exchange_size,
    header,
    net_overhead,
    notice,
)
from horizon.core.entries import INSTANT_CHARS, LATEST, Entry, format_instant
from horizon.core.labels import ENGLISH, FRENCH, Labels
from horizon.core.recit import Line, Quote, Recit, bound_recit, recit_size, render_recit
from horizon.core.settings import HorizonSettings
from horizon.core.text import clean, flatten, named_paths
from horizon.core.truncation import Truncation
from horizon.core.upgrades import FoldQueue, QueuedFolds
from horizon.core.zone_state import Context, Zones
from horizon.core.zones import content_hash, sweep
from horizon.summarize.cached import CachedSummarizer
from tests.unit.ingesting import apply
from tests.unit.reference import Reference, reference_bound, reference_hash, reference_paths
from tests.unit.strategies import histories, horizon_settings, missions, texts

BEE = "mia"
# Words that name paths and failures, and the characters IGNORECASE equates with letters
# whose lower case they are not (İ ı ſ), so the cheap filters meet their corner cases.
_WORDS = st.sampled_from([
    "src/a.py", "./x", "../up/y.txt", "/etc/hosts", "~/notes.md", "e.g", "fin.", "a.b.c",
    "(lib/mod.rs)", "x/", "/", ".", "file.TXT", "v1.2", "Error", "ERREURS", "échoué",
    "ÉCHEC", "not found", "not  found", "faİled", "faıled", "failſ", "panicked", "fatal:",
    "refusé.", "deniedly", "Traceback", "introuvable!", "\u00a0", "\u2028", "\x1c", " ",
])
word_texts = st.lists(_WORDS | texts, max_size=14).map(" ".join)


@given(word_texts)
def test_paths_matched_word_by_word_are_those_of_the_whole_text(text: str) -> None:
    assert named_paths(text) == reference_paths(text)


@given(word_texts | st.text() | st.lists(st.sampled_from([" ", "  ", "a", "é", "\u00a0", "\u3000",
                                                         "\x1c", "\t"])).map("".join))
def test_a_printable_text_flattens_as_any_other(text: str) -> None:
    """flatten's shortcut for one-line printable texts: breaks and runs of any whitespace
    become single spaces, as splitting the cleaned text on whitespace does."""
    assert flatten(text) == " ".join(clean(text).split())


items = st.builds(
    Item, seq=st.integers(1, 10**12), instant=st.floats(0, LATEST), type=texts,
    question=texts | word_texts, answer=texts | word_texts, lighthouse=st.booleans(),
    sender=st.none() | texts, tool=st.none() | texts, writer_id=st.none() | texts,
)


languages = st.sampled_from([FRENCH, ENGLISH])


@given(items, languages, st.booleans(), st.none() | texts, st.none() | texts)
def test_an_exchange_measured_is_the_exchange_rendered(item: Item, labels: Labels,
                                                       condensed: bool, answer: str | None,
                                                       question: str | None) -> None:
    label = labels.condensed_answer if condensed else labels.answer
    assert exchange_size(item, label, labels, answer, question) == len(
        exchange_block(item, label, labels, answer, question))


@given(st.floats(0, LATEST))
def test_every_instant_prints_in_rfc_3339_and_in_the_same_width(instant: float) -> None:
    expected = datetime.fromtimestamp(int(instant), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert format_instant(instant) == expected
    assert len(expected) == INSTANT_CHARS


def test_net_pays_for_the_header_and_the_notice() -> None:
    for labels in (FRENCH, ENGLISH):
        assert net_overhead(BEE, labels) == len(header(BEE, "horizon", 10**12 - 1, 0)) + len(
            notice(BEE, labels))


@given(st.builds(Entry, seq=st.integers(1, 99), instant=st.just(0.0), type=texts,
                 question=texts, answer=texts, tool=st.none() | texts))
def test_the_content_hash_is_that_of_each_part_in_turn(entry: Entry) -> None:
    assert content_hash(entry) == reference_hash(entry)


recits = st.builds(
    lambda lines, quotes: Recit(
        {name: tuple(sorted((Line(seq, text) for seq, text in group), key=lambda one: -one.seq))
         for name, group in lines.items() if group},
        tuple(Quote(seq, text, (seq - 1, seq) if seq % 3 == 0 else (), 2 if seq % 3 == 0
                    else 1, passing) for seq, text, passing in sorted(quotes))),
    st.dictionaries(st.sampled_from(["Décisions", "Fichiers", "Erreurs", "Travail en cours",
                                     "Prochaine étape"]),
                    st.lists(st.tuples(st.integers(1, 500), texts), max_size=8)),
    st.lists(st.tuples(st.integers(1, 500), texts, st.booleans()), max_size=8),
)


@given(recits, missions.map(lambda text: text and flatten(text)), st.integers(0, 1500),
       languages, st.sampled_from([0, 0, 50, 400, 3000]))
def test_the_recit_bound_by_arithmetic_is_the_bound_by_rendering(recit: Recit,
                                                                 mission: str | None,
                                                                 budget: int,
                                                                 labels: Labels,
                                                                 quote_room: int) -> None:
    assert recit_size(recit, mission, labels) == len(render_recit(recit, mission, labels))
    assert bound_recit(recit, mission, budget, labels, quote_room) == reference_bound(
        recit, mission, budget, labels, quote_room)


def _out_of_order(entries: list[Entry], shifts: list[float]) -> list[Entry]:
    """Journals are not always in time order (clock skew, several writers, clamps)."""
    return [msgspec.structs.replace(entry, instant=max(0.0, entry.instant + shift))
            for entry, shift in zip(entries, shifts + [0.0] * len(entries), strict=False)]


@settings(max_examples=150, deadline=None)
@given(histories(max_size=90), horizon_settings(), missions,
       st.lists(st.tuples(st.integers(1, 90), st.floats(0, 30)), min_size=1, max_size=5),
       st.lists(st.floats(-30_000, 30_000), max_size=90) | st.just([]), st.booleans())
def test_the_zones_are_those_of_the_rules_as_written(entries: list[Entry],
                                                     horizon: HorizonSettings,
                                                     mission: str | None,
                                                     passes: list[tuple[int, float]],
                                                     shifts: list[float],
                                                     models: bool) -> None:
    """Chunks, each ingested then swept at its own later `now`, as the daemon does. With
    models configured and nothing in their cache yet, what is shown is truncation's."""
    entries = _out_of_order(entries, shifts)
    zones = Zones()
    queue = FoldQueue()
    reference = Reference(BEE, horizon, mission, models)
    start = 0
    now = max(entry.instant for entry in entries)
    for size, hours in [*passes, (len(entries), 0.0)]:
        chunk = entries[start:start + size]
        start += len(chunk)
        now += hours * 3600
        ctx = Context(BEE, horizon, Truncation(horizon.ligne_max), now, mission)
        if models:
            cached = CachedSummarizer(["ollama/m"], horizon, None)
            ctx = Context(BEE, horizon, cached, now, mission, QueuedFolds(queue, cached))
        apply(zones, copy.deepcopy(chunk), ctx)
        sweep(zones, ctx)
        for entry in chunk:
            reference.step(entry, now)
        reference.sweep(now)
        assert msgspec.to_builtins(zones) == msgspec.to_builtins(reference.zones)
        assert msgspec.to_builtins(queue.batches) == msgspec.to_builtins(reference.owed)
        assert msgspec.to_builtins(queue.chain) == msgspec.to_builtins(reference.chain)


def task(seq: int, instant: float, question: str, answer: str) -> Entry:
    return Entry(seq=seq, instant=instant, type="task", question=question, answer=answer)


def test_an_aged_exchange_leaves_net_even_behind_a_younger_one() -> None:
    horizon = HorizonSettings(actif=True, age_net_heures=0.5)
    now = 1_790_000_000.0
    entries = [task(1, now - 60, "fresh", "a"), task(2, now - 7200, "old", "b"),
               task(3, now, "last", "c")]
    zones = Zones()
    apply(zones, entries, Context(BEE, horizon, Truncation(horizon.ligne_max), now, None))
    reference = Reference(BEE, horizon, None)
    for entry in entries:
        reference.step(entry, now)
    assert [item.seq for item in zones.net] == [1, 3]
    assert msgspec.to_builtins(zones) == msgspec.to_builtins(reference.zones)
