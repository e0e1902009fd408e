"""What the view keeps when room is short: the last answer's head and tail (the cut's step
0), and the operator's words over ordinary condensed entries (Paroles' room)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.blocks import Item, exchange_block, header, notice
from horizon.core.entries import Entry
from horizon.core.labels import ENGLISH, FRENCH
from horizon.core.operator_words import stands_as_rule
from horizon.core.render import cut_answer, render
from horizon.core.settings import HorizonSettings
from horizon.core.text import quoted_lines
from horizon.core.truncation import Truncation
from horizon.core.view_memo import waiting_words
from horizon.core.withdrawals import withdrawn
from horizon.core.zone_state import Context, Zones
from tests.unit.ingesting import apply
from tests.unit.strategies import START, histories, horizon_settings, missions

BEE = "mia"


def log_of(size: int, width: int = 80) -> str:
    """A test log of `size` characters in lines of `width`, its verdict last."""
    lines = [f"tests/test_wind.py::test_case_{n:06d} PASSED".ljust(width - 1, ".")
             for n in range(size // width)]
    return "\n".join([*lines, "==== 1 failed, 1249 passed in 12.3s ===="])


def kept_of(block: str, output: str) -> tuple[int, bool]:
    """How many of the output's characters a block shows, and whether its last line."""
    shown = [line[2:] for line in block.split("\n") if line.startswith("> ")]
    kept = sum(len(line) + 1 for line in shown if line in output.split("\n"))
    return kept, shown[-1] == output.rsplit("\n", maxsplit=1)[-1]


def test_a_100_kb_log_keeps_its_head_and_its_tail_in_net() -> None:
    output = log_of(100_000)
    settings = HorizonSettings(actif=True, budget_net=12000)
    zones = Zones()
    entry = Entry(seq=7, instant=START, type="tool", tool="Bash", question="pytest -q",
                  answer=output)
    apply(zones, [entry], Context(BEE, settings, Truncation(240), START, None))
    view = render(zones, BEE, settings, None)
    kept, last = kept_of(view.text, output)
    assert kept >= 11_000 and last
    assert view.summary["cut"] == [{"step": 0, "seq": 7}]
    assert "characters cut here" in view.text or "caractères coupés ici" in view.text


@settings(max_examples=60, deadline=None)
@given(st.integers(400, 30_000), st.integers(2_000, 200_000), st.sampled_from([20, 80, 300]),
       st.sampled_from([FRENCH, ENGLISH]))
def test_the_cut_fills_nets_room_with_the_head_and_the_tail(budget: int, size: int,
                                                           width: int, labels: object) -> None:
    output = log_of(size, width)
    item = Item(seq=3, instant=START, type="tool", question="pytest -q", answer=output,
                lighthouse=False, tool="Bash")
    room = budget - len(header(BEE, "horizon", 10**12 - 1, 0)) - len(notice(BEE, labels))
    if len(exchange_block(item, labels.answer, labels)) <= room:  # type: ignore[attr-defined]
        return  # the answer fits: step 0 does not cut it
    block = cut_answer(item, room, labels)  # type: ignore[arg-type]
    assert len(block) <= room or room < 200
    _, last = kept_of(block, output)
    if room >= 400:
        assert last, "the verdict at the end is kept"
        longest = max(map(len, output.split("\n"))) + 3
        assert len(block) >= room - longest - 12, "net's room is filled to within a line"
    marker = [line for line in block.split("\n") if "#3]" in line]
    assert len(marker) == 1, "one marker line joins the head and the tail"


@settings(max_examples=80, deadline=None)
@given(histories(max_size=90), horizon_settings(), missions)
def test_paroles_never_loses_a_rule_while_an_ordinary_condensed_entry_is_shown(
        entries: list[Entry], horizon: HorizonSettings, mission: str | None) -> None:
    zones = Zones()
    apply(zones, entries, Context(BEE, horizon, Truncation(horizon.ligne_max, horizon.labels),
                                  entries[-1].instant, mission))
    view = render(zones, BEE, horizon, mission)
    lighthouses = {item.seq for item in zones.condense if item.lighthouse}
    ordinary_shown = [item for item in view.summary["condense"]
                      if item["seq"] not in lighthouses]
    if ordinary_shown:
        gone = withdrawn((*zones.recit.paroles, *waiting_words(zones)))
        for quote in zones.recit.paroles:
            if quote.seq in gone or quote.passing or not stands_as_rule(quote.text):
                continue
            assert "\n".join(quoted_lines(quote.text))[2:] in view.text, (
                "a rule left out while an ordinary condensed entry is shown")


def test_words_that_are_no_rule_left_out_keep_the_condensed_entries() -> None:
    """Requests the operator made long ago never take condensé's room, so leaving them
    out for room takes no condensed entry with them: a failing run waiting there for its
    fold stays in the view."""
    horizon = HorizonSettings(actif=True, budget_net=1500, budget_condense=2500, budget_recit=900)
    entries = []
    for seq in range(1, 61):
        if seq % 3 == 1:
            question = (f"Please add a unit test for the parser's case number {seq} and "
                        f"then rename the helper in src/parse_{seq}.py to something clearer.")
            entries.append(Entry(seq=seq, instant=START + seq, type="conversation",
                                 question=question, answer="Done."))
        elif seq == 50:
            entries.append(Entry(seq=seq, instant=START + seq, type="tool", tool="Bash",
                                 question="pytest tests/test_parse.py", ok=False,
                                 answer="FAILED tests/test_parse.py::test_case_7 - boom"))
        else:
            entries.append(Entry(seq=seq, instant=START + seq, type="tool", tool="Bash",
                                 question=f"ls src/{seq}", answer="parse.py", ok=True))
    zones = Zones()
    apply(zones, entries, Context(BEE, horizon, Truncation(horizon.ligne_max, horizon.labels),
                                  entries[-1].instant, None))
    assert any(item.seq == 50 for item in zones.condense), "the failing run waits in condensé"
    view = render(zones, BEE, horizon, None)
    shown = {quote.seq for quote in zones.recit.paroles
             if "\n".join(quoted_lines(quote.text))[2:] in view.text}
    assert shown < {quote.seq for quote in zones.recit.paroles}, "a request is left out"
    assert "test_case_7" in view.text


def test_twenty_five_rules_all_stay_verbatim_while_condense_gives_way() -> None:
    rules = [f"Rule {n}: when you touch the {n}th module, run its tests, update its docs "
             f"and its changelog entry, and never push before the CI on branch r{n} is "
             f"green and reviewed." for n in range(25)]
    assert all(120 <= len(rule) <= 200 for rule in rules)
    entries = []
    for seq in range(1, 301):
        if seq % 12 == 0 and seq // 12 <= 25:
            entries.append(Entry(seq=seq, instant=START + seq, type="conversation",
                                 question=rules[seq // 12 - 1], answer="Noted."))
        else:
            entries.append(Entry(seq=seq, instant=START + seq, type="tool", tool="Bash",
                                 question=f"cargo test module_{seq}", answer="ok " * 120))
    horizon = HorizonSettings(actif=True, plancher_phare="recit")
    zones = Zones()
    apply(zones, entries, Context(BEE, horizon, Truncation(240), START + 400, None))
    view = render(zones, BEE, horizon, None)
    assert len(view.text) <= horizon.cap
    assert all(rule in view.text for rule in rules)
