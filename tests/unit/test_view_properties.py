"""Properties of the pure core over random histories and settings."""

from __future__ import annotations

import copy
import itertools

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from horizon.core.blocks import Item
from horizon.core.bound import bound_text
from horizon.core.deferred import Deferred
from horizon.core.entries import Entry
from horizon.core.folds import replace_condensed
from horizon.core.labels import FRENCH
from horizon.core.recit import FREE_SECTIONS, MISSION, PAROLES
from horizon.core.render import render
from horizon.core.settings import HorizonSettings
from horizon.core.text import quoted_lines
from horizon.core.truncation import Truncation
from horizon.core.view_memo import BlockMemo
from horizon.core.zone_state import Changes, Context, Zones
from horizon.core.zones import settle, sweep
from tests.unit.ingesting import apply
from tests.unit.strategies import histories, horizon_settings, missions, texts

BEE = "mia"


def build(entries: list[Entry], settings: HorizonSettings, mission: str | None,
          now: float) -> Zones:
    zones = Zones()
    ctx = Context(BEE, settings, Truncation(settings.ligne_max), now, mission)
    apply(zones, entries, ctx)
    sweep(zones, ctx)
    return zones


def later(entries: list[Entry], hours: float) -> float:
    return entries[-1].instant + hours * 3600


@given(histories(), horizon_settings(), missions, st.floats(0, 100))
def test_the_view_never_exceeds_the_cap(entries: list[Entry], settings: HorizonSettings,
                                        mission: str | None, hours: float) -> None:
    view = render(build(entries, settings, mission, later(entries, hours)), BEE, settings,
                  mission)
    assert len(view.text) <= settings.cap
    assert view.summary["chars"] == len(view.text)
    assert not view.guard_cut, "the hard cut alone must reach the cap"


@given(histories(), horizon_settings(actif=False), missions)
def test_the_handoff_mode_never_exceeds_handoff_max(entries: list[Entry],
                                                    settings: HorizonSettings,
                                                    mission: str | None) -> None:
    view = render(build(entries, settings, mission, later(entries, 0)), BEE, settings, mission)
    assert len(view.text) <= settings.handoff_max
    assert view.text.startswith(f"<!-- horizon format=1 bee={BEE} mode=handoff ")


@given(histories(), horizon_settings(), missions, st.floats(0, 1000))
def test_the_last_exchange_always_stays_in_net(entries: list[Entry], settings: HorizonSettings,
                                               mission: str | None, hours: float) -> None:
    zones = build(entries, settings, mission, later(entries, hours))
    assert zones.net[-1].seq == entries[-1].seq
    view = render(zones, BEE, settings, mission)
    assert view.summary["net"][-1]["seq"] == entries[-1].seq


def _shown_whole(question: str, text: str) -> bool:
    return "\n".join(quoted_lines(question)) in text


@given(histories(), horizon_settings(), missions, st.floats(0, 100))
def test_questions_are_never_shortened_unless_step_5(entries: list[Entry],
                                                    settings: HorizonSettings,
                                                    mission: str | None, hours: float) -> None:
    zones = build(entries, settings, mission, later(entries, hours))
    view = render(zones, BEE, settings, mission)
    by_seq = {entry.seq: entry for entry in entries}
    step5 = {cut["seq"] for cut in view.summary["cut"] if cut["step"] == 5}
    for listed in view.summary["net"] + view.summary["condense"]:
        question = by_seq[listed["seq"]].question
        if question.strip() and listed["seq"] not in step5:
            assert _shown_whole(question, view.text), listed["seq"]


@given(histories(), horizon_settings(), missions, st.floats(0, 100))
def test_the_sacrifice_order_holds(entries: list[Entry], settings: HorizonSettings,
                                   mission: str | None, hours: float) -> None:
    zones = build(entries, settings, mission, later(entries, hours))
    view = render(zones, BEE, settings, mission)
    cuts = view.summary["cut"]
    steps = [cut["step"] for cut in cuts]
    assert steps == sorted(steps)
    for step in (1, 3, 4):
        seqs = [cut["seq"] for cut in cuts if cut["step"] == step]
        assert seqs == sorted(seqs), f"step {step} must go oldest first"
    lighthouse = {item.seq: item.lighthouse for item in zones.net + zones.condense}
    last = entries[-1].seq
    if any(step >= 2 for step in steps):
        assert all(lighthouse[c["seq"]] for c in view.summary["condense"]), "step 1 first"
    if any(step >= 3 for step in steps):
        for section in (*FREE_SECTIONS, MISSION):
            assert view.summary["recit"].get(section, "") == "", "step 2 first"
    if any(step >= 4 for step in steps):
        assert all(lighthouse[n["seq"]] or n["seq"] == last for n in view.summary["net"])
    if 5 in steps:
        assert view.summary["condense"] == []
        assert [n["seq"] for n in view.summary["net"]] == [last]
        assert view.summary["recit"].get(PAROLES, "") == ""
    if cuts and cuts[0]["step"] == 0:
        assert cuts[0]["seq"] == last


@given(histories(), horizon_settings(), missions, st.floats(0, 100))
def test_the_view_is_idempotent(entries: list[Entry], settings: HorizonSettings,
                                mission: str | None, hours: float) -> None:
    zones = build(entries, settings, mission, later(entries, hours))
    before = msgspec.to_builtins(zones)
    first = render(zones, BEE, settings, mission)
    assert render(zones, BEE, settings, mission) == first
    assert msgspec.to_builtins(zones) == before, "rendering must not touch the zones"


