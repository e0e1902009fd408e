"""The text work a pass leaves to its end (pure).

A backlog of thousands of exchanges ends as a view of a few dozen and a récit of the last
folded ones, so reading every exchange that passes through is mostly waste. While a pass
runs with `Deferred`, an exchange leaving net keeps its whole answer here instead of
having its signals read, and a fold queues its exchanges instead of composing the récit.
When the pass ends, `zones.settle` reads the signals of the exchanges still held, and
`compose` writes the récit once.

`compose` learns only from the last ERRORS_WINDOW folded exchanges: no fact of an older
one outlives that window except the next step, which is carried, and the operator's
words, which are all merged. The récit being a function of the folded exchanges in
order, whatever the batches (ADR 0008), this is the récit that composing at every fold
gives; a property test holds the two equal.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import msgspec

from horizon.core.blocks import Item
from horizon.core.recit import Fact, Facts, Quote, Recit, add_quotes
from horizon.core.settings import HorizonSettings
from horizon.core.truncation import (
    ERRORS_WINDOW,
    is_passing_word,
    learn_all,
    next_fact,
    sections_of,
    signals_of,
    stated_next_step,
)

# Quotes waiting for the récit are merged this many at a time, which bounds what they hold.
QUOTES_HELD = 512


def lighthouse_quotes(batch: list[Item]) -> list[Quote]:
    """The daemon's own record of a fold: each folded lighthouse's question, verbatim."""
    return [Quote(item.seq, item.question, passing=is_passing_word(item.question))
            for item in batch if item.lighthouse and item.question.strip()]


@dataclass
class Deferred:
    """What one pass owes the récit and the exchanges it evicted."""

    # The whole answers of the exchanges evicted in this pass, by seq, while they may
    # still need their signals read (held in condensé, or among the newest folded).
    answers: dict[int, str] = field(default_factory=dict)
    folded: deque[Item] = field(default_factory=deque)  # the newest ERRORS_WINDOW folded
    dropped: int = 0  # folded before those
    next_step: Fact | None = None  # the newest one the dropped exchanges gave
    quotes: list[Quote] = field(default_factory=list)
    quoted: Recit | None = None  # the récit with the quotes merged so far
    # Besides the text work, what spares the zones a look at all of net at each step:
    heads: dict[int, int] = field(default_factory=dict)  # net's exchanges' head_size
    unaged_at: float | None = None  # the `now` at which net held no aged exchange but its last

    def fold(self, recit: Recit, batch: list[Item], settings: HorizonSettings) -> None:
        """Queue a fold; `recit` is the récit as the pass found it."""
        self.folded.extend(batch)
        self.quotes += lighthouse_quotes(batch)
        while len(self.folded) > ERRORS_WINDOW:
            self._drop(recit, settings.ligne_max)
        if len(self.quotes) >= QUOTES_HELD:
            held = self.quoted if self.quoted is not None else recit
            self.quoted = add_quotes(held, self.quotes, settings.budget_recit)
            self.quotes = []

    def _drop(self, recit: Recit, ligne_max: int) -> None:
        """The oldest queued exchange leaves the window: only its next step can matter."""
        item = self.folded.popleft()
        self.dropped += 1
        answer = self.answers.pop(item.seq, None)
        if item.signals is not None:
            stated = item.signals.next_step
        else:
            stated = stated_next_step(answer if answer is not None else item.answer)
        fact = next_fact(item, stated, recit.folded + self.dropped, ligne_max)
        if fact is not None:
            self.next_step = fact

    def whole(self, item: Item) -> Item:
        """`item` with the answer it had in net, as its signals are read from."""
        answer = self.answers.get(item.seq)
        return item if answer is None else msgspec.structs.replace(item, answer=answer)

    def compose(self, recit: Recit, settings: HorizonSettings) -> Recit | None:
        """The récit after every queued fold, or None when nothing was folded."""
        if not self.folded:
            return None
        base = self.quoted if self.quoted is not None else recit
        facts = base.facts
        if self.dropped:
            # Every fact learnt before the window is out of it by now, but the next step.
            facts = Facts(next=self.next_step or facts.next)
        for item in self.folded:
            if item.signals is None:
                item.signals = signals_of(self.whole(item))
        facts, folded = learn_all(facts, base.folded + self.dropped, self.folded,
                                  settings.ligne_max)
        composed = msgspec.structs.replace(base, sections=sections_of(facts), facts=facts,
                                           folded=folded)
        return add_quotes(composed, self.quotes, settings.budget_recit)

    def clear(self) -> None:
        self.answers.clear()
        self.folded.clear()
        self.dropped = 0
        self.next_step = None
        self.quotes = []
        self.quoted = None
        self.heads.clear()
        self.unaged_at = None
