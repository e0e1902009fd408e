"""What the folded exchanges leave in the récit's records (pure, ADR 0008): files,
failures, tickets, decisions, the task and the next step, each by the newest seq that
said it, within a span of seqs.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

import msgspec

from horizon.core.blocks import Item, Signals
from horizon.core.chatter import is_chatter
from horizon.core.choices import settled
from horizon.core.coverage import covered_by
from horizon.core.noise import is_nudge, without_noise
from horizon.core.operator_words import is_filler, is_question, is_request, says_how_to_work
from horizon.core.patterns import Pattern
from horizon.core.records import (
    CHOICES_KEPT,
    DECISIONS_KEPT,
    FAILURES_KEPT,
    FILES_KEPT,
    RECORD_SPAN,
    TICKETS_KEPT,
    Asked,
    Decision,
    Facts,
    Failure,
    Stated,
    Ticket,
)
from horizon.core.signals import signals_of
from horizon.core.subjects import dropped_words, subject_words
from horizon.core.taking_back import withdraws_rule
from horizon.core.test_runs import covers, same_family
from horizon.core.tickets import CLOSES, OPENS, ticket_names


class _Learning:
    """The records being learnt, one folded entry at a time."""

    def __init__(self, facts: Facts) -> None:
        self.newest = facts.newest
        self.files = dict(facts.files)
        self.failures = dict(facts.failures)
        self.tests = dict(facts.tests)
        self.tickets = dict(facts.tickets)
        self.decisions = list(facts.decisions)
        self.task = facts.task
        self.step = facts.step
        self.asks = list(facts.asks)
        self.replies = list(facts.replies)

    def learn(self, item: Item, signals: Signals) -> None:
        seq = item.seq
        self.newest = max(self.newest, seq)
        for path in signals.paths:
            if self.files.get(path, 0) < seq:
                self.files[path] = seq
                _keep_newest(self.files, FILES_KEPT, lambda seen: seen)
        if signals.command is not None:
            self._ran(seq, signals)
        for name, state, sentence in signals.tickets:
            self._ticket(seq, name, state, sentence)
        for index, (text, about, reverses) in enumerate(signals.decisions):
            self.decisions.append(Decision(seq, text, subject_words(about),
                                           dropped_words(about), reverses,
                                           index < signals.operator_decided))
            self._keep_decisions()
        if signals.asked is not None:
            ask = Asked(seq, signals.asked, signals.options)
            self.asks = _newest(self.asks, ask)
            for reply in list(self.replies):  # a reply folded before the choice it settles
                if self._settles(reply):
                    self.replies.remove(reply)
        if signals.reply is not None:
            reply = Stated(seq, signals.reply)
            if not self._settles(reply):
                self.replies = _newest(self.replies, reply)
        if signals.task is not None and (self.task is None or self.task.seq < seq):
            self.task = Stated(seq, signals.task)
        if signals.step is not None and (self.step is None or self.step.seq < seq):
            self.step = Stated(seq, signals.step, signals.step_asker)

    def _keep_decisions(self) -> None:
        while len(self.decisions) > DECISIONS_KEPT:
            self.decisions.remove(min(self.decisions,
                                      key=lambda decision: (decision.seq, decision.text)))

    def _settles(self, reply: Stated) -> bool:
        """Whether the operator's short reply settles a choice the bee asked for: then it
        is the operator's decision, in place of what else its words decided."""
        chosen = settled(tuple(self.asks), (reply,))
        if not chosen:
            return False
        self.decisions = [decision for decision in self.decisions if decision.seq != reply.seq]
        self.decisions.extend(chosen)
        self._keep_decisions()
        return True

    def _ran(self, seq: int, signals: Signals) -> None:
        """A call that did more than read: a failure opens, a success resolves the older
        failures of the same call, of the test files and tests it covers, or of every
        test of its family."""
        key, command = signals.key, signals.command
        assert key is not None and command is not None
        if signals.failure is not None:
            paths = signals.failed_tests or signals.tests or tuple(
                dict.fromkeys(node.split("::", 1)[0] for node in signals.nodes))
            nodes = signals.failed_nodes or signals.nodes
            for path in paths:
                failed = Failure(seq, command, key, signals.failure, signals.suite,
                                 tuple(node for node in nodes
                                       if node.split("::", 1)[0] == path))
                if path not in self.tests or self.tests[path].seq < seq:
                    self.tests[path] = failed
                    _keep_newest(self.tests, FAILURES_KEPT, _SEQ_OF)
            if not paths and (key not in self.failures or self.failures[key].seq < seq):
                self.failures[key] = Failure(seq, command, key, signals.failure,
                                             signals.suite)
                _keep_newest(self.failures, FAILURES_KEPT, _SEQ_OF)
            return
        for failed_key, older in list(self.failures.items()):
            if older.seq < seq and (failed_key == key or covered_by(key, failed_key)):
                del self.failures[failed_key]
        if signals.tests is None:
            return
        for failed_key, failure in list(self.failures.items()):
            if (signals.whole_suite and same_family(failure.suite, signals.suite)
                    and failure.seq < seq):
                del self.failures[failed_key]
        for path, failure in list(self.tests.items()):
            if failure.seq >= seq:
                continue
            if ((signals.whole_suite and same_family(failure.suite, signals.suite))
                    or failure.key == key
                    or any(covers(ran, path) for ran in signals.tests)):
                del self.tests[path]
                continue
            ran = {node for node in signals.nodes if node.split("::", 1)[0] == path}
            if ran and failure.nodes:  # some of its tests passed: those left still fail
                left = tuple(node for node in failure.nodes if node not in ran)
                if left:
                    self.tests[path] = msgspec.structs.replace(failure, nodes=left)
                else:
                    del self.tests[path]

    def _ticket(self, seq: int, name: str, state: int, sentence: str) -> None:
        ticket = self.tickets.get(name) or Ticket(0, 0, 0, "")
        opened, closed, said = ticket.opened, ticket.closed, ticket.said
        if state == OPENS and opened < seq:
            opened, said = seq, sentence
        elif state == CLOSES:
            closed = max(closed, seq)
        self.tickets[name] = Ticket(opened, closed, max(ticket.worked, seq), said)
        _keep_newest(self.tickets, TICKETS_KEPT, lambda kept: kept.newest)

    def done(self, newest: int, span: int = RECORD_SPAN) -> Facts:
        """The records, those of entries more than `span` seqs older than `newest`
        (the newest seq folded, maybe by entries not learnt) let go."""
        newest = max(newest, self.newest)
        cutoff = newest - span
        tickets = {}
        for name, ticket in self.tickets.items():
            opened, closed, worked = (seq if seq > cutoff else 0 for seq in (
                ticket.opened, ticket.closed, ticket.worked))
            kept = Ticket(opened, closed, worked, ticket.said if opened else "")
            if kept.newest:
                tickets[name] = kept
        return Facts(
            newest,
            {path: seq for path, seq in self.files.items() if seq > cutoff},
            {key: failure for key, failure in self.failures.items() if failure.seq > cutoff},
            {key: failure for key, failure in self.tests.items() if failure.seq > cutoff},
            tickets,
            tuple(sorted((decision for decision in self.decisions if decision.seq > cutoff),
                         key=lambda decision: (decision.seq, decision.text))),
            self.task if self.task is not None and self.task.seq > cutoff else None,
            self.step if self.step is not None and self.step.seq > cutoff else None,
            tuple(ask for ask in self.asks if ask.seq > cutoff),
            tuple(reply for reply in self.replies if reply.seq > cutoff))


