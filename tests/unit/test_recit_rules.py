"""The récit's rules (ADR 0008) as properties: what a fold keeps does not depend on where
the batches fell nor on the order the entries were folded in, repeated words are one
quote that keeps its seqs, the Mission is never sacrificed, no free section starves while
its material is there, the operator's words outlast ordinary condensed entries, and the
view holds its cap in either language."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.blocks import Item
from horizon.core.folds import compose_recit
from horizon.core.labels import ENGLISH, FRENCH, Labels
from horizon.core.operator_words import stands_as_rule
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
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Context, Zones
from tests.unit.ingesting import apply
from tests.unit.strategies import histories, horizon_settings, missions

BEE = "mia"
languages = st.sampled_from([FRENCH, ENGLISH])
_PATHS = ["src/app.py", "tests/test_app.py", "docs/guide.md", "lib/util.rs"]
_SAYINGS = ["Never push to main.", "Run the tests first.", "Ask before deleting.",
            "WX-12: the gust parser drops readings, please fix it.", "Did you finish?"]
_COMMANDS = ["pytest tests/test_app.py", "pytest -q", "make docs", "git diff src/app.py",
             "grep -rn WX-12 src", "cargo test gust", None]
_VERDICTS = ["ok", "3 passed", "== 1 failed ==", "Traceback: error\nexit code 1",
             "FAILED tests/test_app.py::test_x\n== 1 failed ==", "commit WX-12 fixed"]
_WORDS = ["WX-12 is done.", "WX-12 is not fixed yet.", "Working on #345 now.",
          "Closing #345.", "Decision: we keep SQLite for the cache.",
          "Change of plan: the cache moves to Redis instead of SQLite.",
          "Now let me rerun the suite.", "Next step: update docs/guide.md",
          "Plan: port lib/util.rs", "Go on.", "Prochaine étape : publier."]


@st.composite
def folded_items(draw: st.DrawFn) -> list[Item]:
    """Entries as they reach a fold: tool calls that fail and succeed, read-only calls,
    tickets opened and closed (and not closed), decisions and their reversal, stated next
    steps, operator words said again; with and without `ok` and `files`; in fold order,
    which is seq order but for lighthouses folded late."""
    items = []
    for seq in range(1, draw(st.integers(1, 90)) + 1):
        kind = draw(st.sampled_from(["tool", "task", "conversation"]))
        lighthouse = kind == "conversation" and draw(st.booleans())
        if kind == "tool":
            command = draw(st.sampled_from(_COMMANDS))
            question = command or f"{draw(st.sampled_from(_PATHS))}"
            tool = "bash" if command else draw(st.sampled_from(["Read", "Edit"]))
            answer = draw(st.sampled_from(_VERDICTS))
        else:
            question = draw(st.sampled_from(_SAYINGS)) if lighthouse else draw(
                st.sampled_from([*_WORDS, f"work on {draw(st.sampled_from(_PATHS))}"]))
            tool = None
            answer = draw(st.sampled_from(_WORDS))
        items.append(Item(seq=seq, instant=float(seq), type=kind, question=question,
                          answer=answer, lighthouse=lighthouse, tool=tool,
                          sender="apicultrice" if lighthouse else None,
                          ok=draw(st.sampled_from([None, True, False])) if tool else None,
                          files=draw(st.none() | st.lists(st.sampled_from(_PATHS),
                                                          max_size=2).map(tuple))))
    lighthouses = [index for index, item in enumerate(items) if item.lighthouse]
    late = draw(st.lists(st.sampled_from(lighthouses), max_size=3, unique=True)
                ) if lighthouses else []
    return [item for index, item in enumerate(items) if index not in late] + [
        items[index] for index in sorted(late)]


@settings(max_examples=80, deadline=None)
@given(folded_items(), st.lists(st.integers(1, 90), max_size=6))
def test_a_lighthouse_folded_late_overrides_nothing_newer(items: list[Item],
                                                         cuts: list[int]) -> None:
    """The newest statement wins whichever fold brought it: the récit of entries folded
    with lighthouses held back (at their floor) is that of the entries in seq order."""
    in_order = sorted(items, key=lambda item: item.seq)
    late, plain = fold_in(items, cuts, 1_000_000), fold_in(in_order, [], 1_000_000)
    assert late.sections == plain.sections
    assert late.paroles == plain.paroles


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
        said = sorted(item.seq for item in items
                      if item.lighthouse and flatten(item.question) == flatten(quote.text))
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
        {name: tuple(sorted((Line(seq, text) for seq, text in group), key=lambda one: -one.seq))
         for name, group in lines.items() if group},
        tuple(Quote(seq, text, passing=passing) for seq, text, passing in sorted(quotes))),
    st.dictionaries(st.sampled_from(FREE_SECTIONS),
                    st.lists(st.tuples(st.integers(1, 500), st.text(min_size=1, max_size=300)),
                             max_size=8)),
    st.lists(st.tuples(st.integers(1, 500), st.text(min_size=1, max_size=200), st.booleans()),
             max_size=8, unique_by=lambda quote: quote[0]),
)


@given(recits, missions.map(lambda text: flatten(text or "") or None), st.integers(0, 4000),
       languages, st.sampled_from([0, 0, 100, 1000, 6000]))
def test_the_mission_is_never_sacrificed_and_no_section_starves(recit: Recit,
                                                                mission: str | None,
                                                                budget: int,
                                                                labels: Labels,
                                                                quote_room: int) -> None:
    """The Mission is paid for first, then each free section's newest line, then the
    rules, the free sections' other lines, and the operator's other words (standing, then
    passing); the rules may take `quote_room` beyond the budget (the room of ordinary
    condensed entries), the other words and the lines never, and the other words keep
    Paroles within half of the récit; the oldest quotes leave first."""
    bounded, shown = bound_recit(recit, mission, budget, labels, quote_room)
    size = len(render_recit(bounded, shown, labels))
    without_quotes = len(render_recit(msgspec.structs.replace(bounded, paroles=()), shown,
                                      labels))
    assert size <= budget + quote_room or (not bounded.sections and not bounded.paroles
                                           and not shown)
    assert without_quotes <= budget or (not bounded.sections and not shown)
    if size > budget:
        assert bounded.paroles, "only the operator's words may go past the budget"
    if mission and frame_size(labels) + mission_size(mission) <= budget:
        assert shown == mission, "the récit pays for the Mission first"
    minimum = frame_size(labels) + (mission_size(mission) if mission else 0) + sum(
        line_size(cut(flatten(lines[0].text), MIN_LINE_CHARS))
        for lines in recit.sections.values() if lines)
    if minimum <= budget:
        for name, lines in recit.sections.items():
            if lines:
                assert bounded.lines_of(name), f"{name} starved"
                assert bounded.lines_of(name)[0].seq == lines[0].seq, "its newest line"
        rules = [quote for quote in recit.paroles if _is_rule(quote)]
        kept = [quote for quote in bounded.paroles if _is_rule(quote)]
        assert kept == rules[len(rules) - len(kept):], "the oldest rules go first"
        if len(kept) < len(rules):  # the newest rule left out did not fit
            assert minimum + sum(map(quote_size, kept)) + quote_size(
                rules[-len(kept) - 1]) > budget + quote_room, "a rule that fit was left out"
        taken = frame_size(labels) + (mission_size(shown) if shown else 0) + sum(
            line_size(line.text) for lines in bounded.sections.values() for line in lines)
        words = sum(map(quote_size, bounded.paroles))
        others = [quote for quote in bounded.paroles if not _is_rule(quote)]
        if others:  # the other words stay within the budget and half of the récit
            assert taken + words <= budget, "only rules may go past the budget"
            assert words <= taken, "the operator's words past half of the récit"
        for passing in (False, True):
            kind = [quote for quote in recit.paroles
                    if quote.passing == passing and not _is_rule(quote)]
            kept = [quote for quote in bounded.paroles
                    if quote.passing == passing and not _is_rule(quote)]
            assert kept == kind[len(kind) - len(kept):], "the oldest words go first"


def _is_rule(quote: Quote) -> bool:
    # What stands as a rule: a rule's words, a withdrawal, or a statement long enough to
    # be a convention (eight words: "0:0:0:0:0:0:0:0" is one, hypothesis found).
    return not quote.passing and stands_as_rule(quote.text)


def _names(lines: tuple[Line, ...]) -> str:
    return "\n".join(line.text for line in lines)


@settings(max_examples=60, deadline=None)
@given(folded_items())
def test_each_free_section_follows_its_rule(items: list[Item]) -> None:
    """Newest first; a section holds something while the folded entries have material
    for it; no fixed failure, closed ticket, placeholder or operator's word in it."""
    recit = fold_in(items, [], 1_000_000)
    for name in recit.sections:
        seqs = [line.seq for line in recit.lines_of(name)]
        assert seqs == sorted(seqs, reverse=True), f"{name}: newest first"
    by_seq = sorted(items, key=lambda item: item.seq)
    if any(item.files if item.files is not None  # the runtime's word, when given
           else any(path in item.question for path in _PATHS) for item in items):
        assert recit.lines_of("Fichiers")
    said = [item for item in by_seq if not item.tool and "Decision:" in item.answer]
    if said:
        assert "SQLite" in _names(recit.lines_of("Décisions")) or "Redis" in _names(
            recit.lines_of("Décisions"))
    decisions = _names(recit.lines_of("Décisions"))
    assert not any(saying in decisions for saying in _SAYINGS), "Paroles is not copied"
    steps = [item for item in by_seq if not item.tool and any(
        cue in item.answer for cue in ("Now let me", "Next step", "Plan:", "Prochaine"))]
    if steps:
        assert recit.lines_of("Prochaine étape")[0].seq >= steps[-1].seq, "the newest step"
    assert not any("reprendre après" in line.text or "resume after" in line.text
                   for line in recit.lines_of("Prochaine étape"))
    work = _names(recit.lines_of("Travail en cours"))
    assert "Go on" not in work, "never a filler line"
    last_word = {}
    for item in by_seq:  # a ticket opens when work is given on it, closes when done
        if item.tool is None:
            gives_work = item.lighthouse or item.type == "task"
            for text, assigned in ((item.question, gives_work), (item.answer, False)):
                if "WX-12 is done" in text:
                    last_word["WX-12"] = "closed"
                elif "WX-12" in text and "?" not in text and (
                        assigned or "not fixed yet" in text):  # still in flight
                    last_word["WX-12"] = "open"
    if last_word.get("WX-12") == "closed":
        assert "WX-12" not in work, "a closed ticket is not in flight"
    elif last_word.get("WX-12") == "open":
        assert "WX-12" in work, "an open ticket is in flight"


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
