"""What a bee's earlier views made, taken again while unchanged (pure): each exchange's
block, what was read of its net exchanges, the récit without what they overtook, and the
bounded récit. A pass changes a few entries; the rest of a view is as it was.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from horizon.core.blocks import Item, Signals
from horizon.core.facts import is_passing_word, quotable
from horizon.core.labels import Labels
from horizon.core.overtaken import overtaken
from horizon.core.recit import Quote, Recit, bound_recit, rule_left_out
from horizon.core.recit import render_recit as recit_text
from horizon.core.signals import signals_of
from horizon.core.zone_state import Zones

# Blocks rendered by earlier views of the same bee: (zone, seq) -> (what the block was
# made of, its text). A pass changes a few entries; the others' blocks are taken as they
# were. The caller keeps it between views; `render` leaves in it only what it used.
# A block is made of (item, answer, whole, lighthouse, labels); the récit of (récit,
# mission, budget, quote room, labels), gives (bounded récit, mission shown), and last
# holds the operator's words waiting for their fold that it was bounded with, then whether
# it left a rule out for room.
_BlockMadeOf = tuple[Item, str, bool, bool, Labels]
_RecitMadeOf = tuple[Recit, str | None, int, int, Labels, Recit, str | None, tuple[Quote, ...],
                     bool]
# The récit as the waiting exchanges leave it (`overtaken`): made of the récit, the
# exchanges in condensé and net with what was read of them, the labels and ligne_max; and
# what was read of each net exchange, made of the exchange and its answer.
_AheadMadeOf = tuple[Recit, tuple[tuple[Item, str, object], ...], Labels, int, Recit]
_ReadMadeOf = tuple[Item, str, Signals]
BlockMemo = dict[tuple[str, int],
                 tuple[_BlockMadeOf | _RecitMadeOf | _AheadMadeOf | _ReadMadeOf, str]]


def block(memo: BlockMemo | None, used: set[tuple[str, int]], zone: str, item: Item,
           labels: Labels, make: Callable[[Item, Labels], str]) -> str:
    key = (zone, item.seq)
    used.add(key)
    cached = memo.get(key) if memo is not None else None
    if cached is not None:
        made_of = cached[0]
        # The same item, answer and labels: a block only changes with its answer (condensed,
        # replaced by a model) or its lighthouse mark; what else makes it never changes.
        if (made_of[0] is item and made_of[1] is item.answer and made_of[2] == item.whole
                and made_of[3] == item.lighthouse and made_of[4] is labels):
            return cached[1]
    text = make(item, labels)
    if memo is not None:
        memo[key] = ((item, item.answer, item.whole, item.lighthouse, labels), text)
    return text


_RECIT_KEY = ("recit", 0)  # the récit's entry in a BlockMemo
_AHEAD_KEY = ("ahead", 0)  # and the récit the waiting exchanges leave


def recit_ahead(memo: BlockMemo | None, used: set[tuple[str, int]], zones: Zones,
                 labels: Labels, ligne_max: int) -> Recit:
    """The récit without what the exchanges in condensé and net overtook (`overtaken`):
    the same object while none of them changed, so the bounded récit's memo holds."""
    used.add(_AHEAD_KEY)
    used.update(("read", item.seq) for item in zones.net)  # kept while in net
    waiting = tuple((item, item.answer, item.signals) for item in (*zones.condense, *zones.net))
    cached = memo.get(_AHEAD_KEY) if memo is not None else None
    if cached is not None:
        made_of = cached[0]
        assert len(made_of) == 5  # the key holds what overtaken made
        if (made_of[0] is zones.recit and made_of[2] is labels and made_of[3] == ligne_max
                and len(made_of[1]) == len(waiting)
                and all(old[0] is new[0] and old[1] is new[1] and old[2] is new[2]
                        for old, new in zip(made_of[1], waiting, strict=True))):
            return made_of[4]

    def read(item: Item) -> Signals:
        """A net exchange's signals, read once while it stays in net: the memo keeps only
        what this view used, so nothing outlives the exchange's stay."""
        key = ("read", item.seq)
        cached = memo.get(key) if memo is not None else None
        if cached is not None:
            made_of = cached[0]
            assert len(made_of) == 3  # the key holds what was read
            if made_of[0] is item and made_of[1] is item.answer:
                return made_of[2]
        signals = signals_of(item)
        if memo is not None:
            memo[key] = ((item, item.answer, signals), "")
        return signals

    recit = overtaken(zones.recit, zones.condense, zones.net, labels, ligne_max, read)
    if memo is not None:
        memo[_AHEAD_KEY] = ((zones.recit, waiting, labels, ligne_max, recit), "")
    return recit


def bounded_recit(memo: BlockMemo | None, used: set[tuple[str, int]], recit: Recit,
                  mission: str | None, budget: int, quote_room: int, labels: Labels,
                  waiting: tuple[Quote, ...]) -> tuple[Recit, str | None, str, bool]:
    """bound_recit, the block of what it keeps, and whether it left a rule out for room
    (`rule_left_out`): the récit changes only at folds, so a bee's earlier view usually
    has all of them (`memo`)."""
    used.add(_RECIT_KEY)
    cached = memo.get(_RECIT_KEY) if memo is not None else None
    if cached is not None:
        made_of = cached[0]
        assert len(made_of) == 9  # the récit's key holds the récit's
        if (made_of[0] is recit and made_of[1] == mission and made_of[2] == budget
                and made_of[3] == quote_room and made_of[4] is labels
                and made_of[7] == waiting):
            return made_of[5], made_of[6], cached[1], made_of[8]
    bounded, shown_mission = bound_recit(recit, mission, budget, labels, quote_room, waiting)
    text = recit_text(bounded, shown_mission, labels)
    left_out = rule_left_out(recit, bounded, waiting)
    if memo is not None:
        memo[_RECIT_KEY] = ((recit, mission, budget, quote_room, labels, bounded,
                             shown_mission, waiting, left_out), text)
    return bounded, shown_mission, text, left_out


def waiting_words(zones: Zones) -> tuple[Quote, ...]:
    """The operator's standing words in condensé and net, not yet folded into Paroles:
    one that withdraws or replaces a rule already withdraws it from the view."""
    waiting = []
    for item in (*zones.condense, *zones.net):
        text = _standing(item.question) if item.lighthouse else None
        if text is not None:
            waiting.append(Quote(item.seq, text))
    return tuple(waiting)


@functools.lru_cache(maxsize=1024)
def _standing(question: str) -> str | None:
    """A lighthouse's words as Paroles would quote them, when they stand: asked again at
    every view while the lighthouse is in condensé or net."""
    text = quotable(question)
    return text if text is not None and not is_passing_word(text) else None
