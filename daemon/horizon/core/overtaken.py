"""What exchanges still waiting in condensé or net have overtaken in the récit (pure,
ADR 0008): a failure a later run fixed, a ticket since closed, a decision since replaced.

The récit learns an exchange when it folds; until then the view shows the exchange whole
or condensed below the récit, and the récit must not say the opposite above it ("the
tests fail" over the run that passes). Such lines leave the view; nothing is added: what
the waiting exchanges say, they say themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from horizon.core.blocks import Item, Signals
from horizon.core.facts import learn_ahead
from horizon.core.labels import DECISIONS, ERRORS, WORK, Labels
from horizon.core.recit import Recit
from horizon.core.records import FAILURES_KEPT
from horizon.core.sections import (
    ERROR_LINE_CHARS,
    current_decisions,
    decision_lines,
    error_lines,
    ticket_lines,
)
from horizon.core.signals import signals_of


def overtaken(recit: Recit, condensed: Sequence[Item], net: Sequence[Item], labels: Labels,
              ligne_max: int, read_net: Callable[[Item], Signals] = signals_of) -> Recit:
    """`recit` without the Errors, Work in progress and Décisions lines that the exchanges
    waiting in condensé and net (each in seq order) make untrue; `read_net` reads a net
    exchange (the caller may keep what it read)."""
    if not any(recit.lines_of(name) for name in (ERRORS, WORK, DECISIONS)):
        return recit
    # A condensed exchange was read as it left net; one whose reading is still owed is
    # passed over: its answer is no longer whole.
    read = [(item, item.signals) for item in condensed if item.signals is not None]
    read += [(item, read_net(item)) for item in net]
    if not read:
        return recit
    facts = recit.facts
    ahead, fixed = learn_ahead(facts, read)
    width = min(ligne_max, ERROR_LINE_CHARS)
    # A failure a later run fixed, though it may have failed again since (that failure is
    # shown below); not one let go to make room (the records full).
    full = len(ahead.failures) >= FAILURES_KEPT or len(ahead.tests) >= FAILURES_KEPT
    stale = {ERRORS: set() if full or not fixed else {
        line for record, line in error_lines(facts, labels.colon, width) if record in fixed}}
    # A ticket closed: a line goes when every ticket it names is.
    closed = {name for name, ticket in facts.tickets.items() if ticket.in_flight
              and name in ahead.tickets and not ahead.tickets[name].in_flight}
    stale[WORK] = {line for names, line in ticket_lines(facts, ligne_max)
                   if closed.issuperset(names)} if closed else set()
    # A decision a waiting one replaces; not one let go to make room.
    kept = set(ahead.decisions)
    now = set(current_decisions(ahead.decisions))
    stale[DECISIONS] = {line for decision, line in decision_lines(facts, ligne_max)
                        if decision in kept and decision not in now}
    if not any(stale.values()):
        return recit
    sections = {name: tuple(line for line in lines if line not in stale.get(name, ()))
                for name, lines in recit.sections.items()}
    return msgspec.structs.replace(
        recit, sections={name: lines for name, lines in sections.items() if lines})
