"""The text work a pass leaves to its end (pure).

A backlog of thousands of exchanges ends as a view of a few dozen and a récit of the
records the folded ones left, so reading every exchange that passes through is mostly
waste. While a pass runs with `Deferred`, an exchange leaving net keeps its answer here
(once folded, only its ends: all the rules read of it, `signals.ends`) instead of having
its signals read, and a fold queues its exchanges instead of composing the récit. When
the pass ends, `zones.settle` reads the signals of the exchanges still held, and
`compose` writes the récit once.

The records keep what the folded entries within RECORD_SPAN seqs of the newest folded
say, so an exchange folded further back than that can say nothing that lasts: it is let
go unread. The records being a function of the folded entries (ADR 0008), this is the
récit that composing at every fold gives; a property test holds the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from horizon.core.blocks import Item
from horizon.core.facts import is_passing_word, learn_all, quotable
from horizon.core.recit import Quote, Recit, add_quotes
from horizon.core.records import RECORD_SPAN
from horizon.core.sections import sections_of
from horizon.core.settings import HorizonSettings
from horizon.core.signals import ends, signals_of

# Quotes waiting for the récit are merged this many at a time, which bounds what they hold.
QUOTES_HELD = 512


def lighthouse_quotes(batch: list[Item]) -> list[Quote]:
    """The daemon's own record of a fold: each folded lighthouse's question, verbatim."""
    quotes = []
    for item in batch:
        text = quotable(item.question) if item.lighthouse else None
        if text is not None:
            quotes.append(Quote(item.seq, text, passing=is_passing_word(text)))
    return quotes


def quotes_kept(settings: HorizonSettings) -> int:
    """What the state keeps of the operator's words: what the récit and condensé hold."""
    return settings.budget_recit + settings.budget_condense


@dataclass
class Deferred:
    """What one pass owes the récit and the exchanges it evicted."""

    # The answers of the exchanges evicted in this pass, by seq, while they may still
    # need their signals read: whole while held in condensé (their content is hashed
    # too), their ends once folded within the span.
    answers: dict[int, str] = field(default_factory=dict)
    folded: list[Item] = field(default_factory=list)  # folded in this pass, within the span
    count: int = 0  # exchanges folded in this pass
    newest: int = 0  # the newest seq folded in this pass
    quotes: list[Quote] = field(default_factory=list)
    quoted: Recit | None = None  # the récit with the quotes merged so far
    # Besides the text work, what spares the zones a look at all of net at each step:
    heads: dict[int, int] = field(default_factory=dict)  # net's exchanges' head_size
    unaged_at: float | None = None  # the `now` at which net held no aged exchange but its last

    def hold(self, seq: int, answer: str) -> None:
        """An exchange leaving net: what its signals will be read from."""
        self.answers[seq] = answer

    def fold(self, recit: Recit, batch: list[Item], settings: HorizonSettings) -> None:
        """Queue a fold; `recit` is the récit as the pass found it."""
        self.count += len(batch)
        self.folded.extend(batch)
        answers = self.answers
        for item in batch:
            if item.seq in answers:
                answers[item.seq] = ends(answers[item.seq])  # all the rules read now
        self.newest = max(self.newest, recit.facts.newest, *(item.seq for item in batch))
        if len(self.folded) > 2 * RECORD_SPAN:
            self._let_go(self.newest - RECORD_SPAN)
        self.quotes += lighthouse_quotes(batch)
        if len(self.quotes) >= QUOTES_HELD:
            held = self.quoted if self.quoted is not None else recit
            self.quoted = add_quotes(held, self.quotes, quotes_kept(settings))
            self.quotes = []

    def _let_go(self, cutoff: int) -> None:
        """Folded exchanges the records can no longer keep anything of."""
        kept = []
        for item in self.folded:
            if item.seq > cutoff:
                kept.append(item)
            else:
                self.answers.pop(item.seq, None)
        self.folded = kept

    def whole(self, item: Item) -> Item:
        """`item` with the ends of the answer it had in net, as its signals are read from."""
        answer = self.answers.get(item.seq)
        return item if answer is None else msgspec.structs.replace(item, answer=answer)

    def compose(self, recit: Recit, settings: HorizonSettings) -> Recit | None:
        """The récit after every queued fold, or None when nothing was folded."""
        if not self.count:
            return None
        base = self.quoted if self.quoted is not None else recit
        self._let_go(self.newest - RECORD_SPAN)
        for item in self.folded:
            if item.signals is None:
                item.signals = signals_of(self.whole(item))
        facts = learn_all(base.facts, self.folded, self.newest)
        composed = msgspec.structs.replace(
            base, sections=sections_of(facts, settings.labels, settings.ligne_max),
            facts=facts, folded=base.folded + self.count)
        return add_quotes(composed, self.quotes, quotes_kept(settings))

    def clear(self) -> None:
        self.answers.clear()
        self.folded = []
        self.count = 0
        self.newest = 0
        self.quotes = []
        self.quoted = None
        self.heads.clear()
        self.unaged_at = None