_SEQ_OF: Callable[[Failure | Asked | Stated], int] = operator.attrgetter("seq")
_Seqd = TypeVar("_Seqd", Asked, Stated)


def _newest(records: list[_Seqd], record: _Seqd) -> list[_Seqd]:
    """The newest CHOICES_KEPT of `records` and `record`, by seq."""
    kept = list(records)
    kept.append(record)
    kept.sort(key=_SEQ_OF)
    return kept[-CHOICES_KEPT:]


def quotable(question: str) -> str | None:
    """What Paroles quotes of a folded lighthouse's question: its words without the
    runtime's noise, or None when nothing is left that stands (chatter, a nudge)."""
    text = without_noise(question)
    if not text.strip() or is_chatter(text) or is_nudge(text):
        return None
    return text


# A ticket named as an example ("a branch per ticket, like bot/WX-12") is no ticket's work.
_EXAMPLES = Pattern(r"\b(?:like|such\s+as|e\.g\.,?|for\s+(?:example|instance)|comme|"
                    r"par\s+exemple|tel(?:le)?s?\s+que)\s+[«\"'`]?[\w./#-]+", re.IGNORECASE)


def is_passing_word(text: str) -> bool:
    """Operator words that expire: a question (the bee answered it), words about a ticket
    (done when the ticket is), a request for work now (the task and the next step carry
    it), or words that only carry on. Standing instructions outlast them."""
    if withdraws_rule(text[:1200]) and not is_question(text):
        return False  # words about a rule stand as long as the rule they undo
    if is_question(text) or is_filler(text) or ticket_names(_EXAMPLES.sub(" ", text[:1200])):
        return True
    return is_request(text[:1200]) and not says_how_to_work(text)


_Record = TypeVar("_Record")


def _keep_newest(records: dict[str, _Record], cap: int,
                 newest_of: Callable[[_Record], int]) -> None:
    """Over its cap, a kind of record lets its oldest go (one at a time, as they come, so
    that the batches do not matter)."""
    if len(records) > cap:
        del records[min(records, key=lambda key: (newest_of(records[key]), key))]


def learn_all(facts: Facts, batch: Iterable[Item], newest: int = 0) -> Facts:
    """The records after `batch` is folded, in order (`newest`: a newer seq folded whose
    entry is not learnt: a pass that let it go as out of the span)."""
    learning = _Learning(facts)
    for item in batch:
        if item.signals is None:
            item.signals = signals_of(item)
        learning.learn(item, item.signals)
    return learning.done(newest)


def learn_ahead(facts: Facts, read: Iterable[tuple[Item, Signals]]
                ) -> tuple[Facts, set[tuple[bool, str]]]:
    """The records as they would be once exchanges not yet folded are, each with what it
    says (`read`), in order, nothing let go for its age; and the failures of `facts` that
    a run among them fixed, even if one failed again after it: (False, the command's key)
    or (True, the test path)."""
    learning = _Learning(facts)
    fixed: set[tuple[bool, str]] = set()
    for item, signals in read:
        learning.learn(item, signals)
        if signals.command is not None and signals.failure is None:
            fixed.update((False, key) for key in facts.failures if key not in learning.failures)
            fixed.update((True, path) for path in facts.tests if path not in learning.tests)
    return learning.done(0, span=max(RECORD_SPAN, learning.newest + 1)), fixed
