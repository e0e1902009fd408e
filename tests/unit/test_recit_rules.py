"""The récit's rules (ADR 0008) as properties: what a fold keeps does not depend on where
the batches fell, repeated words are one quote that keeps its seqs, the Mission is never
sacrificed, no free section starves while its material is there, and the view holds
its cap in either language."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.blocks import Item
from horizon.core.ingest import apply
from horizon.core.labels import ENGLISH, FRENCH, Labels
from horizon.core.recit import (
    FREE_SECTIONS,
    MIN_LINE_CHARS,
    Line,
    Quote,
    Recit,
    add_quotes,
    bound_recit,
    frame_size,
    line_size,
    mission_size,
    quote_size,
    render_recit,
)
from horizon.core.render import render
from horizon.core.settings import HorizonSettings
from horizon.core.text import cut, flatten
from horizon.core.truncation import ERRORS_WINDOW, WINDOW, Truncation, reports_failure, ticket_ids
from horizon.core.zones import Context, Zones, compose_recit
from tests.unit.strategies import histories, horizon_settings, missions

BEE = "mia"
languages = st.sampled_from([FRENCH, ENGLISH])
_PATHS = ["src/app.py", "tests/test_app.py", "docs/guide.md", "lib/util.rs"]
_SAYINGS = ["Never push to main.", "Run the tests first.", "Ask before deleting."]


@st.composite
def folded_items(draw: st.DrawFn) -> list[Item]:
    """Entries as they reach a fold: tool calls on paths that fail and are fixed, tickets
    opened and closed, operator words said again, stated next steps."""
    items = []
    for seq in range(1, draw(st.integers(1, 90)) + 1):
        kind = draw(st.sampled_from(["tool", "task", "conversation"]))
        tool = draw(st.sampled_from(["bash", "read_file", None])) if kind == "tool" else None
        path = draw(st.sampled_from(_PATHS))
        ticket = draw(st.sampled_from(["", " TICKET-12", " ABC-7", " ticket 4"]))
        verdict = draw(st.sampled_from(["ok", "3 tests failed", "Traceback: error",
                                        "done, closed", "Next step: rerun the suite"]))
        lighthouse = kind == "conversation" and draw(st.booleans())
        question = draw(st.sampled_from(_SAYINGS)) if lighthouse else f"work{ticket} on {path}"
        items.append(Item(seq=seq, instant=float(seq), type=kind, question=question,
                          answer=f"{path}: {verdict}", lighthouse=lighthouse, tool=tool,
                          sender="apicultrice" if lighthouse else None))
    return items


def fold_in(items: list[Item], cuts: list[int], budget: int) -> Recit:
    """The items folded in batches ending at `cuts`, each fold as the zones make it."""
    horizon = HorizonSettings(actif=True, budget_recit=budget)
    ctx = Context(BEE, horizon, Truncation(horizon.ligne_max), 0.0, None)
    recit = Recit()
    start = 0
    for end in [*sorted(set(cuts)), len(items)]:
        if end > start:
            recit = compose_recit(recit, None, items[start:end], ctx, None)
            start = end
    return recit


@settings(max_examples=80, deadline=None)
@given(folded_items(), st.lists(st.integers(1, 90), max_size=12), st.integers(200, 5000))
def test_the_recit_is_the_same_whatever_the_batches(items: list[Item], cuts: list[int],
                                                    budget: int) -> None:
    assert fold_in(items, cuts, budget) == fold_in(items, [], budget)


@settings(max_examples=80, deadline=None)
@given(folded_items(), st.lists(st.integers(1, 90), max_size=6))
def test_merged_quotes_keep_every_seq(items: list[Item], cuts: list[int]) -> None:
    recit = fold_in(items, cuts, 1_000_000)
    for quote in recit.paroles:
        said = [item.seq for item in items
                if item.lighthouse and flatten(item.question) == flatten(quote.text)]
        assert quote.seq == said[-1] and quote.count == len(said)
        assert quote.seqs == (said[0], *said[1:][-5:])
        shown = quote.shown_seqs()
        assert shown.startswith(f"#{said[0]}")
        assert ("…" in shown) == (len(said) > 6)
    assert len({flatten(quote.text) for quote in recit.paroles}) == len(recit.paroles)


@given(st.lists(st.tuples(st.integers(1, 900), st.sampled_from(_SAYINGS)), max_size=30),
       st.integers(0, 3000))
def test_a_quote_left_out_for_room_keeps_its_seqs_when_said_again(said: list[tuple[int, str]],
                                                                  keep: int) -> None:
    said = sorted(set(said))
    quotes = [Quote(seq, text) for seq, text in said]
    one_by_one = Recit()
    for quote in quotes:
        one_by_one = add_quotes(one_by_one, [quote], keep)
    assert one_by_one == add_quotes(Recit(), quotes, keep)


recits = st.builds(
    lambda lines, quotes: Recit(
        {name: tuple(sorted((Line(seq, text) for seq, text in group), key=lambda one: one.seq))
         for name, group in lines.items() if group},
        tuple(Quote(seq, text) for seq, text in quotes)),
    st.dictionaries(st.sampled_from(FREE_SECTIONS),
                    st.lists(st.tuples(st.integers(1, 500), st.text(min_size=1, max_size=300)),
                             max_size=8)),
    st.lists(st.tuples(st.integers(1, 500), st.text(min_size=1, max_size=200)), max_size=8),
)


@given(recits, missions.map(lambda text: flatten(text or "") or None), st.integers(0, 4000),
       languages)
def test_the_mission_is_never_sacrificed_and_no_section_starves(recit: Recit,
                                                                mission: str | None,
                                                                budget: int,
                                                                labels: Labels) -> None:
    bounded, shown = bound_recit(recit, mission, budget, labels)
    assert len(render_recit(bounded, shown, labels)) <= budget or (
        not bounded.sections and not bounded.paroles and not shown)
    if mission and frame_size(labels) + mission_size(mission) <= budget:
        assert shown == mission, "the récit pays for the Mission first"
    minimum = frame_size(labels) + (mission_size(mission) if mission else 0) + sum(
        line_size(cut(flatten(lines[-1].text), MIN_LINE_CHARS))
        for lines in recit.sections.values() if lines)
    if minimum <= budget:
        for name, lines in recit.sections.items():
            if lines:
                assert bounded.lines_of(name), f"{name} starved"
        if bounded.paroles != recit.paroles:
            dropped = len(recit.paroles) - len(bounded.paroles)
            assert bounded.paroles == recit.paroles[dropped:], "the oldest quotes go first"
            assert minimum + sum(quote_size(q) for q in recit.paroles[dropped - 1:]) > budget


@settings(max_examples=60, deadline=None)
@given(folded_items())
def test_a_section_holds_something_while_the_folded_window_has_material(items: list[Item]
                                                                      ) -> None:
    recit = fold_in(items, [], 1_000_000)
    window = items[-WINDOW:]
    material = {
        "Fichiers": bool(window),  # every generated exchange names a path
        "Décisions": any(item.type == "conversation" for item in window),
        "Travail en cours": any(not item.tool and item.type != "tool" for item in window),
        "Prochaine étape": any((item.lighthouse and ticket_ids(item.question))
                               or "Next step" in item.answer for item in items),
    }
    for section, present in material.items():
        if present:
            assert recit.lines_of(section), section
        elif section != "Travail en cours":  # a ticket in flight is its material too
            assert not recit.lines_of(section), section
    open_failures = [item for index, item in enumerate(items) if reports_failure(item.answer)
                     and item in items[-ERRORS_WINDOW:] and not any(
                         not reports_failure(later.answer)
                         and (item.tool is None or later.tool == item.tool)
                         and later.answer.split(":")[0] == item.answer.split(":")[0]
                         for later in items[index + 1:])]
    shown = [line.text for line in recit.lines_of("Erreurs")]
    if len(open_failures) > 1:  # the last line is their index, by tool and seq
        index = shown.pop()
        assert sorted(map(int, re.findall(r"#(\d+)", index))) == [
            item.seq for item in open_failures], "the index names every open failure"
    assert [int(re.match(r"#(\d+)", text).group(1)) for text in shown] == [  # type: ignore[union-attr]
        item.seq for item in open_failures], "open failures only, fixed ones dropped"
    assert not any("reprendre après" in line.text or "resume after" in line.text
                   for line in recit.lines_of("Prochaine étape"))


@settings(max_examples=80, deadline=None)
@given(histories(max_size=90), horizon_settings(), missions)
def test_the_view_holds_its_cap_and_speaks_its_language(entries: list, horizon: HorizonSettings,
                                                        mission: str | None) -> None:
    zones = Zones()
    apply(zones, entries, Context(BEE, horizon, Truncation(horizon.ligne_max),
                                  entries[-1].instant, mission))
    view = render(zones, BEE, horizon, mission)
    assert len(view.text) <= horizon.cap
    other = ENGLISH if horizon.langue == "fr" else FRENCH
    assert other.notice(BEE) not in view.text
    if horizon.actif and zones.net:
        assert horizon.labels.notice(BEE) in view.text


@given(st.lists(st.tuples(st.integers(1, 900), st.sampled_from([*_SAYINGS, "a", "b", "c"])),
                max_size=40), st.integers(0, 3000))
def test_the_seqs_remembered_are_capped_one_quote_at_a_time(said: list[tuple[int, str]],
                                                            keep: int) -> None:
    from horizon.core import recit as recit_module

    said = sorted(set(said))
    quotes = [Quote(seq, text) for seq, text in said]
    cap = recit_module.HEARD_MAX
    recit_module.HEARD_MAX = 3
    try:
        one_by_one = Recit()
        for quote in quotes:
            one_by_one = add_quotes(one_by_one, [quote], keep)
        assert one_by_one == add_quotes(Recit(), quotes, keep)
        assert len(one_by_one.heard) <= 3
    finally:
        recit_module.HEARD_MAX = cap


def test_tickets_are_looked_for_at_the_head_of_a_text_only() -> None:
    assert ticket_ids("ABC-12 " + "x " * 5000) == ["ABC-12"]
    assert ticket_ids("x " * 5000 + "ABC-12") == [], "a huge text is not scanned whole"
    assert ticket_ids(" ".join(f"#{n}" for n in range(10, 99))) == ["#10", "#11", "#12"]