@given(histories(), horizon_settings(), missions, st.floats(0, 100),
       st.lists(st.integers(min_value=1, max_value=60), max_size=8))
def test_ingesting_in_chunks_equals_a_full_rebuild(entries: list[Entry],
                                                   settings: HorizonSettings,
                                                   mission: str | None, hours: float,
                                                   cuts: list[int]) -> None:
    now = later(entries, hours)
    whole = build(entries, settings, mission, now)
    zones = Zones()
    ctx = Context(BEE, settings, Truncation(settings.ligne_max), now, mission)
    bounds = sorted({min(cut, len(entries)) for cut in cuts} | {0, len(entries)})
    for start, end in itertools.pairwise(bounds):
        apply(zones, copy.deepcopy(entries[start:end]), ctx)
        sweep(zones, ctx)
    assert msgspec.to_builtins(zones) == msgspec.to_builtins(whole)


@given(histories(), horizon_settings(), horizon_settings(), missions, st.floats(0, 100),
       st.lists(st.integers(min_value=1, max_value=60), max_size=8))
def test_a_view_reusing_its_earlier_blocks_is_the_view_made_afresh(
        entries: list[Entry], settings: HorizonSettings, other: HorizonSettings,
        mission: str | None, hours: float, cuts: list[int]) -> None:
    """The blocks (and the récit) a bee's earlier views rendered, reused while their
    entries stay, give the view that rendering from nothing gives: after every chunk, and
    under other settings (other labels, budgets, cap) with the same memo."""
    now = later(entries, hours)
    zones = Zones()
    ctx = Context(BEE, settings, Truncation(settings.ligne_max), now, mission,
                  deferred=Deferred())
    memo: BlockMemo = {}
    bounds = sorted({min(cut, len(entries)) for cut in cuts} | {0, len(entries)})
    for start, end in itertools.pairwise(bounds):
        apply(zones, copy.deepcopy(entries[start:end]), ctx)
        sweep(zones, ctx)
        settle(zones, ctx)
        assert render(zones, BEE, settings, mission, memo) == render(zones, BEE, settings,
                                                                     mission)
        assert render(zones, BEE, other, mission, memo) == render(zones, BEE, other, mission)


@given(st.lists(texts, max_size=40), missions, st.integers(min_value=1000, max_value=5000))
def test_the_ls5_bound_is_idempotent_and_keeps_the_mission(lines: list[str],
                                                           mission: str | None,
                                                           limit: int) -> None:
    header = "<!-- horizon format=1 bee=mia mode=handoff up_to=3 at=2026-01-01T00:00:00Z -->"
    body = [header]
    mission_line = FRENCH.mission_prefix + " ".join((mission or "").split())
    if mission:
        body.append(mission_line)
    body += ["- **user:** " + " ".join(line.split()) for line in lines]
    text = "".join(line + "\n" for line in body)
    bounded = bound_text(text, limit)
    assert len(bounded) <= limit
    assert bound_text(bounded, limit) == bounded
    assert bounded.startswith(header + "\n")
    if mission and len(header) + len(mission_line) + 2 <= limit:
        assert mission_line + "\n" in bounded
    turns = [line for line in bounded.split("\n") if line.startswith("- **")]
    expected = ["- **user:** " + " ".join(line.split()) for line in lines]
    if turns:
        tail = expected[len(expected) - len(turns):]
        assert turns[1:] == tail[1:], "the most recent suffix, whole"
        assert turns[0] == tail[0] or (
            turns[0].startswith("- **user:** ") and turns[0].endswith("…")
        )

def test_a_step_records_evictions_and_folds() -> None:
    settings = HorizonSettings(actif=True, budget_net=600, budget_condense=400,
                               budget_recit=1000)
    ctx = Context(BEE, settings, Truncation(settings.ligne_max), 1e9, None)
    zones = Zones()
    changes = Changes()
    entries = [Entry(seq=seq, instant=1e9, type="task", question=f"q{seq}", answer="a" * 100)
               for seq in range(1, 20)]
    changes = apply(zones, entries, ctx)
    assert changes.evicted and changes.folded and changes.folds >= 1
    assert all(isinstance(item, Item) for item in zones.net)


@given(histories(), horizon_settings(), missions, st.data())
def test_a_block_is_made_again_when_its_marks_change_in_place(
        entries: list[Entry], settings: HorizonSettings, mission: str | None,
        data: st.DataObject) -> None:
    """A model's condensation can be the very text truncation kept (the same string), yet
    its label changes (`Réponse condensée`); a lighthouse mark can change on the item a
    block was made of. The memo makes such a block again: the view equals a fresh one."""
    zones = build(entries, settings, mission, later(entries, 1))
    memo: BlockMemo = {}
    render(zones, BEE, settings, mission, memo)
    held = zones.condense + zones.net
    changed = data.draw(st.lists(st.sampled_from(held), unique_by=id), label="changed"
                        ) if held else []
    for item in changed:
        if item in zones.condense and data.draw(st.booleans(), label="by a model"):
            replace_condensed(zones, item.seq, item.content, item.answer, "ollama/m",
                              settings)
        else:
            item.lighthouse = not item.lighthouse
    assert render(zones, BEE, settings, mission, memo) == render(zones, BEE, settings,
                                                                 mission)
